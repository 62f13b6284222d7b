"""Run a model compiled by `atenaot compile` from Python.

One file, standard library only (ctypes): copy it next to your code, no build
step. numpy is used when installed (inputs and outputs are then ndarrays);
without it, pass nested lists, or flat data (array.array, bytes, bytearray,
memoryview, list) with a shape as `Tensor(data, shape)`, and get `Tensor`s
back (`.tolist()`, `.data` is an array.array).

    from atenaot_model import Model
    with Model("out/mlp", "mlp") as m:        # opens out/mlp/libmlp.so
        print(m.inputs, m.outputs)             # [TensorInfo(name, dtype, shape, mutated)]
        (y,) = m.run(x)                        # x: numpy array [8, 64] float32

The library is loaded through the directory's libatenaot_runtime.so (the C
ABI in atenaot.h). Every failure the ABI reports raises `AtenaotError`, which
carries the status (`.status`, `.status_name`, e.g. "AOT_ERR_BAD_SHAPE") and
the runtime's message (`.message`, from aot_last_error()).

Inputs must have exactly the compiled dtypes and shapes (dtypes are never
converted, except nested lists, which take the model's dtype). numpy arrays
that are not C-contiguous, aligned and writable are copied first; others are
passed without a copy, so a model that updates an input in place (in-place
ops on inputs in the source program) updates your array. The same holds for
array.array, bytearray and writable memoryviews; bytes and lists are copied.

Runs on one Model are serialized by a lock (they share the model's arena);
use one Model per thread to run in parallel.

Command line: python3 atenaot_model.py DIR NAME [INPUT.npy...] prints the
model's inputs and outputs and, given inputs, runs it and prints the outputs.
"""
import array
import ctypes
import os
import struct
import sys
import threading
from collections import namedtuple

try:
    import numpy as _np
except ImportError:  # numpy is optional
    _np = None

__all__ = ["Model", "Tensor", "TensorInfo", "AtenaotError", "load_npy", "HAVE_NUMPY", "ABI_VERSION"]

HAVE_NUMPY = _np is not None
ABI_VERSION = 2  # ATENAOT_ABI_VERSION this module was written for
AOT_MAX_DIMS = 8


def _typecode(size, signed):
    for code in ("bhilq" if signed else "BHILQ"):
        if array.array(code).itemsize == size:
            return code
    raise RuntimeError("no array typecode for %d-byte integers" % size)


# aot_dtype code -> (name, itemsize, array.array typecode, struct char)
_DTYPES = {
    0: ("float32", 4, "f", "f"),
    1: ("float64", 8, "d", "d"),
    2: ("int32", 4, _typecode(4, True), "i"),
    3: ("int64", 8, _typecode(8, True), "q"),
    4: ("bool", 1, "B", "?"),
    5: ("uint8", 1, "B", "B"),
    6: ("int8", 1, "b", "b"),
    7: ("int16", 2, _typecode(2, True), "h"),
}
_CODE_OF_NAME = {v[0]: k for k, v in _DTYPES.items()}
# array.array typecode -> dtype name (for arrays passed as data).
_NAME_OF_TYPECODE = {"f": "float32", "d": "float64", "b": "int8", "B": "uint8"}
for _c in "hHiIlLqQ":
    _sz, _signed = array.array(_c).itemsize, _c.islower()
    _n = ("int%d" % (8 * _sz)) if _signed else ("uint%d" % (8 * _sz))
    if _n in _CODE_OF_NAME:
        _NAME_OF_TYPECODE.setdefault(_c, _n)


class _Tensor(ctypes.Structure):  # aot_tensor (ABI 2: every field fixed-width)
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("device", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * AOT_MAX_DIMS), ("strides", ctypes.c_int64 * AOT_MAX_DIMS)]


class _Info(ctypes.Structure):  # aot_tensor_info
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * AOT_MAX_DIMS), ("flags", ctypes.c_int32), ("reserved", ctypes.c_int32)]


_AOT_INFO_MUTATED = 1
_DEVICES = {0: "cpu", 1: "cuda"}


