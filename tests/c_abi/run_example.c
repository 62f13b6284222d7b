/* Runs a compiled model on one .npy input through the C ABI and compares
 * every output with the expected .npy files (float32: within 1e-5 of the
 * output's scale; other dtypes: exact). Only atenaot.h and libc, so it can run
 * under ASan/UBSan or valgrind together with the model and the runtime.
 * usage: run_example LIBMODEL.so INPUT.npy EXPECTED_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atenaot.h"

/* The data bytes of a .npy file (header skipped); sets *descr to its dtype text. */
static unsigned char* read_npy(const char* path, size_t* bytes, char descr[8]) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char head[10];
  if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0 || head[6] != 1) {
    fclose(f);
    return NULL;
  }
  size_t hlen = (size_t)head[8] | (size_t)head[9] << 8;
  char* h = (char*)calloc(hlen + 1, 1);
  if (!h || fread(h, 1, hlen, f) != hlen) {
    free(h);
    fclose(f);
    return NULL;
  }
  const char* d = strstr(h, "'descr': '");
  snprintf(descr, 8, "%.3s", d ? d + 10 : "?");
  free(h);
  long start = ftell(f);
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)(ftell(f) - start);
  fseek(f, start, SEEK_SET);
  unsigned char* data = (unsigned char*)malloc(*bytes ? *bytes : 1);
  if (!data || fread(data, 1, *bytes, f) != *bytes) {
    free(data);
    fclose(f);
    return NULL;
  }
  fclose(f);
  return data;
}

static size_t item_size(aot_dtype t) {
  static const size_t sizes[] = {4, 8, 4, 8, 1, 1, 1, 2};
  return t >= 0 && t < 8 ? sizes[t] : 0;
}

static aot_tensor describe(void* data, const aot_tensor_info* info, size_t* bytes) {
  aot_tensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.dtype = info->dtype;
  t.ndim = info->ndim;
  int64_t st = 1;
  for (int d = info->ndim - 1; d >= 0; --d) {
    t.sizes[d] = info->sizes[d];
    t.strides[d] = st;
    st *= info->sizes[d];
  }
  *bytes = (size_t)st * item_size(info->dtype);
  return t;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: run_example LIB INPUT.npy EXPECTED_DIR\n");
    return 2;
  }
  aot_model* m = NULL;
  if (aot_model_open(argv[1], &m) != AOT_OK) {
    fprintf(stderr, "open: %s\n", aot_last_error());
    return 1;
  }
  size_t nin = 0, nout = 0;
  if (aot_model_num_inputs(m, &nin) != AOT_OK || aot_model_num_outputs(m, &nout) != AOT_OK || nin != 1) {
    fprintf(stderr, "the model must take one input\n");
    return 1;
  }
  aot_tensor_info ii;
  if (aot_model_input_info(m, 0, &ii) != AOT_OK) return 1;
  size_t got_bytes = 0, want_bytes = 0;
  char descr[8];
  unsigned char* x = read_npy(argv[2], &got_bytes, descr);
  aot_tensor in = describe(x, &ii, &want_bytes);
  if (!x || got_bytes != want_bytes) {
    fprintf(stderr, "cannot read %s (or wrong size)\n", argv[2]);
    return 1;
  }
  aot_tensor* outs = (aot_tensor*)calloc(nout, sizeof(aot_tensor));
  void** bufs = (void**)calloc(nout, sizeof(void*));
  size_t* sizes = (size_t*)calloc(nout, sizeof(size_t));
  for (size_t k = 0; k < nout; ++k) {
    aot_tensor_info oi;
    if (aot_model_output_info(m, k, &oi) != AOT_OK) return 1;
    outs[k] = describe(NULL, &oi, &sizes[k]);
    bufs[k] = calloc(sizes[k] ? sizes[k] : 1, 1);
    outs[k].data = bufs[k];
  }
  if (aot_model_run(m, &in, 1, outs, nout, NULL, 0) != AOT_OK) {
    fprintf(stderr, "run: %s\n", aot_last_error());
    return 1;
  }
  int failures = 0;
  for (size_t k = 0; k < nout; ++k) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/output_%zu.npy", argv[3], k);
    size_t eb = 0;
    unsigned char* e = read_npy(path, &eb, descr);
    if (!e || eb != sizes[k]) {
      fprintf(stderr, "output %zu: cannot read %s (or wrong size)\n", k, path);
      ++failures;
      continue;
    }
    if (outs[k].dtype == AOT_FLOAT32) {
      const float* y = (const float*)bufs[k];
      const float* w = (const float*)e;
      size_t n = sizes[k] / 4;
      double scale = 0, worst = 0;
      for (size_t i = 0; i < n; ++i) scale = fmax(scale, fabs((double)w[i]));
      for (size_t i = 0; i < n; ++i) worst = fmax(worst, fabs((double)y[i] - (double)w[i]));
      printf("output %zu: %zu floats, max |diff| %g at scale %g\n", k, n, worst, scale);
      if (!(worst <= 1e-5 * (scale > 1 ? scale : 1))) ++failures;
    } else if (memcmp(bufs[k], e, sizes[k]) != 0) {
      fprintf(stderr, "output %zu differs\n", k);
      ++failures;
    }
    free(e);
  }
  for (size_t k = 0; k < nout; ++k) free(bufs[k]);
  free(bufs);
  free(outs);
  free(sizes);
  free(x);
  aot_model_free(m);
  return failures ? 1 : 0;
}
