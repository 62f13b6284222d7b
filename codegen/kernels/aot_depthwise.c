/* Depthwise convolution. Each output element sums its KH x KW taps in a
 * register and is stored once. With AVX-512 or AVX2 (stride 1 or 2 along
 * rows, no column dilation) rows go 16 or 8 columns at a time, masked at
 * the borders (aot__dw_rowsv). Elsewhere the columns whose taps all lie inside the
 * image run branch-free, so with the common shapes (3x3 and 5x5, stride 1
 * or 2, no dilation) compiled as constants the column loop vectorises; the
 * few border columns take the bounds-checked path. Every element is summed
 * in the same order (kh, then kw) on every path and for any channel range,
 * so threads split channels without changing a bit. */
#include "aot_kernels.h"

/* The vector rows of aot__dw_rowsv: AOT__DWV lanes (0: none), masks of
 * lanes, masked loads that read 0 outside the mask (and never fault there),
 * the even and odd elements of two vectors' concatenation, and (AVX-512)
 * its elements from k on. */
#if defined(__AVX512F__) && AOT__HAS_FMA
#include <immintrin.h>
#define AOT__DWV 16
#define AOT__DWV_SHIFT 1
typedef __m512 aot__dwv;
typedef __mmask16 aot__dwm;
static inline aot__dwm aot__dwv_lanes(int64_t lo, int64_t hi) { return aot__lanes(lo, hi); }
static inline aot__dwm aot__dwv_and(aot__dwm a, aot__dwm b) { return a & b; }
static inline aot__dwv aot__dwv_load(aot__dwm m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
static inline void aot__dwv_store(float* p, aot__dwm m, aot__dwv v) { _mm512_mask_storeu_ps(p, m, v); }
static inline aot__dwv aot__dwv_fma(aot__dwv a, aot__dwv b, aot__dwv c) { return _mm512_fmadd_ps(a, b, c); }
static inline aot__dwv aot__dwv_set1(float f) { return _mm512_set1_ps(f); }
static inline aot__dwv aot__dwv_zero(void) { return _mm512_setzero_ps(); }
static inline aot__dwv aot__dwv_even(aot__dwv a, aot__dwv b) {
  return _mm512_permutex2var_ps(a, _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
}
static inline aot__dwv aot__dwv_odd(aot__dwv a, aot__dwv b) {
  return _mm512_permutex2var_ps(a, _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b);
}
static inline aot__dwv aot__dwv_shift(aot__dwv a, aot__dwv b, int64_t k) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm512_permutex2var_ps(a, _mm512_add_epi32(iota, _mm512_set1_epi32((int)k)), b);
}
#elif defined(__AVX2__) && AOT__HAS_FMA
#include <immintrin.h>
#define AOT__DWV 8
#define AOT__DWV_SHIFT 0
typedef __m256 aot__dwv;
typedef __m256i aot__dwm;
static inline aot__dwm aot__dwv_lanes(int64_t lo, int64_t hi) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int l = lo < 0 ? 0 : lo > 8 ? 8 : (int)lo, h = hi < 0 ? 0 : hi > 8 ? 8 : (int)hi;
  return _mm256_and_si256(_mm256_cmpgt_epi32(iota, _mm256_set1_epi32(l - 1)),
                          _mm256_cmpgt_epi32(_mm256_set1_epi32(h), iota));
}
static inline aot__dwm aot__dwv_and(aot__dwm a, aot__dwm b) { return _mm256_and_si256(a, b); }
static inline aot__dwv aot__dwv_load(aot__dwm m, const float* p) { return _mm256_maskload_ps(p, m); }
static inline void aot__dwv_store(float* p, aot__dwm m, aot__dwv v) { _mm256_maskstore_ps(p, m, v); }
static inline aot__dwv aot__dwv_fma(aot__dwv a, aot__dwv b, aot__dwv c) { return _mm256_fmadd_ps(a, b, c); }
static inline aot__dwv aot__dwv_set1(float f) { return _mm256_set1_ps(f); }
static inline aot__dwv aot__dwv_zero(void) { return _mm256_setzero_ps(); }
/* shuffle: a0 a2 b0 b2 | a4 a6 b4 b6; the 64-bit pairs then in order 0 2 1 3 */
static inline aot__dwv aot__dwv_even(aot__dwv a, aot__dwv b) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
}
static inline aot__dwv aot__dwv_odd(aot__dwv a, aot__dwv b) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
}
static inline aot__dwv aot__dwv_shift(aot__dwv a, aot__dwv b, int64_t k) {
  (void)b;
  (void)k;
  return a; /* unused: AOT__DWV_SHIFT 0 */
}
#else
#define AOT__DWV 0
#endif

