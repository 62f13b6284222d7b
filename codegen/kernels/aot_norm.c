/* Softmax, log_softmax and layer_norm of one contiguous float row, as eager's
 * vectorised CPU kernels compute them. Softmax: e = exp(x - max) in float
 * (aot__expf, 1 ulp), the sum in double lanes, then e * (1 / sum);
 * log_softmax: x - max - log(sum). Layer norm: mean and variance (two
 * passes) over double lanes, then (x - mean) * rstd * w + b in float. Before
 * these, every softmax element took two libm double exp calls and layer
 * norm's double loop 2 ns an element. Each row's result depends on that row
 * only, so any split of rows over threads gives the same bits. */
#include "aot_kernels.h"

AOT_KAPI void aot__softmax_row(const float* x, float* y, int64_t n, int log_form) {
  const float m = aot__max_f32(x, n);
  if (log_form) {
    double s = 0;
    for (int64_t r = 0; r < n; ++r) s += (double)aot__expf(x[r] - m);
    const float ls = (float)log(s);
    for (int64_t r = 0; r < n; ++r) y[r] = x[r] - m - ls;
    return;
  }
  for (int64_t r = 0; r < n; ++r) y[r] = aot__expf(x[r] - m);
  const float inv = (float)(1.0 / aot__sum_f32d(y, n));
  for (int64_t r = 0; r < n; ++r) y[r] *= inv;
}

AOT_KAPI void aot__layer_norm_row(const float* x, float* y, int64_t n, const float* w, const float* b, double eps,
                                  float* mean_out, float* rstd_out) {
  const double mean = aot__sum_f32d(x, n) / (double)n;
  const double var = aot__sqdev_f32d(x, n, mean) / (double)n;
  const double rstd = 1.0 / sqrt(var + eps);
  const float fm = (float)mean, fr = (float)rstd;
  /* One loop per form, so each vectorises without a test per element. */
  if (w && b)
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - fm) * fr * w[j] + b[j];
  else if (w)
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - fm) * fr * w[j];
  else if (b)
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - fm) * fr + b[j];
  else
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - fm) * fr;
  if (mean_out) *mean_out = fm;
  if (rstd_out) *rstd_out = fr;
}
