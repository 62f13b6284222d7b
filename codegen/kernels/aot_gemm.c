/* Blocked SGEMM on packed panels (see aot_kernels.h). Loop order as in BLIS:
 * for each NC columns and KC-deep block of B: pack (or find prepacked) B;
 * for each MC rows of A: pack (or find) A; then MR x NR tiles, a B panel
 * kept in L1 while the A block streams from L2. Where aot__sgemm_packing
 * says so an operand is read in place instead (no scratch: small GEMMs'
 * scratch outweighed their activations), its edge panel through a tile on
 * the stack. */
#include "aot_kernels.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#define AOT__MIN(a, b) ((a) < (b) ? (a) : (b))
#define AOT__MAX(a, b) ((a) > (b) ? (a) : (b))

static int64_t aot__round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

AOT_KAPI int64_t aot__sgemm_packed_a_floats(int64_t M, int64_t K) { return aot__round_up(M, AOT_GEMM_MR) * K; }
AOT_KAPI int64_t aot__sgemm_packed_b_floats(int64_t K, int64_t N) { return aot__round_up(N, AOT_GEMM_NR) * K; }

/* Rows [m0, m0+mc) and depth [k0, k0+kc) of a strided A as MR-row panels,
 * panel i at dst + i*MR*kc, element (r, k) at [k*MR + r]; zero-padded rows. */
static void aot__pack_a_block(const float* A, int64_t a_m, int64_t a_k, int64_t M, int64_t m0, int64_t mc, int64_t k0,
                              int64_t kc, float* dst) {
  for (int64_t i = 0; i < mc; i += AOT_GEMM_MR) {
    float* d = dst + i * kc;
    const int64_t rows = AOT__MIN(AOT_GEMM_MR, M - m0 - i);
    for (int64_t k = 0; k < kc; ++k) {
      const float* s = A + (m0 + i) * a_m + (k0 + k) * a_k;
      int64_t r = 0;
      for (; r < rows; ++r) d[k * AOT_GEMM_MR + r] = s[r * a_m];
      for (; r < AOT_GEMM_MR; ++r) d[k * AOT_GEMM_MR + r] = 0.f;
    }
  }
}

/* One packed row of a B with a prologue: o[c] = act(sh + s[c] sc) for the
 * cols columns (the elementwise kernel's expression and order), zeros after. */
AOT__KINLINE void aot__pack_pro_row(float* restrict o, const float* restrict s, int64_t b_n, int64_t cols, float sc,
                                    float sh, int relu) {
  int64_t c = 0;
  if (b_n == 1 && cols == AOT_GEMM_NR) {
    float v[AOT_GEMM_NR];
    for (int j = 0; j < AOT_GEMM_NR; ++j) v[j] = sh + s[j] * sc;
    if (relu) {
      /* v where !(v <= 0) (NaN included), else +0: the relu kernel's
       * ((v > 0) | (v != v)) ? v : 0. GCC turned the select into scalar
       * moves here (DenseNet-121's 1x1 convolutions 2.3x slower). */
#if defined(__AVX512F__) && AOT_GEMM_NR == 16
      const __m512 x = _mm512_loadu_ps(v);
      _mm512_storeu_ps(o, _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NLE_UQ), x));
#elif defined(__AVX2__) && defined(__FMA__) && AOT_GEMM_NR == 16
      for (int h = 0; h < 2; ++h) {
        const __m256 x = _mm256_loadu_ps(v + 8 * h);
        _mm256_storeu_ps(o + 8 * h, _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NLE_UQ), x));
      }
#else
      for (int j = 0; j < AOT_GEMM_NR; ++j) o[j] = !(v[j] <= 0) ? v[j] : 0.f;
#endif
    } else {
      memcpy(o, v, sizeof(v));
    }
    return;
  }
  for (; c < cols; ++c) {
    const float v = sh + s[c * b_n] * sc;
    o[c] = relu ? (((v > 0) | (v != v)) ? v : 0.f) : v;
  }
  for (; c < AOT_GEMM_NR; ++c) o[c] = 0.f;
}

/* Columns [n0, n0+nc) and depth [k0, k0+kc) of a strided B as NR-column
 * panels, panel j at dst + j*NR*kc, element (k, c) at [k*NR + c] (with a
 * prologue, through it). */
static void aot__pack_b_block(const float* B, int64_t b_k, int64_t b_n, int64_t N, int64_t n0, int64_t nc, int64_t k0,
                              int64_t kc, float* dst, const aot__prologue* pro) {
  if (pro) { /* row by row: a 1x1 convolution's image rows lie a plane apart, each read once */
    for (int64_t k = 0; k < kc; ++k) {
      const float sc = pro->scale[k0 + k], sh = pro->shift[k0 + k];
      const float* s = B + (k0 + k) * b_k + n0 * b_n;
      for (int64_t j = 0; j < nc; j += AOT_GEMM_NR)
        aot__pack_pro_row(dst + j * kc + k * AOT_GEMM_NR, s + j * b_n, b_n, AOT__MIN(AOT_GEMM_NR, N - n0 - j), sc, sh,
                          pro->relu);
    }
    return;
  }
  for (int64_t j = 0; j < nc; j += AOT_GEMM_NR) {
    float* d = dst + j * kc;
    const int64_t cols = AOT__MIN(AOT_GEMM_NR, N - n0 - j);
    for (int64_t k = 0; k < kc; ++k) {
      const float* s = B + (k0 + k) * b_k + (n0 + j) * b_n;
      float* o = d + k * AOT_GEMM_NR;
      int64_t c = 0;
      if (b_n == 1 && cols == AOT_GEMM_NR) {
        memcpy(o, s, sizeof(float) * AOT_GEMM_NR);
        continue;
      }
      for (; c < cols; ++c) o[c] = s[c * b_n];
      for (; c < AOT_GEMM_NR; ++c) o[c] = 0.f;
    }
  }
}

/* len floats of one input row (row == NULL: a padding row) into a panel
 * row, columns iw0, iw0 + sw, ... of the input; zeros outside the image. */
static inline void aot__pack_run(float* restrict out, const float* restrict row, int64_t iw0, int64_t len, int64_t W,
                                 int64_t sw) {
  if (sw == 1) {
    int64_t lo = 0, hi = 0; /* the in-image part [lo, hi) of the run */
    if (row) {
      lo = iw0 < 0 ? AOT__MIN(-iw0, len) : 0;
      hi = iw0 + len > W ? W - iw0 : len;
      if (hi < lo) hi = lo;
    }
#if defined(__AVX512F__)
    /* One masked store per run (len <= 16): small maps split each panel into
     * several short runs, which plain loops copy element by element. The
     * in-image part is a masked load (an expanding one from its first element
     * when the run starts in the left padding). DenseNet's 3x3 layers
     * (128 -> 32 channels) ran 1.3x to 1.6x faster (bench/README). AVX2's
     * vmaskmov version ran 10-20% slower than the loops below, so AVX2 keeps
     * them. */
    const __mmask16 all = aot__lanes(0, len), in = aot__lanes(lo, hi);
    const __m512 v = hi == lo  ? _mm512_setzero_ps()
                     : lo == 0 ? _mm512_maskz_loadu_ps(in, row + iw0) /* one uop; expand costs three */
                               : _mm512_maskz_expandloadu_ps(in, row + iw0 + lo);
    _mm512_mask_storeu_ps(out, all, v);
#else
    if (lo == 0 && hi == AOT_GEMM_NR) {
      memcpy(out, row + iw0, sizeof(float) * AOT_GEMM_NR); /* inlined: one vector */
      return;
    }
    /* zeros left of the image, the in-image middle, zeros right of it */
    for (int64_t i = 0; i < lo; ++i) out[i] = 0.f;
    for (int64_t i = lo; i < hi; ++i) out[i] = row[iw0 + i];
    for (int64_t i = hi; i < len; ++i) out[i] = 0.f;
#endif
    return;
  }
#if defined(__AVX512F__)
  if (sw == 2) {
    /* Lane i reads column iw0 + 2i. The in-image lanes [lo, hi) read the
     * columns s0, s0 + 2, ..., all inside the image, so two masked loads from
     * s0 and one permute picking their even lanes give the run; lanes outside
     * the image are zero. (Element by element, stride-2 packing was about a
     * quarter of ResNet-18's packing time.) */
    int64_t lo = 0, hi = 0;
    if (row) {
      lo = iw0 < 0 ? AOT__MIN((1 - iw0) / 2, len) : 0;
      hi = iw0 > W - 1 ? 0 : AOT__MIN((W - 1 - iw0) / 2 + 1, len);
      if (hi < lo) hi = lo;
    }
    __m512 v = _mm512_setzero_ps();
    if (hi > lo) {
      const float* s0 = row + iw0 + 2 * lo;
      const int64_t span = 2 * (hi - lo) - 1; /* columns read: s0[0 .. span) */
      const __m512 a = _mm512_maskz_loadu_ps(aot__lanes(0, span), s0);
      const __m512 b = span > 16 ? _mm512_maskz_loadu_ps(aot__lanes(0, span - 16), s0 + 16) : _mm512_setzero_ps();
      const __m512i idx = _mm512_sub_epi32(_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                                           _mm512_set1_epi32((int)(2 * lo)));
      v = _mm512_maskz_permutex2var_ps(aot__lanes(lo, hi), a, idx, b);
    }
    _mm512_mask_storeu_ps(out, aot__lanes(0, len), v);
    return;
  }
#endif
  for (int64_t i = 0; i < len; ++i) {
    const int64_t iw = iw0 + i * sw;
    out[i] = row && iw >= 0 && iw < W ? row[iw] : 0.f;
  }
}