/* One output row yr (OW wide) of one channel: plane is the channel's input
 * from image row xr0 on, wc its KH x KW filter, kernel rows [kh0, kh1)
 * inside the image. */
AOT__KINLINE void aot__dw_row(const aot__conv_geom* g, const float* restrict plane, int64_t xr0,
                              const float* restrict wc, float* restrict yr, int64_t ih0, int64_t kh0, int64_t kh1,
                              int64_t KH, int64_t KW, int64_t SW, int64_t DH, int64_t DW, int64_t lo, int64_t hi,
                              int interior_done) {
  const int64_t W = g->W, OW = g->OW, PW = g->PW;
  (void)KH;
  /* Border columns: a tap may fall into the padding. */
  for (int64_t ow = 0; ow < OW; ++ow) {
    if (ow == lo) ow = hi > lo ? hi : lo; /* skip the interior */
    if (ow >= OW) break;
    float acc = 0.f;
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* xr = plane + (ih0 + kh * DH - xr0) * W;
      for (int64_t kw = 0; kw < KW; ++kw) {
        const int64_t iw = ow * SW - PW + kw * DW;
        if (iw >= 0 && iw < W) acc = AOT__FMA(wc[kh * KW + kw], xr[iw], acc);
      }
    }
    yr[ow] = acc;
  }
  if (interior_done) return;
  /* Interior columns: every tap inside the image. */
  const float* xb = plane + (ih0 - xr0) * W - PW;
  for (int64_t ow = lo; ow < hi; ++ow) {
    const float* xp = xb + ow * SW;
    float acc = 0.f;
    for (int64_t kh = kh0; kh < kh1; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) acc = AOT__FMA(wc[kh * KW + kw], xp[kh * DH * W + kw * DW], acc);
    yr[ow] = acc;
  }
}

/* Planes whose zero-bordered copy (and, at stride 1, the output grid below)
 * fit in this many floats run from a copy on the stack: every output then
 * takes the branch-free interior code. On 7x7 and 14x14 maps with 5x5
 * filters most columns were border columns on the bounds-checked path. */
#define AOT__DW_PAD_FLOATS 8192
/* The taps' loops unrolled so the loop over outputs vectorises: GCC peels a
 * 5x5 filter's 25 taps on its own only up to 3x3's size, and left 5x5 loops
 * scalar (96 x 112 x 112, 5x5: 10.6 ms, 1.5 ms unrolled). */
#if defined(__GNUC__) && !defined(__clang__)
#define AOT__DW_UNROLL _Pragma("GCC unroll 8")
#else
#define AOT__DW_UNROLL
#endif
/* Floats of output planes whose activation runs as one loop (16 KB: L1). */
#define AOT__DW_ACT_RUN 4096

/* The output plane (OH x OW) from the first OW columns of each of a grid's
 * rows, `stride` apart (the padded paths compute over the grid). */
AOT__KINLINE void aot__dw_grid_out(const float* restrict grid, int64_t stride, float* restrict yc, int64_t OH,
                                   int64_t OW) {
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t j = 0; j < OW; ++j) yc[oh * OW + j] = grid[oh * stride + j];
}

/* One channel at stride 1 from its zero-bordered copy xp (Hp x Wp, input
 * column iw at iw + PW): one flat loop over an OH x Wp grid (long enough to
 * vectorise on small maps) whose first OW columns are the output rows. Taps
 * outside the image add w * 0: the same sums as the bounds-checked path for
 * finite weights. */
