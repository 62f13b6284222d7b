/* Winograd convolution F(m x m, 3 x 3) (Lavin and Gray, 2016) for 3x3
 * filters at stride 1 and dilation 1, any padding, m = 2 or 4: each m x m
 * output tile comes from an alpha x alpha input tile (alpha = m + 2) as
 * Y = A^T [ sum_c (G g G^T) . (B^T d B) ] A, so the multiply-adds become
 * alpha^2 GEMMs of C-deep sums: (alpha / m)^2 / 9 of a direct or im2col
 * convolution's (1/2.25 at m = 2, 1/4 at m = 4). The filters are
 * transformed and packed at compile time (U = G g G^T, alpha^2 packed A
 * matrices of M x C); at run time a block of tile rows is transformed into
 * V (alpha^2 x C x tiles), multiplied by aot__sgemm and transformed back
 * with the epilogue (bias, residual, activation) in the store.
 *
 * The tiles of a tile row sit TW + 1 apart (one junk tile per row, computed
 * and dropped) so that every transform is one flat unit-stride loop over the
 * block's tiles, which the compiler vectorises; the strided gathers of the
 * image into phase rows are the only strided accesses. Each output element
 * is computed by the same operations in the same order whatever block or
 * thread computes it. */
#include "aot_kernels.h"

/* The transforms' loops read and write distinct rows of scratch: without
 * this GCC sees too many pointer pairs to check and leaves some scalar. */
#if defined(__GNUC__) && !defined(__clang__)
#define AOT__WINO_IVDEP _Pragma("GCC ivdep")
#else
#define AOT__WINO_IVDEP
#endif

/* G of F(2x2, 3x3) and F(4x4, 3x3) (Lavin and Gray's interpolation points
 * 0, +-1 and, for m = 4, +-2); B^T and A^T are the 1-D transforms below,
 * written out so the zero coefficients cost nothing. */
static const double aot__wino_g2[12] = {1, 0, 0, .5, .5, .5, .5, -.5, .5, 0, 0, 1};
static const double aot__wino_g4[18] = {1. / 4,  0,       0,      -1. / 6, -1. / 6,  -1. / 6, -1. / 6, 1. / 6, -1. / 6,
                                        1. / 24, 1. / 12, 1. / 6, 1. / 24, -1. / 12, 1. / 6,  0,       0,      1};

/* t_i = sum_r B^T[i][r] d_r for n elements: d_r at d + r * ds, t_i at t + i * ts. */
AOT__KINLINE void aot__wino_bt(int m, const float* restrict d, int64_t ds, float* restrict t, int64_t ts, int64_t n) {
  if (m == 2) {
    AOT__WINO_IVDEP
    for (int64_t k = 0; k < n; ++k) {
      const float d0 = d[k], d1 = d[ds + k], d2 = d[2 * ds + k], d3 = d[3 * ds + k];
      t[k] = d0 - d2;
      t[ts + k] = d1 + d2;
      t[2 * ts + k] = d2 - d1;
      t[3 * ts + k] = d1 - d3;
    }
    return;
  }
  AOT__WINO_IVDEP
  for (int64_t k = 0; k < n; ++k) {
    const float d0 = d[k], d1 = d[ds + k], d2 = d[2 * ds + k], d3 = d[3 * ds + k], d4 = d[4 * ds + k],
                d5 = d[5 * ds + k];
    t[k] = AOT__FMA(4.f, d0, AOT__FMA(-5.f, d2, d4));
    t[ts + k] = AOT__FMA(-4.f, d1 + d2, d3 + d4);
    t[2 * ts + k] = AOT__FMA(4.f, d1 - d2, d4 - d3);
    t[3 * ts + k] = AOT__FMA(2.f, d3 - d1, d4 - d2);
    t[4 * ts + k] = AOT__FMA(2.f, d1 - d3, d4 - d2);
    t[5 * ts + k] = AOT__FMA(4.f, d1, AOT__FMA(-5.f, d3, d5));
  }
}

