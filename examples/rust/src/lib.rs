//! Safe Rust bindings to the atenaot C ABI (`atenaot.h`): run a model compiled
//! by `atenaot compile MODEL --inputs X.npy -o DIR --name NAME` from Rust.
//!
//! ```no_run
//! use atenaot::{Model, TensorMut, TensorRef};
//! let mut model = Model::open("out/mlp/libmlp.so")?;
//! let mut x = vec![0.0f32; 8 * 64];
//! let mut y = vec![0.0f32; 8 * 10];
//! model.run(&[TensorRef::new(&mut x, &[8, 64])?], &mut [TensorMut::new(&mut y, &[8, 10])?])?;
//! # Ok::<(), atenaot::Error>(())
//! ```
//!
//! Build with `ATENAOT_LIB_DIR=DIR` (see `build.rs`): the crate links
//! `DIR/libatenaot_runtime.so` dynamically. It has no dependencies.
//!
//! Inputs are borrowed mutably: the ABI lets a model update inputs in place
//! (in-place ops on inputs in the source program) and does not say which
//! inputs it writes, so a shared borrow could be written through. Use
//! [`TensorRef::from_slice`] (unsafe) when you know the model does not.
#![deny(missing_docs)]

use std::ffi::{CStr, CString};
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};
use std::path::Path;
use std::ptr::NonNull;

/// The raw C ABI, declared as in `atenaot.h`.
#[allow(non_camel_case_types, missing_docs)]
pub mod sys {
    use std::os::raw::{c_char, c_void};

    pub const ATENAOT_ABI_VERSION: u32 = 2;
    pub const AOT_MAX_DIMS: usize = 8;

    /// `aot_status` (an `int32_t`: ABI 2 has no C enum types).
    pub type aot_status = i32;
    pub const AOT_OK: aot_status = 0;
    pub const AOT_ERR_NULL_POINTER: aot_status = 1;
    pub const AOT_ERR_BAD_COUNT: aot_status = 2;
    pub const AOT_ERR_BAD_DTYPE: aot_status = 3;
    pub const AOT_ERR_BAD_SHAPE: aot_status = 4;
    pub const AOT_ERR_BAD_STRIDES: aot_status = 5;
    pub const AOT_ERR_ARENA_TOO_SMALL: aot_status = 6;
    pub const AOT_ERR_ABI_MISMATCH: aot_status = 7;
    pub const AOT_ERR_OPEN_FAILED: aot_status = 8;
    pub const AOT_ERR_OUT_OF_MEMORY: aot_status = 9;
    pub const AOT_ERR_BAD_INDEX: aot_status = 10;
    pub const AOT_ERR_INTERNAL: aot_status = 11;
    pub const AOT_ERR_DEVICE: aot_status = 12;
    pub const AOT_ERR_BAD_DEVICE: aot_status = 13;
    pub const AOT_ERR_BAD_ALIGNMENT: aot_status = 14;
    pub const AOT_ERR_BAD_OPTION: aot_status = 15;
    pub const AOT_ERR_OVERLAP: aot_status = 16;
    pub const AOT_ERR_CORRUPT_WEIGHTS: aot_status = 17;
    pub const AOT_ERR_UNSUPPORTED_CPU: aot_status = 18;
    pub const AOT_ERR_INDEX_OUT_OF_RANGE: aot_status = 19;

    /// `aot_dtype` (kept as an integer: a value the C side sends that Rust
    /// does not know must not become an invalid Rust enum).
    pub type aot_dtype = i32;
    pub const AOT_FLOAT32: aot_dtype = 0;
    pub const AOT_FLOAT64: aot_dtype = 1;
    pub const AOT_INT32: aot_dtype = 2;
    pub const AOT_INT64: aot_dtype = 3;
    pub const AOT_BOOL: aot_dtype = 4;
    pub const AOT_UINT8: aot_dtype = 5;
    pub const AOT_INT8: aot_dtype = 6;
    pub const AOT_INT16: aot_dtype = 7;

