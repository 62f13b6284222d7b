/* The float transcendentals of generated code (exp, log, tanh, sigmoid, silu,
 * erf, GELU, pow): one copy, emitted into every generated library as part of
 * codegen/c_support.cc's math (the build turns this file into
 * aot_vecmath.inc) and included by the kernel library (aot_kernels.h) for its
 * epilogues. */
#ifndef AOT_VECMATH_H
#define AOT_VECMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef AOT_UNUSED
#if defined(__GNUC__) || defined(__clang__)
#define AOT_UNUSED __attribute__((unused))
#else
#define AOT_UNUSED
#endif
#endif

/* ---- float transcendentals for fused loops ----
 * Branch-free (selects, no calls, no tables), so GCC and Clang vectorise the
 * loops that use them. Maximum errors against a double-precision libm over
 * every 97th float bit pattern (codegen/vecmath_test.cc): exp 1 ulp, log 1,
 * tanh 1.5, sigmoid 3, silu 3.5, erf 1.5, pow 1 (measured 0.97, 0.78, 1.31,
 * 2.62, 3.05, 1.16, 0.50); GELU 2 (erf form) and 2.5 (tanh form) ulp of the
 * result or units of 2^-24 |x|, whichever is smaller (measured 1.50, 2.04).
 * Those are the unfused build's; with FMA: exp 0.86, tanh 1.34, silu 2.93,
 * erf 1.03, GELU (erf) 1.44, the others the same.
 * Specials follow C99 Annex F: NaN propagates, +-Inf and subnormals in and
 * out are exact. The compiler contracts nothing under -std=c99 (GCC); the
 * polynomials fuse their multiply-adds explicitly (AOT__FMA). */
/* a b + c with one rounding where the ISA fuses it (x86-64-v3 and up,
 * AArch64): half the instructions of each polynomial step (the loops ran
 * 1.1x to 1.6x faster than without FMA: bench/kernels:vecmath_bench). Other
 * ISAs round twice. The two builds differ in the last bit for about one
 * argument in 2,000 (exp); both stay within the bounds above (vecmath_test
 * checks a build of each). */
#if (defined(__FMA__) || defined(__aarch64__)) && (defined(__GNUC__) || defined(__clang__))
#define AOT__HAS_FMA 1
#define AOT__FMA(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define AOT__HAS_FMA 0
#define AOT__FMA(a, b, c) ((a) * (b) + (c))
#endif
static inline int32_t aot__fbits(float x) {
  int32_t i;
  memcpy(&i, &x, 4);
  return i;
}
static inline float aot__bitsf(int32_t i) {
  float x;
  memcpy(&x, &i, 4);
  return x;
}

/* e^x = p 2^n1 2^n2: x = n ln2 + r (Cody-Waite), a degree-6 polynomial p for
 * e^r, and 2^n through the exponent bits in two halves so that results down
 * to 2^-149 stay exact (aot__expf_split gives p, 2^n1 and 2^n2 for x clamped
 * to [-104, 88.8]). aot__expf_times(x, k) = k e^x with one rounding into the
 * subnormal range (k before the last factor). NaN: see aot__expf. */
