/* The fused-loop shape of aot_vecmath.h's functions (y[i] = f(x[i])), built
 * twice by bench/kernels/BUILD: with the machine's FMA and without (-mno-fma),
 * named AOT_LOOP_PREFIX##function; and the kernel library's epilogue rows. */
#include <stdint.h>
#include <string.h>

#define AOT_KAPI /* the kernel library's prototypes extern: only its inline epilogue is used here */
#include "codegen/kernels/aot_kernels.h"

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

/* The kernel library's epilogue form (aot__act_row, what GEMM and conv
 * stores run): with AVX-512 and FMA, 16-float blocks through vscalefps. */
#define AOT_ACT_LOOP(name, act_kind)                                         \
  void AOT_CAT(AOT_LOOP_PREFIX, name)(const float* x, float* y, int64_t n);  \
  void AOT_CAT(AOT_LOOP_PREFIX, name)(const float* x, float* y, int64_t n) { \
    aot__epilogue ep;                                                        \
    memset(&ep, 0, sizeof ep);                                               \
    ep.act = act_kind;                                                       \
    memcpy(y, x, sizeof(float) * (size_t)n);                                 \
    aot__act_row(y, n, 1, &ep);                                              \
  }

AOT_ACT_LOOP(act_row_sigmoidf, AOT_ACT_SIGMOID)
AOT_ACT_LOOP(act_row_siluf, AOT_ACT_SILU)