    /// `aot_device`: where a tensor's data or a model's kernels live.
    pub type aot_device = i32;
    pub const AOT_DEVICE_CPU: aot_device = 0;
    pub const AOT_DEVICE_CUDA: aot_device = 1;
    /// `aot_tensor_info.flags`: the model updates this input in place.
    pub const AOT_INFO_MUTATED: i32 = 1;

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct aot_tensor {
        pub data: *mut c_void,
        pub dtype: aot_dtype,
        pub ndim: i32,
        pub device: aot_device,
        pub reserved: i32,
        pub sizes: [i64; AOT_MAX_DIMS],
        pub strides: [i64; AOT_MAX_DIMS],
    }

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    pub struct aot_tensor_info {
        pub name: *const c_char,
        pub dtype: aot_dtype,
        pub ndim: i32,
        pub sizes: [i64; AOT_MAX_DIMS],
        pub flags: i32,
        pub reserved: i32,
    }

    /// Opaque model handle.
    #[repr(C)]
    pub struct aot_model {
        _private: [u8; 0],
    }

    // Linked by build.rs (libatenaot_runtime.so from ATENAOT_LIB_DIR).
    extern "C" {
        pub fn aot_abi_version() -> u32;
        pub fn aot_version_string() -> *const c_char;
        pub fn aot_last_error() -> *const c_char;
        pub fn aot_status_name(status: aot_status) -> *const c_char;
        pub fn aot_model_open(library_path: *const c_char, out_model: *mut *mut aot_model) -> aot_status;
        pub fn aot_model_free(model: *mut aot_model);
        pub fn aot_model_num_inputs(model: *const aot_model, out_count: *mut usize) -> aot_status;
        pub fn aot_model_num_outputs(model: *const aot_model, out_count: *mut usize) -> aot_status;
        pub fn aot_model_input_info(model: *const aot_model, index: usize, out_info: *mut aot_tensor_info)
            -> aot_status;
        pub fn aot_model_output_info(model: *const aot_model, index: usize, out_info: *mut aot_tensor_info)
            -> aot_status;
        pub fn aot_model_arena_bytes(model: *const aot_model, out_bytes: *mut usize) -> aot_status;
        pub fn aot_model_run(
            model: *mut aot_model,
            inputs: *const aot_tensor,
            num_inputs: usize,
            outputs: *mut aot_tensor,
            num_outputs: usize,
            arena: *mut c_void,
            arena_bytes: usize,
        ) -> aot_status;
        pub fn aot_model_device(model: *const aot_model, out_device: *mut aot_device) -> aot_status;
        pub fn aot_model_run_on_stream(
            model: *mut aot_model,
            inputs: *const aot_tensor,
            num_inputs: usize,
            outputs: *mut aot_tensor,
            num_outputs: usize,
            arena: *mut c_void,
            arena_bytes: usize,
            stream: *mut c_void,
        ) -> aot_status;
        pub fn aot_model_set_option(model: *mut aot_model, key: *const c_char, value: i64) -> aot_status;
    }

    // The layouts of atenaot.h on LP64 (x86-64, aarch64): checked at compile time.
    const _: () = assert!(std::mem::size_of::<aot_tensor>() == 8 + 4 * 4 + 64 + 64);
    const _: () = assert!(std::mem::size_of::<aot_tensor_info>() == 8 + 4 + 4 + 64 + 8);
}

/// Why a call failed: the ABI's status and what `aot_last_error()` said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// AOT_ERR_NULL_POINTER
    NullPointer,
    /// AOT_ERR_BAD_COUNT: wrong number of inputs or outputs
    BadCount,
    /// AOT_ERR_BAD_DTYPE
    BadDtype,
    /// AOT_ERR_BAD_SHAPE: rank or sizes differ (or data and shape disagree)
    BadShape,
    /// AOT_ERR_BAD_STRIDES
    BadStrides,
    /// AOT_ERR_ARENA_TOO_SMALL
    ArenaTooSmall,
    /// AOT_ERR_ABI_MISMATCH
    AbiMismatch,
    /// AOT_ERR_OPEN_FAILED
    OpenFailed,
    /// AOT_ERR_OUT_OF_MEMORY
    OutOfMemory,
    /// AOT_ERR_BAD_INDEX
    BadIndex,
    /// AOT_ERR_INTERNAL
    Internal,
    /// AOT_ERR_DEVICE: the device (CUDA) reported an error
    Device,
    /// AOT_ERR_BAD_DEVICE: a tensor on a device the model does not take
    BadDevice,
    /// AOT_ERR_BAD_ALIGNMENT: the arena is not 64-byte aligned
    BadAlignment,
    /// AOT_ERR_BAD_OPTION: an option the model does not have
    BadOption,
    /// AOT_ERR_CORRUPT_WEIGHTS: the weights fail their CRC-32 check
    CorruptWeights,
    /// AOT_ERR_OVERLAP: a tensor overlaps the arena, or an output another tensor
    Overlap,
    /// AOT_ERR_UNSUPPORTED_CPU: the library was built for CPU features this CPU lacks
    UnsupportedCpu,
    /// AOT_ERR_INDEX_OUT_OF_RANGE: a tensor of indices holds a value outside its dimension
    IndexOutOfRange,
    /// A code this crate does not know.
    Unknown(i32),
}

