/* ---- the model's entry points (codegen/templates/aot_cpu_model.h) ----
 * The fixed part of every generated CPU library: NAME_run and NAME_run_msg,
 * the sizes, the weights check and options, the CPU check at open and the
 * table the loader (aot_model_open) reads. The generated file defines first:
 *   AOT_M_NAME_STR               the model's name, as a string
 *   AOT_M_SYM_run, ...           its public symbols (NAME_run, ...)
 *   AOT_M_INPUTS, AOT_M_OUTPUTS  how many tensors go in and come out
 *   AOT_M_ARENA_BYTES            the planned arena
 *   AOT_M_WEIGHTS_BYTES          bytes of NAME.weights the caller passes (0: none)
 *   AOT_M_WEIGHTS                where the weights are: AOT_M_W_NONE (there are none),
 *                                AOT_M_W_FILE (NAME.weights, CRC-checked at open),
 *                                AOT_M_W_LINKED (NAME_weights_data, built in, checked
 *                                on request), AOT_M_W_C_ARRAYS (arrays in NAME.c, no CRC)
 *   AOT_M_WEIGHTS_ARG            1: runs need the weights pointer (NAME.weights)
 *   AOT_M_IN_LAYOUT              aot__in_layout (inputs traced with their own strides
 *                                or sharing memory), or 0
 *   AOT_M_THREADS                1: the thread pool (aot_threads.h) is in
 * and aot__inputs, aot__outputs, aot__compute (for checked weights also
 * aot__check_weights: aot_weights_check.h). Needs aot_validation.h and
 * aot_cpu_check.h before it. */
#define AOT_M_W_NONE 0
#define AOT_M_W_FILE 1
#define AOT_M_W_LINKED 2
#define AOT_M_W_C_ARRAYS 3
/* The model's public symbols: AOT__M(_run) is AOT_M_SYM_run, which the
 * generated file defines as NAME_run (the name is never macro-expanded, so a
 * model named like a predefined macro, e.g. linux under -std=gnu11, works). */
#define AOT__M(suffix) AOT_M_SYM##suffix

static aot_status aot__run(void* state, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,
                           size_t num_outputs, void* arena, size_t arena_bytes, const void* weights, void* stream,
                           char* err, size_t err_len) {
  (void)state;
  if (stream) return aot__fail(err, err_len, AOT_ERR_BAD_DEVICE, "stream", "must be NULL: this model runs on the CPU");
  int s =
      aot__validate(inputs, num_inputs, aot__inputs, AOT_M_IN_LAYOUT, AOT_M_INPUTS, outputs, num_outputs, aot__outputs,
                    AOT_M_OUTPUTS, arena, arena_bytes, AOT_M_ARENA_BYTES, AOT_DEVICE_CPU, err, err_len);
  if (s) return s;
#if AOT_M_WEIGHTS_ARG
  if (!weights)
    return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "weights",
                     "are NULL (this model keeps them in " AOT_M_NAME_STR ".weights)");
#endif
  void* in[AOT_M_INPUTS > 0 ? AOT_M_INPUTS : 1];
  void* out[AOT_M_OUTPUTS > 0 ? AOT_M_OUTPUTS : 1];
  /* No loop for a program without inputs (or outputs): `i < 0` fails -Wtype-limits. */
#if AOT_M_INPUTS > 0
  for (size_t i = 0; i < AOT_M_INPUTS; ++i) in[i] = inputs[i].data;
#endif
#if AOT_M_OUTPUTS > 0
  for (size_t i = 0; i < AOT_M_OUTPUTS; ++i) out[i] = outputs[i].data;
#endif
  return aot__compute(in, out, (uint8_t*)arena, (const uint8_t*)weights, err, err_len);
}

size_t AOT__M(_arena_bytes)(void) { return AOT_M_ARENA_BYTES; }
size_t AOT__M(_weights_bytes)(void) { return AOT_M_WEIGHTS_BYTES; }
int AOT__M(_run)(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs, void* arena,
                 size_t arena_bytes, const void* weights) {
  return aot__run(0, inputs, num_inputs, outputs, num_outputs, arena, arena_bytes, weights, 0, 0, 0);
}
int AOT__M(_run_msg)(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs, void* arena,
                     size_t arena_bytes, const void* weights, char* err, size_t err_len) {
  if (err && err_len) err[0] = 0;
  return aot__run(0, inputs, num_inputs, outputs, num_outputs, arena, arena_bytes, weights, 0, err, err_len);
}

