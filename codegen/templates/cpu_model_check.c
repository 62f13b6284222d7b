/* codegen/templates' C sources compiled as they stand (with -Wall -Wextra
 * -Werror), in one configuration of the model macros (BUILD builds one test
 * per configuration: CHECK_WEIGHTS, CHECK_THREADS, CHECK_LAYOUT), around a
 * toy model: y = x + w over 4 floats, w = 1 where the model has no weights.
 * Then the entry points' statuses and messages, as a caller sees them. */
#if CHECK_THREADS
#define _POSIX_C_SOURCE 200809L /* pthreads, sysconf */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "c_api/atenaot_model.h"
#if CHECK_THREADS
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

/* In a generated file's order (include sorting would change it). */
// clang-format off
#include "codegen/templates/aot_validation.h"
#include "codegen/templates/aot_numeric.h"
#include "codegen/kernels/aot_rows.h"
#include "codegen/kernels/aot_vecmath.h"
#include "codegen/templates/aot_gemm_ref.h"
#include "codegen/templates/aot_cpu_check.h"
// clang-format on
#if CHECK_THREADS
#include "codegen/templates/aot_threads.h"
#endif

/* What an emitter writes: the model's weights, tables, compute and facts. */
/* A macro with the model's name, as GCC's GNU modes predefine linux and unix:
 * the templates never expand the bare name. */
#define toy 1
#define AOT_M_SYM_arena_bytes toy_arena_bytes
#define AOT_M_SYM_weights_bytes toy_weights_bytes
#define AOT_M_SYM_run toy_run
#define AOT_M_SYM_run_msg toy_run_msg
#define AOT_M_SYM_check_weights toy_check_weights
#define AOT_M_SYM_set_threads toy_set_threads
#define AOT_M_SYM_model toy_model
#define AOT_M_SYM_weights_data toy_weights_data
#define AOT_M_NAME_STR "toy"
#define AOT_M_INPUTS 1
#define AOT_M_OUTPUTS 1
#define AOT_M_ARENA_BYTES 64
#define AOT_M_WEIGHTS CHECK_WEIGHTS
#if CHECK_WEIGHTS == 1 /* AOT_M_W_FILE */
#define AOT_M_WEIGHTS_ARG 1
#define AOT_M_WEIGHTS_BYTES 16
#else
#define AOT_M_WEIGHTS_ARG 0
#define AOT_M_WEIGHTS_BYTES 0
#endif
#define AOT_M_THREADS CHECK_THREADS
#if CHECK_LAYOUT
#define AOT_M_IN_LAYOUT aot__in_layout
static const aot__layout aot__in_layout[1] = {{{1}, 0, 0}};
#else
#define AOT_M_IN_LAYOUT 0
#endif
static const aot_tensor_info aot__inputs[1] = {{"x", AOT_FLOAT32, 1, {4}, 0, 0}};
static const aot_tensor_info aot__outputs[1] = {{"y", AOT_FLOAT32, 1, {4}, 0, 0}};
static const float toy_w[4] = {1, 1, 1, 1};
#if CHECK_WEIGHTS == 2 /* AOT_M_W_LINKED: the bytes an object file links in */
static const uint8_t* const toy_weights_data = (const uint8_t*)toy_w;
#endif
static int aot__compute(void* const* in, void* const* out, uint8_t* arena, const uint8_t* wts, char* err,
                        size_t err_len) {
  const float* w = wts ? (const float*)wts : toy_w;
  for (int i = 0; i < 4; ++i) ((float*)out[0])[i] = ((const float*)in[0])[i] + w[i];
  (void)arena, (void)err, (void)err_len;
  return AOT_OK;
}
#if CHECK_WEIGHTS == 1 || CHECK_WEIGHTS == 2
#include "runtime/aot_crc32.h"
#define AOT_M_BLOB_BYTES 16u
#define AOT_M_WEIGHTS_CRC 0xE8681456u /* zlib.crc32 of four float 1.0s */
#include "codegen/templates/aot_weights_check.h"
#endif
#include "codegen/templates/aot_cpu_model.h"

/* The header an emitter writes declares these. */
size_t toy_arena_bytes(void);
size_t toy_weights_bytes(void);
int toy_run_msg(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs, void* arena,
                size_t arena_bytes, const void* weights, char* err, size_t err_len);
const aot_compiled_model* toy_model(void);

static int failures = 0;
#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

