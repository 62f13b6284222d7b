/* A C99 program that uses only atenaot.h: loads a compiled model through the
 * runtime, checks its description, runs it (own arena and caller arena) and
 * compares with eager's outputs; then checks that every misuse returns the
 * right status, sets a message and writes nothing (ABI version 2).
 * usage: abi_test LIBMODEL.so INPUT.npy EXPECTED.npy OTHER_ABI.so NOT_A_MODEL.so NULL_ENTRY.so */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atenaot.h"
#include "check.h"

/* Reads a little-endian float32 .npy (C order) into a malloc'd buffer. */
static float* read_npy_f32(const char* path, size_t* count) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char head[10];
  if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return NULL;
  }
  size_t hlen = head[8] | (head[9] << 8);
  fseek(f, 0, SEEK_END);
  long end = ftell(f);
  size_t n = (size_t)(end - 10 - (long)hlen) / 4;
  float* buf = (float*)malloc(n * 4 + 4);
  fseek(f, (long)(10 + hlen), SEEK_SET);
  if (fread(buf, 4, n, f) != n) {
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *count = n;
  return buf;
}

static aot_tensor describe(void* data, const aot_tensor_info* info) {
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
  return t;
}

static void expect_status(aot_status got, aot_status want, const char* what) {
  CHECK(got == want, "%s: got %s, want %s (%s)", what, aot_status_name(got), aot_status_name(want), aot_last_error());
  if (got != AOT_OK) CHECK(aot_last_error()[0] != 0, "%s: no error message", what);
}

