/* atenaot's CPU kernel library (C99): a blocked SGEMM on packed panels with
 * per-ISA micro-kernels, convolution as GEMM on im2col panels packed
 * straight from the image, a depthwise convolution, and a fused epilogue
 * (bias, residual add, activation) applied in the store.
 *
 * Generated libraries carry these sources (functions static there, so two
 * models link into one program); atenaot itself links them to prepack
 * weights at compile time. The packed layouts depend only on the constants
 * below, never on the ISA the library is built for: a weight packed by the
 * compiler suits every micro-kernel. Nothing here allocates: scratch comes
 * from the caller (the planned arena). */
#ifndef AOT_KERNELS_H
#define AOT_KERNELS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The epilogues use aot_vecmath.h's 16-float sigmoid and SiLU blocks
 * (generated files define this before their copy of aot_vecmath.h). */
#ifndef AOT_ACT_BLOCKS_WANTED
#define AOT_ACT_BLOCKS_WANTED 1
#endif
#include "aot_vecmath.h"
/* aot__sum_f32d, aot__sqdev_f32d, aot__max_f32 (generated files carry them
 * already, as they do aot_vecmath.h). */
#include "aot_rows.h"

#ifndef AOT_KAPI
#define AOT_KAPI static
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Panel widths of the packed operands (rows of A, columns of B), and the
 * cache blocks: K in blocks of KC (a block's sum stays in registers, so the
 * float error grows with KC + K/KC, not K), A in MC rows, B in NC columns;
 * NC_PACK columns where B is packed at run time (im2col panels): its block
 * is the scratch slot the plan holds per thread, and 256 ran as fast as 512
 * on ResNet's and MobileNet's convolutions (bench/README.md). */
#define AOT_GEMM_MR 8
#define AOT_GEMM_NR 16
#define AOT_GEMM_KC 256
#define AOT_GEMM_KS_FEW 32 /* K step for M < MR (aot_gemm.c) */
#define AOT_GEMM_MC 128
#define AOT_GEMM_NC 512
#define AOT_GEMM_NC_PACK 256
#define AOT_GEMM_STREAM_BYTES (1 << 20) /* prefetch B ahead of matrix-vector products above this (aot_gemm.c) */

enum {
  AOT_ACT_NONE = 0,
  AOT_ACT_RELU,
  AOT_ACT_CLAMP,
  AOT_ACT_HARDSWISH,
  AOT_ACT_SIGMOID,
  AOT_ACT_SILU,
  AOT_ACT_GELU,     /* erf form (approximate='none') */
  AOT_ACT_GELU_TANH /* approximate='tanh' */
};

/* out[m, n] = act(acc[m, n] + bias[m*bias_m + n*bias_n] + res[m*res_m + n*res_n]);
 * bias and res optional (NULL); CLAMP uses lo and hi. */
typedef struct aot__epilogue {
  const float* bias;
  int64_t bias_m, bias_n;
  const float* res;
  int64_t res_m, res_n;
  int act;
  float lo, hi;
} aot__epilogue;

/* A CHW image read as the im2col matrix B[k, n]: k = (c, kh, kw) row-major,
 * n = (oh, ow) row-major; zero outside the image (padding). */
typedef struct aot__conv_geom {
  int64_t C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW;
} aot__conv_geom;

/* A B operand's elements taken as v = shift[k] + B[k, n] * scale[k], then
 * relu(v) where relu is set, as the operand is packed: an eval batch norm
 * and relu in front of a 1x1 convolution (DenseNet's layers), rounded as
 * the elementwise kernel they replace rounds them, so that kernel's result
 * (the size of the convolution's input) is never stored. */
typedef struct aot__prologue {
  const float* scale;
  const float* shift;
  int relu;
} aot__prologue;

/* A GEMM operand: element (i, j) at p[i*s0 + j*s1]; or, with packed set, p
 * holds the whole matrix in the packed layout (aot__sgemm_pack_a/_b; for A
 * with s0 > 0: rows [s1, s1 + M) of a packing made for s0 rows, s1 a
 * multiple of AOT_GEMM_MR); or, for B only, conv set: p is the image conv
 * describes. A B with pro set (not packed, no conv) is always packed. */