/* o_i = sum_j A^T[i][j] r_j for n elements (m outputs from m + 2 inputs). */
AOT__KINLINE void aot__wino_at(int m, const float* restrict r, int64_t rs, float* restrict o, int64_t os, int64_t n) {
  if (m == 2) {
    AOT__WINO_IVDEP
    for (int64_t k = 0; k < n; ++k) {
      const float r0 = r[k], r1 = r[rs + k], r2 = r[2 * rs + k], r3 = r[3 * rs + k];
      o[k] = r0 + r1 + r2;
      o[os + k] = r1 - r2 - r3;
    }
    return;
  }
  AOT__WINO_IVDEP
  for (int64_t k = 0; k < n; ++k) {
    const float r0 = r[k], r1 = r[rs + k], r2 = r[2 * rs + k], r3 = r[3 * rs + k], r4 = r[4 * rs + k],
                r5 = r[5 * rs + k];
    const float p12 = r1 + r2, m12 = r1 - r2, p34 = r3 + r4, m34 = r3 - r4;
    o[k] = r0 + p12 + p34;
    o[os + k] = AOT__FMA(2.f, m34, m12);
    o[2 * os + k] = AOT__FMA(4.f, p34, p12);
    o[3 * os + k] = AOT__FMA(8.f, m34, m12) + r5;
  }
}

#if defined(__AVX512F__)
#include <immintrin.h>
/* dst[ph * ds + q] = src[q m + ph] for q < n, m = 2 or 4: 16 tiles per step
 * from m vectors through permutes; loads and stores masked to the n tiles. */
static inline void aot__wino_split(int m, const float* src, float* dst, int64_t ds, int64_t n) {
  const __m512i e2 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i o2 = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  const __m512i p01 = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i p23 = _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
  const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  for (int64_t q = 0; q < n; q += 16) {
    const int64_t k = n - q < 16 ? n - q : 16, e = k * m; /* tiles, source floats */
    const float* s = src + q * m;
    const __mmask16 st = aot__lanes(0, k);
    if (m == 2) {
      const __m512 v0 = _mm512_maskz_loadu_ps(aot__lanes(0, e), s),
                   v1 = _mm512_maskz_loadu_ps(aot__lanes(0, e - 16), s + 16);
      _mm512_mask_storeu_ps(dst + q, st, _mm512_permutex2var_ps(v0, e2, v1));
      _mm512_mask_storeu_ps(dst + ds + q, st, _mm512_permutex2var_ps(v0, o2, v1));
    } else {
      const __m512 v0 = _mm512_maskz_loadu_ps(aot__lanes(0, e), s),
                   v1 = _mm512_maskz_loadu_ps(aot__lanes(0, e - 16), s + 16),
                   v2 = _mm512_maskz_loadu_ps(aot__lanes(0, e - 32), s + 32),
                   v3 = _mm512_maskz_loadu_ps(aot__lanes(0, e - 48), s + 48);
      const __m512 a01 = _mm512_permutex2var_ps(v0, p01, v1), a23 = _mm512_permutex2var_ps(v0, p23, v1),
                   b01 = _mm512_permutex2var_ps(v2, p01, v3), b23 = _mm512_permutex2var_ps(v2, p23, v3);
      _mm512_mask_storeu_ps(dst + q, st, _mm512_permutex2var_ps(a01, lo, b01));
      _mm512_mask_storeu_ps(dst + ds + q, st, _mm512_permutex2var_ps(a01, hi, b01));
      _mm512_mask_storeu_ps(dst + 2 * ds + q, st, _mm512_permutex2var_ps(a23, lo, b23));
      _mm512_mask_storeu_ps(dst + 3 * ds + q, st, _mm512_permutex2var_ps(a23, hi, b23));
    }
  }
}
/* The inverse: dst[q m + ph] = src[ph * ss + q] for q < n. */
static inline void aot__wino_merge(int m, const float* src, int64_t ss, float* dst, int64_t n) {
  const __m512i i2a = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i i2b = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  for (int64_t q = 0; q < n; q += 16) {
    const int64_t k = n - q < 16 ? n - q : 16, e = k * m;
    const __mmask16 ld = aot__lanes(0, k);
    float* d = dst + q * m;
    if (m == 2) {
      const __m512 p0 = _mm512_maskz_loadu_ps(ld, src + q), p1 = _mm512_maskz_loadu_ps(ld, src + ss + q);
      _mm512_mask_storeu_ps(d, aot__lanes(0, e), _mm512_permutex2var_ps(p0, i2a, p1));
      _mm512_mask_storeu_ps(d + 16, aot__lanes(0, e - 16), _mm512_permutex2var_ps(p0, i2b, p1));
    } else {
      const __m512 p0 = _mm512_maskz_loadu_ps(ld, src + q), p1 = _mm512_maskz_loadu_ps(ld, src + ss + q),
                   p2 = _mm512_maskz_loadu_ps(ld, src + 2 * ss + q), p3 = _mm512_maskz_loadu_ps(ld, src + 3 * ss + q);
      /* (p0 p2) and (p1 p3) interleaved, then those two */
      const __m512 a = _mm512_permutex2var_ps(p0, i2a, p2), b = _mm512_permutex2var_ps(p0, i2b, p2),
                   c = _mm512_permutex2var_ps(p1, i2a, p3), dd = _mm512_permutex2var_ps(p1, i2b, p3);
      _mm512_mask_storeu_ps(d, aot__lanes(0, e), _mm512_permutex2var_ps(a, i2a, c));
      _mm512_mask_storeu_ps(d + 16, aot__lanes(0, e - 16), _mm512_permutex2var_ps(a, i2b, c));
      _mm512_mask_storeu_ps(d + 32, aot__lanes(0, e - 32), _mm512_permutex2var_ps(b, i2a, dd));
      _mm512_mask_storeu_ps(d + 48, aot__lanes(0, e - 48), _mm512_permutex2var_ps(b, i2b, dd));
    }
  }
}
#else
static inline void aot__wino_split(int m, const float* src, float* dst, int64_t ds, int64_t n) {
  for (int64_t q = 0; q < n; ++q)
    for (int ph = 0; ph < m; ++ph) dst[ph * ds + q] = src[q * m + ph];
}
static inline void aot__wino_merge(int m, const float* src, int64_t ss, float* dst, int64_t n) {
  for (int64_t q = 0; q < n; ++q)
    for (int ph = 0; ph < m; ++ph) dst[q * m + ph] = src[ph * ss + q];
}
#endif

