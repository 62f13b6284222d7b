/* atenaot C ABI: run models compiled by `atenaot compile` from any language.
 *
 * Conventions (stable across minor versions of ATENAOT_ABI_VERSION):
 *  - Every fallible call returns an aot_status (AOT_OK == 0). On failure it
 *    writes nothing to its outputs and aot_last_error() returns a message for
 *    the calling thread (valid until that thread's next atenaot call).
 *  - Handles are opaque; aot_model_free accepts NULL. "get" calls never
 *    transfer ownership; strings returned are owned by the model.
 *  - Tensors cross the boundary as plain descriptors: data, dtype, ndim,
 *    device, sizes, strides (in elements). Compiled models take tensors of
 *    exactly the compiled dtypes and shapes, laid out as the sample inputs
 *    were when traced: contiguous row-major unless those were strided, at an
 *    offset, or views of one another (then the same strides, and the same
 *    byte distances between inputs; the kernels work in the caller's memory).
 *  - Every field and code is a fixed-width integer (no C enum types), so the
 *    layout is the same for every compiler and target, -fshort-enums included.
 *  - No C++ type or exception crosses this boundary.
 *
 * Version 2 (from 1): int32_t instead of enum types, the device fields, the
 * `flags` of aot_tensor_info, aot_model_device, aot_model_run_on_stream,
 * aot_model_set_option, and the status codes 12-15. Codes 16-17
 * (overlapping tensors, weights checksums) were added in version 2 without a
 * layout change: an older caller sees them as unknown failures.
 */
#ifndef ATENAOT_H_
#define ATENAOT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATENAOT_ABI_VERSION 2

#if defined(__GNUC__)
#define AOT_EXPORT __attribute__((visibility("default")))
#define AOT_MUST_USE __attribute__((warn_unused_result))
#else
#define AOT_EXPORT
#define AOT_MUST_USE
#endif

typedef int32_t aot_status;
enum {
  AOT_OK = 0,
  AOT_ERR_NULL_POINTER = 1,       /* a required pointer argument was NULL */
  AOT_ERR_BAD_COUNT = 2,          /* wrong number of inputs or outputs */
  AOT_ERR_BAD_DTYPE = 3,          /* a tensor's dtype differs from the model's */
  AOT_ERR_BAD_SHAPE = 4,          /* a tensor's rank or sizes differ */
  AOT_ERR_BAD_STRIDES = 5,        /* a tensor's layout differs from the model's: not contiguous row-major, or
                                     not the strides, or not the sharing of memory between inputs, that
                                     a model traced with such inputs was compiled for */
  AOT_ERR_ARENA_TOO_SMALL = 6,    /* the caller's arena is smaller than aot_model_arena_bytes */
  AOT_ERR_ABI_MISMATCH = 7,       /* the library was built for another ABI version */
  AOT_ERR_OPEN_FAILED = 8,        /* the library could not be loaded */
  AOT_ERR_OUT_OF_MEMORY = 9,      /* an allocation at open time failed */
  AOT_ERR_BAD_INDEX = 10,         /* an input/output index out of range */
  AOT_ERR_INTERNAL = 11,          /* a bug in atenaot */
  AOT_ERR_DEVICE = 12,            /* the device (CUDA) reported an error; the message has its text */
  AOT_ERR_BAD_DEVICE = 13,        /* a tensor or arena is on another device than its descriptor says
                                     or the model accepts (e.g. a host pointer marked AOT_DEVICE_CUDA) */
  AOT_ERR_BAD_ALIGNMENT = 14,     /* the caller's arena is not 64-byte aligned */
  AOT_ERR_BAD_OPTION = 15,        /* aot_model_set_option: unknown option or value for this model */
  AOT_ERR_OVERLAP = 16,           /* an input or output lies inside the arena, or an output overlaps an
                                     input or another output */
  AOT_ERR_CORRUPT_WEIGHTS = 17,   /* the weights fail their CRC-32 check (a changed NAME.weights, or one
                                     from another build) */
  AOT_ERR_UNSUPPORTED_CPU = 18,   /* the library was built for instruction-set extensions (--cpu) this CPU
                                     lacks; the message names one */
  AOT_ERR_INDEX_OUT_OF_RANGE = 19 /* a tensor of indices (index_select, embedding, advanced indexing,
                                    embedding_bag) holds a value outside the indexed dimension, where eager
                                    raises IndexError; outputs are unspecified */
};

typedef int32_t aot_dtype;
enum {
  AOT_FLOAT32 = 0,
  AOT_FLOAT64 = 1,
  AOT_INT32 = 2,
  AOT_INT64 = 3,
  AOT_BOOL = 4, /* one byte, 0 or 1 */
  AOT_UINT8 = 5,
  AOT_INT8 = 6,
  AOT_INT16 = 7
};

/* Where a tensor's data (or a model's kernels) live. */
typedef int32_t aot_device;
enum {
  AOT_DEVICE_CPU = 0, /* host memory */
  AOT_DEVICE_CUDA = 1 /* CUDA device memory of the current device */
};