impl Status {
    /// The status for a raw `aot_status` (None for AOT_OK).
    pub fn from_raw(code: sys::aot_status) -> Option<Status> {
        Some(match code {
            sys::AOT_OK => return None,
            sys::AOT_ERR_NULL_POINTER => Status::NullPointer,
            sys::AOT_ERR_BAD_COUNT => Status::BadCount,
            sys::AOT_ERR_BAD_DTYPE => Status::BadDtype,
            sys::AOT_ERR_BAD_SHAPE => Status::BadShape,
            sys::AOT_ERR_BAD_STRIDES => Status::BadStrides,
            sys::AOT_ERR_ARENA_TOO_SMALL => Status::ArenaTooSmall,
            sys::AOT_ERR_ABI_MISMATCH => Status::AbiMismatch,
            sys::AOT_ERR_OPEN_FAILED => Status::OpenFailed,
            sys::AOT_ERR_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::AOT_ERR_BAD_INDEX => Status::BadIndex,
            sys::AOT_ERR_INTERNAL => Status::Internal,
            sys::AOT_ERR_DEVICE => Status::Device,
            sys::AOT_ERR_BAD_DEVICE => Status::BadDevice,
            sys::AOT_ERR_BAD_ALIGNMENT => Status::BadAlignment,
            sys::AOT_ERR_BAD_OPTION => Status::BadOption,
            sys::AOT_ERR_CORRUPT_WEIGHTS => Status::CorruptWeights,
            sys::AOT_ERR_OVERLAP => Status::Overlap,
            sys::AOT_ERR_UNSUPPORTED_CPU => Status::UnsupportedCpu,
            sys::AOT_ERR_INDEX_OUT_OF_RANGE => Status::IndexOutOfRange,
            other => Status::Unknown(other),
        })
    }

    /// The raw `aot_status` code.
    pub fn code(self) -> sys::aot_status {
        match self {
            Status::NullPointer => sys::AOT_ERR_NULL_POINTER,
            Status::BadCount => sys::AOT_ERR_BAD_COUNT,
            Status::BadDtype => sys::AOT_ERR_BAD_DTYPE,
            Status::BadShape => sys::AOT_ERR_BAD_SHAPE,
            Status::BadStrides => sys::AOT_ERR_BAD_STRIDES,
            Status::ArenaTooSmall => sys::AOT_ERR_ARENA_TOO_SMALL,
            Status::AbiMismatch => sys::AOT_ERR_ABI_MISMATCH,
            Status::OpenFailed => sys::AOT_ERR_OPEN_FAILED,
            Status::OutOfMemory => sys::AOT_ERR_OUT_OF_MEMORY,
            Status::BadIndex => sys::AOT_ERR_BAD_INDEX,
            Status::Internal => sys::AOT_ERR_INTERNAL,
            Status::Device => sys::AOT_ERR_DEVICE,
            Status::BadDevice => sys::AOT_ERR_BAD_DEVICE,
            Status::BadAlignment => sys::AOT_ERR_BAD_ALIGNMENT,
            Status::BadOption => sys::AOT_ERR_BAD_OPTION,
            Status::CorruptWeights => sys::AOT_ERR_CORRUPT_WEIGHTS,
            Status::Overlap => sys::AOT_ERR_OVERLAP,
            Status::UnsupportedCpu => sys::AOT_ERR_UNSUPPORTED_CPU,
            Status::IndexOutOfRange => sys::AOT_ERR_INDEX_OUT_OF_RANGE,
            Status::Unknown(c) => c,
        }
    }

    /// The fixed name the runtime gives the status ("AOT_ERR_BAD_SHAPE", ...).
    pub fn name(self) -> String {
        // SAFETY: aot_status_name returns a static string for every code.
        unsafe { c_string(sys::aot_status_name(self.code())) }
    }
}

/// An error from the C ABI (or from this crate's checks before a call, with
/// the status the ABI would use).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure.
    pub status: Status,
    /// The runtime's message (`aot_last_error()`), or this crate's.
    pub message: String,
}