/* Floats budgeted for a block's V and GEMM results: at m = 2, 512 KB (with
 * 64 input and output channels a block holds 2 tile rows of a 56-wide map,
 * GEMMs of N >= 56); at m = 4, 1 MB (4 tile rows, N >= 56). Half of 1 MB ran
 * as fast at m = 2 on ResNet's and DenseNet's layers and halves the scratch,
 * which sets the plan's peak in ResNet's first stage; at m = 4 it ran 10-25%
 * slower (gemm_bench AotWinograd, bench/README.md). */
#define AOT__WINO_BLOCK_FLOATS(m) ((m) == 2 ? 128 * 1024 : 256 * 1024)
#define AOT__WINO_CB 16
/* Output channels per pass over V: the GEMM results (alpha^2 x MB rows) stay
 * small while V is reused. */
#define AOT__WINO_MB 64

static int64_t aot__wino_ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t aot__wino_up16(int64_t v) { return (v + 15) / 16 * 16; }

/* The blocking of one convolution: tile rows per block (at most), the tile
 * stride TX, and NS >= a block's tiles + 1: the row stride of every buffer
 * below. */
typedef struct aot__wino_plan {
  int64_t TW, TH, TX, rows, NS, packed_a;
} aot__wino_plan;

static aot__wino_plan aot__wino_plan_of(int m, const aot__conv_geom* g, int64_t M) {
  aot__wino_plan p;
  const int64_t a = m + 2;
  p.TW = aot__wino_ceil(g->OW, m);
  p.TH = aot__wino_ceil(g->OH, m);
  p.TX = p.TW + 1;
  const int64_t mb = M < AOT__WINO_MB ? M : AOT__WINO_MB;
  p.rows = AOT__WINO_BLOCK_FLOATS(m) / (a * a * (g->C + mb) * p.TX);
  if (p.rows < 1) p.rows = 1;
  if (p.rows > p.TH) p.rows = p.TH;
  p.NS = aot__wino_up16(p.rows * p.TX + 1);
  p.packed_a = aot__sgemm_packed_a_floats(M, g->C);
  return p;
}

AOT_KAPI int64_t aot__wino_packed_floats(int m, int64_t M, int64_t C) {
  return (int64_t)(m + 2) * (m + 2) * aot__sgemm_packed_a_floats(M, C);
}

/* U = G g G^T for every (output, input) channel pair, in double, each of the
 * alpha^2 matrices (M x C) packed as GEMM A panels in passes of MB rows, one
 * after another.
 * w: M x C x 3 x 3. tmp: M * C floats of scratch. */
AOT_KAPI void aot__wino_pack(int m, int64_t M, int64_t C, const float* w, float* tmp, float* dst) {
  const int64_t a = m + 2, pa = aot__sgemm_packed_a_floats(M, C);
  const double* G = m == 2 ? aot__wino_g2 : aot__wino_g4;
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < a; ++j) {
      for (int64_t o = 0; o < M * C; ++o) {
        const float* f = w + o * 9;
        double s = 0;
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) s += G[i * 3 + k] * (double)f[k * 3 + l] * G[j * 3 + l];
        tmp[o] = (float)s;
      }
      for (int64_t m0 = 0; m0 < M; m0 += AOT__WINO_MB) /* each pass's rows packed on their own */
        aot__sgemm_pack_a(M - m0 < AOT__WINO_MB ? M - m0 : AOT__WINO_MB, C, tmp + m0 * C, C, 1,
                          dst + (i * a + j) * pa + m0 * C);
    }
}