AOT__KINLINE void aot__dw_padded(const aot__conv_geom* g, const float* restrict plane, const float* restrict wc,
                                 float* restrict yc, float* restrict xp, int64_t Hp, int64_t Wp, int64_t KH, int64_t KW,
                                 int64_t DH, int64_t DW) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW, PH = g->PH, PW = g->PW;
  const int64_t c_lo = PW < Wp ? PW : Wp, c_hi = PW + W < Wp ? PW + W : Wp; /* the image's columns */
  /* The border is zero already (aot__dw_planes clears the copy once per
   * call): only the image's rows and columns change from plane to plane. */
  for (int64_t r = PH > 0 ? PH : 0; r < Hp && r - PH < H; ++r) {
    float* restrict pr = xp + r * Wp + c_lo;
    const float* restrict src = plane + (r - PH) * W + (c_lo - PW);
    for (int64_t j = 0; j < c_hi - c_lo; ++j) pr[j] = src[j];
  }
  float* restrict grid = xp + Hp * Wp;
  const int64_t n = (OH - 1) * Wp + OW;
  /* The tap loop is written out here and in aot__dw_planes' flat path: one
   * always-inline helper for both measured slower (gemm_bench AotDepthwise,
   * 5x5 stride 1: 240x28x28 213 -> 285 us, 1152x7x7 115 -> 143 us). */
  for (int64_t j = 0; j < n; ++j) {
    float acc = 0.f;
    AOT__DW_UNROLL
    for (int64_t kh = 0; kh < KH; ++kh) {
      AOT__DW_UNROLL
      for (int64_t kw = 0; kw < KW; ++kw) acc = AOT__FMA(wc[kh * KW + kw], xp[j + kh * DH * Wp + kw * DW], acc);
    }
    grid[j] = acc;
  }
  aot__dw_grid_out(grid, Wp, yc, OH, OW);
}

/* Stride 2 from four phase planes of the zero-bordered copy: phase (a, b)
 * holds padded row 2 r + a, column 2 c + b (Hq x Wq each), so tap (kh, kw)
 * of output (oh, ow) is phase (kh % 2, kw % 2) at (oh + kh / 2, ow + kw / 2)
 * and output j = oh Wq + ow of the grid reads each phase at j plus a constant
 * per tap: a flat unit-stride loop, as at stride 1. */
AOT__KINLINE void aot__dw_padded2(const aot__conv_geom* g, const float* restrict plane, const float* restrict wc,
                                  float* restrict yc, float* restrict xq, int64_t Hq, int64_t Wq, int64_t KH,
                                  int64_t KW) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW, PH = g->PH, PW = g->PW;
  const int64_t phase = Hq * Wq;
  float* restrict q00 = xq;
  float* restrict q01 = xq + phase;
  float* restrict q10 = xq + 2 * phase;
  float* restrict q11 = xq + 3 * phase;
  float* restrict grid = xq + 4 * phase;
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b) {
      float* restrict q = a ? (b ? q11 : q10) : (b ? q01 : q00);
      /* columns c with 0 <= 2 c + b - PW < W */
      int64_t c0 = (PW - b + 1) / 2, c1 = (W + PW - b + 1) / 2;
      if (c0 < 0) c0 = 0;
      if (c1 > Wq) c1 = Wq;
      if (c1 < c0) c1 = c0;
      for (int64_t r = 0; r < Hq; ++r) { /* the rest is zero already (cleared once per call) */
        float* restrict qr = q + r * Wq;
        const int64_t ih = 2 * r + a - PH;
        if (ih < 0 || ih >= H) continue;
        const float* restrict xr = plane + ih * W + b - PW;
        for (int64_t c = c0; c < c1; ++c) qr[c] = xr[2 * c];
      }
    }
  const int64_t n = (OH - 1) * Wq + OW;
  for (int64_t j = 0; j < n; ++j) {
    float acc = 0.f;
    AOT__DW_UNROLL
    for (int64_t kh = 0; kh < KH; ++kh) {
      AOT__DW_UNROLL
      for (int64_t kw = 0; kw < KW; ++kw) {
        const float* restrict q = kh % 2 ? (kw % 2 ? q11 : q10) : (kw % 2 ? q01 : q00);
        acc = AOT__FMA(wc[kh * KW + kw], q[j + kh / 2 * Wq + kw / 2], acc);
      }
    }
    grid[j] = acc;
  }
  aot__dw_grid_out(grid, Wq, yc, OH, OW);
}

#if AOT__DWV
/* Channels handled at once by aot__dw_rowsv: independent sums to overlap
 * (one channel alone waited on each multiply-add's latency). */
