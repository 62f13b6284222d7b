/* The runtime's paths for device models (ABI 2), against device_model.c:
 * open/close with per-model state, the arena left to the model (no host
 * arena), the stream passed through, options routed, an open failure
 * reported with the model's message.
 * usage: loader_test LIBFAKE.so */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atenaot.h"
#include "check.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: loader_test LIBFAKE.so\n");
    return 2;
  }
  aot_model* m = NULL;
  CHECK(aot_model_open(argv[1], &m) == AOT_OK, "open: %s", aot_last_error());
  if (!m) return 1;
  void* dl = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
  int (*close_count)(void) = dl ? (int (*)(void))dlsym(dl, "fake_close_count") : NULL;
  CHECK(close_count != NULL, "fake_close_count not found");
  aot_device dev = -1;
  CHECK(aot_model_device(m, &dev) == AOT_OK && dev == AOT_DEVICE_CUDA, "device %d", dev);

  float x[4] = {1, 2, 3, 4}, y[4] = {0};
  aot_tensor in, out;
  memset(&in, 0, sizeof(in));
  in.data = x;
  in.dtype = AOT_FLOAT32;
  in.ndim = 1;
  in.sizes[0] = 4;
  in.strides[0] = 1;
  out = in;
  out.data = y;
  int stream_token = 0;
  CHECK(aot_model_run_on_stream(m, &in, 1, &out, 1, NULL, 0, &stream_token) == AOT_OK, "run: %s", aot_last_error());
  CHECK(y[0] == 2.0f && y[3] == 5.0f, "y = %g %g", y[0], y[3]);
  CHECK(aot_model_run(m, &in, 1, &out, 1, NULL, 0) == AOT_OK, "run: %s", aot_last_error());
  /* Options reach the model; unknown ones fail with its message. */
  CHECK(aot_model_set_option(m, "cuda_graph", 1) == AOT_OK, "cuda_graph: %s", aot_last_error());
  CHECK(aot_model_run(m, &in, 1, &out, 1, NULL, 0) == AOT_OK && y[0] == 102.0f, "option not applied: %g", y[0]);
  CHECK(aot_model_set_option(m, "cuda_graph", 7) == AOT_ERR_BAD_OPTION && strstr(aot_last_error(), "unknown option"),
        "bad option value: %s", aot_last_error());
  CHECK(aot_model_set_option(m, "fast", 1) == AOT_ERR_BAD_OPTION, "bad option key");
  /* The model's own errors come back with its message. */
  in.device = AOT_DEVICE_CUDA;
  CHECK(aot_model_run(m, &in, 1, &out, 1, NULL, 0) == AOT_ERR_BAD_DEVICE && strstr(aot_last_error(), "host pointer"),
        "device error: %s", aot_last_error());
  aot_model_free(m);
  CHECK(close_count && close_count() == 1, "close called %d times", close_count ? close_count() : -1);

  /* A failing open: status and message from the model, nothing returned. */
  setenv("FAKE_DEVICE_OPEN_FAILS", "1", 1);
  aot_model* m2 = NULL;
  CHECK(aot_model_open(argv[1], &m2) == AOT_ERR_DEVICE && m2 == NULL, "failing open returned a model");
  CHECK(strstr(aot_last_error(), "out of memory (simulated)") != NULL, "open message: %s", aot_last_error());
  CHECK(close_count && close_count() == 1, "close called for a failed open");
  if (dl) dlclose(dl);
  printf("loader_test: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