#if defined(__AVX512F__)
/* aot__pack_b_conv for stride-1 and stride-2 columns and KW <= 16 on
 * AVX-512: what varies per k only through (kh, kw) -- each run's load masks
 * for each kw, and whether its input row exists for each kh -- is computed
 * once per panel, so a panel row costs one masked load (stride 2: two and a
 * permute picking the even columns; columns outside the image load as zeros)
 * and one store per run. (ResNet's 3x3 layers spent most of their packing
 * time recomputing it per k; at stride 2 the stem of MobileNetV2 and
 * EfficientNet-B0, K = 27, spent 44% of its time packing.) */
AOT__KINLINE void aot__pack_b_conv_runs(const aot__conv_geom* g, const float* x, int64_t N, int64_t n0, int64_t nc,
                                        int64_t k0, int64_t kc, float* dst, int64_t S) {
  enum { R = AOT_GEMM_NR + 1 };
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const int64_t khw = g->KH * g->KW, ch0 = k0 / khw, kh0 = (k0 % khw) / g->KW, kw0 = k0 % g->KW;
  for (int64_t j = 0; j < nc; j += AOT_GEMM_NR) {
    float* d = dst + j * kc;
    const int64_t cols = AOT__MIN(AOT_GEMM_NR, N - n0 - j);
    int64_t run_c[R], run_ih[R], run_iw[R];
    /* stride 1: the in-image lanes (a) from lane lo; stride 2: the masks of
     * the loads at the run's first column (a) and 16 after it (b) */
    __mmask16 store[R], ma[R][AOT_GEMM_NR], mb[R][AOT_GEMM_NR];
    int64_t lo[R][AOT_GEMM_NR];
    int nruns = 0;
    for (int64_t c = 0; c < cols;) {
      const int64_t n = n0 + j + c, oh = n / g->OW, ow = n % g->OW, len = AOT__MIN(cols - c, g->OW - ow);
      run_c[nruns] = c;
      run_ih[nruns] = oh * g->SH - g->PH;
      run_iw[nruns] = ow * S - g->PW;
      store[nruns] = aot__lanes(0, len);
      for (int64_t kw = 0; kw < g->KW; ++kw) {
        const int64_t iw0 = run_iw[nruns] + kw * g->DW; /* lane i reads column iw0 + S i */
        if (S == 1) {
          int64_t l = iw0 < 0 ? AOT__MIN(-iw0, len) : 0, h = iw0 + len > g->W ? g->W - iw0 : len;
          if (h < l) h = l;
          lo[nruns][kw] = l;
          ma[nruns][kw] = aot__lanes(l, h);
        } else {
          ma[nruns][kw] = aot__lanes(-iw0, g->W - iw0);
          mb[nruns][kw] = aot__lanes(-iw0 - 16, g->W - iw0 - 16);
        }
      }
      ++nruns;
      c += len;
    }
    const float* plane = x + ch0 * g->H * g->W;
    int64_t kh = kh0, kw = kw0;
    for (int64_t k = 0; k < kc; ++k) {
      float* o = d + k * AOT_GEMM_NR;
      const int64_t dh = kh * g->DH, dw = kw * g->DW;
      for (int r = 0; r < nruns; ++r) {
        const int64_t ih = run_ih[r] + dh;
        __m512 v = _mm512_setzero_ps();
        if (ih >= 0 && ih < g->H && S == 1 && ma[r][kw]) {
          const int64_t l = lo[r][kw];
          const float* p = plane + ih * g->W + run_iw[r] + dw + l; /* lane l's column, the first in the image */
          /* a run starting in the left padding expands from its first in-image element */
          v = l == 0 ? _mm512_maskz_loadu_ps(ma[r][kw], p) : _mm512_maskz_expandloadu_ps(ma[r][kw], p);
        } else if (ih >= 0 && ih < g->H && S == 2) {
          const float* p = plane + ih * g->W + run_iw[r] + dw;
          v = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(ma[r][kw], p), even,
                                     _mm512_maskz_loadu_ps(mb[r][kw], p + 16));
        }
        _mm512_mask_storeu_ps(o + run_c[r], store[r], v);
      }
      if (cols < AOT_GEMM_NR) _mm512_mask_storeu_ps(o, aot__lanes(cols, AOT_GEMM_NR), _mm512_setzero_ps());
      if (++kw == g->KW) {
        kw = 0;
        if (++kh == g->KH) {
          kh = 0;
          plane += g->H * g->W;
        }
      }
    }
  }
}
#endif

/* The same panels read from an image as its im2col matrix (no im2col buffer).
 * A panel's columns split into runs within one output row; for each k a run
 * reads one input row. Row k = (channel, kh, kw) is stepped, not divided out. */
static void aot__pack_b_conv(const aot__conv_geom* g, const float* x, int64_t N, int64_t n0, int64_t nc, int64_t k0,
                             int64_t kc, float* dst) {
#if defined(__AVX512F__)
  if (g->SW == 1 && g->KW <= AOT_GEMM_NR) {
    aot__pack_b_conv_runs(g, x, N, n0, nc, k0, kc, dst, 1);
    return;
  }
  if (g->SW == 2 && g->KW <= AOT_GEMM_NR) {
    aot__pack_b_conv_runs(g, x, N, n0, nc, k0, kc, dst, 2);
    return;
  }
#endif
  const int64_t khw = g->KH * g->KW, ch0 = k0 / khw, kh0 = (k0 % khw) / g->KW, kw0 = k0 % g->KW;
  for (int64_t j = 0; j < nc; j += AOT_GEMM_NR) {
    float* d = dst + j * kc;
    const int64_t cols = AOT__MIN(AOT_GEMM_NR, N - n0 - j);
    int64_t run_c[AOT_GEMM_NR + 1], run_ih[AOT_GEMM_NR], run_iw[AOT_GEMM_NR];
    int nruns = 0;
    for (int64_t c = 0; c < cols;) {
      const int64_t n = n0 + j + c, oh = n / g->OW, ow = n % g->OW;
      run_c[nruns] = c;
      run_ih[nruns] = oh * g->SH;
      run_iw[nruns] = ow * g->SW;
      ++nruns;
      c += AOT__MIN(cols - c, g->OW - ow);
    }
    run_c[nruns] = cols;
    const float* plane = x + ch0 * g->H * g->W;
    int64_t kh = kh0, kw = kw0;
    for (int64_t k = 0; k < kc; ++k) {
      float* o = d + k * AOT_GEMM_NR;
      const int64_t dh = kh * g->DH - g->PH, dw = kw * g->DW - g->PW;
      for (int r = 0; r < nruns; ++r) {
        const int64_t ih = run_ih[r] + dh;
        aot__pack_run(o + run_c[r], ih >= 0 && ih < g->H ? plane + ih * g->W : 0, run_iw[r] + dw,
                      run_c[r + 1] - run_c[r], g->W, g->SW);
      }
      for (int64_t c = cols; c < AOT_GEMM_NR; ++c) o[c] = 0.f;
      if (++kw == g->KW) {
        kw = 0;
        if (++kh == g->KH) {
          kh = 0;
          plane += g->H * g->W;
        }
      }
    }
  }
}

