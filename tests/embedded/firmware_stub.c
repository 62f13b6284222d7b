/* The smallest firmware around a model compiled with `atenaot compile
 * --embedded`: static buffers, no heap, no loader, one NAME_run call.
 * Build with
 *   -DAOT_MODEL=NAME -DAOT_MODEL_HEADER='"NAME.h"'
 *   -DAOT_ARENA_BYTES=N   (NAME_arena_bytes(); tests/embedded/model_sizes.c prints it)
 *   -DAOT_IO_BYTES=M      (all inputs and outputs, each rounded up to 64 bytes)
 *   -DAOT_NUM_INPUTS=I -DAOT_NUM_OUTPUTS=O
 * Real firmware fills the inputs from its sensors and reads the outputs; here
 * they stay zero, unless built with -DAOT_SEMIHOSTING (for QEMU's mps2-an386,
 * with mps2_startup.c and mps2.ld): then input_K.bin are read from the host,
 * output_K.bin written back, and the run's status is the exit code. */
#include <stddef.h>
#include <stdint.h>

#include AOT_MODEL_HEADER

#define AOT_CAT_(a, b) a##b
#define AOT_CAT(a, b) AOT_CAT_(a, b)
#define MODEL_RUN AOT_CAT(AOT_MODEL, _run)
#define MODEL_TABLE AOT_CAT(AOT_MODEL, _model)
#define MODEL_ARENA AOT_CAT(AOT_MODEL, _arena_bytes)

static uint8_t arena[AOT_ARENA_BYTES > 0 ? AOT_ARENA_BYTES : 1] __attribute__((aligned(64)));
static uint8_t io[AOT_IO_BYTES > 0 ? AOT_IO_BYTES : 1] __attribute__((aligned(64)));
static aot_tensor inputs[AOT_NUM_INPUTS > 0 ? AOT_NUM_INPUTS : 1];
static aot_tensor outputs[AOT_NUM_OUTPUTS > 0 ? AOT_NUM_OUTPUTS : 1];
volatile int model_status = -1; /* what a debugger (or the test) looks at */

static size_t dtype_bytes(aot_dtype t) {
  switch (t) {
    case AOT_FLOAT64:
    case AOT_INT64:
      return 8;
    case AOT_FLOAT32:
    case AOT_INT32:
      return 4;
    case AOT_INT16:
      return 2;
    default:
      return 1;
  }
}

/* Describes tensor `info` as contiguous memory at io[*offset]. */
static int describe(aot_tensor* t, const aot_tensor_info* info, size_t* offset) {
  size_t n = dtype_bytes(info->dtype);
  int64_t stride = 1;
  for (int d = info->ndim - 1; d >= 0; --d) {
    t->sizes[d] = info->sizes[d];
    t->strides[d] = stride;
    stride *= info->sizes[d];
  }
  n *= (size_t)stride;
  if (*offset + n > sizeof(io)) return 1;
  t->data = io + *offset;
  t->dtype = info->dtype;
  t->ndim = info->ndim;
  *offset += (n + 63) / 64 * 64;
  return 0;
}

#ifdef AOT_SEMIHOSTING
/* ARM semihosting (bkpt 0xAB): r0 = operation, r1 = parameter block. */
static int semihost(int op, void* arg) {
  register int r0 __asm__("r0") = op;
  register void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static size_t str_len(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

/* Reads (mode 1, "rb") or writes (mode 5, "wb") a whole file; 0 on success. */
static int host_file(const char* stem, size_t k, int mode, void* data, size_t bytes) {
  char name[32];
  size_t n = str_len(stem);
  for (size_t i = 0; i < n; ++i) name[i] = stem[i];
  name[n++] = (char)('0' + k % 10);
  name[n] = 0;
  const char* ext = ".bin";
  for (size_t i = 0; ext[i]; ++i) name[n++] = ext[i];
  name[n] = 0;
  uintptr_t open_args[3] = {(uintptr_t)name, (uintptr_t)mode, n};
  int h = semihost(0x01 /* SYS_OPEN */, open_args);
  if (h < 0) return 1;
  uintptr_t rw_args[3] = {(uintptr_t)h, (uintptr_t)data, bytes};
  int left = semihost(mode == 1 ? 0x06 /* SYS_READ */ : 0x05 /* SYS_WRITE */, rw_args);
  uintptr_t close_args[1] = {(uintptr_t)h};
  semihost(0x02 /* SYS_CLOSE */, close_args);
  return left != 0;
}

static void host_exit(int code) {
  uintptr_t args[2] = {0x20026 /* ADP_Stopped_ApplicationExit */, (uintptr_t)code};
  semihost(0x20 /* SYS_EXIT_EXTENDED */, args);
  for (;;) {
  }
}

static size_t tensor_bytes(const aot_tensor* t) {
  size_t n = dtype_bytes(t->dtype);
  for (int d = 0; d < t->ndim; ++d) n *= (size_t)t->sizes[d];
  return n;
}
#endif

int main(void) {
  const aot_compiled_model* m = MODEL_TABLE();
  size_t offset = 0;
  if (MODEL_ARENA() > sizeof(arena) || m->num_inputs != AOT_NUM_INPUTS || m->num_outputs != AOT_NUM_OUTPUTS) return 100;
  for (size_t k = 0; k < m->num_inputs; ++k)
    if (describe(&inputs[k], &m->inputs[k], &offset)) return 101;
  for (size_t k = 0; k < m->num_outputs; ++k)
    if (describe(&outputs[k], &m->outputs[k], &offset)) return 102;
#ifdef AOT_SEMIHOSTING
  for (size_t k = 0; k < m->num_inputs; ++k)
    if (host_file("input_", k, 1, inputs[k].data, tensor_bytes(&inputs[k]))) host_exit(103);
#endif
  model_status = MODEL_RUN(inputs, m->num_inputs, outputs, m->num_outputs, arena, sizeof(arena), NULL);
#ifdef AOT_SEMIHOSTING
  if (model_status != 0) host_exit(model_status);
  for (size_t k = 0; k < m->num_outputs; ++k)
    if (host_file("output_", k, 5, outputs[k].data, tensor_bytes(&outputs[k]))) host_exit(104);
  host_exit(0);
#endif
  for (;;) {
  }
}