typedef struct aot__operand {
  const float* p;
  int64_t s0, s1;
  int packed;
  const aot__conv_geom* conv;
  const aot__prologue* pro;
} aot__operand;

/* act(v) as the epilogue defines it, for one element. */
static inline float aot__act1(float v, int act, float lo, float hi) {
  switch (act) {
    case AOT_ACT_RELU:
      return v < 0.f ? 0.f : v;
    case AOT_ACT_CLAMP:
      return v < lo ? lo : (v > hi ? hi : v);
    case AOT_ACT_HARDSWISH: {
      const float r = v + 3.f < 0.f ? 0.f : (v + 3.f > 6.f ? 6.f : v + 3.f);
      return v * r / 6.f;
    }
    case AOT_ACT_SIGMOID:
      return aot__sigmoidf(v);
    case AOT_ACT_SILU:
      return aot__siluf(v);
    case AOT_ACT_GELU:
      return aot__gelu_erff(v);
    case AOT_ACT_GELU_TANH:
      return aot__gelu_tanhf(v);
    default:
      return v;
  }
}

/* c[j * s] = act(c[j * s]) for j < n. Unit stride (the common case) runs one
 * loop per activation, the switch hoisted and the stride a constant, so
 * GCC vectorises each (with a run-time stride it does not: "complicated
 * access pattern"); sigmoid, silu and GELU are aot_vecmath.h's branch-free
 * forms, the same bits as the elementwise kernels' (unfused) calls. */
static inline void aot__act_row(float* c, int64_t n, int64_t s, const aot__epilogue* ep) {
  const int act = ep->act;
  const float lo = ep->lo, hi = ep->hi;
  if (act == AOT_ACT_NONE) return;
  if (s != 1) {
    for (int64_t j = 0; j < n; ++j) c[j * s] = aot__act1(c[j * s], act, lo, hi);
    return;
  }
  switch (act) {
    case AOT_ACT_RELU:
      for (int64_t j = 0; j < n; ++j) c[j] = aot__act1(c[j], AOT_ACT_RELU, lo, hi);
      break;
    case AOT_ACT_CLAMP:
      for (int64_t j = 0; j < n; ++j) c[j] = aot__act1(c[j], AOT_ACT_CLAMP, lo, hi);
      break;
    case AOT_ACT_HARDSWISH:
      for (int64_t j = 0; j < n; ++j) c[j] = aot__act1(c[j], AOT_ACT_HARDSWISH, lo, hi);
      break;
    case AOT_ACT_SIGMOID:
      AOT__ACT_BLOCKS(c, n, aot__sigmoid16);
      break;
    case AOT_ACT_SILU:
      AOT__ACT_BLOCKS(c, n, aot__silu16);
      break;
    case AOT_ACT_GELU:
      for (int64_t j = 0; j < n; ++j) c[j] = aot__gelu_erff(c[j]);
      break;
    case AOT_ACT_GELU_TANH:
      for (int64_t j = 0; j < n; ++j) c[j] = aot__gelu_tanhf(c[j]);
      break;
    default:
      break;
  }
}

/* Floats of a packed A (M x K) or B (K x N). */
AOT_KAPI int64_t aot__sgemm_packed_a_floats(int64_t M, int64_t K);
AOT_KAPI int64_t aot__sgemm_packed_b_floats(int64_t K, int64_t N);
/* Packs a strided matrix into the packed layout (compile time, or tests). */
AOT_KAPI void aot__sgemm_pack_a(int64_t M, int64_t K, const float* A, int64_t a_m, int64_t a_k, float* dst);
/* dst = a packed A (M x K) with column k multiplied by s[k * s_k], in the
 * packed layout: a per-input-channel gate folded into a 1x1 convolution's
 * prepacked weights at run time (squeeze-and-excitation), instead of a pass
 * over the gated image. */