AOT_KAPI int64_t aot__wino_tile_rows(int m, const aot__conv_geom* g) { return aot__wino_ceil(g->OH, m); }

/* Per thread: V (alpha^2 x C rows), the GEMM results (alpha^2 x MB rows), the
 * phase rows (alpha m x CB), the vertical transform (alpha^2 x CB), the
 * output transform (alpha m + m^2 rows x CB), all NS floats long, and a row. */
AOT_KAPI int64_t aot__wino_scratch_floats(int m, const aot__conv_geom* g, int64_t M) {
  const aot__wino_plan p = aot__wino_plan_of(m, g, M);
  const int64_t a = m + 2;
  const int64_t mb = M < AOT__WINO_MB ? M : AOT__WINO_MB;
  return (a * a * (g->C + mb) + (a * m + a * a + a * m + m * m) * AOT__WINO_CB) * p.NS + 16 + aot__wino_up16(p.TX * m);
}

/* Tile rows [b0, b1) of the convolution of one CHW image x into y (M x OH
 * x OW), in blocks of at most p.rows from b0 on, with the filters
 * aot__wino_pack made (u); epilogue per output channel
 * m, n = oh * OW + ow; scratch aot__wino_scratch_floats long, 64-byte
 * aligned. The body, with m constant in each copy. Every transform runs
 * over CB channels' rows at once (one long loop); the columns past a
 * block's tiles are zeros in D and R and junk elsewhere, never stored. */