AOT_KAPI void aot__sgemm_pack_a(int64_t M, int64_t K, const float* A, int64_t a_m, int64_t a_k, float* dst) {
  const int64_t mp = aot__round_up(M, AOT_GEMM_MR);
  for (int64_t k0 = 0; k0 < K; k0 += AOT_GEMM_KC)
    aot__pack_a_block(A, a_m, a_k, M, 0, M, k0, AOT__MIN(AOT_GEMM_KC, K - k0), dst + k0 * mp);
}

AOT_KAPI void aot__sgemm_scale_packed_a(int64_t M, int64_t K, const float* a, const float* s, int64_t s_k, float* dst) {
  /* The layout of aot__sgemm_pack_a: KC-deep blocks of MR-row panels, each
   * panel k-major with its MR rows side by side. */
  const int64_t panels = aot__round_up(M, AOT_GEMM_MR) / AOT_GEMM_MR;
  for (int64_t k0 = 0; k0 < K; k0 += AOT_GEMM_KC) {
    const int64_t kc = AOT__MIN(AOT_GEMM_KC, K - k0);
    for (int64_t p = 0; p < panels; ++p) {
      const int64_t rows = AOT__MIN(AOT_GEMM_MR, M - p * AOT_GEMM_MR); /* the rest: zero padding, kept */
      for (int64_t k = 0; k < kc; ++k, a += AOT_GEMM_MR, dst += AOT_GEMM_MR) {
        const float sk = s[(k0 + k) * s_k];
        for (int64_t r = 0; r < AOT_GEMM_MR; ++r) dst[r] = r < rows ? a[r] * sk : a[r];
      }
    }
  }
}

AOT_KAPI void aot__sgemm_pack_b(int64_t K, int64_t N, const float* B, int64_t b_k, int64_t b_n, float* dst) {
  const int64_t np = aot__round_up(N, AOT_GEMM_NR);
  for (int64_t k0 = 0; k0 < K; k0 += AOT_GEMM_KC)
    aot__pack_b_block(B, b_k, b_n, N, 0, N, k0, AOT__MIN(AOT_GEMM_KC, K - k0), dst + k0 * np, 0);
}

/* Whether aot__sgemm reads an operand in place (see aot_kernels.h). Only
 * shapes, strides and flags: the compiler asks the same question when it
 * plans the scratch. From gemm_bench's AotTransformer and AotConv rows
 * (bench/README.md, issue 15): an A with rows or columns of unit stride ran
 * as fast in place as packed (0.8-1.1x, within this VM's noise) on every
 * transformer shape, row strides of 4 KB multiples included; a B of unit
 * column stride too, except with its rows 4 KB or more apart and a whole
 * KC block of them (K = 768: 1.1-1.2x slower; each row its own page, a
 * panel's 256 rows more than the L1 TLB holds). */
static int aot__a_in_place(const aot__operand* A) { return A->s1 == 1 || A->s0 == 1; }

static int aot__b_in_place(int64_t K, const aot__operand* B) {
  return !B->conv && !B->pro && B->s1 == 1 && (B->s0 < 1024 || K < AOT_GEMM_KC);
}

AOT_KAPI int aot__sgemm_packing(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B) {
  int p = 0;
  (void)M;
  (void)N;
  if (!A->packed && !aot__a_in_place(A)) p |= AOT_GEMM_PACK_A;
  if (!B->packed && !aot__b_in_place(K, B)) p |= AOT_GEMM_PACK_B;
  return p;
}

AOT_KAPI int64_t aot__sgemm_scratch_floats(int64_t M, int64_t N, int64_t K, int packing) {
  const int64_t kc = AOT__MIN(AOT_GEMM_KC, K);
  int64_t s = 0;
  if (packing & AOT_GEMM_PACK_A) s += aot__round_up(AOT__MIN(AOT_GEMM_MC, M), AOT_GEMM_MR) * kc;
  if (packing & AOT_GEMM_PACK_B) s += aot__round_up(AOT__MIN(AOT_GEMM_NC_PACK, N), AOT_GEMM_NR) * kc;
  return aot__round_up(s, 16); /* keeps the second buffer 64-byte aligned */
}

/* Prefetches [p, p + bytes) into L2 where the compiler has a way to. */
AOT__KINLINE void aot__prefetch_l2(const char* p, int64_t bytes) {
#if defined(__GNUC__)
  for (int64_t i = 0; i < bytes; i += 64) __builtin_prefetch(p + i, 0, 2);
#else
  (void)p;
  (void)bytes;
#endif
}

/* ---- micro-kernels: t[r*NR + c] = sum_k a[r*ar + k*ak] * b[k*ldb + c] ----
 * A packed A panel has ar = 1, ak = MR, a packed B panel ldb = NR; operands
 * read in place pass their own strides. Each body is inlined into three
 * forms below (packed strides as constants, the packed path's code as
 * before; a B read in place; an A read in place); every form sums each
 * element in the same order, so the bits never depend on the form. */
#if defined(__AVX512F__)
AOT__KINLINE void aot__micro_k(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb,
                               float* t) {
  __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 bv = _mm512_loadu_ps(b + k * ldb);
    const float* a_k = a + k * ak;
    c0 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[0 * ar]), bv, c0);
    c1 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[1 * ar]), bv, c1);
    c2 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[2 * ar]), bv, c2);
    c3 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[3 * ar]), bv, c3);
    c4 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[4 * ar]), bv, c4);
    c5 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[5 * ar]), bv, c5);
    c6 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[6 * ar]), bv, c6);
    c7 = _mm512_fmadd_ps(_mm512_set1_ps(a_k[7 * ar]), bv, c7);
  }
  _mm512_storeu_ps(t + 0 * 16, c0);
  _mm512_storeu_ps(t + 1 * 16, c1);
  _mm512_storeu_ps(t + 2 * 16, c2);
  _mm512_storeu_ps(t + 3 * 16, c3);
  _mm512_storeu_ps(t + 4 * 16, c4);
  _mm512_storeu_ps(t + 5 * 16, c5);
  _mm512_storeu_ps(t + 6 * 16, c6);
  _mm512_storeu_ps(t + 7 * 16, c7);
}
/* Two adjacent B panels (8 x 32): 16 independent FMA chains hide latency. */
#define AOT__HAVE_MICRO2 1
/* With `direct` set (a full tile, unit column stride, an epilogue of at most
 * a per-row bias, a unit-stride residual and relu/clamp) the tile goes
 * straight from registers to C, in store_tile's order: partial sum, bias,
 * residual, activation. */
typedef struct aot__direct {
  int on, first, epi;
  float* c;
  int64_t c_m;
  const float* bias; /* per row, already at the tile's first row */
  int64_t bias_m;
  float lo, hi;
  const float* res; /* already at the tile's first element; never C (the fusion refuses that) */
  int64_t res_m;
  const aot__epilogue* post; /* other activations (sigmoid, GELU, ...): on the stored rows (aot__act_row) */
} aot__direct;
/* The second panel has its own stride: it may be the edge panel's tile
 * while the first is read in place. */
