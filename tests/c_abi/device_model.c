/* A stand-in for a device (CUDA) model, built without CUDA: it implements the
 * loader contract of atenaot_model.h (open/close/state, stream, options) and
 * records what the loader passed, so loader_test.c can check the runtime's
 * device paths on a machine with no GPU. y = x + 1 on one float32[4]. */
#include <stdlib.h>
#include <string.h>

#include "atenaot_model.h"

typedef struct fake_state {
  int runs;
  int64_t graph; /* the "cuda_graph" option */
} fake_state;

static int closes = 0;
AOT_EXPORT int fake_close_count(void) { return closes; }

static void put(char* err, size_t len, const char* s) {
  if (err && len) {
    strncpy(err, s, len - 1);
    err[len - 1] = 0;
  }
}

static aot_status fake_open(const void* weights, void** state, char* err, size_t err_len) {
  (void)weights;
  if (getenv("FAKE_DEVICE_OPEN_FAILS")) {
    put(err, err_len, "cudaMalloc: out of memory (simulated)");
    return AOT_ERR_DEVICE;
  }
  fake_state* s = (fake_state*)calloc(1, sizeof(fake_state));
  if (!s) return AOT_ERR_OUT_OF_MEMORY;
  *state = s;
  return AOT_OK;
}

static void fake_close(void* state) {
  free(state);
  ++closes;
}

static aot_status fake_run(void* state, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,
                           size_t num_outputs, void* arena, size_t arena_bytes, const void* weights, void* stream,
                           char* err, size_t err_len) {
  (void)arena_bytes;
  (void)weights;
  fake_state* s = (fake_state*)state;
  if (!s) {
    put(err, err_len, "no state: open was not called");
    return AOT_ERR_INTERNAL;
  }
  if (num_inputs != 1 || num_outputs != 1) {
    put(err, err_len, "counts");
    return AOT_ERR_BAD_COUNT;
  }
  if (inputs[0].device == AOT_DEVICE_CUDA) {
    put(err, err_len, "input 0 is a host pointer marked AOT_DEVICE_CUDA");
    return AOT_ERR_BAD_DEVICE;
  }
  /* loader_test always passes NULL: a device model keeps its own arena, the
   * loader must not substitute host memory. */
  if (arena) {
    put(err, err_len, "the loader passed a host arena to a device model");
    return AOT_ERR_INTERNAL;
  }
  if (!stream && s->runs == 0) {
    put(err, err_len, "the caller's stream was not passed through");
    return AOT_ERR_INTERNAL;
  }
  s->runs++;
  const float* x = (const float*)inputs[0].data;
  float* y = (float*)outputs[0].data;
  for (int i = 0; i < 4; ++i) y[i] = x[i] + 1.0f + (float)s->graph * 100.0f;
  return AOT_OK;
}

static aot_status fake_set_option(void* state, const char* key, int64_t value, char* err, size_t err_len) {
  if (strcmp(key, "cuda_graph") != 0 || (value != 0 && value != 1)) {
    put(err, err_len, "unknown option or value");
    return AOT_ERR_BAD_OPTION;
  }
  ((fake_state*)state)->graph = value;
  return AOT_OK;
}

static const aot_tensor_info fake_io[1] = {{"x", AOT_FLOAT32, 1, {4}, 0, 0}};
static const aot_compiled_model fake_model = {
    ATENAOT_ABI_VERSION, "fake",   AOT_DEVICE_CUDA, 0, 1, 1, fake_io, fake_io, 1024, 0, fake_open,
    fake_close,          fake_run, fake_set_option};

AOT_EXPORT const aot_compiled_model* aot_compiled_model_entry(void) { return &fake_model; }