#define AOT_MAX_DIMS 8

typedef struct aot_tensor {
  void* data;
  aot_dtype dtype;
  int32_t ndim;
  aot_device device; /* a CUDA model accepts both: host tensors are staged
                        through device buffers allocated at open */
  int32_t reserved;  /* 0 */
  int64_t sizes[AOT_MAX_DIMS];
  int64_t strides[AOT_MAX_DIMS]; /* in elements */
} aot_tensor;

/* aot_tensor_info.flags */
#define AOT_INFO_MUTATED 1 /* an input the model updates in place (in-place ops of the source program) */

/* What a compiled model expects for one input or output. */
typedef struct aot_tensor_info {
  const char* name;
  aot_dtype dtype;
  int32_t ndim;
  int64_t sizes[AOT_MAX_DIMS];
  int32_t flags;    /* AOT_INFO_* bits */
  int32_t reserved; /* 0 */
} aot_tensor_info;

typedef struct aot_model aot_model;

/* The ABI version this runtime implements, and atenaot's version string. */
AOT_EXPORT uint32_t aot_abi_version(void);
AOT_EXPORT const char* aot_version_string(void);

/* Message of the calling thread's last failure ("" if none). */
AOT_EXPORT const char* aot_last_error(void);
/* A fixed name for a status code. */
AOT_EXPORT const char* aot_status_name(aot_status status);

/* Opens a library made by `atenaot compile` (DIR/libNAME.so). Weights are
 * embedded, or read once from NAME.weights next to the library and checked
 * against their CRC-32 (AOT_ERR_CORRUPT_WEIGHTS). A CUDA model allocates its
 * device arena and uploads its weights here, once. */
AOT_EXPORT AOT_MUST_USE aot_status aot_model_open(const char* library_path, aot_model** out_model);
AOT_EXPORT void aot_model_free(aot_model* model);

AOT_EXPORT AOT_MUST_USE aot_status aot_model_num_inputs(const aot_model* model, size_t* out_count);
AOT_EXPORT AOT_MUST_USE aot_status aot_model_num_outputs(const aot_model* model, size_t* out_count);
AOT_EXPORT AOT_MUST_USE aot_status aot_model_input_info(const aot_model* model, size_t index,
                                                        aot_tensor_info* out_info);
AOT_EXPORT AOT_MUST_USE aot_status aot_model_output_info(const aot_model* model, size_t index,
                                                         aot_tensor_info* out_info);
/* Bytes of scratch memory a run needs (known before anything is allocated);
 * on the model's device. */
AOT_EXPORT AOT_MUST_USE aot_status aot_model_arena_bytes(const aot_model* model, size_t* out_bytes);
/* The device the model's kernels run on (AOT_DEVICE_CPU or AOT_DEVICE_CUDA). */
AOT_EXPORT AOT_MUST_USE aot_status aot_model_device(const aot_model* model, aot_device* out_device);

/* Runs the model. `arena` may be NULL (the model's own arena, allocated at
 * open, is used; runs on one model are then not thread-safe) or caller memory
 * on the model's device of at least aot_model_arena_bytes bytes, 64-byte
 * aligned. Inputs flagged AOT_INFO_MUTATED are updated in place. On a CUDA
 * model this runs on the model's own stream and returns when the results are
 * ready. */
AOT_EXPORT AOT_MUST_USE aot_status aot_model_run(aot_model* model, const aot_tensor* inputs, size_t num_inputs,
                                                 aot_tensor* outputs, size_t num_outputs, void* arena,
                                                 size_t arena_bytes);

/* As aot_model_run, on the caller's stream (a cudaStream_t, NULL for the
 * model's own): when every tensor is device memory the call only enqueues the
 * work and returns; host tensors make it wait for the results. CPU models
 * accept only stream == NULL. */
AOT_EXPORT AOT_MUST_USE aot_status aot_model_run_on_stream(aot_model* model, const aot_tensor* inputs,
                                                           size_t num_inputs, aot_tensor* outputs, size_t num_outputs,
                                                           void* arena, size_t arena_bytes, void* stream);

/* Model options. CUDA models: "cuda_graph" = 1 captures a run into a CUDA
 * graph and replays it while the tensors, arena and stream stay the same
 * (recaptured when they change); 0 (the default) launches kernels directly.
 * CPU models: "verify_weights" = 1 checks the weights against the CRC-32
 * recorded at compile time now (AOT_ERR_CORRUPT_WEIGHTS if they differ);
 * "threads" = N (1..64; 0, the default, for one per CPU) sets the threads the
 * library's kernels split over (one pool per library, shared by its handles;
 * results are bitwise the same for any N).
 * NAME.weights files are always checked at open; weights linked into the
 * library are checked only on request, since that reads every page of them.
 * Unknown keys or values fail with AOT_ERR_BAD_OPTION. */
AOT_EXPORT AOT_MUST_USE aot_status aot_model_set_option(aot_model* model, const char* key, int64_t value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATENAOT_H_ */
