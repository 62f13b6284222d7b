/* Layout changes the kernels need: an image in any strides gathered into
 * CHW order, for a convolution whose input is another layout (ConvNeXt's
 * downsampling layers read LayerNorm2d's permuted, channels-last result;
 * the generic loop nest ran them 30 ms each on ResNet-sized maps). */
#include "aot_kernels.h"

AOT_KAPI void aot__gather_chw(int64_t C, int64_t H, int64_t W, const float* x, int64_t cs, int64_t hs, int64_t ws,
                              float* dst) {
  if (cs < ws) {
    /* Channels nearer in memory than columns (channels-last): 16 columns
     * at a time over every channel, so the lines those columns span stay
     * in cache while each channel's row of them is written. */
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w0 = 0; w0 < W; w0 += 16) {
        const int64_t w1 = w0 + 16 < W ? w0 + 16 : W;
        for (int64_t c = 0; c < C; ++c) {
          const float* s = x + c * cs + h * hs;
          float* d = dst + (c * H + h) * W;
          for (int64_t w = w0; w < w1; ++w) d[w] = s[w * ws];
        }
      }
    return;
  }
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < H; ++h) {
      const float* s = x + c * cs + h * hs;
      float* d = dst + (c * H + h) * W;
      for (int64_t w = 0; w < W; ++w) d[w] = s[w * ws];
    }
}