impl Error {
    fn new(status: Status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }

    /// The status's name, e.g. "AOT_ERR_BAD_SHAPE".
    pub fn status_name(&self) -> String {
        self.status.name()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status_name(), self.message)
    }
}

impl std::error::Error for Error {}

unsafe fn c_string(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// Turns a status into a Result, reading aot_last_error() on this thread
/// right after the failing call (the message is per thread).
fn check(code: sys::aot_status) -> Result<(), Error> {
    match Status::from_raw(code) {
        None => Ok(()),
        // SAFETY: aot_last_error returns a valid, NUL-terminated thread-local string.
        Some(status) => Err(Error::new(status, unsafe { c_string(sys::aot_last_error()) })),
    }
}

/// Element types of tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// f32
    Float32,
    /// f64
    Float64,
    /// i32
    Int32,
    /// i64
    Int64,
    /// one byte, 0 or 1 (pass `u8` data with [`TensorRef::from_bytes`])
    Bool,
    /// u8
    UInt8,
    /// i8
    Int8,
    /// i16
    Int16,
}

impl DType {
    /// From the raw `aot_dtype`.
    pub fn from_raw(code: sys::aot_dtype) -> Option<DType> {
        Some(match code {
            sys::AOT_FLOAT32 => DType::Float32,
            sys::AOT_FLOAT64 => DType::Float64,
            sys::AOT_INT32 => DType::Int32,
            sys::AOT_INT64 => DType::Int64,
            sys::AOT_BOOL => DType::Bool,
            sys::AOT_UINT8 => DType::UInt8,
            sys::AOT_INT8 => DType::Int8,
            sys::AOT_INT16 => DType::Int16,
            _ => return None,
        })
    }

    /// The raw `aot_dtype`.
    pub fn raw(self) -> sys::aot_dtype {
        match self {
            DType::Float32 => sys::AOT_FLOAT32,
            DType::Float64 => sys::AOT_FLOAT64,
            DType::Int32 => sys::AOT_INT32,
            DType::Int64 => sys::AOT_INT64,
            DType::Bool => sys::AOT_BOOL,
            DType::UInt8 => sys::AOT_UINT8,
            DType::Int8 => sys::AOT_INT8,
            DType::Int16 => sys::AOT_INT16,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Float64 | DType::Int64 => 8,
            DType::Float32 | DType::Int32 => 4,
            DType::Int16 => 2,
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Rust types that are tensor elements (every bit pattern valid, so outputs
/// the model writes are always valid values). Bool tensors use `u8` data
/// through `from_bytes`.
pub trait Element: Copy + sealed::Sealed {
    /// The element's dtype.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t { const DTYPE: DType = DType::$d; }
    )*};
}
element!(f32 => Float32, f64 => Float64, i32 => Int32, i64 => Int64, u8 => UInt8, i8 => Int8, i16 => Int16);

/// What a model expects for one input or returns for one output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// The value's name in the compiled graph.
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Sizes, outermost first.
    pub shape: Vec<i64>,
    /// An input the model updates in place (in-place ops of the source program).
    pub mutated: bool,
}

impl TensorInfo {
    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product::<i64>() as usize
    }
}

fn describe(data: *mut c_void, bytes: usize, dtype: DType, shape: &[i64]) -> Result<sys::aot_tensor, Error> {
    if shape.len() > sys::AOT_MAX_DIMS {
        return Err(Error::new(
            Status::BadShape,
            format!("tensors have at most {} dimensions, got {}", sys::AOT_MAX_DIMS, shape.len()),
        ));
    }
    let mut numel: i64 = 1;
    for &s in shape {
        if s < 0 {
            return Err(Error::new(Status::BadShape, format!("negative size in shape {shape:?}")));
        }
        numel = numel
            .checked_mul(s)
            .ok_or_else(|| Error::new(Status::BadShape, format!("shape {shape:?} overflows")))?;
    }
    let need = (numel as u128) * dtype.size() as u128;
    if need != bytes as u128 {
        return Err(Error::new(
            Status::BadShape,
            format!("shape {shape:?} of {dtype:?} needs {need} bytes, the data has {bytes}"),
        ));
    }
    let mut t = sys::aot_tensor {
        data,
        dtype: dtype.raw(),
        ndim: shape.len() as i32,
        device: sys::AOT_DEVICE_CPU,
        reserved: 0,
        sizes: [0; sys::AOT_MAX_DIMS],
        strides: [0; sys::AOT_MAX_DIMS],
    };
    let mut stride = 1i64;
    for d in (0..shape.len()).rev() {
        t.sizes[d] = shape[d];
        t.strides[d] = stride;
        stride *= shape[d];
    }
    Ok(t)
}

