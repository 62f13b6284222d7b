/* Links the model compiled by atenaot_library and calls it through its static
 * entry point: a static, 64-byte aligned arena of classifier_ARENA_BYTES, no
 * loader, no LibTorch. Prints the predicted class of each row. */
#include <math.h>
#include <stdio.h>

#include "classifier.h"

static float x[8 * 64];
static float y[8 * 10];
static unsigned char arena[classifier_ARENA_BYTES] __attribute__((aligned(64)));

int main(void) {
  for (int i = 0; i < 8 * 64; ++i) x[i] = sinf(0.1f * (float)i);
  aot_tensor in = {.data = x, .dtype = AOT_FLOAT32, .ndim = 2, .sizes = {8, 64}, .strides = {64, 1}};
  aot_tensor out = {.data = y, .dtype = AOT_FLOAT32, .ndim = 2, .sizes = {8, 10}, .strides = {10, 1}};
  char err[256];
  int s = classifier_run_msg(&in, 1, &out, 1, arena, sizeof arena, NULL, err, sizeof err);
  if (s != AOT_OK) {
    fprintf(stderr, "classify: status %d: %s\n", s, err);
    return 1;
  }
  printf("classify: arena %d bytes, classes:", (int)classifier_ARENA_BYTES);
  for (int r = 0; r < 8; ++r) {
    int best = 0;
    for (int c = 1; c < 10; ++c)
      if (y[r * 10 + c] > y[r * 10 + best]) best = c;
    printf(" %d", best);
  }
  printf("\n");
  return 0;
}
