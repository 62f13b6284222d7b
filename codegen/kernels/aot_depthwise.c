/* Depthwise convolution: each output row accumulates KH x KW shifted input
 * rows scaled by one weight (a unit-stride loop compilers vectorise when the
 * stride is 1), then the epilogue runs over the finished row. */
#include "aot_kernels.h"

AOT_KAPI void aot__conv2d_depthwise(const aot__conv_geom* g, const float* x, const float* w, float* y,
                                    const aot__epilogue* ep) {
  const int64_t OW = g->OW;
  /* Per kernel column kw, the output columns whose input column lies inside
   * the image: [lo, hi). Computed once (divisions are slow). */
  enum { MAXKW = 16 };
  int64_t los[MAXKW], his[MAXKW];
  const int64_t nkw = g->KW < MAXKW ? g->KW : MAXKW;
  for (int64_t kw = 0; kw < g->KW; ++kw) {
    const int64_t off = kw * g->DW - g->PW; /* iw = ow*SW + off */
    int64_t lo = off >= 0 ? 0 : (-off + g->SW - 1) / g->SW;
    int64_t hi = g->W - off <= 0 ? 0 : (g->W - off + g->SW - 1) / g->SW;
    if (hi > OW) hi = OW;
    if (lo > hi) lo = hi;
    if (kw < nkw) { los[kw] = lo; his[kw] = hi; }
  }
  for (int64_t c = 0; c < g->C; ++c) {
    const float* plane = x + c * g->H * g->W;
    const float* wc = w + c * g->KH * g->KW;
    for (int64_t oh = 0; oh < g->OH; ++oh) {
      float* yr = y + (c * g->OH + oh) * OW;
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = 0.f;
      for (int64_t kh = 0; kh < g->KH; ++kh) {
        const int64_t ih = oh * g->SH - g->PH + kh * g->DH;
        if (ih < 0 || ih >= g->H) continue;
        const float* xr = plane + ih * g->W;
        for (int64_t kw = 0; kw < g->KW; ++kw) {
          const float wv = wc[kh * g->KW + kw];
          const int64_t off = kw * g->DW - g->PW;
          int64_t lo, hi;
          if (kw < nkw) { lo = los[kw]; hi = his[kw]; }
          else {
            lo = off >= 0 ? 0 : (-off + g->SW - 1) / g->SW;
            hi = g->W - off <= 0 ? 0 : (g->W - off + g->SW - 1) / g->SW;
            if (hi > OW) hi = OW;
          }
          if (g->SW == 1) {
            const float* xs = xr + off;
            for (int64_t ow = lo; ow < hi; ++ow) yr[ow] += wv * xs[ow];
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) yr[ow] += wv * xr[ow * g->SW + off];
          }
        }
      }
      if (!ep) continue;
      const int64_t n0 = oh * OW;
      if (ep->bias) {
        const float* bp = ep->bias + c * ep->bias_m + n0 * ep->bias_n;
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] += bp[ow * ep->bias_n];
      }
      if (ep->res) {
        const float* rp = ep->res + c * ep->res_m + n0 * ep->res_n;
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] += rp[ow * ep->res_n];
      }
      if (ep->act == AOT_ACT_RELU) {
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = yr[ow] < 0.f ? 0.f : yr[ow];
      } else if (ep->act == AOT_ACT_CLAMP) {
        const float lo = ep->lo, hi = ep->hi;
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = yr[ow] < lo ? lo : (yr[ow] > hi ? hi : yr[ow]);
      } else if (ep->act != AOT_ACT_NONE) {
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = aot__act(yr[ow], ep);
      }
    }
  }
}