AOT_KAPI void aot__sgemm_scale_packed_a(int64_t M, int64_t K, const float* a, const float* s, int64_t s_k, float* dst);
AOT_KAPI void aot__sgemm_pack_b(int64_t K, int64_t N, const float* B, int64_t b_k, int64_t b_n, float* dst);
/* Which operands aot__sgemm packs into scratch at run time (bits below);
 * the others it reads in place: a prepacked one, an A read row by row (edge
 * rows through a tile on the stack), a B with unit column stride read a row
 * of a panel at a time (edge columns likewise). A pure function of the
 * shape, the strides and the packed/conv flags (never of p), so the compiler
 * plans the same scratch the kernel uses. */
enum { AOT_GEMM_PACK_A = 1, AOT_GEMM_PACK_B = 2 };
AOT_KAPI int aot__sgemm_packing(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B);
/* Scratch floats for packing the operands `packing` names (0 for none). */
AOT_KAPI int64_t aot__sgemm_scratch_floats(int64_t M, int64_t N, int64_t K, int packing);
/* C[m, n] (element at C[m*c_m + n*c_n]) = epilogue(sum_k A[m, k] B[k, n]).
 * ep may be NULL; scratch 64-byte aligned, aot__sgemm_scratch_floats long
 * for aot__sgemm_packing's answer (NULL when that is 0). */
AOT_KAPI void aot__sgemm(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B, float* C,
                         int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch);
/* The same for rows [m_lo, m_hi) and columns [n_lo, n_hi) of C only (m_lo a
 * multiple of AOT_GEMM_MR, n_lo of 2 * AOT_GEMM_NR), bitwise as aot__sgemm
 * computes them: threads split a GEMM this way, each with its own scratch. */
AOT_KAPI void aot__sgemm_range(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B, float* C,
                               int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch, int64_t m_lo,
                               int64_t m_hi, int64_t n_lo, int64_t n_hi);
/* aot__sgemm_range with the packing given (tests and benchmarks compare the
 * forms; the bits are the same): the bits of prepacked operands are ignored,
 * a conv B is always packed. */
AOT_KAPI void aot__sgemm_range_packing(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B,
                                       float* C, int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch,
                                       int64_t m_lo, int64_t m_hi, int64_t n_lo, int64_t n_hi, int packing);
/* Depthwise convolution of a CHW image (one filter of KH x KW per channel,
 * w[c][kh][kw]) into y (C x OH x OW), epilogue per channel m = c. */
AOT_KAPI void aot__conv2d_depthwise(const aot__conv_geom* g, const float* x, const float* w, float* y,
                                    const aot__epilogue* ep);
/* The same for channels [c0, c1) only, bitwise as the whole call computes
 * them (threads split channels this way). */
AOT_KAPI void aot__conv2d_depthwise_range(const aot__conv_geom* g, const float* x, const float* w, float* y,
                                          const aot__epilogue* ep, int64_t c0, int64_t c1);
/* Output rows [oh0, oh1) of channels [c0, c1) (y the whole output),
 * reading the input from a band: channel c's rows from image row xr0 on at
 * x + c * xcs (row stride W), every row inside the image those windows
 * read; bitwise as the whole call computes them. */
AOT_KAPI void aot__conv2d_depthwise_rows(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0,
                                         const float* w, float* y, const aot__epilogue* ep, int64_t c0, int64_t c1,
                                         int64_t oh0, int64_t oh1);
/* The same convolution on channels-last images (channel stride 1): input
 * pixel (h, w) at x + h xh + w xw, output pixel at y + oh yh + ow yw; the
 * filters tap-major, wt[(kh KW + kw) C + c]; bias (or NULL) at bias[c
 * bias_s]. Output rows [oh0, oh1); each output sums its taps in (kh, kw)
 * order, then adds the bias. */
AOT_KAPI void aot__conv2d_depthwise_cl(const aot__conv_geom* g, const float* x, int64_t xh, int64_t xw, const float* wt,
                                       const float* bias, int64_t bias_s, float* y, int64_t yh, int64_t yw, int64_t oh0,
                                       int64_t oh1);

