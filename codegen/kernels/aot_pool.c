/* Max pooling. Each output takes the max of its window's taps inside the
 * image (eager's padding is -inf), in the order kh, then kw; a NaN tap
 * replaces the running max, as in eager's CPU kernel, so NaN propagates.
 * Columns whose taps all lie inside the image run branch-free (the common
 * 3x3 windows compiled as constants), so the column loop vectorises; the
 * border columns take the bounds-checked path. Every output is computed the
 * same way for any channel range (threads split channels). */
#include "aot_kernels.h"

static inline float aot__max_tap(float acc, float v) { return v > acc || v != v ? v : acc; }

/* Interior columns [lo, hi) of one output row (every tap inside the image),
 * kernel rows [kh0, kh1); xb is the input at (row of kernel row 0, column
 * -PW). Called with constant kernel-row bounds the loop vectorises. */
AOT__KINLINE void aot__max_pool_cols(const float* xb, float* restrict yr, int64_t lo, int64_t hi, int64_t kh0,
                                     int64_t kh1, int64_t KW, int64_t SW, int64_t DH, int64_t DW, int64_t W) {
  for (int64_t ow = lo; ow < hi; ++ow) {
    const float* xp = xb + ow * SW;
    float acc = -INFINITY;
    for (int64_t kh = kh0; kh < kh1; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) acc = aot__max_tap(acc, xp[kh * DH * W + kw * DW]);
    yr[ow] = acc;
  }
}

#if defined(__AVX512F__)
#include <immintrin.h>
/* 3x3 windows at stride 2 (ResNet's, GoogLeNet's and DenseNet's stems: GCC
 * left the stride-2 column loop scalar, 700 us of ResNet-18's 33 ms), 16
 * outputs a vector, border columns included: each window row is two masked
 * loads from its first column and two from the third, columns outside the
 * image reading -inf (never above the running max and not NaN: the same as
 * skipping the tap), and permutes picking the even and odd columns; the taps
 * then run through aot__max_tap's rule in the same order, lane by lane. */
static inline __m512 aot__max_tap16(__m512 acc, __m512 v) {
  const __mmask16 take = _mm512_cmp_ps_mask(acc, v, _CMP_LT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_mov_ps(acc, take, v);
}
static void aot__max_pool_3x3s2_planes(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0, float* y,
                                       int64_t c0, int64_t c1, int64_t oh0, int64_t oh1) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW;
  const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512 ninf = _mm512_set1_ps(-INFINITY);
  for (int64_t c = c0; c < c1; ++c) {
    const float* plane = x + c * xcs;
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      const int64_t ih0 = oh * 2 - g->PH;
      int64_t kh0, kh1;
      aot__kernel_rows(ih0, 3, 1, H, &kh0, &kh1);
      for (int64_t ow = 0; ow < OW; ow += 16) {
        const int64_t s = 2 * ow - g->PW; /* the first column of lane 0's window */
        __m512 acc = ninf;
        for (int64_t kh = kh0; kh < kh1; ++kh) {
          const float* r = plane + (ih0 + kh - xr0) * W;
          const __m512 a = _mm512_mask_loadu_ps(ninf, aot__lanes(-s, W - s), r + s);
          const __m512 b = _mm512_mask_loadu_ps(ninf, aot__lanes(-s - 16, W - s - 16), r + s + 16);
          const __m512 e = _mm512_mask_loadu_ps(ninf, aot__lanes(-s - 2, W - s - 2), r + s + 2);
          const __m512 f = _mm512_mask_loadu_ps(ninf, aot__lanes(-s - 18, W - s - 18), r + s + 18);
          acc = aot__max_tap16(acc, _mm512_permutex2var_ps(a, ev, b));
          acc = aot__max_tap16(acc, _mm512_permutex2var_ps(a, od, b));
          acc = aot__max_tap16(acc, _mm512_permutex2var_ps(e, ev, f));
        }
        _mm512_mask_storeu_ps(y + (c * OH + oh) * OW + ow, aot__lanes(0, OW - ow), acc);
      }
    }
  }
}
#endif

AOT__KINLINE void aot__max_pool_planes(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0, float* y,
                                       int64_t c0, int64_t c1, int64_t oh0, int64_t oh1, int64_t KH, int64_t KW,
                                       int64_t SH, int64_t SW, int64_t DH, int64_t DW) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW, PH = g->PH, PW = g->PW;
  int64_t lo, hi;
  aot__interior_cols(W, OW, KW, SW, PW, DW, &lo, &hi);
  for (int64_t c = c0; c < c1; ++c) {
    const float* restrict plane = x + c * xcs; /* image row ih at plane + (ih - xr0) * W */
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      float* restrict yr = y + (c * OH + oh) * OW;
      const int64_t ih0 = oh * SH - PH; /* the input row of kernel row 0 */
      int64_t kh0, kh1;
      aot__kernel_rows(ih0, KH, DH, H, &kh0, &kh1);
      for (int64_t ow = 0; ow < OW; ++ow) { /* border columns: a tap may fall outside */
        if (ow == lo) ow = hi > lo ? hi : lo;
        if (ow >= OW) break;
        float acc = -INFINITY;
        for (int64_t kh = kh0; kh < kh1; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = ow * SW - PW + kw * DW;
            if (iw >= 0 && iw < W) acc = aot__max_tap(acc, plane[(ih0 + kh * DH - xr0) * W + iw]);
          }
        yr[ow] = acc;
      }
      const float* xb = plane + (ih0 - xr0) * W - PW;
      if (kh0 == 0 && kh1 == KH)
        aot__max_pool_cols(xb, yr, lo, hi, 0, KH, KW, SW, DH, DW, W);
      else
        aot__max_pool_cols(xb, yr, lo, hi, kh0, kh1, KW, SW, DH, DW, W);
    }
  }
}

AOT_KAPI void aot__max_pool2d_rows(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0, float* y,
                                   int64_t c0, int64_t c1, int64_t oh0, int64_t oh1) {
#if AOT__KSPECIALISE
  if (g->KH == 3 && g->KW == 3 && g->DH == 1 && g->DW == 1 && g->SH == g->SW) {
    if (g->SW == 1) {
      aot__max_pool_planes(g, x, xcs, xr0, y, c0, c1, oh0, oh1, 3, 3, 1, 1, 1, 1);
      return;
    }
    if (g->SW == 2) {
#if defined(__AVX512F__)
      aot__max_pool_3x3s2_planes(g, x, xcs, xr0, y, c0, c1, oh0, oh1);
#else
      aot__max_pool_planes(g, x, xcs, xr0, y, c0, c1, oh0, oh1, 3, 3, 2, 2, 1, 1);
#endif
      return;
    }
  }
#endif
  aot__max_pool_planes(g, x, xcs, xr0, y, c0, c1, oh0, oh1, g->KH, g->KW, g->SH, g->SW, g->DH, g->DW);
}

AOT_KAPI void aot__max_pool2d_range(const aot__conv_geom* g, const float* x, float* y, int64_t c0, int64_t c1) {
  aot__max_pool2d_rows(g, x, g->H * g->W, 0, y, c0, c1, 0, g->OH);
}