static inline void aot__expf_split(float x, int nonpositive, float* p_out, float* s1, float* s2) {
  /* NaN clamps to -104 (callers return NaN themselves): n stays an in-range int. */
  const float lo = !(x >= -104.0f) ? -104.0f : x;
  const float xc = nonpositive ? lo : (lo > 88.8f ? 88.8f : lo);
  const float n = AOT__FMA(xc, 1.44269504088896341f, 12582912.0f) - 12582912.0f; /* round to nearest */
  const float r = AOT__FMA(n, 2.12194440e-4f, AOT__FMA(n, -0.693359375f, xc));
  float p = 1.9875691500e-4f;
  p = AOT__FMA(p, r, 1.3981999507e-3f);
  p = AOT__FMA(p, r, 8.3334519073e-3f);
  p = AOT__FMA(p, r, 4.1665795894e-2f);
  p = AOT__FMA(p, r, 1.6666665459e-1f);
  p = AOT__FMA(p, r, 5.0000001201e-1f);
#if AOT__HAS_FMA
  /* Fused, Horner to the end is the more accurate: 0.86 ulp, where the split
   * form below gave 1.003 with its steps fused. */
  p = AOT__FMA(p, r, 1.0f);
  p = AOT__FMA(p, r, 1.0f);
#else
  p = p * r * r + r + 1.0f;
#endif
  const int32_t ni = (int32_t)n;
  const int32_t n1 = ni >> 1, n2 = ni - n1; /* floor(n / 2): an arithmetic shift in GCC and Clang */
  *p_out = p;
  *s1 = aot__bitsf((n1 + 127) << 23);
  *s2 = aot__bitsf((n2 + 127) << 23);
}
static inline float aot__expf_times(float x, float k) {
  /* Below -104 e^x rounds to 0: the polynomial runs on 0 and the product is
   * an exact 0 (k p 0 2^n2), where the clamped -104 made every such lane a
   * subnormal product, a microcode assist of ~100 cycles (a causal mask's
   * -inf scores made softmax 3.6x slower). */
  const int low = !(x >= -104.0f);
  float p, s1, s2;
  aot__expf_split(low ? 0.0f : x, 0, &p, &s1, &s2);
  const float y = k * p * (low ? 0.0f : s1) * s2;
  return x > 88.8f ? k * (float)INFINITY : y;
}
AOT_UNUSED static inline float aot__expf(float x) { return x != x ? x : aot__expf_times(x, 1.0f); }

/* ln x: x = 2^e m with m in [sqrt(1/2), sqrt(2)), Cephes' polynomial in m - 1. */
AOT_UNUSED static inline float aot__logf(float x) {
  const int sub = x < 1.17549435e-38f; /* subnormal (or zero/negative): scale by 2^23 first */
  const float xs = sub ? x * 8388608.0f : x;
  const int32_t ix = aot__fbits(xs) - 0x3f3504f3;
  const float e = (float)((ix >> 23) - (sub ? 23 : 0));
  const float f = aot__bitsf((ix & 0x007fffff) + 0x3f3504f3) - 1.0f;
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = AOT__FMA(p, f, -1.1514610310e-1f);
  p = AOT__FMA(p, f, 1.1676998740e-1f);
  p = AOT__FMA(p, f, -1.2420140846e-1f);
  p = AOT__FMA(p, f, 1.4249322787e-1f);
  p = AOT__FMA(p, f, -1.6668057665e-1f);
  p = AOT__FMA(p, f, 2.0000714765e-1f);
  p = AOT__FMA(p, f, -2.4999993993e-1f);
  p = AOT__FMA(p, f, 3.3333331174e-1f);
  float y = p * f * z + e * -2.12194440e-4f - 0.5f * z;
  y = (f + y) + e * 0.693359375f;
  y = x == (float)INFINITY ? x : y;
  y = x == 0.0f ? -(float)INFINITY : y;
  return (x < 0.0f) | (x != x) ? (float)NAN : y;
}

/* tanh: x + x^3 R(x^2) below 0.625, else 1 - 2 / (e^{2|x|} + 1), signed. */
AOT_UNUSED static inline float aot__tanhf(float x) {
  const float a = x < 0.0f ? -x : x;
  const float s = x * x;
  float p = 2.1429641637951136e-3f;
  p = AOT__FMA(p, s, -8.177400566637516e-3f);
  p = AOT__FMA(p, s, 2.1700704470276833e-2f);
  p = AOT__FMA(p, s, -5.394676327705383e-2f);
  p = AOT__FMA(p, s, 1.333320587873459e-1f);
  p = AOT__FMA(p, s, -3.333333134651184e-1f);
  const float small = p * s * x + x;
  /* e^(2 min(|x|, 20)): no overflow, so the split's product is e^x itself.
   * Clamped at 9, tanh stayed one ulp below 1 (0.99999994) for every |x| >=
   * 9, where it rounds to 1 (random program seed 6917 truncated a sum of
   * three saturated tanh to 2 instead of 3). */
  float q, s1, s2;
  aot__expf_split(2.0f * (a > 20.0f ? 20.0f : a), 0, &q, &s1, &s2);
  const float big = 1.0f - 2.0f / (q * s1 * s2 + 1.0f);
  return x != x ? x : (a < 0.625f ? small : (x < 0.0f ? -big : big));
}

