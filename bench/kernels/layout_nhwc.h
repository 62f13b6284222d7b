/* Channels-last prototypes (layout_nhwc.c) for layout_bench.cc. */
#ifndef ATENAOT_BENCH_KERNELS_LAYOUT_NHWC_H_
#define ATENAOT_BENCH_KERNELS_LAYOUT_NHWC_H_

#include "codegen/kernels/aot_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C a multiple of 16. */
void nhwc_depthwise(const aot__conv_geom* g, const float* x, const float* w, float* y, float lo, float hi);
void nchw_to_nhwc(int64_t C, int64_t H, int64_t W, int64_t pad, const float* x, float* y);

#ifdef __cplusplus
}
#endif

#endif  // ATENAOT_BENCH_KERNELS_LAYOUT_NHWC_H_