/// An input tensor: a contiguous row-major view of the caller's data. It
/// borrows the data mutably because models may update inputs in place.
pub struct TensorRef<'a> {
    raw: sys::aot_tensor,
    _data: PhantomData<&'a mut [u8]>,
}

impl<'a> TensorRef<'a> {
    /// `data` holds exactly the product of `shape` elements.
    pub fn new<T: Element>(data: &'a mut [T], shape: &[i64]) -> Result<Self, Error> {
        let bytes = std::mem::size_of_val(data);
        Ok(TensorRef { raw: describe(data.as_mut_ptr().cast(), bytes, T::DTYPE, shape)?, _data: PhantomData })
    }

    /// Raw bytes of any dtype (bool tensors: one byte per element, 0 or 1).
    /// The bytes must be aligned for the dtype.
    pub fn from_bytes(data: &'a mut [u8], dtype: DType, shape: &[i64]) -> Result<Self, Error> {
        if (data.as_ptr() as usize) % dtype.size() != 0 {
            return Err(Error::new(Status::BadStrides, format!("data is not aligned for {dtype:?}")));
        }
        Ok(TensorRef { raw: describe(data.as_mut_ptr().cast(), data.len(), dtype, shape)?, _data: PhantomData })
    }

    /// A shared borrow of the data.
    ///
    /// # Safety
    /// The model must not update this input in place (it does only when the
    /// source program mutates that input, e.g. `x.add_(1)` on an argument).
    pub unsafe fn from_slice<T: Element>(data: &'a [T], shape: &[i64]) -> Result<Self, Error> {
        let bytes = std::mem::size_of_val(data);
        Ok(TensorRef { raw: describe(data.as_ptr() as *mut c_void, bytes, T::DTYPE, shape)?, _data: PhantomData })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        DType::from_raw(self.raw.dtype).expect("TensorRef holds a known dtype")
    }

    /// Sizes, outermost first.
    pub fn shape(&self) -> &[i64] {
        &self.raw.sizes[..self.raw.ndim as usize]
    }
}

/// An output tensor: caller memory the model writes its result into.
pub struct TensorMut<'a> {
    raw: sys::aot_tensor,
    _data: PhantomData<&'a mut [u8]>,
}

impl<'a> TensorMut<'a> {
    /// `data` holds exactly the product of `shape` elements.
    pub fn new<T: Element>(data: &'a mut [T], shape: &[i64]) -> Result<Self, Error> {
        let bytes = std::mem::size_of_val(data);
        Ok(TensorMut { raw: describe(data.as_mut_ptr().cast(), bytes, T::DTYPE, shape)?, _data: PhantomData })
    }

    /// Raw bytes of any dtype, aligned for it.
    pub fn from_bytes(data: &'a mut [u8], dtype: DType, shape: &[i64]) -> Result<Self, Error> {
        if (data.as_ptr() as usize) % dtype.size() != 0 {
            return Err(Error::new(Status::BadStrides, format!("data is not aligned for {dtype:?}")));
        }
        Ok(TensorMut { raw: describe(data.as_mut_ptr().cast(), data.len(), dtype, shape)?, _data: PhantomData })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        DType::from_raw(self.raw.dtype).expect("TensorMut holds a known dtype")
    }

    /// Sizes, outermost first.
    pub fn shape(&self) -> &[i64] {
        &self.raw.sizes[..self.raw.ndim as usize]
    }
}

/// Scratch memory for [`Model::run_with_arena`]: 64-byte aligned, owned.
pub struct Arena {
    ptr: NonNull<u8>,
    layout: std::alloc::Layout,
    bytes: usize,
}