/* 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 so small results keep their precision. */
AOT_UNUSED static inline float aot__sigmoidf(float x) {
  float p, s1, s2;
  aot__expf_split(x < 0.0f ? x : -x, 1, &p, &s1, &s2);
  const float e = p * s1 * s2;
  const float r = 1.0f / (1.0f + e);
  return x != x ? x : (x < 0.0f ? e * r : r);
}
/* x sigmoid(x); for x < 0 as x e^x / (1 + e^x), x scaling e^x before it rounds. */
AOT_UNUSED static inline float aot__siluf(float x) {
  /* One exponential: for x < 0 the numerator's e^x is the denominator's. */
  float p, s1, s2;
  aot__expf_split(x < 0.0f ? x : -x, 1, &p, &s1, &s2);
  const float e = p * s1 * s2;
  const float num = x < 0.0f ? x * p * s1 * s2 : x;
  return x != x ? x : num / (1.0f + e);
}

/* erf(t) = t + t P(t^2) for |t| < 0.921875, and ln erfc(t) for t in [0.921875,
 * 3.93] (beyond, erf rounds to 1): least-squares fits of this code. */
static inline float aot__erf_small(float t) {
  const float s = t * t;
  float p = 8.370325667783618e-05f;
  p = AOT__FMA(p, s, -8.142766891978681e-04f);
  p = AOT__FMA(p, s, 5.201038904488087e-03f);
  p = AOT__FMA(p, s, -2.6859400793910027e-02f);
  p = AOT__FMA(p, s, 1.1283695697784424e-01f);
  p = AOT__FMA(p, s, -3.7612634897232056e-01f);
  p = AOT__FMA(p, s, 1.2837916612625122e-01f);
  return p * t + t;
}
static inline float aot__erfc_big(float t) {
  const float u = (t > 3.93f ? 3.93f : t) - 1.0f;
  float p = -1.2721917741487232e-08f;
  p = AOT__FMA(p, u, 1.7983746829486336e-06f);
  p = AOT__FMA(p, u, -3.377087341505103e-05f);
  p = AOT__FMA(p, u, 3.222538798581809e-04f);
  p = AOT__FMA(p, u, -2.0567220635712147e-03f);
  p = AOT__FMA(p, u, 1.00786117836833e-02f);
  p = AOT__FMA(p, u, -4.157474637031555e-02f);
  p = AOT__FMA(p, u, -8.43105673789978e-01f);
  p = AOT__FMA(p, u, -2.638967514038086f);
  p = AOT__FMA(p, u, -1.8496055603027344f);
  return t > 3.93f ? 0.0f : aot__expf(p);
}
AOT_UNUSED static inline float aot__erff(float x) {
  const float a = x < 0.0f ? -x : x;
  const float big = 1.0f - aot__erfc_big(a);
  const float r = a < 0.921875f ? aot__erf_small(x) : (x < 0.0f ? -big : big);
  return x != x ? x : r;
}
/* GELU, 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2): erfc itself
 * for x < 0 so the small results keep their precision. */
AOT_UNUSED static inline float aot__gelu_erff(float x) {
  const float u = x * -0.70710678118654752f;
  const float au = u < 0.0f ? -u : u;
  const float es = aot__erf_small(au), eb = aot__erfc_big(au); /* both, then selects: no branches */
  const float lo = au < 0.921875f ? es : 1.0f - eb;            /* erf(|u|) */
  const float c = u <= 0.0f ? 1.0f + lo : (au < 0.921875f ? 1.0f - es : eb);
  return x != x ? x : 0.5f * x * c;
}
/* The tanh form, 0.5 x (1 + tanh(z)) = x sigmoid(2z): no cancellation for x < 0. */
AOT_UNUSED static inline float aot__gelu_tanhf(float x) {
  const float z = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  return x * aot__sigmoidf(2.0f * z);
}