int main(void) {
  float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
  _Alignas(64) uint8_t arena[64];
  aot_tensor in = {x, AOT_FLOAT32, 1, AOT_DEVICE_CPU, 0, {4}, {1}};
  aot_tensor out = {y, AOT_FLOAT32, 1, AOT_DEVICE_CPU, 0, {4}, {1}};
  char err[256];
  const void* weights = AOT_M_WEIGHTS_ARG ? (const void*)toy_w : NULL;
  const aot_compiled_model* m = toy_model();
  EXPECT(m == toy_model() && strcmp(m->name, "toy") == 0 && m->num_inputs == 1 && m->num_outputs == 1);
  EXPECT(toy_arena_bytes() == 64 && toy_weights_bytes() == (AOT_M_WEIGHTS_ARG ? 16u : 0u));
  EXPECT(m->weights_bytes == toy_weights_bytes());

  void* state = NULL;
  EXPECT(m->open(weights, &state, err, sizeof err) == AOT_OK);
  EXPECT(toy_run_msg(&in, 1, &out, 1, arena, sizeof arena, weights, err, sizeof err) == AOT_OK && err[0] == 0);
  EXPECT(y[0] == 2 && y[3] == 5);
  EXPECT(m->run(state, &in, 1, &out, 1, arena, sizeof arena, weights, NULL, err, sizeof err) == AOT_OK);

  /* Bad arguments: one status and one line. */
  EXPECT(toy_run_msg(&in, 2, &out, 1, arena, sizeof arena, weights, err, sizeof err) == AOT_ERR_BAD_COUNT);
  EXPECT(strstr(err, "input") != NULL);
  EXPECT(toy_run_msg(&in, 1, &out, 1, arena, 8, weights, err, sizeof err) == AOT_ERR_ARENA_TOO_SMALL);
  EXPECT(m->run(state, &in, 1, &out, 1, arena, sizeof arena, weights, (void*)arena, err, sizeof err) ==
         AOT_ERR_BAD_DEVICE);
  EXPECT(strstr(err, "must be NULL: this model runs on the CPU") != NULL);
#if AOT_M_WEIGHTS_ARG
  EXPECT(toy_run_msg(&in, 1, &out, 1, arena, sizeof arena, NULL, err, sizeof err) == AOT_ERR_NULL_POINTER);
  EXPECT(strstr(err, "are NULL (this model keeps them in toy.weights)") != NULL);
  const float bad[4] = {1, 1, 1, 2};
  EXPECT(m->open(bad, &state, err, sizeof err) == AOT_ERR_CORRUPT_WEIGHTS);
  EXPECT(strstr(err, "the weights file toy.weights") != NULL);
  EXPECT(toy_check_weights(toy_w) == AOT_OK && toy_check_weights(bad) == AOT_ERR_CORRUPT_WEIGHTS);
  state = (void*)bad; /* the option re-checks what open kept */
  EXPECT(m->set_option(state, "verify_weights", 1, err, sizeof err) == AOT_ERR_CORRUPT_WEIGHTS);
  state = (void*)toy_w;
#endif

  /* Options. */
  EXPECT(m->set_option(state, "verify_weights", 1, err, sizeof err) ==
         (AOT_M_WEIGHTS == AOT_M_W_C_ARRAYS ? AOT_ERR_BAD_OPTION : AOT_OK));
#if AOT_M_WEIGHTS == AOT_M_W_C_ARRAYS
  EXPECT(strstr(err, "C arrays in toy.c (--weights c)") != NULL);
#elif AOT_M_WEIGHTS == AOT_M_W_LINKED
  EXPECT(toy_check_weights(NULL) == AOT_OK);
#endif
  EXPECT(m->set_option(state, "verify_weights", 2, err, sizeof err) == AOT_ERR_BAD_OPTION);
  EXPECT(m->set_option(state, "speed", 1, err, sizeof err) == AOT_ERR_BAD_OPTION);
  EXPECT(strstr(err, "speed") != NULL && strstr(err, AOT_M_THREADS ? "(CPU models take threads and verify_weights)"
                                                                   : "(CPU models take verify_weights)") != NULL);
#if AOT_M_THREADS
  EXPECT(m->set_option(state, "threads", 2, err, sizeof err) == AOT_OK);
  EXPECT(toy_set_threads(1) == AOT_OK && toy_set_threads(65) == AOT_ERR_BAD_OPTION);
#endif
  if (failures) fprintf(stderr, "%d failed\n", failures);
  return failures ? 1 : 0;
}
