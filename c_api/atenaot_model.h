/* The contract between the atenaot loader (runtime/atenaot_runtime.c) and
 * the libraries `atenaot compile` makes: a compiled library exports
 * `aot_compiled_model_entry` (shared) or NAME_model (static) returning this
 * table. Not for applications: they use atenaot.h. Versioned with
 * ATENAOT_ABI_VERSION. */
#ifndef ATENAOT_MODEL_H_
#define ATENAOT_MODEL_H_

#include "atenaot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aot_compiled_model {
  uint32_t abi_version; /* ATENAOT_ABI_VERSION the library was built with */
  const char* name;
  aot_device device; /* where its kernels run */
  int32_t reserved;
  size_t num_inputs, num_outputs;
  const aot_tensor_info* inputs;
  const aot_tensor_info* outputs;
  size_t arena_bytes;   /* on `device` */
  size_t weights_bytes; /* 0: embedded; else the size of NAME.weights */
  /* Per-open state (NULL for models that need none): `weights` is the host
   * copy of NAME.weights or NULL. A CUDA model allocates its device arena,
   * staging buffers and stream and uploads its weights here. Returns a
   * status and fills `err` on failure. */
  aot_status (*open)(const void* weights, void** state, char* err, size_t err_len);
  void (*close)(void* state);
  /* `arena` NULL: the model's own (CPU models get the loader's host arena,
   * so it is never NULL for them when arena_bytes > 0). */
  aot_status (*run)(void* state, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs,
                    void* arena, size_t arena_bytes, const void* weights, void* stream, char* err, size_t err_len);
  /* NULL: the model has no options. */
  aot_status (*set_option)(void* state, const char* key, int64_t value, char* err, size_t err_len);
} aot_compiled_model;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATENAOT_MODEL_H_ */
