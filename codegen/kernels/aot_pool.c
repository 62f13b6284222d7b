/* Max pooling. Each output takes the max of its window's taps inside the
 * image (eager's padding is -inf), in the order kh, then kw; a NaN tap
 * replaces the running max, as in eager's CPU kernel, so NaN propagates.
 * Columns whose taps all lie inside the image run branch-free (the common
 * 3x3 windows compiled as constants), so the column loop vectorises; the
 * border columns take the bounds-checked path. Every output is computed the
 * same way for any channel range (threads split channels). */
#include "aot_kernels.h"

#if defined(__GNUC__) && !defined(__OPTIMIZE_SIZE__)
#define AOT__POOL_INLINE static inline __attribute__((always_inline))
#define AOT__POOL_SPECIALISE 1
#else
#define AOT__POOL_INLINE static inline
#define AOT__POOL_SPECIALISE 0
#endif

static inline float aot__max_tap(float acc, float v) { return v > acc || v != v ? v : acc; }

AOT__POOL_INLINE void aot__max_pool_planes(const aot__conv_geom* g, const float* x, float* y, int64_t c0, int64_t c1,
                                           int64_t KH, int64_t KW, int64_t SH, int64_t SW, int64_t DH, int64_t DW) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW, PH = g->PH, PW = g->PW;
  int64_t lo, hi;
  aot__interior_cols(W, OW, KW, SW, PW, DW, &lo, &hi);
  for (int64_t c = c0; c < c1; ++c) {
    const float* restrict plane = x + c * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      float* restrict yr = y + (c * OH + oh) * OW;
      const int64_t ih0 = oh * SH - PH; /* the input row of kernel row 0 */
      int64_t kh0 = 0, kh1 = KH;
      while (kh0 < KH && ih0 + kh0 * DH < 0) ++kh0;
      while (kh1 > kh0 && ih0 + (kh1 - 1) * DH >= H) --kh1;
      for (int64_t ow = 0; ow < OW; ++ow) { /* border columns: a tap may fall outside */
        if (ow == lo) ow = hi > lo ? hi : lo;
        if (ow >= OW) break;
        float acc = -INFINITY;
        for (int64_t kh = kh0; kh < kh1; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = ow * SW - PW + kw * DW;
            if (iw >= 0 && iw < W) acc = aot__max_tap(acc, plane[(ih0 + kh * DH) * W + iw]);
          }
        yr[ow] = acc;
      }
      const float* xb = plane + ih0 * W - PW;
      if (kh0 == 0 && kh1 == KH) { /* constant kernel-row bounds: the loop vectorises */
        for (int64_t ow = lo; ow < hi; ++ow) {
          const float* xp = xb + ow * SW;
          float acc = -INFINITY;
          for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) acc = aot__max_tap(acc, xp[kh * DH * W + kw * DW]);
          yr[ow] = acc;
        }
      } else {
        for (int64_t ow = lo; ow < hi; ++ow) {
          const float* xp = xb + ow * SW;
          float acc = -INFINITY;
          for (int64_t kh = kh0; kh < kh1; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw) acc = aot__max_tap(acc, xp[kh * DH * W + kw * DW]);
          yr[ow] = acc;
        }
      }
    }
  }
}

AOT_KAPI void aot__max_pool2d_range(const aot__conv_geom* g, const float* x, float* y, int64_t c0, int64_t c1) {
#if AOT__POOL_SPECIALISE
  if (g->KH == 3 && g->KW == 3 && g->DH == 1 && g->DW == 1 && g->SH == g->SW) {
    if (g->SW == 1) {
      aot__max_pool_planes(g, x, y, c0, c1, 3, 3, 1, 1, 1, 1);
      return;
    }
    if (g->SW == 2) {
      aot__max_pool_planes(g, x, y, c0, c1, 3, 3, 2, 2, 1, 1);
      return;
    }
  }
#endif
  aot__max_pool_planes(g, x, y, c0, c1, g->KH, g->KW, g->SH, g->SW, g->DH, g->DW);
}