#define AOT__DW_CB 4
#define AOT__DW_KW_MAX 16 /* filters up to this wide (aot__dw_rowsv_cb's per-tap masks) */
/* Channels [c, c + cb), output rows [oh0, oh1), AOT__DWV columns at a time
 * (16 with AVX-512, 8 with AVX2), any map width, stride 1 or 2 along rows
 * (DW 1). Tap (kh, kw) of a vector of outputs is a masked load at stride
 * 1; with AVX-512, filters 5 wide and up permute the same two loads (the 32
 * columns from ow - PW on) for every tap; at stride 2 taps kw and kw + 1
 * take the even and odd columns of the same two loads (from 2 ow + kw - PW
 * on). gemm_bench AotDepthwise, against one load per tap: 5x5 stride 1
 * 1.4-1.5x, stride 2 1.25-1.4x. Lanes outside the image read 0 and add
 * w * 0, as the padded paths do (the bounds-checked path's sums for finite
 * weights); kernel rows outside it are skipped as on every path. Each
 * output sums kh, then kw, one fmaf a tap: the same bits for whole planes
 * and for bands. */
AOT__KINLINE void aot__dw_rowsv_cb(const int cb, const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0,
                                   const float* w, float* y, int64_t c, int64_t oh0, int64_t oh1, int64_t KH,
                                   int64_t KW, int64_t SH, int64_t SW, int64_t DH) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW, PH = g->PH, PW = g->PW, V = AOT__DWV;
  const int shift = AOT__DWV_SHIFT && SW == 1 && KW >= 5; /* every tap a shift of the same two loads */
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t ih0 = oh * SH - PH;
    int64_t kh0, kh1;
    aot__kernel_rows(ih0, KH, DH, H, &kh0, &kh1);
    for (int64_t ow = 0; ow < OW; ow += V) {
      const aot__dwm out = aot__dwv_lanes(0, OW - ow);
      aot__dwm ma[AOT__DW_KW_MAX], mb[AOT__DW_KW_MAX]; /* each tap's lanes inside the image */
      for (int64_t kw = 0; kw < KW; ++kw) {
        const int64_t s = SW == 1 ? ow + kw - PW : 2 * ow + kw - kw % 2 - PW;
        ma[kw] = aot__dwv_lanes(-s, W - s);
        if (SW == 1 && !shift) ma[kw] = aot__dwv_and(ma[kw], out);
        mb[kw] = aot__dwv_lanes(-s - V, W - s - V);
      }
      aot__dwv acc[AOT__DW_CB];
      for (int i = 0; i < cb; ++i) acc[i] = aot__dwv_zero();
      for (int64_t kh = kh0; kh < kh1; ++kh) {
        const float* xr = x + c * xcs + (ih0 + kh * DH - xr0) * W;
        const float* wr = w + c * KH * KW + kh * KW;
        if (shift) {
          for (int i = 0; i < cb; ++i) {
            const float* p = xr + i * xcs + ow - PW;
            const aot__dwv a = aot__dwv_load(ma[0], p), b = aot__dwv_load(mb[0], p + V);
            for (int64_t kw = 0; kw < KW; ++kw)
              acc[i] = aot__dwv_fma(aot__dwv_set1(wr[i * KH * KW + kw]), kw ? aot__dwv_shift(a, b, kw) : a, acc[i]);
          }
          continue;
        }
        for (int64_t kw = 0; kw < KW; ++kw) {
          if (SW == 1) {
            const int64_t s = ow + kw - PW;
            for (int i = 0; i < cb; ++i)
              acc[i] =
                  aot__dwv_fma(aot__dwv_set1(wr[i * KH * KW + kw]), aot__dwv_load(ma[kw], xr + i * xcs + s), acc[i]);
          } else {
            const int64_t s = 2 * ow + kw - PW;
            for (int i = 0; i < cb; ++i) {
              const float* p = xr + i * xcs + s;
              const aot__dwv a = aot__dwv_load(ma[kw], p), b = aot__dwv_load(mb[kw], p + V);
              acc[i] = aot__dwv_fma(aot__dwv_set1(wr[i * KH * KW + kw]), aot__dwv_even(a, b), acc[i]);
              if (kw + 1 < KW)
                acc[i] = aot__dwv_fma(aot__dwv_set1(wr[i * KH * KW + kw + 1]), aot__dwv_odd(a, b), acc[i]);
            }
            ++kw;
          }
        }
      }
      for (int i = 0; i < cb; ++i) aot__dwv_store(y + ((c + i) * OH + oh) * OW + ow, out, acc[i]);
    }
  }
}