impl Arena {
    /// An arena of `bytes` bytes (use [`Model::arena_bytes`]).
    pub fn new(bytes: usize) -> Arena {
        let layout = std::alloc::Layout::from_size_align(bytes.max(64), 64).expect("arena size overflows");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Arena { ptr, layout, bytes }
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: allocated in Arena::new with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

// SAFETY: an Arena is plain owned memory.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

/// A compiled model opened through the loader; freed on drop.
pub struct Model {
    raw: NonNull<sys::aot_model>,
    inputs: Vec<TensorInfo>,
    outputs: Vec<TensorInfo>,
    arena_bytes: usize,
}

// SAFETY: the handle has no thread affinity. `run` (which uses the model's own
// arena) takes &mut self; `run_with_arena` uses only the caller's arena, and
// the header allows concurrent runs with distinct arenas; the info getters
// only read immutable tables.
unsafe impl Send for Model {}
unsafe impl Sync for Model {}

/// The runtime's ABI version (`aot_abi_version()`).
pub fn abi_version() -> u32 {
    // SAFETY: no arguments, no preconditions.
    unsafe { sys::aot_abi_version() }
}

/// The runtime's version string, e.g. "atenaot 0.1.0".
pub fn version() -> String {
    // SAFETY: returns a static string.
    unsafe { c_string(sys::aot_version_string()) }
}

impl Model {
    /// Opens `DIR/libNAME.so` as written by `atenaot compile`.
    pub fn open<P: AsRef<Path>>(lib_path: P) -> Result<Model, Error> {
        if abi_version() != sys::ATENAOT_ABI_VERSION {
            return Err(Error::new(
                Status::AbiMismatch,
                format!("the runtime implements ABI {}, this crate {}", abi_version(), sys::ATENAOT_ABI_VERSION),
            ));
        }
        let path = lib_path.as_ref();
        #[cfg(unix)]
        let bytes = {
            use std::os::unix::ffi::OsStrExt;
            path.as_os_str().as_bytes().to_vec()
        };
        #[cfg(not(unix))]
        let bytes = path.to_string_lossy().into_owned().into_bytes();
        let c_path = CString::new(bytes)
            .map_err(|_| Error::new(Status::OpenFailed, format!("library path {} contains a NUL byte", path.display())))?;
        let mut raw: *mut sys::aot_model = std::ptr::null_mut();
        // SAFETY: valid C string and out pointer.
        check(unsafe { sys::aot_model_open(c_path.as_ptr(), &mut raw) })?;
        let raw = NonNull::new(raw).ok_or_else(|| Error::new(Status::Internal, "aot_model_open returned NULL"))?;
        let mut model = Model { raw, inputs: Vec::new(), outputs: Vec::new(), arena_bytes: 0 };
        model.inputs = model.infos(sys::aot_model_num_inputs, sys::aot_model_input_info)?;
        model.outputs = model.infos(sys::aot_model_num_outputs, sys::aot_model_output_info)?;
        // SAFETY: valid handle and out pointer.
        check(unsafe { sys::aot_model_arena_bytes(model.raw.as_ptr(), &mut model.arena_bytes) })?;
        Ok(model)
    }

    fn infos(
        &self,
        count: unsafe extern "C" fn(*const sys::aot_model, *mut usize) -> sys::aot_status,
        info: unsafe extern "C" fn(*const sys::aot_model, usize, *mut sys::aot_tensor_info) -> sys::aot_status,
    ) -> Result<Vec<TensorInfo>, Error> {
        let mut n = 0usize;
        // SAFETY: valid handle and out pointers; strings are owned by the model,
        // copied before it can go away.
        unsafe {
            check(count(self.raw.as_ptr(), &mut n))?;
            (0..n)
                .map(|k| {
                    let mut i = std::mem::MaybeUninit::<sys::aot_tensor_info>::zeroed();
                    check(info(self.raw.as_ptr(), k, i.as_mut_ptr()))?;
                    let i = i.assume_init();
                    let dtype = DType::from_raw(i.dtype).ok_or_else(|| {
                        Error::new(Status::BadDtype, format!("tensor {k} has dtype code {}, unknown here", i.dtype))
                    })?;
                    let ndim = (i.ndim.max(0) as usize).min(sys::AOT_MAX_DIMS);
                    Ok(TensorInfo {
                        name: c_string(i.name),
                        dtype,
                        shape: i.sizes[..ndim].to_vec(),
                        mutated: i.flags & sys::AOT_INFO_MUTATED != 0,
                    })
                })
                .collect()
        }
    }

    /// What each input must be.
    pub fn inputs(&self) -> &[TensorInfo] {
        &self.inputs
    }

    /// What each output is.
    pub fn outputs(&self) -> &[TensorInfo] {
        &self.outputs
    }

    /// Bytes of scratch memory one run needs.
    pub fn arena_bytes(&self) -> usize {
        self.arena_bytes
    }

    /// Sets a model option (aot_model_set_option): CPU models take
    /// "threads" (N >= 1, or 0 for one per CPU; the pool is per library)
    /// and "verify_weights" = 1; CUDA models "cuda_graph" 0/1.
    pub fn set_option(&mut self, key: &str, value: i64) -> Result<(), Error> {
        let key = CString::new(key)
            .map_err(|_| Error::new(Status::BadOption, "an option name contains a NUL byte".to_string()))?;
        // SAFETY: the handle is live and the key a valid C string for the call.
        check(unsafe { sys::aot_model_set_option(self.raw.as_ptr(), key.as_ptr(), value) })
    }

    /// The threads a CPU model's kernels split over (0: one per CPU).
    pub fn set_threads(&mut self, threads: i64) -> Result<(), Error> {
        self.set_option("threads", threads)
    }

    /// Runs the model with its own arena. On error nothing was written.
    pub fn run(&mut self, inputs: &[TensorRef], outputs: &mut [TensorMut]) -> Result<(), Error> {
        // SAFETY: TensorRef/TensorMut describe live, correctly sized memory
        // (checked at construction) borrowed for this call; &mut self makes
        // the model's own arena exclusive.
        unsafe { self.run_raw(inputs, outputs, std::ptr::null_mut(), 0) }
    }

    /// Runs the model with a caller arena (at least [`Model::arena_bytes`]):
    /// runs on one model with distinct arenas may run in parallel.
    pub fn run_with_arena(
        &self,
        inputs: &[TensorRef],
        outputs: &mut [TensorMut],
        arena: &mut Arena,
    ) -> Result<(), Error> {
        // SAFETY: as in run; the arena is exclusively borrowed and 64-byte aligned.
        unsafe { self.run_raw(inputs, outputs, arena.ptr.as_ptr().cast(), arena.len()) }
    }

    unsafe fn run_raw(
        &self,
        inputs: &[TensorRef],
        outputs: &mut [TensorMut],
        arena: *mut c_void,
        arena_bytes: usize,
    ) -> Result<(), Error> {
        let ins: Vec<sys::aot_tensor> = inputs.iter().map(|t| t.raw).collect();
        let mut outs: Vec<sys::aot_tensor> = outputs.iter().map(|t| t.raw).collect();
        check(sys::aot_model_run(
            self.raw.as_ptr(),
            ins.as_ptr(),
            ins.len(),
            outs.as_mut_ptr(),
            outs.len(),
            arena,
            arena_bytes,
        ))
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: the handle came from aot_model_open and is freed once.
        unsafe { sys::aot_model_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .field("arena_bytes", &self.arena_bytes)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_round_trip_and_have_the_runtime_names() {
        assert_eq!(Status::from_raw(0), None);
        for code in 1..=11 {
            let s = Status::from_raw(code).unwrap();
            assert_eq!(s.code(), code);
            assert!(s.name().starts_with("AOT_ERR_"), "{}", s.name());
        }
        assert_eq!(Status::BadShape.name(), "AOT_ERR_BAD_SHAPE");
        assert_eq!(Status::from_raw(99), Some(Status::Unknown(99)));
    }

    #[test]
    fn dtypes_round_trip() {
        for code in 0..8 {
            assert_eq!(DType::from_raw(code).unwrap().raw(), code);
        }
        assert_eq!(DType::from_raw(8), None);
        assert_eq!(DType::Int16.size(), 2);
    }

    #[test]
    fn tensors_check_data_against_shape() {
        let mut x = vec![0f32; 6];
        let t = TensorRef::new(&mut x, &[2, 3]).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(t.raw.strides[..2], [3, 1]);
        let e = TensorRef::new(&mut x, &[2, 4]).err().unwrap();
        assert_eq!(e.status, Status::BadShape);
        assert!(e.message.contains("needs 32 bytes, the data has 24"), "{e}");
        assert_eq!(TensorMut::new(&mut x, &[1; 9]).err().unwrap().status, Status::BadShape);
        assert_eq!(TensorMut::new(&mut x, &[-2, -3]).err().unwrap().status, Status::BadShape);
    }

    #[test]
    fn runtime_is_the_abi_this_crate_declares() {
        assert_eq!(abi_version(), sys::ATENAOT_ABI_VERSION);
        assert!(version().starts_with("atenaot "));
    }
}