TensorInfo = namedtuple("TensorInfo", ["name", "dtype", "shape", "mutated"], defaults=(False,))
TensorInfo.__doc__ = ("What a model expects for one input or returns for one output: name, dtype name, shape tuple,"
                      " and whether the model updates this input in place.")


class AtenaotError(RuntimeError):
    """A failure reported by the C ABI: `.status` (int), `.status_name`, `.message`."""

    def __init__(self, status, status_name, message):
        super().__init__("%s: %s" % (status_name, message))
        self.status = status
        self.status_name = status_name
        self.message = message


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Tensor(object):
    """A flat buffer with a shape and a dtype name: what run() takes and
    returns when numpy is not used. `data` is an array.array, bytes-like
    object or flat list; `dtype` None means the model's dtype (or the
    array.array's)."""

    __slots__ = ("data", "shape", "dtype")

    def __init__(self, data, shape, dtype=None):
        self.data = data
        self.shape = tuple(int(s) for s in shape)
        if dtype is not None and dtype not in _CODE_OF_NAME:
            raise TypeError("unknown dtype %r (one of %s)" % (dtype, ", ".join(sorted(_CODE_OF_NAME))))
        self.dtype = dtype

    @property
    def size(self):
        return _numel(self.shape)

    def flat(self):
        """The values as a flat list (bool for bool tensors)."""
        if isinstance(self.data, (list, tuple)):
            vals = list(self.data)
        elif isinstance(self.data, array.array):
            vals = self.data.tolist()
        else:  # raw bytes in the tensor's dtype
            name = self.dtype or "uint8"
            ch = _DTYPES[_CODE_OF_NAME[name]][3]
            mv = memoryview(self.data).cast("B")
            vals = list(struct.unpack("=%d%s" % (len(mv) // struct.calcsize(ch), ch), mv))
        if self.dtype == "bool":
            vals = [bool(v) for v in vals]
        return vals

    def tolist(self):
        """The values nested by shape, like numpy's tolist()."""
        vals = self.flat()
        if not self.shape:
            return vals[0]

        def nest(offset, dims):
            if len(dims) == 1:
                return vals[offset:offset + dims[0]]
            step = _numel(dims[1:])
            return [nest(offset + k * step, dims[1:]) for k in range(dims[0])]

        return nest(0, list(self.shape))

    def __repr__(self):
        return "Tensor(dtype=%s, shape=%s)" % (self.dtype, list(self.shape))


def _nested_shape(x):
    shape = []
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]
    return shape


def _flatten(x, shape, depth, out):
    if depth == len(shape):
        if isinstance(x, (list, tuple)):
            raise ValueError("ragged nested list: more nesting than the first element's")
        out.append(x)
        return
    if not isinstance(x, (list, tuple)) or len(x) != shape[depth]:
        raise ValueError("ragged nested list: expected %d elements at depth %d" % (shape[depth], depth))
    for e in x:
        _flatten(e, shape, depth + 1, out)


def _to_array(values, name):
    code = _DTYPES[_CODE_OF_NAME[name]][2]
    if name == "bool":
        values = [1 if v else 0 for v in values]
    try:
        return array.array(code, values)
    except (TypeError, OverflowError) as e:
        raise TypeError("cannot store these values as %s: %s" % (name, e))


def _pointer(buf, nbytes, keep):
    """A C pointer to `buf`'s memory: no copy when writable, else a copy."""
    if nbytes == 0:
        return None
    try:
        c = (ctypes.c_ubyte * nbytes).from_buffer(buf)
    except (TypeError, ValueError):  # read-only (bytes) or not C-contiguous
        c = (ctypes.c_ubyte * nbytes).from_buffer_copy(memoryview(buf).tobytes())
    keep.append(c)
    return ctypes.addressof(c)


def _describe(ptr, code, shape):
    if len(shape) > AOT_MAX_DIMS:
        raise ValueError("tensors have at most %d dimensions, got %d" % (AOT_MAX_DIMS, len(shape)))
    t = _Tensor()
    t.data = ptr
    t.dtype = code
    t.ndim = len(shape)
    stride = 1
    for d in reversed(range(len(shape))):
        t.sizes[d], t.strides[d] = shape[d], stride
        stride *= shape[d]
    return t


def _numpy_code(dt):
    if dt == _np.bool_:
        return _CODE_OF_NAME["bool"]
    name = dt.name
    if name not in _CODE_OF_NAME:
        raise TypeError("numpy dtype %s cannot cross the C ABI (one of %s)" % (name, ", ".join(sorted(_CODE_OF_NAME))))
    return _CODE_OF_NAME[name]


class Model(object):
    """A compiled model: DIR/libNAME.so opened through DIR/libatenaot_runtime.so.

    use_numpy: None (default) uses numpy when installed; False returns
    Tensor objects even when it is.
    """

    def __init__(self, directory, name, runtime=None, use_numpy=None):
        if use_numpy and _np is None:
            raise ImportError("use_numpy=True but numpy is not installed")
        self._numpy = (_np is not None) if use_numpy is None else bool(use_numpy)
        self._lock = threading.Lock()
        self._handle = None
        self.directory = os.fspath(directory)
        self.name = name
        self.library_path = os.path.join(self.directory, "lib%s.so" % name)
        runtime = runtime or os.path.join(self.directory, "libatenaot_runtime.so")
        try:
            rt = ctypes.CDLL(os.path.abspath(os.fspath(runtime)))
        except OSError as e:
            raise AtenaotError(8, "AOT_ERR_OPEN_FAILED", "cannot load the atenaot runtime %s: %s" % (runtime, e))
        self._rt = rt
        P, S = ctypes.c_void_p, ctypes.c_size_t
        for fn, res, args in [
            ("aot_abi_version", ctypes.c_uint32, []),
            ("aot_version_string", ctypes.c_char_p, []),
            ("aot_last_error", ctypes.c_char_p, []),
            ("aot_status_name", ctypes.c_char_p, [ctypes.c_int]),
            ("aot_model_open", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(P)]),
            ("aot_model_free", None, [P]),
            ("aot_model_num_inputs", ctypes.c_int, [P, ctypes.POINTER(S)]),
            ("aot_model_num_outputs", ctypes.c_int, [P, ctypes.POINTER(S)]),
            ("aot_model_input_info", ctypes.c_int, [P, S, ctypes.POINTER(_Info)]),
            ("aot_model_output_info", ctypes.c_int, [P, S, ctypes.POINTER(_Info)]),
            ("aot_model_arena_bytes", ctypes.c_int, [P, ctypes.POINTER(S)]),
            ("aot_model_run", ctypes.c_int, [P, ctypes.POINTER(_Tensor), S, ctypes.POINTER(_Tensor), S, P, S]),
            ("aot_model_device", ctypes.c_int, [P, ctypes.POINTER(ctypes.c_int32)]),
            ("aot_model_set_option", ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_int64]),
        ]:
            f = getattr(rt, fn)
            f.restype, f.argtypes = res, args
        if rt.aot_abi_version() != ABI_VERSION:
            raise AtenaotError(7, "AOT_ERR_ABI_MISMATCH", "runtime %s implements ABI version %d, this module version %d"
                               % (runtime, rt.aot_abi_version(), ABI_VERSION))
        handle = ctypes.c_void_p()
        self._check(rt.aot_model_open(os.fsencode(self.library_path), ctypes.byref(handle)))
        self._handle = handle
        try:
            self.inputs = self._infos(rt.aot_model_num_inputs, rt.aot_model_input_info)
            self.outputs = self._infos(rt.aot_model_num_outputs, rt.aot_model_output_info)
            n = ctypes.c_size_t()
            self._check(rt.aot_model_arena_bytes(handle, ctypes.byref(n)))
            self.arena_bytes = n.value
            dev = ctypes.c_int32()
            self._check(rt.aot_model_device(handle, ctypes.byref(dev)))
            self.device = _DEVICES.get(dev.value, "device(%d)" % dev.value)  # where the kernels run
        except Exception:
            self.close()
            raise

    def _check(self, status):
        if status != 0:
            rt = self._rt
            name = (rt.aot_status_name(status) or b"AOT_ERR_UNKNOWN").decode()
            raise AtenaotError(status, name, (rt.aot_last_error() or b"").decode("utf-8", "replace"))

    def _infos(self, count_fn, info_fn):
        n = ctypes.c_size_t()
        self._check(count_fn(self._handle, ctypes.byref(n)))
        out = []
        for k in range(n.value):
            info = _Info()
            self._check(info_fn(self._handle, k, ctypes.byref(info)))
            dtype = _DTYPES[info.dtype][0] if info.dtype in _DTYPES else "aot_dtype(%d)" % info.dtype
            out.append(TensorInfo((info.name or b"").decode(), dtype, tuple(info.sizes[:info.ndim]),
                                  bool(info.flags & _AOT_INFO_MUTATED)))
        return out

    @property
    def version(self):
        """The runtime's version string."""
        return self._rt.aot_version_string().decode()

    def _input(self, k, x, keep):
        info = self.inputs[k] if k < len(self.inputs) else None
        if _np is not None and isinstance(x, _np.ndarray):
            if not x.dtype.isnative:
                x = x.astype(x.dtype.newbyteorder("="))
            x = _np.require(x, requirements=["C", "A", "W"])
            keep.append(x)
            return _describe(x.ctypes.data if x.size else None, _numpy_code(x.dtype), x.shape)
        if isinstance(x, Tensor):
            data, shape, dtype = x.data, x.shape, x.dtype
        elif isinstance(x, (list, tuple)) or isinstance(x, (int, float, bool)):
            shape = _nested_shape(x)
            flat = []
            _flatten(x, shape, 0, flat)
            data, dtype = flat, info.dtype if info else "float32"
        elif isinstance(x, (array.array, bytes, bytearray, memoryview)):
            data, shape, dtype = x, None, None
        else:
            raise TypeError("input %d: expected a numpy array, Tensor, nested list, array.array or bytes, got %s"
                            % (k, type(x).__name__))
        if isinstance(data, array.array):
            name = _NAME_OF_TYPECODE.get(data.typecode)
            if dtype is None:
                dtype = name
            elif name != dtype and not (dtype == "bool" and data.typecode == "B"):
                raise TypeError("input %d: array.array('%s') holds %s, not %s" % (k, data.typecode, name, dtype))
        if dtype is None:
            dtype = info.dtype if info else "uint8"
        if dtype not in _CODE_OF_NAME:
            raise TypeError("input %d: dtype %s cannot cross the C ABI" % (k, dtype))
        itemsize = _DTYPES[_CODE_OF_NAME[dtype]][1]
        if isinstance(data, (list, tuple)):
            data = _to_array(data, dtype)
        mv = memoryview(data)
        nbytes = mv.nbytes
        if shape is None:  # flat data without a shape: one dimension
            if nbytes % itemsize:
                raise ValueError("input %d: %d bytes is not a whole number of %s" % (k, nbytes, dtype))
            shape = (nbytes // itemsize,)
        if nbytes != _numel(shape) * itemsize:
            raise ValueError("input %d: shape %s of %s needs %d bytes, the data has %d"
                             % (k, list(shape), dtype, _numel(shape) * itemsize, nbytes))
        return _describe(_pointer(data, nbytes, keep), _CODE_OF_NAME[dtype], tuple(shape))

    def _output(self, info, keep):
        code = _CODE_OF_NAME.get(info.dtype)
        if code is None:
            raise AtenaotError(11, "AOT_ERR_INTERNAL", "output %s has a dtype this module does not know" % info.name)
        if self._numpy:
            arr = _np.empty(info.shape, dtype=_np.bool_ if info.dtype == "bool" else info.dtype)
            return arr, _describe(arr.ctypes.data if arr.size else None, code, info.shape)
        _, itemsize, typecode, _ = _DTYPES[code]
        buf = array.array(typecode, bytes(_numel(info.shape) * itemsize))
        keep.append(buf)
        ptr = buf.buffer_info()[0] if len(buf) else None
        return Tensor(buf, info.shape, info.dtype), _describe(ptr, code, info.shape)

    def run(self, *inputs):
        """Runs the model; returns the list of outputs (numpy arrays, or
        Tensors without numpy), one per flattened output."""
        if self._handle is None:
            raise ValueError("run on a closed Model")
        keep = []
        ins = [self._input(k, x, keep) for k, x in enumerate(inputs)]
        results, outs = [], []
        for info in self.outputs:
            r, t = self._output(info, keep)
            results.append(r)
            outs.append(t)
        in_arr = (_Tensor * max(len(ins), 1))(*ins)
        out_arr = (_Tensor * max(len(outs), 1))(*outs)
        with self._lock:
            # aot_last_error is per thread: read it on the thread that failed.
            self._check(self._rt.aot_model_run(self._handle, in_arr, len(ins), out_arr, len(outs), None, 0))
        return results

    def set_option(self, key, value):
        """Sets a model option (CPU models: "threads" N, "verify_weights" 1;
        CUDA models: "cuda_graph" 0/1); AtenaotError
        AOT_ERR_BAD_OPTION for options the model does not have."""
        if self._handle is None:
            raise ValueError("set_option on a closed Model")
        with self._lock:
            self._check(self._rt.aot_model_set_option(self._handle, key.encode(), int(value)))

    def set_threads(self, n):
        """CPU models: the threads kernels split over (n >= 1, or 0 for one
        per CPU, the default); the pool belongs to the library, so every
        Model of it shares the setting."""
        self.set_option("threads", n)

    def close(self):
        """Frees the model (idempotent)."""
        if getattr(self, "_handle", None) is not None:
            self._rt.aot_model_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "Model(%r, %r, inputs=%s, outputs=%s)" % (self.directory, self.name, self.inputs, self.outputs)


_NPY_DTYPES = {"f4": "float32", "f8": "float64", "i4": "int32", "i8": "int64", "b1": "bool", "u1": "uint8",
               "i1": "int8", "i2": "int16"}


def load_npy(path, use_numpy=None):
    """Reads a .npy file: a numpy array when numpy is used, else a Tensor
    (little-endian, C order, the dtypes the ABI carries)."""
    if use_numpy and _np is None:
        raise ImportError("use_numpy=True but numpy is not installed")
    if (use_numpy is None and _np is not None) or use_numpy:
        return _np.load(path)
    import ast
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("%s is not a .npy file" % path)
    major = raw[6]
    hlen, start = (struct.unpack("<H", raw[8:10])[0], 10) if major == 1 else (struct.unpack("<I", raw[8:12])[0], 12)
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    if header.get("fortran_order"):
        raise ValueError("%s: Fortran-order .npy needs numpy" % path)
    if descr[0] == ">" or descr[1:] not in _NPY_DTYPES or (descr[0] == "|" and descr[1:] not in ("b1", "u1", "i1")):
        raise ValueError("%s: dtype %s is not supported without numpy" % (path, descr))
    if sys.byteorder != "little" and descr[0] == "<" and descr[-1] != "1":
        raise ValueError("%s: little-endian data on a big-endian machine needs numpy" % path)
    dtype = _NPY_DTYPES[descr[1:]]
    code = _CODE_OF_NAME[dtype]
    body = raw[start + hlen:start + hlen + _numel(shape) * _DTYPES[code][1]]
    data = array.array(_DTYPES[code][2])
    data.frombytes(body)
    return Tensor(data, shape, dtype)


def _main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[-1])
        return 2
    with Model(argv[1], argv[2]) as m:
        for label, infos in (("input", m.inputs), ("output", m.outputs)):
            for k, i in enumerate(infos):
                print("%s %d: %s %s %s" % (label, k, i.name, i.dtype, list(i.shape)))
        print("arena: %d bytes" % m.arena_bytes)
        if len(argv) > 3:
            for k, y in enumerate(m.run(*[load_npy(p) for p in argv[3:]])):
                print("output %d:" % k, y if _np is not None else y.tolist())
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
