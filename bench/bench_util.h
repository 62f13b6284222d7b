// Helpers the C++ benchmarks share: medians of timings, timing sides in
// blocks, and a float32 LibTorch tensor as a C ABI descriptor.
#pragma once

#include <ATen/ATen.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "atenaot.h"

namespace atenaot {

// Eager's thread count: LibTorch's (at::set_num_threads) and OpenBLAS's.
// Eager's matmuls and linears run in OpenBLAS (Debian's libblas.so.3 is its
// pthread build), whose own threads at::set_num_threads leaves alone: with
// torch.set_num_threads(1) a 128x768 @ 768x3072 linear still took 1.99 CPUs
// (2.30 ms; 4.04 ms at OPENBLAS_NUM_THREADS=1). False where the BLAS has no
// openblas_set_num_threads (its threads are then not controlled).
inline bool SetEagerThreads(int n) {
  at::set_num_threads(n);
  using SetThreads = void (*)(int);
  static const SetThreads openblas = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (openblas) openblas(n);
  return openblas != nullptr;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times `runs` runs of each side, in blocks of `block` back-to-back runs per
// side, round-robin, and returns each side's times in seconds. A block
// starts with untimed runs for at least 5 ms, by which time the previous
// side's idle threads have stopped spinning. Alternating single runs
// measured the neighbour too: LibTorch's OpenMP workers spin for
// milliseconds after each parallel region and held the second CPU while the
// compiled library's threads ran (chain20 over 1M floats: 2.8 ms on two
// threads, 1.3 ms in blocks; eager's chain stayed 4.5-5.3 ms). Used by
// elementwise_bandwidth only so far: compiled_vs_eager still alternates,
// because eager's MobileNetV2 on two threads moved between 17.6 and 29 ms
// from run to run under both schemes (Python, back to back: 16), and which
// scheme is fairer to it is not settled.
inline std::vector<std::vector<double>> TimeInBlocks(const std::vector<std::function<void()>>& sides, int runs,
                                                     int block = 10) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> times(sides.size());
  for (int done = 0; done < runs; done += block) {
    const int n = std::min(block, runs - done);
    for (size_t s = 0; s < sides.size(); ++s) {
      const auto warm = Clock::now();
      do sides[s]();
      while (Clock::now() - warm < std::chrono::milliseconds(5));
      for (int i = 0; i < n; ++i) {
        const auto t0 = Clock::now();
        sides[s]();
        times[s].push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
    }
  }
  return times;
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