AOT__KINLINE void aot__micro2_k(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b0, int64_t lb0,
                                const float* b1, int64_t lb1, float* t0, float* t1, const aot__direct* dr) {
  __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  __m512 d0 = c0, d1 = c0, d2 = c0, d3 = c0, d4 = c0, d5 = c0, d6 = c0, d7 = c0;
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 bv = _mm512_loadu_ps(b0 + k * lb0), bw = _mm512_loadu_ps(b1 + k * lb1);
    const float* a_k = a + k * ak;
    __m512 av = _mm512_set1_ps(a_k[0 * ar]);
    c0 = _mm512_fmadd_ps(av, bv, c0);
    d0 = _mm512_fmadd_ps(av, bw, d0);
    av = _mm512_set1_ps(a_k[1 * ar]);
    c1 = _mm512_fmadd_ps(av, bv, c1);
    d1 = _mm512_fmadd_ps(av, bw, d1);
    av = _mm512_set1_ps(a_k[2 * ar]);
    c2 = _mm512_fmadd_ps(av, bv, c2);
    d2 = _mm512_fmadd_ps(av, bw, d2);
    av = _mm512_set1_ps(a_k[3 * ar]);
    c3 = _mm512_fmadd_ps(av, bv, c3);
    d3 = _mm512_fmadd_ps(av, bw, d3);
    av = _mm512_set1_ps(a_k[4 * ar]);
    c4 = _mm512_fmadd_ps(av, bv, c4);
    d4 = _mm512_fmadd_ps(av, bw, d4);
    av = _mm512_set1_ps(a_k[5 * ar]);
    c5 = _mm512_fmadd_ps(av, bv, c5);
    d5 = _mm512_fmadd_ps(av, bw, d5);
    av = _mm512_set1_ps(a_k[6 * ar]);
    c6 = _mm512_fmadd_ps(av, bv, c6);
    d6 = _mm512_fmadd_ps(av, bw, d6);
    av = _mm512_set1_ps(a_k[7 * ar]);
    c7 = _mm512_fmadd_ps(av, bv, c7);
    d7 = _mm512_fmadd_ps(av, bw, d7);
  }
  if (dr->on) {
    const __m512 lo = _mm512_set1_ps(dr->lo), hi = _mm512_set1_ps(dr->hi);
#define AOT__ROW(i, cv, dv)                                                    \
  {                                                                            \
    float* cr = dr->c + (i)*dr->c_m;                                           \
    if (!dr->first) {                                                          \
      cv = _mm512_add_ps(cv, _mm512_loadu_ps(cr));                             \
      dv = _mm512_add_ps(dv, _mm512_loadu_ps(cr + 16));                        \
    }                                                                          \
    if (dr->epi) {                                                             \
      if (dr->bias) {                                                          \
        const __m512 bb = _mm512_set1_ps(dr->bias[(i)*dr->bias_m]);            \
        cv = _mm512_add_ps(cv, bb);                                            \
        dv = _mm512_add_ps(dv, bb);                                            \
      }                                                                        \
      if (dr->res) {                                                           \
        cv = _mm512_add_ps(cv, _mm512_loadu_ps(dr->res + (i)*dr->res_m));      \
        dv = _mm512_add_ps(dv, _mm512_loadu_ps(dr->res + (i)*dr->res_m + 16)); \
      }                                                                        \
      cv = _mm512_min_ps(hi, _mm512_max_ps(lo, cv)); /* NaN stays NaN */       \
      dv = _mm512_min_ps(hi, _mm512_max_ps(lo, dv));                           \
    }                                                                          \
    _mm512_storeu_ps(cr, cv);                                                  \
    _mm512_storeu_ps(cr + 16, dv);                                             \
  }
    AOT__ROW(0, c0, d0);
    AOT__ROW(1, c1, d1);
    AOT__ROW(2, c2, d2);
    AOT__ROW(3, c3, d3);
    AOT__ROW(4, c4, d4);
    AOT__ROW(5, c5, d5);
    AOT__ROW(6, c6, d6);
    AOT__ROW(7, c7, d7);
#undef AOT__ROW
    if (dr->epi && dr->post) /* the same function per element as store_tile's pass over its tile */
      for (int i = 0; i < AOT_GEMM_MR; ++i) aot__act_row(dr->c + i * dr->c_m, 2 * AOT_GEMM_NR, 1, dr->post);
    return;
  }
  _mm512_storeu_ps(t0 + 0 * 16, c0);
  _mm512_storeu_ps(t0 + 1 * 16, c1);
  _mm512_storeu_ps(t0 + 2 * 16, c2);
  _mm512_storeu_ps(t0 + 3 * 16, c3);
  _mm512_storeu_ps(t0 + 4 * 16, c4);
  _mm512_storeu_ps(t0 + 5 * 16, c5);
  _mm512_storeu_ps(t0 + 6 * 16, c6);
  _mm512_storeu_ps(t0 + 7 * 16, c7);
  _mm512_storeu_ps(t1 + 0 * 16, d0);
  _mm512_storeu_ps(t1 + 1 * 16, d1);
  _mm512_storeu_ps(t1 + 2 * 16, d2);
  _mm512_storeu_ps(t1 + 3 * 16, d3);
  _mm512_storeu_ps(t1 + 4 * 16, d4);
  _mm512_storeu_ps(t1 + 5 * 16, d5);
  _mm512_storeu_ps(t1 + 6 * 16, d6);
  _mm512_storeu_ps(t1 + 7 * 16, d7);
}
/* The first R < MR rows of aot__micro2_k's tiles (M's last rows: ViT-B/32's
 * 50 tokens are six tiles and two rows, Swin-T's last 49 six and one): the
 * same sums in the same order, for R/MR of the multiply-adds (rows past R
 * of t0 and t1 are left as they were). */
