/* A convolution whose result only one windowed kernel reads -- a max
 * pooling (the stems of ResNet, GoogLeNet, SqueezeNet, ShuffleNet; VGG's
 * and AlexNet's blocks: conv, relu, max_pool2d) or a depthwise convolution
 * after a pointwise one (MobileNet's and EfficientNet's inverted
 * bottlenecks: 1x1 expansion, relu6 or silu, depthwise) -- run in bands of
 * the reader's output rows: each band's convolution rows go to scratch as
 * the GEMM computes them (weights prepacked as A, bias and activation in its
 * store; im2col panels, or a pointwise convolution's image rows in place)
 * and the reader runs on them there, so the convolution's result (ResNet-18:
 * 3.2 MB, four times the pooled one; MobileNetV2: a 4.8 MB expansion) is
 * never stored whole. A caller's bands run in order and keep the rows the
 * next band's windows share, so only the first band of each caller's range
 * computes a shared row again. Every output is bitwise the unfused kernels':
 * the GEMM sums each column alike for any column range, and the reader sums
 * each output as its whole-image kernel does. */
#include "aot_kernels.h"

/* A band aims at 512 convolution columns (rows x OW) and holds at most
 * BAND_FLOATS of its M channels (at least one output row's worth): the
 * scratch is what the plan holds while the kernel runs. For a pooling 32K
 * floats (128 KB): gemm_bench AotConvPool showed no difference between 16K
 * floats, 64K and no limit (ResNet's stem, VGG's second block, GoogLeNet's
 * 192-channel layer). A depthwise reader takes 128K floats (512 KB), and
 * maps up to 32 wide in one band: its padded and flat paths run on whole
 * planes only, and with 32K floats EfficientNet-B0 ran 2x slower (14.1 ->
 * 28.3 ms), with 128K but small maps banded 1.2x (the 5x5 layers on 14 x 14
 * maps: 524 -> 1318 us), as fast with both rules (bench/README.md). */
#define AOT__BAND_COLS 512
#define AOT__BAND_FLOATS(reader) ((reader) == AOT_BAND_DEPTHWISE ? 128 * 1024 : 32 * 1024)
#define AOT__BAND_WHOLE_OW 32

typedef struct aot__band_plan {
  int64_t orows;       /* the reader's output rows per band */
  int64_t bands;       /* of the reader's output */
  int64_t crows;       /* convolution rows a band holds at most */
  int64_t band_floats; /* the band: M channels of crows x OW (64-byte multiple) */
} aot__band_plan;

/* qg: the reader's window over the convolution's result (C = M, H x W = the
 * convolution's OH x OW). */
static aot__band_plan aot__band_plan_of(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M) {
  aot__band_plan p;
  p.orows = (AOT__BAND_COLS + qg->SH * cg->OW - 1) / (qg->SH * cg->OW);
  const int64_t fit = (AOT__BAND_FLOATS(reader) / (M * cg->OW) - (qg->KH - 1) * qg->DH - 1) / qg->SH + 1;
  if (p.orows > fit) p.orows = fit;
  if (reader == AOT_BAND_DEPTHWISE && cg->OW <= AOT__BAND_WHOLE_OW) p.orows = qg->OH;
  if (p.orows > qg->OH) p.orows = qg->OH;
  if (p.orows < 1) p.orows = 1;
  p.bands = (qg->OH + p.orows - 1) / p.orows;
  p.crows = (p.orows - 1) * qg->SH + (qg->KH - 1) * qg->DH + 1;
  if (p.crows > cg->OH) p.crows = cg->OH;
  p.band_floats = (M * p.crows * cg->OW + 15) / 16 * 16;
  return p;
}

/* The convolution rows [r0, r1) the windows of output rows [o0, o1) read
 * (rows outside the map are padding). */