/* Single-precision-only FPUs (Cortex-M4F) take libm's powf: the vector form
 * below works in double. */
#if defined(__arm__) && (!defined(__ARM_FP) || !(__ARM_FP & 8))
#define aot__powf powf
#else
static inline double aot__dbits_to(int64_t i) {
  double d;
  memcpy(&d, &i, 8);
  return d;
}
static inline int64_t aot__dbits(double d) {
  int64_t i;
  memcpy(&i, &d, 8);
  return i;
}
/* x^y = 2^(y log2 x) in double (log2 by atanh series, 2^r by Taylor), one
 * rounding to float; C99's special cases by selects. */
AOT_UNUSED static inline float aot__powf(float x, float y) {
  const float ax = x < 0.0f ? -x : x;
  const int sub = ax < 1.17549435e-38f;
  const int32_t ix = aot__fbits(sub ? ax * 8388608.0f : ax) - 0x3f3504f3;
  const double e = (double)((ix >> 23) - (sub ? 23 : 0));
  const double m = (double)aot__bitsf((ix & 0x007fffff) + 0x3f3504f3);
  const double f = (m - 1.0) / (m + 1.0), f2 = f * f;
  double q = 1.0 / 13;
  q = q * f2 + 1.0 / 11;
  q = q * f2 + 1.0 / 9;
  q = q * f2 + 1.0 / 7;
  q = q * f2 + 1.0 / 5;
  q = q * f2 + 1.0 / 3;
  q = q * f2 + 1.0;
  /* log2 |x| (finite nonsense for 0 and inf: their results are selected
   * below, after the last use of l, so a constant y folds no branch into the
   * vector loop: GCC threads a select that feeds t's clamp into control flow) */
  const double l = e + 2.0 * f * q * 1.4426950408889634;
  double t = (double)y * l;
  t = t < -160.0 ? -160.0 : (t > 130.0 ? 130.0 : t);
  const double k = t + 6755399441055744.0; /* 1.5 * 2^52: rounds t, n in the low bits */
  const double w = (t - (k - 6755399441055744.0)) * 0.6931471805599453;
  double p = 1.0 / 39916800;
  p = p * w + 1.0 / 3628800;
  p = p * w + 1.0 / 362880;
  p = p * w + 1.0 / 40320;
  p = p * w + 1.0 / 5040;
  p = p * w + 1.0 / 720;
  p = p * w + 1.0 / 120;
  p = p * w + 1.0 / 24;
  p = p * w + 1.0 / 6;
  p = p * w + 0.5;
  p = p * w * w + w + 1.0;
  float r = (float)(p * aot__dbits_to((int64_t)(((uint64_t)aot__dbits(k) + 1023u) << 52)));
  /* |x| = 0: 0 for y > 0, inf for y < 0; |x| = inf: the other way round. */
  const float zero_inf = (ax == 0.0f) == (y > 0.0f) ? 0.0f : (float)INFINITY;
  r = (ax == 0.0f) | (ax == (float)INFINITY) ? zero_inf : r;
  const float ay = y < 0.0f ? -y : y;
  const int32_t yi = (int32_t)(ay < 16777216.0f ? y : 0.0f);
  const int is_int = (ay >= 16777216.0f) | ((float)yi == y);
  /* x's sign (-0 too: (-0)^-3 = -inf) for odd integer y, as arithmetic:
   * GCC turns a select on these combined conditions into a branch. */
  const float odd = (float)(yi & 1) * (float)((ay < 16777216.0f) & ((float)yi == y));
  const float sx = aot__bitsf((aot__fbits(x) & (int32_t)0x80000000) | 0x3f800000); /* +-1 */
  r = r * (1.0f + odd * (sx - 1.0f));
  r = (x < 0.0f) & (x > -(float)INFINITY) & !is_int ? (float)NAN : r;
  r = (x != x) | (y != y) ? x + y : r;
  r = (y == 0.0f) | (x == 1.0f) | ((x == -1.0f) & (ay == (float)INFINITY)) ? 1.0f : r;
  return r;
}
#endif

/* The 16-float blocks below include <immintrin.h> with AVX-512 (~0.2 s more
 * a compile): generated files define AOT_ACT_BLOCKS_WANTED only where they use
 * them (the kernel library's epilogues, tiled fused loops). */
