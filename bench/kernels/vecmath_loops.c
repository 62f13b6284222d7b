/* The fused-loop shape of aot_vecmath.h's functions (y[i] = f(x[i])), built
 * twice by bench/kernels/BUILD: with the machine's FMA and without (-mno-fma),
 * named AOT_LOOP_PREFIX##function. */
#include <stdint.h>

#include "codegen/kernels/aot_vecmath.h"

#define AOT_CAT2(a, b) a##b
#define AOT_CAT(a, b) AOT_CAT2(a, b)
#define AOT_LOOP(fn)                                                       \
  void AOT_CAT(AOT_LOOP_PREFIX, fn)(const float* x, float* y, int64_t n);  \
  void AOT_CAT(AOT_LOOP_PREFIX, fn)(const float* x, float* y, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) y[i] = aot__##fn(x[i]);                \
  }

AOT_LOOP(expf)
AOT_LOOP(logf)
AOT_LOOP(tanhf)
AOT_LOOP(sigmoidf)
AOT_LOOP(siluf)
AOT_LOOP(erff)
AOT_LOOP(gelu_erff)
AOT_LOOP(gelu_tanhf)