static void aot__band_rows(const aot__conv_geom* qg, int64_t o0, int64_t o1, int64_t* r0, int64_t* r1) {
  int64_t lo = o0 * qg->SH - qg->PH, hi = (o1 - 1) * qg->SH - qg->PH + (qg->KH - 1) * qg->DH + 1;
  if (lo < 0) lo = 0;
  if (hi > qg->H) hi = qg->H;
  if (hi < lo) hi = lo;
  *r0 = lo;
  *r1 = hi;
}

/* A pointwise convolution (1x1, stride 1, no padding) reads its image in
 * place as B (rows K apart by H W); any other packs im2col panels. */
static int aot__band_pointwise(const aot__conv_geom* cg) {
  return cg->KH == 1 && cg->KW == 1 && cg->SH == 1 && cg->SW == 1 && cg->PH == 0 && cg->PW == 0;
}

AOT_KAPI int64_t aot__conv_bands(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M) {
  return aot__band_plan_of(cg, qg, reader, M).bands;
}

/* Channel chunks, so that `parts` threads each get a unit where the bands
 * alone do not go round (maps up to 32 wide are one band: 13 of
 * MobileNetV2's 17 pairs, which then ran on one thread of two). Each chunk
 * has at least AOT_GEMM_MR channels, so its GEMM sums as the whole one. */
AOT_KAPI int64_t aot__conv_band_chunks(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M,
                                       int64_t parts) {
  const int64_t bands = aot__band_plan_of(cg, qg, reader, M).bands;
  int64_t chunks = bands >= parts ? 1 : (parts + bands - 1) / bands;
  if (chunks > M / AOT_GEMM_MR) chunks = M / AOT_GEMM_MR;
  return chunks < 1 ? 1 : chunks;
}

/* Chunk k's channels [c0, c1): c0 a multiple of AOT_GEMM_MR (a tile row of
 * the packed weights), the last chunk taking the rest. */
static void aot__band_chunk(int64_t M, int64_t chunks, int64_t k, int64_t* c0, int64_t* c1) {
  const int64_t tiles = M / AOT_GEMM_MR;
  *c0 = chunks == 1 ? 0 : k * tiles / chunks * AOT_GEMM_MR;
  *c1 = k + 1 == chunks ? M : (k + 1) * tiles / chunks * AOT_GEMM_MR;
}

/* A chunk's band holds its own channels only (band_floats of the plan is
 * the whole M's). */
static int64_t aot__chunk_band_floats(const aot__band_plan* p, const aot__conv_geom* cg, int64_t channels) {
  return (channels * p->crows * cg->OW + 15) / 16 * 16;
}

AOT_KAPI int64_t aot__conv_band_scratch_floats(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader,
                                               int64_t M, int64_t K, int64_t chunks) {
  const aot__band_plan p = aot__band_plan_of(cg, qg, reader, M);
  const int64_t n = p.crows * cg->OW;
  const aot__operand A = {0, 0, 0, 1, 0, 0}, B = {0, cg->H * cg->W, 1, 0, 0, 0};
  int64_t most = 0;
  for (int64_t k = 0; k < chunks; ++k) {
    int64_t c0, c1;
    aot__band_chunk(M, chunks, k, &c0, &c1);
    const int64_t mc = c1 - c0;
    const int packing = aot__band_pointwise(cg) ? aot__sgemm_packing(mc, n, K, &A, &B) : AOT_GEMM_PACK_B;
    const int64_t f = aot__chunk_band_floats(&p, cg, mc) + aot__sgemm_scratch_floats(mc, n, K, packing);
    if (f > most) most = f;
  }
  return most;
}

/* Bands [b0, b1) of channels [c0, c1): the weights' rows c0.. of the packing
 * (made for all M), the epilogues' per-channel operands and the output from
 * channel c0 on; the band holds channel c0 first. */