AOT__KINLINE void aot__wino_blocks_m(const int m, const aot__conv_geom* g, int64_t M, const float* x, const float* u,
                                     float* y, const aot__epilogue* ep, float* scratch, int64_t b0, int64_t b1) {
  const aot__wino_plan p = aot__wino_plan_of(m, g, M);
  const int64_t a = m + 2, a2 = a * a, C = g->C, H = g->H, W = g->W, OH = g->OH, OW = g->OW, NS = p.NS, TX = p.TX;
  const int64_t CB = AOT__WINO_CB, PW = g->PW;
  const int64_t MB = M < AOT__WINO_MB ? M : AOT__WINO_MB;
  float* restrict V = scratch;                  /* V[((i a + j) C + c) NS + t] */
  float* restrict R = V + a2 * C * NS;          /* R[((i a + j) MB + o - m0) NS + t] */
  float* restrict D = R + a2 * MB * NS;         /* D[((r m + ph) CB + c) NS + t], + 16 slack */
  float* restrict T = D + a * m * CB * NS + 16; /* T[((i a + s) CB + c) NS + t] */
  float* restrict S = T + a2 * CB * NS;         /* S[((i m + bo) CB + o) NS + t] */
  float* restrict O = S + a * m * CB * NS;      /* O[((ao m + bo) CB + o) NS + t] */
  float* restrict row = O + m * m * CB * NS;    /* one output row of TX m */
  /* Tile columns q whose phases all lie inside the image: 0 <= q m - PW, q m + m - 1 - PW < W. */
  int64_t qa = aot__wino_ceil(PW, m), qb = W + PW - m >= 0 ? (W + PW - m) / m + 1 : 0;
  if (qb > TX) qb = TX;
  if (qa > qb) qa = qb;
  memset(D + a * m * CB * NS, 0, sizeof(float) * 16); /* the slack the last junk tile reads */
  if (b1 > p.TH) b1 = p.TH;
  for (int64_t ty0 = b0, nr; ty0 < b1; ty0 += nr) {
    nr = b1 - ty0 < p.rows ? b1 - ty0 : p.rows;
    const int64_t nt = nr * TX;
    for (int64_t c0 = 0; c0 < C; c0 += CB) {
      const int64_t cb = C - c0 < CB ? C - c0 : CB;
      for (int64_t r = 0; r < a; ++r)
        for (int64_t cc = 0; cc < cb; ++cc) {
          const float* plane = x + (c0 + cc) * H * W;
          float* restrict d = D + (r * m * CB + cc) * NS; /* phase ph at d + ph CB NS */
          for (int64_t lr = 0; lr < nr; ++lr) {
            const int64_t ih = (ty0 + lr) * m - g->PH + r;
            float* restrict dl = d + lr * TX;
            if (ih < 0 || ih >= H) {
              for (int ph = 0; ph < m; ++ph) memset(dl + ph * CB * NS, 0, sizeof(float) * (size_t)TX);
              continue;
            }
            const float* src = plane + ih * W - PW; /* column j of the padded row at src[j] */
            for (int64_t q = 0; q < TX; ++q) {
              if (q == qa) q = qb; /* the interior below */
              if (q >= TX) break;
              for (int ph = 0; ph < m; ++ph) {
                const int64_t iw = q * m + ph - PW;
                dl[ph * CB * NS + q] = iw >= 0 && iw < W ? src[q * m + ph] : 0.f;
              }
            }
            if (qb > qa) aot__wino_split(m, src + qa * m, dl + qa, CB * NS, qb - qa);
          }
          for (int ph = 0; ph < m; ++ph) memset(d + ph * CB * NS + nt, 0, sizeof(float) * (size_t)(NS - nt));
        }
      /* T[i][s] = sum_r B^T[i][r] D[r][s % m] shifted by s / m tiles (down
       * the tile), then V[i a + j] = sum_s B^T[j][s] T[i][s] (across it). */
      const int64_t n = cb * NS;
      for (int64_t s = 0; s < a; ++s)
        aot__wino_bt(m, D + (s % m) * CB * NS + s / m, m * CB * NS, T + s * CB * NS, a * CB * NS, n);
      for (int64_t i = 0; i < a; ++i)
        aot__wino_bt(m, T + i * a * CB * NS, CB * NS, V + (i * a * C + c0) * NS, C * NS, n);
    }
    for (int64_t m0 = 0; m0 < M; m0 += MB) {
      const int64_t mb = M - m0 < MB ? M - m0 : MB;
      for (int64_t xi = 0; xi < a2; ++xi) {
        const aot__operand A = {u + xi * p.packed_a + m0 * C, 0, 0, 1, 0, 0}; /* m0: a multiple of MR */
        const aot__operand B = {V + xi * C * NS, NS, 1, 0, 0, 0};
        float* rx = R + xi * MB * NS;
        aot__sgemm(mb, nt, C, &A, &B, rx, NS, 1, 0, 0);
        for (int64_t o = 0; o < mb; ++o) memset(rx + o * NS + nt, 0, sizeof(float) * (size_t)(NS - nt));
      }
      for (int64_t o0 = m0; o0 < m0 + mb; o0 += CB) {
        const int64_t ob = m0 + mb - o0 < CB ? m0 + mb - o0 : CB, n = ob * NS;
        /* S[i][bo] = sum_j A^T[bo][j] R[i a + j] (across), O[ao][bo] = sum_i A^T[ao][i] S[i][bo] (down) */
        for (int64_t i = 0; i < a; ++i)
          aot__wino_at(m, R + (i * a * MB + o0 - m0) * NS, MB * NS, S + i * m * CB * NS, CB * NS, n);
        for (int bo = 0; bo < m; ++bo) aot__wino_at(m, S + bo * CB * NS, m * CB * NS, O + bo * CB * NS, m * CB * NS, n);
        for (int64_t oo = 0; oo < ob; ++oo) {
          const int64_t mo = o0 + oo;
          for (int64_t lr = 0; lr < nr; ++lr)
            for (int ao = 0; ao < m; ++ao) {
              const int64_t oh = (ty0 + lr) * m + ao;
              if (oh >= OH) break;
              float* yr = y + (mo * OH + oh) * OW; /* not restrict: the residual may be y */
              const float* restrict ol = O + (ao * m * CB + oo) * NS + lr * TX; /* phase bo at ol + bo CB NS */
              aot__wino_merge(m, ol, CB * NS, row, p.TW);
              if (!ep) {
                memcpy(yr, row, sizeof(float) * (size_t)OW);
                continue;
              }
              const int64_t n0 = oh * OW;
              const float* bias = ep->bias ? ep->bias + mo * ep->bias_m + n0 * ep->bias_n : 0;
              const float* res = ep->res ? ep->res + mo * ep->res_m + n0 * ep->res_n : 0;
              for (int64_t ow = 0; ow < OW; ++ow) {
                float v = row[ow];
                if (bias) v += bias[ow * ep->bias_n];
                if (res) v += res[ow * ep->res_n];
                yr[ow] = v;
              }
              aot__act_row(yr, OW, 1, ep);
            }
        }
      }
    }
  }
}

AOT_KAPI void aot__conv2d_wino_range(int m, const aot__conv_geom* g, int64_t M, const float* x, const float* u,
                                     float* y, const aot__epilogue* ep, float* scratch, int64_t b0, int64_t b1) {
  if (m == 2)
    aot__wino_blocks_m(2, g, M, x, u, y, ep, scratch, b0, b1);
  else
    aot__wino_blocks_m(4, g, M, x, u, y, ep, scratch, b0, b1);
}