AOT__KINLINE void aot__dw_rowsv(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0, const float* w,
                                float* y, int64_t c, int64_t c1, int64_t oh0, int64_t oh1, int64_t KH, int64_t KW,
                                int64_t SH, int64_t SW, int64_t DH) {
  if (c1 - c >= AOT__DW_CB)
    aot__dw_rowsv_cb(AOT__DW_CB, g, x, xcs, xr0, w, y, c, oh0, oh1, KH, KW, SH, SW, DH);
  else
    for (; c < c1; ++c) aot__dw_rowsv_cb(1, g, x, xcs, xr0, w, y, c, oh0, oh1, KH, KW, SH, SW, DH);
}
#endif

/* Channels [c0, c1), output rows [oh0, oh1), with the filter shape as
 * (possibly constant) arguments: rows whose kernel rows all lie inside the
 * image take a copy of the row code with constant kernel-row bounds. The
 * input's channel c is at x + c * xcs from image row xr0 on; a band (not
 * whole planes from row 0) takes the row code alone, which sums every
 * output as the other paths do. */
AOT__KINLINE void aot__dw_planes(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0, const float* w,
                                 float* y, const aot__epilogue* ep, int64_t c0, int64_t c1, int64_t oh0, int64_t oh1,
                                 int64_t KH, int64_t KW, int64_t SH, int64_t SW, int64_t DH, int64_t DW, float* xp) {
  const int64_t H = g->H, W = g->W, OH = g->OH, OW = g->OW, PH = g->PH, PW = g->PW;
  const int whole = xcs == H * W && xr0 == 0 && oh0 == 0 && oh1 == OH;
#if AOT__DWV
  /* Stride 1 or 2 along rows, no column dilation: every path below gives
   * way to aot__dw_rowsv (gemm_bench AotDepthwise: bench/README.md). */
  const int rowsv = (SW == 1 || SW == 2) && DW == 1 && KW <= AOT__DW_KW_MAX;
#else
  const int rowsv = 0;
#endif
  int64_t lo, hi;
  aot__interior_cols(W, OW, KW, SW, PW, DW, &lo, &hi);
  /* Rows [oa, ob) have all kernel rows inside the image. */
  int64_t oa = (PH + SH - 1) / SH, ob = 0;
  if (H - 1 + PH - (KH - 1) * DH >= 0) ob = (H - 1 + PH - (KH - 1) * DH) / SH + 1;
  if (ob > OH) ob = OH;
  if (oa > ob) oa = ob;
  /* Stride 1 with OW == W: output element j = oh*OW + ow reads x at j plus a
   * constant per tap, so the interior rows run as one flat loop (long enough
   * to vectorise on small planes); the border columns it passes over read
   * inside the plane and are overwritten by the row code below. */
  const int flat = whole && SH == 1 && SW == 1 && OW == W && lo < hi && oa < ob;
  /* The zero-bordered copy: rows and columns the taps reach. */
  const int64_t Hp = (OH - 1) * SH + (KH - 1) * DH + 1, Wp = (OW - 1) * SW + (KW - 1) * DW + 1;
  /* Stride 1 only (GCC left a stride-2 loop over the copy scalar: slower than
   * the row code on EfficientNet's 5x5 stride-2 layer), and maps up to 32
   * wide (on 56x56 the copy cost more than the few border columns). */
  const int padded = !rowsv && whole && SH == 1 && SW == 1 && OW <= 32 && Hp * Wp + OH * Wp <= AOT__DW_PAD_FLOATS;
  const int64_t Hq = OH + (KH - 1) / 2, Wq = OW + (KW - 1) / 2;
  /* 5x5 and up: on 3x3 (MobileNetV2's 576 x 14 x 14) the copy cost more than
   * the row code (118 -> 183 us), on 5x5 it paid (144 x 56 x 56: 580 -> 365). */
  const int padded2 = !rowsv && whole && SH == 2 && SW == 2 && DH == 1 && DW == 1 && KH >= 5 && KW >= 5 && OW <= 32 &&
                      4 * Hq * Wq + OH * Wq <= AOT__DW_PAD_FLOATS;
  int64_t act_from = c0; /* the planes whose activation is still to apply */
  /* The zero-bordered copies' borders: cleared once, the same for every plane. */
  if (padded) memset(xp, 0, sizeof(float) * (size_t)(Hp * Wp));
  if (padded2) memset(xp, 0, sizeof(float) * (size_t)(4 * Hq * Wq));
  for (int64_t c = c0; c < c1; ++c) {
    const float* restrict plane = x + c * xcs;
    const float* restrict wc = w + c * KH * KW;
    if (rowsv) {
#if AOT__DWV
      if ((c - c0) % AOT__DW_CB == 0)
        aot__dw_rowsv(g, x, xcs, xr0, w, y, c, c + AOT__DW_CB < c1 ? c + AOT__DW_CB : c1, oh0, oh1, KH, KW, SH, SW, DH);
#endif
    } else if (padded) {
      aot__dw_padded(g, plane, wc, y + c * OH * OW, xp, Hp, Wp, KH, KW, DH, DW);
    } else if (padded2) {
      aot__dw_padded2(g, plane, wc, y + c * OH * OW, xp, Hq, Wq, KH, KW);
    } else {
      if (flat) {
        float* restrict yp = y + c * OH * OW;
        const float* restrict xb = plane - PH * W - PW;
        for (int64_t j = oa * OW + lo; j < (ob - 1) * OW + hi; ++j) {
          float acc = 0.f;
          AOT__DW_UNROLL
          for (int64_t kh = 0; kh < KH; ++kh) {
            AOT__DW_UNROLL
            for (int64_t kw = 0; kw < KW; ++kw) acc = AOT__FMA(wc[kh * KW + kw], xb[j + kh * DH * W + kw * DW], acc);
          }
          yp[j] = acc;
        }
      }
      for (int64_t oh = oh0; oh < oh1; ++oh) {
        float* yr = y + (c * OH + oh) * OW;
        const int64_t ih0 = oh * SH - PH; /* the input row of kernel row 0 */
        int64_t kh0, kh1;
        aot__kernel_rows(ih0, KH, DH, H, &kh0, &kh1);
        if (kh0 == 0 && kh1 == KH)
          aot__dw_row(g, plane, xr0, wc, yr, ih0, 0, KH, KH, KW, SW, DH, DW, lo, hi, flat);
        else
          aot__dw_row(g, plane, xr0, wc, yr, ih0, kh0, kh1, KH, KW, SW, DH, DW, lo, hi, 0);
      }
    }
    if (!ep) continue;
    /* The epilogue over the whole plane (still in cache): long vector loops
     * on 7x7 and 14x14 maps, where rows of 7 or 14 were mostly tails; the
     * activation over runs of planes up to AOT__DW_ACT_RUN floats (a 7x7
     * plane alone is 3 vectors and a tail: 1.3 ns an output with SiLU). */
    float* yp = y + c * OH * OW + oh0 * OW; /* not restrict: res may be y itself */
    const int64_t np = (oh1 - oh0) * OW;
    if (ep->bias) {
      const float* bp = ep->bias + c * ep->bias_m + oh0 * OW * ep->bias_n;
      if (ep->bias_n == 0) {
        const float bb = bp[0];
        for (int64_t j = 0; j < np; ++j) yp[j] += bb;
      } else {
        for (int64_t j = 0; j < np; ++j) yp[j] += bp[j * ep->bias_n];
      }
    }
    if (ep->res) {
      const float* rp = ep->res + c * ep->res_m + oh0 * OW * ep->res_n;
      for (int64_t j = 0; j < np; ++j) yp[j] += rp[j * ep->res_n];
    }
    if (!whole) { /* a band: each plane's rows on their own */
      aot__act_row(yp, np, 1, ep);
    } else if ((c + 1 - act_from) * np >= AOT__DW_ACT_RUN || c + 1 == c1) {
      aot__act_row(y + act_from * np, (c + 1 - act_from) * np, 1, ep);
      act_from = c + 1;
    }
  }
}