/* The last error names what failed: it contains `part` (built with printf). */
static void expect_message(const char* what, const char* fmt, ...) {
  char part[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(part, sizeof(part), fmt, ap);
  va_end(ap);
  CHECK(strstr(aot_last_error(), part) != NULL, "%s: message \"%s\" lacks \"%s\"", what, aot_last_error(), part);
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: abi_test LIB INPUT EXPECTED OTHER_ABI NOT_A_MODEL NULL_ENTRY\n");
    return 2;
  }
  CHECK(aot_abi_version() == ATENAOT_ABI_VERSION, "runtime ABI version %u", aot_abi_version());
  CHECK(strlen(aot_version_string()) > 0, "empty version string");

  aot_model* m = NULL;
  expect_status(aot_model_open(argv[1], &m), AOT_OK, "open");
  if (!m) return 1;
  size_t nin = 0, nout = 0, arena_bytes = 0;
  expect_status(aot_model_num_inputs(m, &nin), AOT_OK, "num_inputs");
  expect_status(aot_model_num_outputs(m, &nout), AOT_OK, "num_outputs");
  expect_status(aot_model_arena_bytes(m, &arena_bytes), AOT_OK, "arena_bytes");
  CHECK(nin == 1 && nout == 1, "counts %zu %zu", nin, nout);
  aot_tensor_info ii, oi;
  expect_status(aot_model_input_info(m, 0, &ii), AOT_OK, "input_info");
  expect_status(aot_model_output_info(m, 0, &oi), AOT_OK, "output_info");
  CHECK(ii.dtype == AOT_FLOAT32 && oi.dtype == AOT_FLOAT32, "dtypes");
  CHECK(ii.flags == 0 && oi.flags == 0, "flags %d %d (the example mutates no input)", ii.flags, oi.flags);
  aot_device dev = -1;
  expect_status(aot_model_device(m, &dev), AOT_OK, "device");
  CHECK(dev == AOT_DEVICE_CPU, "device %d", dev);
  expect_status(aot_model_device(m, NULL), AOT_ERR_NULL_POINTER, "NULL device out");
  /* The ABI's layout is fixed-width: the same on every target (no enums). */
  CHECK(sizeof(aot_tensor) == sizeof(void*) + 16 + 2 * 8 * AOT_MAX_DIMS, "aot_tensor size %zu", sizeof(aot_tensor));
  CHECK(sizeof(aot_tensor_info) == sizeof(void*) + 8 + 8 * AOT_MAX_DIMS + 8, "aot_tensor_info size %zu",
        sizeof(aot_tensor_info));

  size_t n_in = 0, n_exp = 0;
  float* x = read_npy_f32(argv[2], &n_in);
  float* expected = read_npy_f32(argv[3], &n_exp);
  CHECK(x && expected, "cannot read the .npy files");
  if (!x || !expected) return 1;
  float* y = (float*)calloc(n_exp, sizeof(float));
  aot_tensor in = describe(x, &ii), out = describe(y, &oi);

  /* Runs: the model's own arena, then a caller arena. */
  expect_status(aot_model_run(m, &in, 1, &out, 1, NULL, 0), AOT_OK, "run (own arena)");
  double worst = 0;
  for (size_t i = 0; i < n_exp; ++i) {
    double d = fabs((double)y[i] - (double)expected[i]);
    if (d > worst) worst = d;
    CHECK(d <= 1e-6 + 1e-5 * fabs((double)expected[i]), "output %zu: %g vs eager %g", i, y[i], expected[i]);
  }
  void* arena = NULL;
  if (arena_bytes && posix_memalign(&arena, 64, arena_bytes) != 0) return 1;
  memset(y, 0, n_exp * sizeof(float));
  expect_status(aot_model_run(m, &in, 1, &out, 1, arena, arena_bytes), AOT_OK, "run (caller arena)");
  for (size_t i = 0; i < n_exp; ++i)
    CHECK(fabs((double)y[i] - (double)expected[i]) <= 1e-6 + 1e-5 * fabs((double)expected[i]),
          "caller-arena run, output %zu: %g vs eager %g", i, y[i], expected[i]);

  /* Misuse: each returns its status, leaves the output untouched. */
  for (size_t i = 0; i < n_exp; ++i) y[i] = 12345.0f;
  aot_tensor bad = in;
  /* Each message names what is wrong: the tensor (index and name), expected vs got. */
  char in0[300];
  snprintf(in0, sizeof(in0), "input 0 (%s)", ii.name ? ii.name : "");
  expect_status(aot_model_run(NULL, &in, 1, &out, 1, NULL, 0), AOT_ERR_NULL_POINTER, "NULL model");
  expect_message("NULL model", ": NULL model"); /* aot_model_run calls aot_model_run_on_stream */
  expect_status(aot_model_run(m, NULL, 1, &out, 1, NULL, 0), AOT_ERR_NULL_POINTER, "NULL inputs");
  expect_message("NULL inputs", "the inputs or outputs array is NULL");
  expect_status(aot_model_run(m, &in, 1, NULL, 1, NULL, 0), AOT_ERR_NULL_POINTER, "NULL outputs");
  expect_message("NULL outputs", "the inputs or outputs array is NULL");
  expect_status(aot_model_run(m, &in, 2, &out, 1, NULL, 0), AOT_ERR_BAD_COUNT, "two inputs");
  expect_status(aot_model_run(m, &in, 1, &out, 0, NULL, 0), AOT_ERR_BAD_COUNT, "no outputs");
  expect_message("no outputs", "got 0 outputs; the model returns 1");
  bad.dtype = AOT_FLOAT64;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_BAD_DTYPE, "wrong dtype");
  expect_message("wrong dtype", "%s has dtype float64; the model expects float32", in0);
  bad = in;
  bad.ndim = in.ndim + 1;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_BAD_SHAPE, "wrong rank");
  expect_message("wrong rank", "%s has %d dimensions; the model expects %d", in0, in.ndim + 1, in.ndim);
  bad = in;
  bad.sizes[0] += 1;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_BAD_SHAPE, "wrong size");
  expect_message("wrong size", "%s has size %lld in dimension 0; the model expects %lld", in0,
                 (long long)in.sizes[0] + 1, (long long)in.sizes[0]);
  bad = in;
  bad.strides[bad.ndim - 1] = 2;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_BAD_STRIDES, "wrong strides");
  expect_message("wrong strides", "%s is not contiguous row-major", in0);
  bad = in;
  bad.data = NULL;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_NULL_POINTER, "NULL data");
  expect_message("NULL data", "%s has a NULL data pointer", in0);
  bad = in;
  bad.device = AOT_DEVICE_CUDA;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_BAD_DEVICE, "CUDA tensor on a CPU model");
  CHECK(strstr(aot_last_error(), "input 0 (") && strstr(aot_last_error(), "device 1"), "device message: %s",
        aot_last_error());
  bad = in;
  bad.dtype = AOT_INT64;
  expect_status(aot_model_run(m, &bad, 1, &out, 1, NULL, 0), AOT_ERR_BAD_DTYPE, "int64 input");
  CHECK(strstr(aot_last_error(), "has dtype int64; the model expects float32"), "dtype message: %s", aot_last_error());
  expect_status(aot_model_run_on_stream(m, &in, 1, &out, 1, NULL, 0, (void*)&bad), AOT_ERR_BAD_DEVICE,
                "stream on a CPU model");
  expect_status(aot_model_set_option(m, "cuda_graph", 1), AOT_ERR_BAD_OPTION, "option on a CPU model");
  expect_status(aot_model_set_option(m, NULL, 1), AOT_ERR_NULL_POINTER, "NULL option key");
  expect_status(aot_model_run(m, &in, 2, &out, 1, NULL, 0), AOT_ERR_BAD_COUNT, "two inputs (message)");
  CHECK(strstr(aot_last_error(), "got 2 inputs; the model takes 1"), "count message: %s", aot_last_error());
  if (arena_bytes) {
    expect_status(aot_model_run(m, &in, 1, &out, 1, arena, arena_bytes - 1), AOT_ERR_ARENA_TOO_SMALL, "small arena");
    expect_message("small arena", "the arena has %zu bytes; the model needs %zu", arena_bytes - 1, arena_bytes);
    expect_status(aot_model_run(m, &in, 1, &out, 1, (char*)arena + 4, arena_bytes - 4 > 0 ? arena_bytes : 0),
                  AOT_ERR_BAD_ALIGNMENT, "misaligned arena");
    expect_message("misaligned arena", "the arena is not 64-byte aligned");
  }
  /* A count that does not fit an int64 is printed as the size_t it is. */
  expect_status(aot_model_run(m, &in, (size_t)-1, &out, 1, NULL, 0), AOT_ERR_BAD_COUNT, "SIZE_MAX inputs");
  CHECK(strstr(aot_last_error(), "got 18446744073709551615 inputs"), "SIZE_MAX message: %s", aot_last_error());
  /* Tensors inside the arena, or outputs over inputs, would give wrong numbers: refused. */
  if (arena_bytes >= n_exp * sizeof(float)) {
    aot_tensor inside = out;
    inside.data = arena;
    expect_status(aot_model_run(m, &in, 1, &inside, 1, arena, arena_bytes), AOT_ERR_OVERLAP, "output inside the arena");
    CHECK(strstr(aot_last_error(), "output 0 (") && strstr(aot_last_error(), "lies inside the arena"),
          "overlap message: %s", aot_last_error());
    inside = in;
    inside.data = (char*)arena + 64;
    expect_status(aot_model_run(m, &inside, 1, &out, 1, arena, arena_bytes), AOT_ERR_OVERLAP, "input inside the arena");
  }
  {
    aot_tensor over = out;
    over.data = x; /* the output written over the input it reads */
    expect_status(aot_model_run(m, &in, 1, &over, 1, NULL, 0), AOT_ERR_OVERLAP, "output over the input");
    CHECK(strstr(aot_last_error(), "overlaps input 0; outputs must not share memory"), "overlap message: %s",
          aot_last_error());
    over.data = (char*)x + 4 * (n_in - 1); /* only its last element */
    expect_status(aot_model_run(m, &in, 1, &over, 1, NULL, 0), AOT_ERR_OVERLAP, "output over the input's last element");
  }
  for (size_t i = 0; i < n_exp; ++i) CHECK(y[i] == 12345.0f, "a failed run wrote output element %zu", i);
  /* Options: the weights check on request; anything else is refused by name. */
  expect_status(aot_model_set_option(m, "verify_weights", 1), AOT_OK, "verify_weights");
  expect_status(aot_model_set_option(m, "verify_weights", 2), AOT_ERR_BAD_OPTION, "verify_weights 2");
  expect_status(aot_model_set_option(m, "cuda_graph", 1), AOT_ERR_BAD_OPTION, "cuda_graph on a CPU model");
  CHECK(strstr(aot_last_error(), "unknown option cuda_graph"), "option message: %s", aot_last_error());
  expect_status(aot_model_input_info(m, 7, &ii), AOT_ERR_BAD_INDEX, "input index");
  expect_message("input index", "input index out of range");
  expect_status(aot_model_output_info(m, 7, &oi), AOT_ERR_BAD_INDEX, "output index");
  expect_message("output index", "output index out of range");
  expect_status(aot_model_input_info(m, 0, NULL), AOT_ERR_NULL_POINTER, "NULL info");
  expect_message("NULL info", "aot_model_input_info: NULL out_info");
  expect_status(aot_model_num_inputs(NULL, &nin), AOT_ERR_NULL_POINTER, "NULL model count");
  expect_message("NULL model count", "aot_model_num_inputs: NULL model");
  expect_status(aot_model_arena_bytes(m, NULL), AOT_ERR_NULL_POINTER, "NULL arena out");

  aot_model* other = NULL;
  expect_status(aot_model_open("/nonexistent/libx.so", &other), AOT_ERR_OPEN_FAILED, "missing library");
  expect_message("missing library", "cannot load /nonexistent/libx.so: ");
  expect_status(aot_model_open(argv[4], &other), AOT_ERR_ABI_MISMATCH, "other ABI version");
  expect_message("other ABI version", "%s was built for ABI version", argv[4]);
  expect_message("other ABI version", "; this runtime implements version %u", (unsigned)ATENAOT_ABI_VERSION);
  expect_status(aot_model_open(argv[5], &other), AOT_ERR_OPEN_FAILED, "not a model");
  expect_message("not a model", "%s is not an atenaot model (no aot_compiled_model_entry)", argv[5]);
  expect_status(aot_model_open(argv[6], &other), AOT_ERR_OPEN_FAILED, "entry point returning NULL");
  CHECK(strstr(aot_last_error(), "aot_compiled_model_entry returned NULL"), "NULL entry message: %s", aot_last_error());
  expect_status(aot_model_open(NULL, &other), AOT_ERR_NULL_POINTER, "NULL path");
  expect_message("NULL path", "aot_model_open: NULL library_path");
  expect_status(aot_model_open(argv[1], NULL), AOT_ERR_NULL_POINTER, "NULL out_model");
  expect_message("NULL out_model", "aot_model_open: NULL out_model");
  /* Every status has its own name; OUT_OF_MEMORY and INTERNAL cannot be
   * provoked from here, DEVICE is checked by loader_test (a fake device model)
   * and CORRUPT_WEIGHTS by c_abi_test.sh (a changed NAME.weights). */
  for (int a = 0; a <= 17; ++a) {
    CHECK(strncmp(aot_status_name((aot_status)a), a ? "AOT_ERR_" : "AOT_OK", a ? 8 : 6) == 0 &&
              strcmp(aot_status_name((aot_status)a), "AOT_ERR_UNKNOWN") != 0,
          "status %d has no name: %s", a, aot_status_name((aot_status)a));
    for (int b = 0; b < a; ++b)
      CHECK(strcmp(aot_status_name((aot_status)a), aot_status_name((aot_status)b)) != 0,
            "statuses %d and %d share a name", a, b);
  }
  CHECK(other == NULL, "a failed open wrote its output");

  aot_model_free(m);
  aot_model_free(NULL); /* NULL-safe */
  free(arena);
  free(x);
  free(y);
  free(expected);
  printf("abi_test: max abs diff vs eager %g, %d failure(s)\n", worst, failures);
  return failures ? 1 : 0;
}