/* Winograd convolution F(m x m, 3 x 3), m = 2 or 4 (aot_winograd.c): 3x3
 * filters, stride 1, dilation 1, one group, any padding. Filters (M x C x 3
 * x 3) are transformed and packed at compile time into
 * aot__wino_packed_floats floats (tmp: M * C floats); a run computes tile
 * rows [b0, b1) of aot__wino_tile_rows (m output rows each), in blocks as
 * many as fit its scratch, each caller with its own 64-byte aligned scratch
 * of aot__wino_scratch_floats. Each element is computed alike by any split.
 * Epilogue per output channel m, n = oh * OW + ow. */
AOT_KAPI int64_t aot__wino_packed_floats(int m, int64_t M, int64_t C);
AOT_KAPI void aot__wino_pack(int m, int64_t M, int64_t C, const float* w, float* tmp, float* dst);
AOT_KAPI int64_t aot__wino_tile_rows(int m, const aot__conv_geom* g);
AOT_KAPI int64_t aot__wino_scratch_floats(int m, const aot__conv_geom* g, int64_t M);
AOT_KAPI void aot__conv2d_wino_range(int m, const aot__conv_geom* g, int64_t M, const float* x, const float* u,
                                     float* y, const aot__epilogue* ep, float* scratch, int64_t b0, int64_t b1);

/* Shape-specialised copies of the direct kernels (depthwise convolution,
 * pooling): forced inline so constant shape arguments fold; -Os builds keep
 * one copy. */
#if defined(__GNUC__) && !defined(__OPTIMIZE_SIZE__)
#define AOT__KINLINE static inline __attribute__((always_inline))
#define AOT__KSPECIALISE 1
#else
#define AOT__KINLINE static inline
#define AOT__KSPECIALISE 0
#endif

/* Lanes [lo, hi) of a 16-lane vector as a mask, the bounds clamped to
 * [0, 16] (the masked loads and stores of the AVX-512 paths). */
static inline uint16_t aot__lanes(int64_t lo, int64_t hi) {
  const unsigned l = lo < 0 ? 0u : lo > 16 ? 16u : (unsigned)lo, h = hi < 0 ? 0u : hi > 16 ? 16u : (unsigned)hi;
  return (uint16_t)(((1u << h) - 1u) & ~((1u << l) - 1u));
}

/* The kernel rows [kh0, kh1) of a window whose row 0 is input row ih0 that
 * lie inside the image's H rows. */
static inline void aot__kernel_rows(int64_t ih0, int64_t KH, int64_t DH, int64_t H, int64_t* kh0, int64_t* kh1) {
  int64_t a = 0, b = KH;
  while (a < KH && ih0 + a * DH < 0) ++a;
  while (b > a && ih0 + (b - 1) * DH >= H) --b;
  *kh0 = a;
  *kh1 = b;
}

/* The output columns [lo, hi) of a window sliding over W columns whose taps
 * all lie inside the image: ow*SW - PW >= 0 and ow*SW - PW + (KW-1)*DW < W
 * (depthwise convolution and pooling run them branch-free). */
static inline void aot__interior_cols(int64_t W, int64_t OW, int64_t KW, int64_t SW, int64_t PW, int64_t DW,
                                      int64_t* lo, int64_t* hi) {
  int64_t l = (PW + SW - 1) / SW, h = 0;
  if (W - 1 + PW - (KW - 1) * DW >= 0) h = (W - 1 + PW - (KW - 1) * DW) / SW + 1;
  if (h > OW) h = OW;
  if (l > OW) l = OW;
  if (h < l) h = l;
  *lo = l;
  *hi = h;
}

/* Max pooling of one image's channels [c0, c1): g as for a convolution
 * (C, H, W, window KH x KW, stride, padding, dilation, OH, OW; OH/OW as
 * eager computes them, ceil_mode included). Taps outside the image are
 * skipped (a window without one gives -inf); a NaN tap propagates. */
AOT_KAPI void aot__max_pool2d_range(const aot__conv_geom* g, const float* x, float* y, int64_t c0, int64_t c1);

/* Output rows [oh0, oh1) of channels [c0, c1) of that pooling (y the whole
 * output), reading the input from a band: channel c's rows from image row
 * xr0 on at x + c * xcs (row stride W). The band must hold every row inside
 * the image that those windows read. */
AOT_KAPI void aot__max_pool2d_rows(const aot__conv_geom* g, const float* x, int64_t xcs, int64_t xr0, float* y,
                                   int64_t c0, int64_t c1, int64_t oh0, int64_t oh1);