AOT_KAPI void aot__conv2d_depthwise_rows(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0,
                                         const float* w, float* y, const aot__epilogue* ep, int64_t c0, int64_t c1,
                                         int64_t oh0, int64_t oh1) {
  float xp[AOT__DW_PAD_FLOATS]; /* one for every specialised copy below: 32 KB of stack */
#if AOT__KSPECIALISE
  if (g->DH == 1 && g->DW == 1 && g->KH == g->KW && g->SH == g->SW) {
#define AOT__DW_CASE(K, S)                                                            \
  if (g->KH == K && g->SW == S) {                                                     \
    aot__dw_planes(g, x, xcs, xr0, w, y, ep, c0, c1, oh0, oh1, K, K, S, S, 1, 1, xp); \
    return;                                                                           \
  }
    AOT__DW_CASE(3, 1)
    AOT__DW_CASE(3, 2)
    AOT__DW_CASE(5, 1)
    AOT__DW_CASE(5, 2)
#undef AOT__DW_CASE
  }
#endif
  aot__dw_planes(g, x, xcs, xr0, w, y, ep, c0, c1, oh0, oh1, g->KH, g->KW, g->SH, g->SW, g->DH, g->DW, xp);
}

AOT_KAPI void aot__conv2d_depthwise_range(const aot__conv_geom* g, const float* x, const float* w, float* y,
                                          const aot__epilogue* ep, int64_t c0, int64_t c1) {
  aot__conv2d_depthwise_rows(g, x, g->H * g->W, 0, w, y, ep, c0, c1, 0, g->OH);
}