#if defined(AOT_ACT_BLOCKS_WANTED)
/* Sigmoid and SiLU of 16 floats at p. With AVX-512 they are aot__sigmoidf
 * and aot__siluf step for step, except that 2^n scales through vscalefps (one
 * instruction, rounding once, as the two half scalings do: no intermediate
 * can be subnormal), so the bits are the same (kernels_test checks every
 * 97th pattern) for fewer instructions: EfficientNet-B0's 6.2M SiLUs run in
 * conv stores (bench/kernels:vecmath_bench, act_row_* rows). Elsewhere, 16
 * calls that GCC vectorises. Fused elementwise loops take them too, tile
 * by tile (a 20-op chain's five sigmoids: 2.45 -> 1.78 ms over 1M floats). */
#if defined(__AVX512F__) && AOT__HAS_FMA
#include <immintrin.h>
/* p and n of e^t = p 2^n for t = min(x, -x) clamped at -104 (NaN too). */
static inline __m512 aot__exp_nonpos16(__m512 x, __m512* n_out) {
  /* -|x| (sign bit set with AVX512F's integer or; _mm512_or_ps is AVX512DQ) */
  const __m512 nx = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
  const __m512 t = _mm512_max_ps(nx, _mm512_set1_ps(-104.0f));
  const __m512 magic = _mm512_set1_ps(12582912.0f), one = _mm512_set1_ps(1.0f);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(t, _mm512_set1_ps(1.44269504088896341f), magic), magic);
  const __m512 r =
      _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), t));
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, r, one);
  *n_out = n;
  return _mm512_fmadd_ps(p, r, one);
}
static inline void aot__sigmoid16(float* c) {
  const __m512 x = _mm512_loadu_ps(c), one = _mm512_set1_ps(1.0f);
  __m512 n;
  const __m512 p = aot__exp_nonpos16(x, &n); /* before n is read */
  const __m512 e = _mm512_scalef_ps(p, n);
  const __m512 r = _mm512_div_ps(one, _mm512_add_ps(one, e));
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  _mm512_storeu_ps(c, _mm512_mask_mov_ps(_mm512_mask_mul_ps(r, neg, e, r), nan, x));
}
static inline void aot__silu16(float* c) {
  const __m512 x = _mm512_loadu_ps(c), one = _mm512_set1_ps(1.0f);
  __m512 n;
  const __m512 p = aot__exp_nonpos16(x, &n);
  const __m512 e = _mm512_scalef_ps(p, n);
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 num = _mm512_mask_mov_ps(x, neg, _mm512_scalef_ps(_mm512_mul_ps(x, p), n));
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  _mm512_storeu_ps(c, _mm512_mask_mov_ps(_mm512_div_ps(num, _mm512_add_ps(one, e)), nan, x));
}
#else
static inline void aot__sigmoid16(float* c) {
  for (int i = 0; i < 16; ++i) c[i] = aot__sigmoidf(c[i]);
}
static inline void aot__silu16(float* c) {
  for (int i = 0; i < 16; ++i) c[i] = aot__siluf(c[i]);
}
#endif

/* c[j] = F(c[j]) for j < n, F a 16-float block function, the tail in a
 * zero-padded block: a scalar sigmoid or SiLU costs about what 16 vector
 * ones do, and rows of 7 or 28 would otherwise run mostly scalar. */
#define AOT__ACT_BLOCKS(c, n, F)                            \
  {                                                         \
    int64_t j = 0;                                          \
    for (; j + 16 <= (n); j += 16) F((c) + j);              \
    if (j < (n)) {                                          \
      float t_[16];                                         \
      memset(t_, 0, sizeof(t_));                            \
      memcpy(t_, (c) + j, sizeof(float) * (size_t)((n)-j)); \
      F(t_);                                                \
      memcpy((c) + j, t_, sizeof(float) * (size_t)((n)-j)); \
    }                                                       \
  }
#endif /* AOT_ACT_BLOCKS_WANTED */

#endif /* AOT_VECMATH_H */