static void aot__conv_band_chunk(const aot__band_plan* pp, const aot__conv_geom* cg, const aot__conv_geom* qg,
                                 int reader, int64_t M, int64_t K, int64_t c0, int64_t c1, const float* a,
                                 const float* x, const aot__epilogue* ep, const float* w2, const aot__epilogue* ep2,
                                 float* y, float* scratch, int64_t b0, int64_t b1) {
  const aot__band_plan p = *pp;
  const int64_t OW = cg->OW, cs = p.crows * OW, mc = c1 - c0; /* cs: the band's channel stride */
  float* band = scratch;
  float* gemm_scratch = scratch + aot__chunk_band_floats(&p, cg, mc);
  const aot__operand A = {a, (M + AOT_GEMM_MR - 1) / AOT_GEMM_MR * AOT_GEMM_MR, c0, 1, 0, 0};
  aot__epilogue e1, e2;
  if (ep) {
    e1 = *ep;
    if (e1.bias) e1.bias += c0 * e1.bias_m;
    if (e1.res) e1.res += c0 * e1.res_m;
  }
  if (ep2) {
    e2 = *ep2;
    if (e2.bias) e2.bias += c0 * e2.bias_m;
    if (e2.res) e2.res += c0 * e2.res_m;
  }
  y += c0 * qg->OH * qg->OW;
  if (w2) w2 += c0 * qg->KH * qg->KW;
  int64_t have0 = 0, have1 = 0; /* the convolution rows the band holds, from its row 0 */
  for (int64_t b = b0; b < b1 && b < p.bands; ++b) {
    const int64_t o0 = b * p.orows, o1 = o0 + p.orows < qg->OH ? o0 + p.orows : qg->OH;
    int64_t r0, r1;
    aot__band_rows(qg, o0, o1, &r0, &r1);
    /* rows [r0, have1) are the previous band's last: move them to the front */
    const int64_t keep = r0 >= have0 && have1 > r0 ? (have1 < r1 ? have1 : r1) - r0 : 0;
    if (keep > 0 && r0 > have0)
      for (int64_t m = 0; m < mc; ++m)
        memmove(band + m * cs, band + m * cs + (r0 - have0) * OW, sizeof(float) * (size_t)(keep * OW));
    if (r1 > r0 + keep) {
      const int64_t first = r0 + keep, rows = r1 - first;
      /* A pointwise image's rows in place; else rows [first, r1) as a
       * convolution of their own: the same image, the padding shifted by
       * the rows before them. */
      aot__conv_geom sub = *cg;
      sub.PH = cg->PH - first * cg->SH;
      sub.OH = rows;
      const aot__operand B = aot__band_pointwise(cg) ? (aot__operand){x + first * cg->W, cg->H * cg->W, 1, 0, 0, 0}
                                                     : (aot__operand){x, 0, 0, 0, &sub, 0};
      aot__sgemm(mc, rows * OW, K, &A, &B, band + keep * OW, cs, 1, ep ? &e1 : 0, gemm_scratch);
    }
    have0 = r0;
    have1 = r1;
    if (reader == AOT_BAND_DEPTHWISE)
      aot__conv2d_depthwise_rows(qg, band, cs, r0, w2, y, ep2 ? &e2 : 0, 0, mc, o0, o1);
    else
      aot__max_pool2d_rows(qg, band, cs, r0, y, 0, mc, o0, o1);
  }
}

AOT_KAPI void aot__conv_band_range(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M, int64_t K,
                                   int64_t chunks, const float* a, const float* x, const aot__epilogue* ep,
                                   const float* w2, const aot__epilogue* ep2, float* y, float* scratch, int64_t u0,
                                   int64_t u1) {
  const aot__band_plan p = aot__band_plan_of(cg, qg, reader, M);
  if (u1 > chunks * p.bands) u1 = chunks * p.bands;
  while (u0 < u1) { /* unit u: band u % bands of chunk u / bands */
    const int64_t k = u0 / p.bands, b0 = u0 % p.bands, b1 = b0 + (u1 - u0) < p.bands ? b0 + (u1 - u0) : p.bands;
    int64_t c0, c1;
    aot__band_chunk(M, chunks, k, &c0, &c1);
    aot__conv_band_chunk(&p, cg, qg, reader, M, K, c0, c1, a, x, ep, w2, ep2, y, scratch, b0, b1);
    u0 += b1 - b0;
  }
}