/* A convolution (cg, one group; weights a packed as GEMM A, M x K) whose
 * result only one windowed kernel reads (qg: its window over the
 * convolution's OH x OW map), in bands of the reader's output rows
 * (aot_conv_bands.c): reader AOT_BAND_MAX_POOL, a max pooling (w2 and ep2
 * unused), or AOT_BAND_DEPTHWISE, a depthwise convolution with filters w2
 * and epilogue ep2. The work is `chunks` (aot__conv_band_chunks for the
 * threads) channel chunks of aot__conv_bands bands each: units [u0, u1) of
 * chunks x bands, unit u being band u % bands of chunk u / bands, each
 * caller with its own 64-byte aligned scratch of
 * aot__conv_band_scratch_floats. The convolution's epilogue ep (bias per
 * output channel, an activation) runs in the GEMM's store. Outputs are
 * bitwise the convolution's then the reader's, for any chunks and any split
 * of the units. */
enum { AOT_BAND_MAX_POOL = 0, AOT_BAND_DEPTHWISE = 1 };
AOT_KAPI int64_t aot__conv_bands(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M);
AOT_KAPI int64_t aot__conv_band_chunks(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M,
                                       int64_t parts);
AOT_KAPI int64_t aot__conv_band_scratch_floats(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader,
                                               int64_t M, int64_t K, int64_t chunks);
AOT_KAPI void aot__conv_band_range(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M, int64_t K,
                                   int64_t chunks, const float* a, const float* x, const aot__epilogue* ep,
                                   const float* w2, const aot__epilogue* ep2, float* y, float* scratch, int64_t u0,
                                   int64_t u1);

/* dst (C x H x W, contiguous) = the image x with strides cs, hs, ws
 * (aot_layout.c): a convolution's input in another layout, gathered into
 * the order the im2col panels read. */
AOT_KAPI void aot__gather_chw(int64_t C, int64_t H, int64_t W, const float* x, int64_t cs, int64_t hs, int64_t ws,
                              float* dst);

/* y = ep2(ep1(x W1^T) W2^T) for M rows (aot_linear_bands.c): two linears,
 * the second reading only the first's result, in bands of `band` rows
 * (aot__linear_band_rows(K1, N1, N2); aot__linear_bands of them, the last taking the
 * remainder). x: M x K1 with row stride x_m; w1, w2: the weights prepacked as
 * GEMM B (K1 x N1, N1 x N2); y: M x N2 with row stride y_m. Bands [b0, b1),
 * each caller with its own scratch of aot__linear_band_scratch_floats (the
 * band's hidden rows). Bitwise the two GEMMs unbanded, for any split. */
AOT_KAPI int64_t aot__linear_band_rows(int64_t K1, int64_t N1, int64_t N2);
AOT_KAPI int64_t aot__linear_bands(int64_t M, int64_t band);
AOT_KAPI int64_t aot__linear_band_scratch_floats(int64_t M, int64_t N1, int64_t band);
AOT_KAPI void aot__linear_band_range(int64_t M, int64_t K1, int64_t N1, int64_t N2, int64_t band, const float* x,
                                     int64_t x_m, const float* w1, const aot__epilogue* ep1, const float* w2, float* y,
                                     int64_t y_m, const aot__epilogue* ep2, float* scratch, int64_t b0, int64_t b1);

/* One contiguous float row of n (aot_norm.c): y = softmax(x), or
 * log_softmax(x) with log_form set; y may be x. */
AOT_KAPI void aot__softmax_row(const float* x, float* y, int64_t n, int log_form);
/* y = (x - mean) * rstd * w + b over one contiguous float row of n (w, b
 * NULL: left out; y may be x); mean_out / rstd_out (NULL: not wanted) get
 * the row's statistics, as native_layer_norm returns them. */
AOT_KAPI void aot__layer_norm_row(const float* x, float* y, int64_t n, const float* w, const float* b, double eps,
                                  float* mean_out, float* rstd_out);

#ifdef __cplusplus
}
#endif

#endif /* AOT_KERNELS_H */
