/* A convolution whose result only a max pooling reads (the stems of
 * ResNet, GoogLeNet, SqueezeNet, ShuffleNet; VGG's and AlexNet's blocks:
 * conv, relu, max_pool2d), run in bands of pooled rows: each band's
 * convolution rows go to scratch as the im2col GEMM computes them (weights
 * prepacked as A, bias and activation in its store) and are pooled from
 * there, so the convolution's result (ResNet-18: 3.2 MB, four times the
 * pooled one) is never stored whole. A caller's bands run in order and keep
 * the rows the next band's windows share, so only the first band of each
 * caller's range computes a shared row again. Every output is bitwise the
 * unfused convolution's and pooling's: the GEMM sums each column alike for
 * any column range, and the pooling reads the same values. */
#include "aot_kernels.h"

/* A band aims at 512 convolution columns (rows x OW) and holds at most 32K
 * floats (128 KB) of its M channels, at least one pooled row's worth: the
 * scratch is what the plan holds while the kernel runs, and gemm_bench
 * AotConvPool showed no difference between 16K floats, 64K and no limit
 * (ResNet's stem, VGG's second block, GoogLeNet's 192-channel layer) within
 * the noise of a loaded host. */
#define AOT__CONV_POOL_COLS 512
#define AOT__CONV_POOL_BAND_FLOATS (32 * 1024)

typedef struct aot__conv_pool_plan {
  int64_t prows;       /* pooled rows per band */
  int64_t bands;       /* of the pooled map */
  int64_t crows;       /* convolution rows a band holds at most */
  int64_t band_floats; /* the band: M channels of crows x OW (64-byte multiple) */
} aot__conv_pool_plan;

static aot__conv_pool_plan aot__conv_pool_plan_of(const aot__conv_geom* cg, const aot__conv_geom* pg, int64_t M) {
  aot__conv_pool_plan p;
  p.prows = (AOT__CONV_POOL_COLS + pg->SH * cg->OW - 1) / (pg->SH * cg->OW);
  const int64_t fit = (AOT__CONV_POOL_BAND_FLOATS / (M * cg->OW) - (pg->KH - 1) * pg->DH - 1) / pg->SH + 1;
  if (p.prows > fit) p.prows = fit;
  if (p.prows > pg->OH) p.prows = pg->OH;
  if (p.prows < 1) p.prows = 1;
  p.bands = (pg->OH + p.prows - 1) / p.prows;
  p.crows = (p.prows - 1) * pg->SH + (pg->KH - 1) * pg->DH + 1;
  if (p.crows > cg->OH) p.crows = cg->OH;
  p.band_floats = (M * p.crows * cg->OW + 15) / 16 * 16;
  return p;
}

/* The convolution rows [r0, r1) the windows of pooled rows [p0, p1) read
 * (rows outside the map are padding). */
static void aot__conv_pool_rows(const aot__conv_geom* pg, int64_t p0, int64_t p1, int64_t* r0, int64_t* r1) {
  int64_t lo = p0 * pg->SH - pg->PH, hi = (p1 - 1) * pg->SH - pg->PH + (pg->KH - 1) * pg->DH + 1;
  if (lo < 0) lo = 0;
  if (hi > pg->H) hi = pg->H;
  if (hi < lo) hi = lo;
  *r0 = lo;
  *r1 = hi;
}

AOT_KAPI int64_t aot__conv_pool_bands(const aot__conv_geom* cg, const aot__conv_geom* pg, int64_t M) {
  return aot__conv_pool_plan_of(cg, pg, M).bands;
}

AOT_KAPI int64_t aot__conv_pool_scratch_floats(const aot__conv_geom* cg, const aot__conv_geom* pg, int64_t M,
                                               int64_t K) {
  const aot__conv_pool_plan p = aot__conv_pool_plan_of(cg, pg, M);
  return p.band_floats + aot__sgemm_scratch_floats(M, p.crows * cg->OW, K, AOT_GEMM_PACK_B);
}

AOT_KAPI void aot__conv_pool_range(const aot__conv_geom* cg, const aot__conv_geom* pg, int64_t M, int64_t K,
                                   const float* a, const float* x, float* y, const aot__epilogue* ep, float* scratch,
                                   int64_t b0, int64_t b1) {
  const aot__conv_pool_plan p = aot__conv_pool_plan_of(cg, pg, M);
  const int64_t OW = cg->OW, cs = p.crows * OW; /* the band's channel stride */
  float* band = scratch;
  float* gemm_scratch = scratch + p.band_floats;
  const aot__operand A = {a, 0, 0, 1, 0};
  int64_t have0 = 0, have1 = 0; /* the convolution rows the band holds, from its row 0 */
  for (int64_t b = b0; b < b1 && b < p.bands; ++b) {
    const int64_t p0 = b * p.prows, p1 = p0 + p.prows < pg->OH ? p0 + p.prows : pg->OH;
    int64_t r0, r1;
    aot__conv_pool_rows(pg, p0, p1, &r0, &r1);
    /* rows [r0, have1) are the previous band's last: move them to the front */
    const int64_t keep = r0 >= have0 && have1 > r0 ? (have1 < r1 ? have1 : r1) - r0 : 0;
    if (keep > 0 && r0 > have0)
      for (int64_t m = 0; m < M; ++m)
        memmove(band + m * cs, band + m * cs + (r0 - have0) * OW, sizeof(float) * (size_t)(keep * OW));
    if (r1 > r0 + keep) {
      /* rows [r0 + keep, r1) as a convolution of their own: the same image,
       * the padding shifted by the rows before them */
      aot__conv_geom sub = *cg;
      sub.PH = cg->PH - (r0 + keep) * cg->SH;
      sub.OH = r1 - r0 - keep;
      const aot__operand B = {x, 0, 0, 0, &sub};
      aot__sgemm(M, sub.OH * OW, K, &A, &B, band + keep * OW, cs, 1, ep, gemm_scratch);
    }
    have0 = r0;
    have1 = r1;
    aot__max_pool2d_rows(pg, band, cs, r0, y, 0, M, p0, p1);
  }
}
