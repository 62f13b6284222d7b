// Helpers the C++ benchmarks share: medians of timings, and a float32
// LibTorch tensor as a C ABI descriptor.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <vector>

#include "atenaot.h"

namespace atenaot {

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline aot_tensor Describe(const at::Tensor& t) {
  aot_tensor d{};
  d.data = t.data_ptr();
  d.dtype = AOT_FLOAT32;
  d.ndim = static_cast<int32_t>(t.dim());
  for (int64_t k = 0; k < t.dim(); ++k) {
    d.sizes[k] = t.size(k);
    d.strides[k] = t.stride(k);
  }
  return d;
}

// The 20-op elementwise chain (mul, add, sigmoid, sub + relu, repeated) the
// compiled-vs-eager and bandwidth benchmarks time.
inline std::vector<at::Tensor> Chain20(const std::vector<at::Tensor>& in) {
  at::Tensor v = in[0];
  for (int k = 0; k < 20; ++k) {
    switch (k % 4) {
      case 0:
        v = v * 1.01;
        break;
      case 1:
        v = v + in[0];
        break;
      case 2:
        v = at::sigmoid(v);
        break;
      default:
        v = at::relu(v - 0.25);
        ++k;
        break;  // two ops
    }
  }
  return {v};
}

}  // namespace atenaot