#define AOT__HAVE_MICRO2_ROWS 1
AOT__KINLINE void aot__micro2_rows_k(const int R, int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b0,
                                     int64_t lb0, const float* b1, int64_t lb1, float* t0, float* t1) {
  __m512 c[AOT_GEMM_MR], d[AOT_GEMM_MR];
  for (int i = 0; i < R; ++i) c[i] = d[i] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 bv = _mm512_loadu_ps(b0 + k * lb0), bw = _mm512_loadu_ps(b1 + k * lb1);
    for (int i = 0; i < R; ++i) {
      const __m512 av = _mm512_set1_ps(a[k * ak + i * ar]);
      c[i] = _mm512_fmadd_ps(av, bv, c[i]);
      d[i] = _mm512_fmadd_ps(av, bw, d[i]);
    }
  }
  for (int i = 0; i < R; ++i) {
    _mm512_storeu_ps(t0 + i * AOT_GEMM_NR, c[i]);
    _mm512_storeu_ps(t1 + i * AOT_GEMM_NR, d[i]);
  }
}
/* R as a constant per case, so the sums stay in registers. */
static void aot__micro2_rows(int64_t mr, int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b0,
                             int64_t lb0, const float* b1, int64_t lb1, float* t0, float* t1) {
  switch (mr) {
#define AOT__ROWS_CASE(R)                                           \
  case R:                                                           \
    aot__micro2_rows_k(R, kc, a, ar, ak, b0, lb0, b1, lb1, t0, t1); \
    return;
    AOT__ROWS_CASE(1)
    AOT__ROWS_CASE(2)
    AOT__ROWS_CASE(3)
    AOT__ROWS_CASE(4)
    AOT__ROWS_CASE(5)
    AOT__ROWS_CASE(6)
    default:
      aot__micro2_rows_k(7, kc, a, ar, ak, b0, lb0, b1, lb1, t0, t1);
#undef AOT__ROWS_CASE
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
/* 16 ymm registers: the 8 x 16 tile as two 4 x 16 halves (8 accumulators,
 * 2 B loads and 4 broadcasts per 8 FMAs); the B panel stays in L1. */
AOT__KINLINE void aot__micro_halves_k(const int halves, int64_t kc, const float* a, int64_t ar, int64_t ak,
                                      const float* b, int64_t ldb, float* t) {
  for (int h = 0; h < halves; ++h) {
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    const float* ah = a + 4 * h * ar;
    for (int64_t k = 0; k < kc; ++k) {
      const __m256 b0 = _mm256_loadu_ps(b + k * ldb), b1 = _mm256_loadu_ps(b + k * ldb + 8);
      const float* a_k = ah + k * ak;
      __m256 av = _mm256_broadcast_ss(a_k + 0 * ar);
      c0 = _mm256_fmadd_ps(av, b0, c0);
      c1 = _mm256_fmadd_ps(av, b1, c1);
      av = _mm256_broadcast_ss(a_k + 1 * ar);
      c2 = _mm256_fmadd_ps(av, b0, c2);
      c3 = _mm256_fmadd_ps(av, b1, c3);
      av = _mm256_broadcast_ss(a_k + 2 * ar);
      c4 = _mm256_fmadd_ps(av, b0, c4);
      c5 = _mm256_fmadd_ps(av, b1, c5);
      av = _mm256_broadcast_ss(a_k + 3 * ar);
      c6 = _mm256_fmadd_ps(av, b0, c6);
      c7 = _mm256_fmadd_ps(av, b1, c7);
    }
    float* th = t + 4 * h * 16;
    _mm256_storeu_ps(th + 0, c0);
    _mm256_storeu_ps(th + 8, c1);
    _mm256_storeu_ps(th + 16, c2);
    _mm256_storeu_ps(th + 24, c3);
    _mm256_storeu_ps(th + 32, c4);
    _mm256_storeu_ps(th + 40, c5);
    _mm256_storeu_ps(th + 48, c6);
    _mm256_storeu_ps(th + 56, c7);
  }
}
AOT__KINLINE void aot__micro_k(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb,
                               float* t) {
  aot__micro_halves_k(2, kc, a, ar, ak, b, ldb, t);
}
/* M's last rows when at most 4 are left: the first half alone (the same sums). */
#define AOT__HAVE_MICRO_HALF 1
static void aot__micro_half(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb, float* t) {
  aot__micro_halves_k(1, kc, a, ar, ak, b, ldb, t);
}
#elif defined(__GNUC__)
/* Portable (GCC/clang vector extensions, 4 floats: SSE2, NEON, ...): the
 * 8 x 16 tile in four 4 x 8 quarters, 8 vector accumulators each, so they
 * stay in the 16 registers of the baseline ISAs. */
typedef float aot__v4 __attribute__((vector_size(16)));
AOT__KINLINE void aot__micro_k(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb,
                               float* t) {
  for (int q = 0; q < 4; ++q) {
    const int r0 = (q >> 1) * 4, c0 = (q & 1) * 8;
    aot__v4 x0 = {0, 0, 0, 0}, x1 = x0, x2 = x0, x3 = x0, y0 = x0, y1 = x0, y2 = x0, y3 = x0;
    for (int64_t k = 0; k < kc; ++k) {
      aot__v4 b0, b1;
      memcpy(&b0, b + k * ldb + c0, 16);
      memcpy(&b1, b + k * ldb + c0 + 4, 16);
      const float* a_k = a + k * ak + r0 * ar;
      x0 += a_k[0 * ar] * b0;
      y0 += a_k[0 * ar] * b1;
      x1 += a_k[1 * ar] * b0;
      y1 += a_k[1 * ar] * b1;
      x2 += a_k[2 * ar] * b0;
      y2 += a_k[2 * ar] * b1;
      x3 += a_k[3 * ar] * b0;
      y3 += a_k[3 * ar] * b1;
    }
    float* tq = t + r0 * AOT_GEMM_NR + c0;
    memcpy(tq, &x0, 16);
    memcpy(tq + 4, &y0, 16);
    memcpy(tq + AOT_GEMM_NR, &x1, 16);
    memcpy(tq + AOT_GEMM_NR + 4, &y1, 16);
    memcpy(tq + 2 * AOT_GEMM_NR, &x2, 16);
    memcpy(tq + 2 * AOT_GEMM_NR + 4, &y2, 16);
    memcpy(tq + 3 * AOT_GEMM_NR, &x3, 16);
    memcpy(tq + 3 * AOT_GEMM_NR + 4, &y3, 16);
  }
}
#else
/* Plain C for other compilers. */
AOT__KINLINE void aot__micro_k(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb,
                               float* t) {
  float acc[AOT_GEMM_MR * AOT_GEMM_NR];
  for (int i = 0; i < AOT_GEMM_MR * AOT_GEMM_NR; ++i) acc[i] = 0.f;
  for (int64_t k = 0; k < kc; ++k) {
    const float* bk = b + k * ldb;
    for (int r = 0; r < AOT_GEMM_MR; ++r)
      for (int c = 0; c < AOT_GEMM_NR; ++c) acc[r * AOT_GEMM_NR + c] += a[r * ar + k * ak] * bk[c];
  }
  for (int i = 0; i < AOT_GEMM_MR * AOT_GEMM_NR; ++i) t[i] = acc[i];
}
#endif

/* The three forms of each micro-kernel; the packed strides are constants
 * in the first two. */
static void aot__micro_pp(int64_t kc, const float* a, const float* b, float* t) {
  aot__micro_k(kc, a, 1, AOT_GEMM_MR, b, AOT_GEMM_NR, t);
}
static void aot__micro_pb(int64_t kc, const float* a, const float* b, int64_t ldb, float* t) {
  aot__micro_k(kc, a, 1, AOT_GEMM_MR, b, ldb, t);
}
static void aot__micro_aa(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb, float* t) {
  aot__micro_k(kc, a, ar, ak, b, ldb, t);
}
static void aot__micro(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b, int64_t ldb, float* t) {
  if (ar != 1 || ak != AOT_GEMM_MR)
    aot__micro_aa(kc, a, ar, ak, b, ldb, t);
  else if (ldb != AOT_GEMM_NR)
    aot__micro_pb(kc, a, b, ldb, t);
  else
    aot__micro_pp(kc, a, b, t);
}
#ifdef AOT__HAVE_MICRO2
static void aot__micro2_pp(int64_t kc, const float* a, const float* b0, const float* b1, float* t0, float* t1,
                           const aot__direct* dr) {
  aot__micro2_k(kc, a, 1, AOT_GEMM_MR, b0, AOT_GEMM_NR, b1, AOT_GEMM_NR, t0, t1, dr);
}
static void aot__micro2_pb(int64_t kc, const float* a, const float* b0, int64_t lb0, const float* b1, int64_t lb1,
                           float* t0, float* t1, const aot__direct* dr) {
  aot__micro2_k(kc, a, 1, AOT_GEMM_MR, b0, lb0, b1, lb1, t0, t1, dr);
}
static void aot__micro2_aa(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b0, int64_t lb0,
                           const float* b1, int64_t lb1, float* t0, float* t1, const aot__direct* dr) {
  aot__micro2_k(kc, a, ar, ak, b0, lb0, b1, lb1, t0, t1, dr);
}
static void aot__micro2(int64_t kc, const float* a, int64_t ar, int64_t ak, const float* b0, int64_t lb0,
                        const float* b1, int64_t lb1, float* t0, float* t1, const aot__direct* dr) {
  if (ar != 1 || ak != AOT_GEMM_MR)
    aot__micro2_aa(kc, a, ar, ak, b0, lb0, b1, lb1, t0, t1, dr);
  else if (lb0 != AOT_GEMM_NR || lb1 != AOT_GEMM_NR)
    aot__micro2_pb(kc, a, b0, lb0, b1, lb1, t0, t1, dr);
  else
    aot__micro2_pp(kc, a, b0, b1, t0, t1, dr);
}
#endif

/* C tile (rows m0.., cols n0..) += / = t, then the epilogue on the last K block. */
static void aot__store_tile(float* t, int64_t mr, int64_t nr, float* C, int64_t c_m, int64_t c_n, int first, int last,
                            const aot__epilogue* ep, int64_t m0, int64_t n0) {
  const int epi = last && ep && (ep->bias || ep->res || ep->act != AOT_ACT_NONE);
  if (c_n == 1 && nr == AOT_GEMM_NR &&
      (!epi || ((!ep->bias || ep->bias_n == 0 || ep->bias_n == 1) && (!ep->res || ep->res_n == 1)))) {
    /* Whole unit-stride rows: sum, bias and residual into the tile itself,
     * the activation over the whole tile as one vector loop, then one store
     * per row (the same steps, in the same order, as below). */
    for (int64_t r = 0; r < mr; ++r) {
      float* restrict tr = t + r * AOT_GEMM_NR; /* the tile is a temporary: nothing else points into it */
      const float* restrict c = C + r * c_m;
      if (!first)
        for (int j = 0; j < AOT_GEMM_NR; ++j) tr[j] = c[j] + tr[j];
      if (!epi) continue;
      const int64_t m = m0 + r;
      if (ep->bias) {
        const float* restrict bp = ep->bias + m * ep->bias_m + n0 * ep->bias_n;
        if (ep->bias_n == 0) {
          const float bb = bp[0];
          for (int j = 0; j < AOT_GEMM_NR; ++j) tr[j] += bb;
        } else {
          for (int j = 0; j < AOT_GEMM_NR; ++j) tr[j] += bp[j];
        }
      }
      if (ep->res) {
        const float* restrict rp = ep->res + m * ep->res_m + n0;
        for (int j = 0; j < AOT_GEMM_NR; ++j) tr[j] += rp[j];
      }
    }
    if (epi) aot__act_row(t, mr * AOT_GEMM_NR, 1, ep);
    for (int64_t r = 0; r < mr; ++r) memcpy(C + r * c_m, t + r * AOT_GEMM_NR, sizeof(float) * AOT_GEMM_NR);
    return;
  }
  for (int64_t r = 0; r < mr; ++r) {
    float* c = C + r * c_m;
    const float* tr = t + r * AOT_GEMM_NR;
    if (c_n == 1 && nr == AOT_GEMM_NR) {
      if (first)
        for (int j = 0; j < AOT_GEMM_NR; ++j) c[j] = tr[j];
      else
        for (int j = 0; j < AOT_GEMM_NR; ++j) c[j] += tr[j];
    } else {
      for (int64_t j = 0; j < nr; ++j) c[j * c_n] = first ? tr[j] : c[j * c_n] + tr[j];
    }
    if (!epi) continue;
    const int64_t m = m0 + r;
    if (ep->bias) {
      const float* bp = ep->bias + m * ep->bias_m + n0 * ep->bias_n;
      for (int64_t j = 0; j < nr; ++j) c[j * c_n] += bp[j * ep->bias_n];
    }
    if (ep->res) {
      const float* rp = ep->res + m * ep->res_m + n0 * ep->res_n;
      for (int64_t j = 0; j < nr; ++j) c[j * c_n] += rp[j * ep->res_n];
    }
    if (nr > 1) aot__act_row(c, nr, c_n, ep);
  }
  /* One column (N = 1: the squeeze-and-excitation convolutions on 1x1 maps,
   * or a matrix's last): its activation over the tile's rows at once, not a
   * vector block per element (48 -> 1152 with sigmoid: 63 us that way). */
  if (epi && nr == 1) aot__act_row(C, mr, c_m, ep);
}

AOT_KAPI void aot__sgemm(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B, float* C,
                         int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch) {
  aot__sgemm_range(M, N, K, A, B, C, c_m, c_n, ep, scratch, 0, M, 0, N);
}

AOT_KAPI void aot__sgemm_range(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B, float* C,
                               int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch, int64_t m_lo,
                               int64_t m_hi, int64_t n_lo, int64_t n_hi) {
  aot__sgemm_range_packing(M, N, K, A, B, C, c_m, c_n, ep, scratch, m_lo, m_hi, n_lo, n_hi,
                           aot__sgemm_packing(M, N, K, A, B));
}

/* The panels of one cache block of A (MR rows each) or B (NR columns):
 * panel i (i counted in rows or columns) at base.p + i * step, element
 * (r, k) of an A panel at [r*sr + k*sk], (k, c) of a B panel at [k*sk + c];
 * from `full` on, the one edge panel packed in `tile` (its last rows or
 * columns lie past the matrix, which a read in place must not touch). */
typedef struct aot__pan {
  const float* p;
  int64_t sr, sk;
} aot__pan;
typedef struct aot__blk {
  aot__pan base;
  int64_t step, full;
  const float* tile;
  int64_t tile_sk;
} aot__blk;

static inline aot__pan aot__pan_at(const aot__blk* b, int64_t i) {
  aot__pan q = b->base;
  if (i >= b->full) {
    q.p = b->tile;
    q.sr = 1;
    q.sk = b->tile_sk;
  } else {
    q.p += i * b->step;
  }
  return q;
}

/* A block of packed panels (prepacked, or packed into scratch). */
static inline aot__blk aot__packed_blk(const float* p, int64_t kc, int64_t w) {
  aot__blk b = {{p, 1, w}, kc, INT64_MAX, 0, w};
  return b;
}

/* The same block from depth k of its panels on. */
static inline aot__blk aot__blk_at_k(aot__blk b, int64_t k) {
  b.base.p += k * b.base.sk;
  if (b.tile) b.tile += k * b.tile_sk;
  return b;
}

/* One multiply-add of a sum as the micro-kernels above round it: fused
 * where they use FMA instructions, else a product then a sum. */
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#define AOT__GEMM_MAC(s, a, b) ((s) = __builtin_fmaf((a), (b), (s)))
#else
#define AOT__GEMM_MAC(s, a, b) ((s) += (a) * (b))
#endif

/* B panels with at most this many columns (N = 49, 7x7 maps: the last of
 * four panels) take aot__micro_narrow: the 16-column micro-kernels spent a
 * whole panel's work on them (ResNet-50's 512 x 49 x 4608: 114 GFLOP/s
 * against 147 on 256 x 196 x 2304). */
#define AOT__NARROW 4

/* Tiles of np (<= 4) row panels of A in the packed layout (rows adjacent:
 * element (r, k) at a[p][k MR + r]) by nr (<= AOT__NARROW) columns of one B
 * panel: per column, each panel's MR rows as one vector, the np nr sums
 * side by side. The same sums, in the same order and with the same
 * rounding, as the micro-kernels; tile p at t + p MR NR. */
AOT__KINLINE void aot__micro_narrow(int64_t kc, const float* const* a, int64_t np, const float* b, int64_t ldb,
                                    int64_t nr, float* t) {
#if defined(__AVX2__) && defined(__FMA__) && AOT_GEMM_MR == 8
  /* a panel's 8 rows as one ymm (GCC vectorised the loop below with xmm) */
  __m256 s[4 * AOT__NARROW];
  for (int64_t i = 0; i < np * nr; ++i) s[i] = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; ++k)
    for (int64_t c = 0; c < nr; ++c) {
      const __m256 bk = _mm256_set1_ps(b[k * ldb + c]);
      for (int64_t p = 0; p < np; ++p)
        s[p * nr + c] = _mm256_fmadd_ps(_mm256_loadu_ps(a[p] + k * 8), bk, s[p * nr + c]);
    }
  for (int64_t p = 0; p < np; ++p)
    for (int64_t c = 0; c < nr; ++c) {
      float v[8];
      _mm256_storeu_ps(v, s[p * nr + c]);
      for (int64_t r = 0; r < 8; ++r) t[p * AOT_GEMM_MR * AOT_GEMM_NR + r * AOT_GEMM_NR + c] = v[r];
    }
#else
  float s[4 * AOT__NARROW * AOT_GEMM_MR];
  for (int64_t i = 0; i < np * nr * AOT_GEMM_MR; ++i) s[i] = 0.f;
  for (int64_t k = 0; k < kc; ++k)
    for (int64_t c = 0; c < nr; ++c) {
      const float bk = b[k * ldb + c];
      for (int64_t p = 0; p < np; ++p)
        for (int64_t r = 0; r < AOT_GEMM_MR; ++r)
          AOT__GEMM_MAC(s[(p * nr + c) * AOT_GEMM_MR + r], a[p][k * AOT_GEMM_MR + r], bk);
    }
  for (int64_t p = 0; p < np; ++p)
    for (int64_t c = 0; c < nr; ++c)
      for (int64_t r = 0; r < AOT_GEMM_MR; ++r)
        t[p * AOT_GEMM_MR * AOT_GEMM_NR + r * AOT_GEMM_NR + c] = s[(p * nr + c) * AOT_GEMM_MR + r];
#endif
}

/* aot__micro_narrow with np and nr as constants: the sums then stay in
 * vector registers (with them run-time, GCC kept them in memory, one scalar
 * multiply-add at a time: slower than the 16-column micro-kernels). */
static void aot__micro_narrow_any(int64_t kc, const float* const* a, int64_t np, const float* b, int64_t ldb,
                                  int64_t nr, float* t) {
#define AOT__NARROW_NR(NP)                                  \
  switch (nr) {                                             \
    case 1:                                                 \
      aot__micro_narrow(kc, a, NP, b, ldb, 1, t);           \
      return;                                               \
    case 2:                                                 \
      aot__micro_narrow(kc, a, NP, b, ldb, 2, t);           \
      return;                                               \
    case 3:                                                 \
      aot__micro_narrow(kc, a, NP, b, ldb, 3, t);           \
      return;                                               \
    default:                                                \
      aot__micro_narrow(kc, a, NP, b, ldb, AOT__NARROW, t); \
      return;                                               \
  }
  switch (np) {
    case 1:
      AOT__NARROW_NR(1)
    case 2:
      AOT__NARROW_NR(2)
    case 3:
      AOT__NARROW_NR(3)
    default:
      AOT__NARROW_NR(4)
  }
#undef AOT__NARROW_NR
}

/* One narrow B panel (nr <= AOT__NARROW columns) against the mc rows of an
 * A block, four row panels at a time through aot__micro_narrow, each tile
 * stored by aot__store_tile; 0 (nothing done) where A's panels are not in
 * the packed layout (rows read in place: the micro-kernels take them). */
static int aot__narrow_tiles(int64_t kk, const aot__blk* as, int64_t mc, aot__pan b0, int64_t nr, float* C, int64_t c_m,
                             int64_t c_n, int first, int last, const aot__epilogue* ep, int64_t m0, int64_t n0,
                             float* t) {
  for (int64_t ir = 0; ir < mc; ir += AOT_GEMM_MR) {
    const aot__pan a = aot__pan_at(as, ir);
    if (a.sr != 1 || a.sk != AOT_GEMM_MR) return 0;
  }
  for (int64_t ir = 0; ir < mc; ir += 4 * AOT_GEMM_MR) {
    const int64_t np = AOT__MIN(4, (mc - ir + AOT_GEMM_MR - 1) / AOT_GEMM_MR);
    const float* a[4];
    for (int64_t p = 0; p < np; ++p) a[p] = aot__pan_at(as, ir + p * AOT_GEMM_MR).p;
    aot__micro_narrow_any(kk, a, np, b0.p, b0.sk, nr, t);
    for (int64_t p = 0; p < np; ++p) {
      const int64_t r0 = ir + p * AOT_GEMM_MR;
      aot__store_tile(t + p * AOT_GEMM_MR * AOT_GEMM_NR, AOT__MIN(AOT_GEMM_MR, mc - r0), nr,
                      C + (m0 + r0) * c_m + n0 * c_n, c_m, c_n, first, last, ep, m0 + r0, n0);
    }
  }
  return 1;
}

/* The columns one step of the panel loop below takes from jr on: two
 * panels (AOT__HAVE_MICRO2) unless the second would be narrow, else one. */
static int64_t aot__panel_step(int64_t nc, int64_t jr) {
#ifdef AOT__HAVE_MICRO2
  if (nc - jr - AOT_GEMM_NR > AOT__NARROW) return AOT_GEMM_NR + AOT__MIN(AOT_GEMM_NR, nc - jr - AOT_GEMM_NR);
#endif
  return AOT__MIN(AOT_GEMM_NR, nc - jr);
}

/* Every element's sum runs the same steps whatever the range and whatever
 * is read in place: K in the same KC blocks (KS steps where M < MR), each
 * block's sum from zero in k order in one micro-kernel call, added to what C
 * holds (see aot__micro_k). */
AOT_KAPI void aot__sgemm_range_packing(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B,
                                       float* C, int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch,
                                       int64_t m_lo, int64_t m_hi, int64_t n_lo, int64_t n_hi, int packing) {
  if (m_hi > M) m_hi = M;
  if (n_hi > N) n_hi = N;
  if (m_lo >= m_hi || n_lo >= n_hi) return;
  if (K <= 0) { /* an empty sum: the epilogue of zeros */
    float z[AOT_GEMM_MR * AOT_GEMM_NR];
    for (int64_t m = m_lo; m < m_hi; m += AOT_GEMM_MR)
      for (int64_t n = n_lo; n < n_hi; n += AOT_GEMM_NR) {
        memset(z, 0, sizeof(z)); /* store_tile works in the tile */
        aot__store_tile(z, AOT__MIN(AOT_GEMM_MR, m_hi - m), AOT__MIN(AOT_GEMM_NR, n_hi - n), C + m * c_m + n * c_n, c_m,
                        c_n, 1, 1, ep, m, n);
      }
    return;
  }
  const int pack_a = !A->packed && (packing & AOT_GEMM_PACK_A),
            pack_b = !B->packed && (B->conv || B->pro || (packing & AOT_GEMM_PACK_B));
  const int64_t mp = aot__round_up(M, AOT_GEMM_MR), np = aot__round_up(N, AOT_GEMM_NR);
  /* a packed A: the rows of its packing and where ours start in it */
  const int64_t a_rows = A->s0 > 0 ? A->s0 : mp, a_row0 = A->s0 > 0 ? A->s1 : 0;
  const int64_t kc_max = AOT__MIN(AOT_GEMM_KC, K);
  /* Fewer rows than a tile (M < MR: batch-1 linear layers, matrix-vector
   * products) sum K in steps of AOT_GEMM_KS_FEW, not KC: each output is then
   * about KS + K / KS roundings deep instead of KC + K / KC (ResNet-18's
   * classifier, K = 512: 3.4x eager's distance from float64 with KC, see
   * bench/accuracy.py). Reading B bounds such products; C's extra loads and
   * stores cost nothing. The step depends on M alone, so every range of a
   * split call sums in the same order. */
  const int64_t ks_len = M < AOT_GEMM_MR ? AOT_GEMM_KS_FEW : AOT_GEMM_KC;
  /* Such products also run one step of panels at a time through all of
   * K's steps, so each panel streams from memory in order (K step outside,
   * the 1000 x 1024 classifier of MobileNetV3 read its weights at 18 GB/s,
   * in 2 KB pieces 16 KB apart); each element's sum runs the same steps
   * either way. And they prefetch a pair ahead where B is too big to stay
   * in cache between calls (that classifier: 210 -> 124 us in the model;
   * a B that stays in cache: about 20% slower with the prefetches). */
  const int panels_out = M < AOT_GEMM_MR;
  const int stream = (double)K * N * sizeof(float) > AOT_GEMM_STREAM_BYTES;
  (void)stream; /* read by the two-panel path alone (AOT__HAVE_MICRO2) */
  float* sa = scratch;
  float* sb = pack_a ? scratch + aot__round_up(AOT__MIN(AOT_GEMM_MC, M), AOT_GEMM_MR) * kc_max
                     : scratch; /* NULL + 0 is UB in C */
  float t0[AOT_GEMM_MR * AOT_GEMM_NR], t1[AOT_GEMM_MR * AOT_GEMM_NR];
  float at[AOT_GEMM_KC * AOT_GEMM_MR], bt[AOT_GEMM_KC * AOT_GEMM_NR]; /* the edge panels of operands read in place */
  float tn[4 * AOT_GEMM_MR * AOT_GEMM_NR];                            /* aot__narrow_tiles' tiles */
  (void)t1;
#ifdef AOT__HAVE_MICRO2
  /* Tiles may skip the temporary when the epilogue is a per-row bias, a
   * unit-stride residual (ResNet's block ends: 15% of ResNet-50 went to
   * store_tile) and an activation at most (relu/clamp in registers, the
   * others over the stored rows: EfficientNet's SiLU). */
  const int direct_ok = c_n == 1 && (!ep || ((!ep->res || ep->res_n == 1) && (!ep->bias || ep->bias_n == 0)));
#endif
  const int64_t nc_blk = pack_b ? AOT_GEMM_NC_PACK : AOT_GEMM_NC;
  for (int64_t jc = n_lo; jc < n_hi; jc += nc_blk) {
    const int64_t nc = AOT__MIN(nc_blk, n_hi - jc);
    for (int64_t pc = 0; pc < K; pc += AOT_GEMM_KC) {
      const int64_t kc = AOT__MIN(AOT_GEMM_KC, K - pc);
      const int first = pc == 0, last = pc + kc >= K;
      aot__blk bb;
      if (B->packed)
        bb = aot__packed_blk(B->p + pc * np + jc * kc, kc, AOT_GEMM_NR);
      else if (B->conv) {
        aot__pack_b_conv(B->conv, B->p, N, jc, nc, pc, kc, sb);
        bb = aot__packed_blk(sb, kc, AOT_GEMM_NR);
      } else if (pack_b) {
        aot__pack_b_block(B->p, B->s0, B->s1, N, jc, nc, pc, kc, sb, B->pro);
        bb = aot__packed_blk(sb, kc, AOT_GEMM_NR);
      } else { /* rows of B in place (unit column stride), B->s0 apart */
        const aot__blk in = {
            {B->p + pc * B->s0 + jc, 1, B->s0}, 1, (N - jc) / AOT_GEMM_NR * AOT_GEMM_NR, bt, AOT_GEMM_NR};
        bb = in;
        if (bb.full < nc) aot__pack_b_block(B->p, B->s0, B->s1, N, jc + bb.full, nc - bb.full, pc, kc, bt, 0);
      }
      for (int64_t ic = m_lo; ic < m_hi; ic += AOT_GEMM_MC) {
        const int64_t mc = AOT__MIN(AOT_GEMM_MC, m_hi - ic);
        aot__blk ab;
        if (A->packed)
          ab = aot__packed_blk(A->p + pc * a_rows + (a_row0 + ic) * kc, kc, AOT_GEMM_MR);
        else if (pack_a) {
          aot__pack_a_block(A->p, A->s0, A->s1, M, ic, mc, pc, kc, sa);
          ab = aot__packed_blk(sa, kc, AOT_GEMM_MR);
        } else { /* rows of A in place, broadcast element by element */
          const aot__blk in = {{A->p + ic * A->s0 + pc * A->s1, A->s0, A->s1},
                               A->s0,
                               (M - ic) / AOT_GEMM_MR * AOT_GEMM_MR,
                               at,
                               AOT_GEMM_MR};
          ab = in;
          if (ab.full < mc) aot__pack_a_block(A->p, A->s0, A->s1, M, ic + ab.full, mc - ab.full, pc, kc, at);
        }
        /* Prepacked A (conv weights) comes from memory once per call, and a
         * thread of a column split reads all of it over fewer column tiles:
         * the next block of A is prefetched into L2 over the first half of
         * this block's tiles (row tile ir of column pair q: piece q * tiles +
         * ir; ten 3x3 256 -> 256 convolutions on 14 x 14 in a row, as in
         * ResNet-50: 1.04x at one thread, 1.07x at two). */
        const char* apf = 0;
        int64_t apf_bytes = 0, apf_piece = 0;
        const int64_t tiles = (mc + AOT_GEMM_MR - 1) / AOT_GEMM_MR;
        if (A->packed && !panels_out) {
          const int64_t nic = ic + AOT_GEMM_MC < m_hi ? ic + AOT_GEMM_MC : m_lo,
                        npc = ic + AOT_GEMM_MC < m_hi ? pc : pc + AOT_GEMM_KC;
          if (npc < K) {
            const int64_t nkc = AOT__MIN(AOT_GEMM_KC, K - npc), nmc = AOT__MIN(AOT_GEMM_MC, m_hi - nic);
            const int64_t pieces = AOT__MAX(1, (nc + 2 * AOT_GEMM_NR - 1) / (2 * AOT_GEMM_NR) * tiles / 2);
            apf = (const char*)(A->p + npc * a_rows + (a_row0 + nic) * nkc);
            apf_bytes = aot__round_up(nmc, AOT_GEMM_MR) * nkc * (int64_t)sizeof(float);
            apf_piece = aot__round_up(apf_bytes / pieces, 64);
          }
        }
        (void)apf; /* read by the two-panel path alone */
        (void)apf_piece;
        for (int64_t jo = 0, j_hi; jo < nc; jo = j_hi) {
          j_hi = panels_out ? jo + aot__panel_step(nc, jo) : nc;
          for (int64_t ks = 0; ks < kc; ks += ks_len) { /* one step unless M < MR */
            const int64_t kk = AOT__MIN(ks_len, kc - ks);
            const int first_s = first && ks == 0, last_s = last && ks + kk >= kc;
            const aot__blk bs = aot__blk_at_k(bb, ks), as = aot__blk_at_k(ab, ks);
            for (int64_t jr = jo; jr < j_hi; jr += AOT_GEMM_NR) {
              const int64_t nr = AOT__MIN(AOT_GEMM_NR, j_hi - jr);
              const aot__pan b0 = aot__pan_at(&bs, jr);
              if (nr <= AOT__NARROW &&
                  aot__narrow_tiles(kk, &as, mc, b0, nr, C, c_m, c_n, first_s, last_s, ep, ic, jc + jr, tn))
                continue;
#ifdef AOT__HAVE_MICRO2
              const int64_t step = aot__panel_step(j_hi, jr);
              if (step > AOT_GEMM_NR) { /* two panels at once (a narrow second one: alone below) */
                const int64_t nr2 = step - AOT_GEMM_NR;
                const aot__pan b1 = aot__pan_at(&bs, jr + AOT_GEMM_NR);
                /* Prepacked B (weights) comes from memory once per call: the next
                 * pair's panels are prefetched into L2 over this pair's row tiles
                 * (BERT-base's FFN GEMM, weights evicted by the layer's others:
                 * 4.05 -> 3.7 ms; no change with them in cache). */
                const char* pf = !B->packed || jr + 3 * AOT_GEMM_NR >= nc ? 0
                                 : !panels_out ? (const char*)aot__pan_at(&bs, jr + 2 * AOT_GEMM_NR).p
                                 : stream /* the next pair's panels, kk / KC of them per K step */
                                     ? (const char*)(aot__pan_at(&bb, jr + 2 * AOT_GEMM_NR).p + ks * 2 * AOT_GEMM_NR)
                                     : 0;
                const int64_t pf_step =
                    2 * kk * AOT_GEMM_NR * (int64_t)sizeof(float) / ((mc + AOT_GEMM_MR - 1) / AOT_GEMM_MR);
                for (int64_t ir = 0; ir < mc; ir += AOT_GEMM_MR) {
                  const int64_t mr = AOT__MIN(AOT_GEMM_MR, mc - ir);
                  if (pf) aot__prefetch_l2(pf + ir / AOT_GEMM_MR * pf_step, pf_step);
                  const int64_t apf_off = ((jr - jo) / (2 * AOT_GEMM_NR) * tiles + ir / AOT_GEMM_MR) * apf_piece;
                  if (apf && apf_off < apf_bytes)
                    aot__prefetch_l2(apf + apf_off, AOT__MIN(apf_piece, apf_bytes - apf_off));
                  const aot__pan a = aot__pan_at(&as, ir);
                  float* c = C + (ic + ir) * c_m + (jc + jr) * c_n;
                  aot__direct dr = {0, first_s, 0, c, c_m, 0, 0, -INFINITY, INFINITY, 0, 0, 0};
                  dr.on = direct_ok && mr == AOT_GEMM_MR && nr2 == AOT_GEMM_NR;
                  if (dr.on && last_s && ep) {
                    dr.epi = 1;
                    if (ep->bias) {
                      dr.bias = ep->bias + (ic + ir) * ep->bias_m;
                      dr.bias_m = ep->bias_m;
                    }
                    if (ep->res) {
                      dr.res = ep->res + (ic + ir) * ep->res_m + (jc + jr);
                      dr.res_m = ep->res_m;
                    }
                    /* relu and clamp in registers; any other activation on the stored rows */
                    if (ep->act != AOT_ACT_NONE && ep->act != AOT_ACT_RELU && ep->act != AOT_ACT_CLAMP) dr.post = ep;
                    if (ep->act == AOT_ACT_RELU) dr.lo = 0.f;
                    if (ep->act == AOT_ACT_CLAMP) {
                      dr.lo = ep->lo;
                      dr.hi = ep->hi;
                    }
                  }
#ifdef AOT__HAVE_MICRO2_ROWS
                  if (mr < AOT_GEMM_MR)
                    aot__micro2_rows(mr, kk, a.p, a.sr, a.sk, b0.p, b0.sk, b1.p, b1.sk, t0, t1);
                  else
#endif
                    aot__micro2(kk, a.p, a.sr, a.sk, b0.p, b0.sk, b1.p, b1.sk, t0, t1, &dr);
                  if (dr.on) continue;
                  aot__store_tile(t0, mr, nr, c, c_m, c_n, first_s, last_s, ep, ic + ir, jc + jr);
                  aot__store_tile(t1, mr, nr2, c + AOT_GEMM_NR * c_n, c_m, c_n, first_s, last_s, ep, ic + ir,
                                  jc + jr + AOT_GEMM_NR);
                }
                jr += AOT_GEMM_NR;
                continue;
              }
#endif
              for (int64_t ir = 0; ir < mc; ir += AOT_GEMM_MR) {
                const int64_t mr = AOT__MIN(AOT_GEMM_MR, mc - ir);
                const aot__pan a = aot__pan_at(&as, ir);
#ifdef AOT__HAVE_MICRO_HALF
                if (2 * mr <= AOT_GEMM_MR)
                  aot__micro_half(kk, a.p, a.sr, a.sk, b0.p, b0.sk, t0);
                else
#endif
                  aot__micro(kk, a.p, a.sr, a.sk, b0.p, b0.sk, t0);
                aot__store_tile(t0, mr, nr, C + (ic + ir) * c_m + (jc + jr) * c_n, c_m, c_n, first_s, last_s, ep,
                                ic + ir, jc + jr);
              }
            }
          }
        }
      }
    }
  }
}