AOT_KAPI void aot__conv2d_depthwise(const aot__conv_geom* g, const float* x, const float* w, float* y,
                                    const aot__epilogue* ep) {
  aot__conv2d_depthwise_range(g, x, w, y, ep, 0, g->C);
}

/* ---- channels-last depthwise convolution ----
 * ConvNeXt's 7x7 depthwise layers read channels-last tensors (LibTorch
 * keeps a stage in that layout after LayerNorm2d's permute): each output
 * pixel is a vector of channels, the sum over taps of a tap's filter row
 * times the input pixel's channels, so the channels vectorise with no
 * gather. Channels in blocks of AOT__DWCL_CB held in registers over all
 * taps; filters tap-major (wt[(kh KW + kw) C + c]). */
#define AOT__DWCL_CB 64

AOT__KINLINE void aot__dwcl_block(int64_t cb, const float* restrict x, int64_t xh, int64_t xw, const float* restrict wt,
                                  int64_t C, float* restrict y, const float* bias, int64_t bias_s, int64_t ih0,
                                  int64_t iw0, int64_t kh0, int64_t kh1, int64_t kw0, int64_t kw1, int64_t KW,
                                  int64_t DH, int64_t DW) {
  float acc[AOT__DWCL_CB];
  for (int64_t c = 0; c < cb; ++c) acc[c] = 0.f;
  for (int64_t kh = kh0; kh < kh1; ++kh)
    for (int64_t kw = kw0; kw < kw1; ++kw) {
      const float* restrict xp = x + (ih0 + kh * DH) * xh + (iw0 + kw * DW) * xw;
      const float* restrict wp = wt + (kh * KW + kw) * C;
      for (int64_t c = 0; c < cb; ++c) acc[c] = AOT__FMA(wp[c], xp[c], acc[c]);
    }
  if (bias)
    for (int64_t c = 0; c < cb; ++c) y[c] = acc[c] + bias[c * bias_s];
  else
    for (int64_t c = 0; c < cb; ++c) y[c] = acc[c];
}

AOT_KAPI void aot__conv2d_depthwise_cl(const aot__conv_geom* g, const float* x, int64_t xh, int64_t xw, const float* wt,
                                       const float* bias, int64_t bias_s, float* y, int64_t yh, int64_t yw, int64_t oh0,
                                       int64_t oh1) {
  const int64_t C = g->C, KH = g->KH, KW = g->KW;
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    const int64_t ih0 = oh * g->SH - g->PH;
    int64_t kh0, kh1;
    aot__kernel_rows(ih0, KH, g->DH, g->H, &kh0, &kh1);
    for (int64_t ow = 0; ow < g->OW; ++ow) {
      const int64_t iw0 = ow * g->SW - g->PW;
      int64_t kw0, kw1;
      aot__kernel_rows(iw0, KW, g->DW, g->W, &kw0, &kw1);
      float* yp = y + oh * yh + ow * yw;
      int64_t c = 0;
      for (; c + AOT__DWCL_CB <= C; c += AOT__DWCL_CB)
        aot__dwcl_block(AOT__DWCL_CB, x + c, xh, xw, wt + c, C, yp + c, bias ? bias + c * bias_s : 0, bias_s, ih0, iw0,
                        kh0, kh1, kw0, kw1, KW, g->DH, g->DW);
      if (c < C)
        aot__dwcl_block(C - c, x + c, xh, xw, wt + c, C, yp + c, bias ? bias + c * bias_s : 0, bias_s, ih0, iw0, kh0,
                        kh1, kw0, kw1, KW, g->DH, g->DW);
    }
  }
}
