/* Channels-last (NHWC) prototypes for bench/kernels/layout_bench.cc: what
 * the activation layout choice of issue 15 would buy, measured against the
 * kernel library's NCHW kernels before building it into the compiler.
 * Plain C99 for -O3 -march=native, as compiled models are built. */
#include "layout_nhwc.h"

/* 16 floats, loaded and stored unaligned (vmovups, or two ymm on AVX2). */
typedef float nhwc_v16 __attribute__((vector_size(64), aligned(4)));

/* Depthwise KH x KW convolution, one image: x H x W x C, w KH x KW x C,
 * y OH x OW x C, each output clamped to [lo, hi]; C a multiple of 16. Per
 * output pixel, 64 channels at a time sum their taps in four vector
 * registers (16 at a time for the rest), so every tap is one unit-stride
 * vector load of x and one of w whatever the stride; taps outside the
 * image are skipped (zero padding). Same tap order (kh, then kw) as
 * aot__conv2d_depthwise. */
void nhwc_depthwise(const aot__conv_geom* g, const float* restrict x, const float* restrict w, float* restrict y,
                    float lo, float hi) {
  const int64_t C = g->C, H = g->H, W = g->W, KH = g->KH, KW = g->KW;
  for (int64_t oh = 0; oh < g->OH; ++oh)
    for (int64_t ow = 0; ow < g->OW; ++ow) {
      const int64_t ih0 = oh * g->SH - g->PH, iw0 = ow * g->SW - g->PW;
      float* yp = y + (oh * g->OW + ow) * C;
      for (int64_t c0 = 0; c0 < C;) {
        const int four = C - c0 >= 64;
        nhwc_v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t ih = ih0 + kh * g->DH;
          if (ih < 0 || ih >= H) continue;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = iw0 + kw * g->DW;
            if (iw < 0 || iw >= W) continue;
            const nhwc_v16* xp = (const nhwc_v16*)(x + (ih * W + iw) * C + c0);
            const nhwc_v16* wp = (const nhwc_v16*)(w + (kh * KW + kw) * C + c0);
            a0 += xp[0] * wp[0];
            if (four) {
              a1 += xp[1] * wp[1];
              a2 += xp[2] * wp[2];
              a3 += xp[3] * wp[3];
            }
          }
        }
        nhwc_v16* o = (nhwc_v16*)(yp + c0);
        o[0] = a0;
        if (four) {
          o[1] = a1;
          o[2] = a2;
          o[3] = a3;
        }
        c0 += four ? 64 : 16;
      }
      for (int64_t c = 0; c < C; ++c) yp[c] = yp[c] < lo ? lo : yp[c] > hi ? hi : yp[c];
    }
}

/* x (C x H x W) to H x W x C, or with pad > 0 into a zero-bordered
 * (H + 2 pad) x (W + 2 pad) x C image: the conversions at a layout's edges. */
void nchw_to_nhwc(int64_t C, int64_t H, int64_t W, int64_t pad, const float* restrict x, float* restrict y) {
  const int64_t Wp = W + 2 * pad;
  for (int64_t h = 0; h < H + 2 * pad; ++h)
    for (int64_t w = 0; w < Wp; ++w) {
      float* restrict yp = y + (h * Wp + w) * C;
      const int64_t ih = h - pad, iw = w - pad;
      if (ih < 0 || ih >= H || iw < 0 || iw >= W) {
        for (int64_t c = 0; c < C; ++c) yp[c] = 0.f;
        continue;
      }
      for (int64_t c = 0; c < C; ++c) yp[c] = x[(c * H + ih) * W + iw];
    }
}