/* The weights the CRC check reads: the loader's copy of NAME.weights (the
 * model's state after open), or the bytes built into the library. */
#if AOT_M_WEIGHTS == AOT_M_W_FILE
#define AOT__CHECKED_WEIGHTS state
int AOT__M(_check_weights)(const void* weights) { return aot__check_weights(weights, 0, 0); }
static aot_status aot__open(const void* weights, void** state, char* err, size_t err_len) {
  int s = aot__check_weights(weights, err, err_len);
  if (s) return s;
  *state = (void*)(uintptr_t)weights;
  return AOT_OK;
}
#elif AOT_M_WEIGHTS == AOT_M_W_LINKED
#define AOT__CHECKED_WEIGHTS AOT__M(_weights_data)
int AOT__M(_check_weights)(const void* weights) {
  (void)weights;
  return aot__check_weights(AOT__CHECKED_WEIGHTS, 0, 0);
}
#endif

static aot_status aot__set_option(void* state, const char* key, int64_t value, char* err, size_t err_len) {
  (void)state;
#if AOT_M_THREADS
  if (strcmp(key, "threads") == 0) return aot__set_threads(value, err, err_len);
#endif
  if (strcmp(key, "verify_weights") != 0) {
    aot__fail(err, err_len, AOT_ERR_BAD_OPTION, "unknown option", key);
    aot__msg m = aot__tail(err, err_len);
#if AOT_M_THREADS
    aot__put(&m, " (CPU models take threads and verify_weights)");
#else
    aot__put(&m, " (CPU models take verify_weights)");
#endif
    return AOT_ERR_BAD_OPTION;
  }
  if (value != 1)
    return aot__fail(err, err_len, AOT_ERR_BAD_OPTION, "verify_weights", "takes 1 (check the weights' CRC-32 now)");
#if defined(AOT__CHECKED_WEIGHTS)
  return aot__check_weights(AOT__CHECKED_WEIGHTS, err, err_len);
#elif AOT_M_WEIGHTS == AOT_M_W_NONE
  return AOT_OK; /* the model has no weights */
#else
  return aot__fail(err, err_len, AOT_ERR_BAD_OPTION, "verify_weights",
                   "has nothing to check: the weights are C arrays in " AOT_M_NAME_STR
                   ".c (--weights c), without a checksum");
#endif
}

#if AOT_M_THREADS
int AOT__M(_set_threads)(int n) { return aot__set_threads(n, 0, 0); }
#endif

/* The model table's open hook: the CPU check, then the weights check. */
AOT_BASELINE static aot_status aot__open_checked(const void* weights, void** state, char* err, size_t err_len) {
  int s = aot__cpu_check(err, err_len);
  if (s) return s;
#if AOT_M_WEIGHTS == AOT_M_W_FILE
  return aot__open(weights, state, err, err_len);
#else
  (void)weights;
  (void)state;
  return AOT_OK;
#endif
}

static const aot_compiled_model aot__model = {ATENAOT_ABI_VERSION,
                                              AOT_M_NAME_STR,
                                              AOT_DEVICE_CPU,
                                              0,
                                              AOT_M_INPUTS,
                                              AOT_M_OUTPUTS,
                                              aot__inputs,
                                              aot__outputs,
                                              AOT_M_ARENA_BYTES,
                                              AOT_M_WEIGHTS_BYTES,
                                              aot__open_checked,
                                              0,
                                              aot__run,
                                              aot__set_option};
const aot_compiled_model* AOT__M(_model)(void) { return &aot__model; }
#ifdef AOT_SHARED_ENTRY
/* What the loader (aot_model_open) looks up in a shared library. */
AOT_EXPORT AOT_BASELINE const aot_compiled_model* aot_compiled_model_entry(void) { return &aot__model; }
#endif
