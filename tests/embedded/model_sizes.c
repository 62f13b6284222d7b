/* Host helper for tests/embedded: prints what a firmware must reserve for a
 * model compiled with --embedded, read from the model's own tables:
 *   arena=BYTES io=BYTES inputs=N outputs=N
 * (io: all inputs and outputs, each rounded up to 64 bytes)
 * Build: cc -std=c99 -I DIR -DAOT_MODEL=NAME -DAOT_MODEL_HEADER='"NAME.h"' model_sizes.c DIR/NAME.c -lm */
#include <stdint.h>
#include <stdio.h>

#include AOT_MODEL_HEADER

#define AOT_CAT_(a, b) a##b
#define AOT_CAT(a, b) AOT_CAT_(a, b)

static size_t bytes(const aot_tensor_info* t) {
  size_t n = t->dtype == AOT_FLOAT64 || t->dtype == AOT_INT64   ? 8
             : t->dtype == AOT_FLOAT32 || t->dtype == AOT_INT32 ? 4
             : t->dtype == AOT_INT16                            ? 2
                                                                : 1;
  for (int d = 0; d < t->ndim; ++d) n *= (size_t)t->sizes[d];
  return (n + 63) / 64 * 64;
}

int main(void) {
  const aot_compiled_model* m = AOT_CAT(AOT_MODEL, _model)();
  size_t io = 0;
  for (size_t k = 0; k < m->num_inputs; ++k) io += bytes(&m->inputs[k]);
  for (size_t k = 0; k < m->num_outputs; ++k) io += bytes(&m->outputs[k]);
  printf("arena=%zu io=%zu inputs=%zu outputs=%zu\n", AOT_CAT(AOT_MODEL, _arena_bytes)(), io, m->num_inputs,
         m->num_outputs);
  return 0;
}
