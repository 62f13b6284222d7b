// The kernel library's row kernels (codegen/kernels/aot_norm.c, built with
// -march=native as `atenaot compile --march-native` builds models) on the
// rows of the transformer blocks in the speed list, next to the generic
// double-precision loops generated code used before them (libm exp per
// element, double accumulation), timed in one run:
//   bazel run -c opt //bench/kernels:norm_bench -- --benchmark_filter=_min
// softmax: 12 heads x 128 rows of 128 (a BERT-base/GPT-2 layer's attention
// scores) and one row of 1,000 (a classifier); layer_norm: 128 rows of 768.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "codegen/kernels/aot_kernels.h"

namespace {

std::vector<float> Random(size_t n, float scale) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// What the generic path emits for a float row (double accumulation, libm).
void GenericSoftmaxRow(const float* x, float* y, int64_t n) {
  double m = -INFINITY, s = 0;
  for (int64_t r = 0; r < n; ++r) m = std::max<double>(m, x[r]);
  for (int64_t r = 0; r < n; ++r) s += std::exp(static_cast<double>(x[r]) - m);
  for (int64_t r = 0; r < n; ++r) y[r] = static_cast<float>(std::exp(static_cast<double>(x[r]) - m) / s);
}

void GenericLayerNormRow(const float* x, float* y, int64_t n, const float* w, const float* b) {
  double mean = 0, var = 0;
  for (int64_t j = 0; j < n; ++j) mean += x[j];
  mean /= static_cast<double>(n);
  for (int64_t j = 0; j < n; ++j) var += (x[j] - mean) * (x[j] - mean);
  var /= static_cast<double>(n);
  const double rstd = 1 / std::sqrt(var + 1e-5);
  for (int64_t j = 0; j < n; ++j) y[j] = static_cast<float>((x[j] - mean) * rstd * w[j] + b[j]);
}

void Softmax(benchmark::State& state, bool library) {
  const int64_t rows = state.range(0), n = state.range(1);
  std::vector<float> x = Random(static_cast<size_t>(rows * n), 8.f), y(x.size());
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      if (library)
        aot__softmax_row(x.data() + r * n, y.data() + r * n, n, 0);
      else
        GenericSoftmaxRow(x.data() + r * n, y.data() + r * n, n);
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_float"] = benchmark::Counter(
      static_cast<double>(rows * n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void LayerNorm(benchmark::State& state, bool library) {
  const int64_t rows = state.range(0), n = state.range(1);
  std::vector<float> x = Random(static_cast<size_t>(rows * n), 3.f), y(x.size()), w = Random(n, 1.f),
                     b = Random(n, 1.f);
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      if (library)
        aot__layer_norm_row(x.data() + r * n, y.data() + r * n, n, w.data(), b.data(), 1e-5, nullptr, nullptr);
      else
        GenericLayerNormRow(x.data() + r * n, y.data() + r * n, n, w.data(), b.data());
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_float"] = benchmark::Counter(
      static_cast<double>(rows * n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Wall time, the fastest of 5 repetitions (other work on a shared machine
// only slows a repetition down).
#define AOT_NORM_BENCH(fn, name, library, rows, n) \
  BENCHMARK_CAPTURE(fn, name, library)             \
      ->Args({rows, n})                            \
      ->MinTime(0.1)                               \
      ->UseRealTime()                              \
      ->Repetitions(5)                             \
      ->ComputeStatistics("min", Min)              \
      ->ReportAggregatesOnly(true);
AOT_NORM_BENCH(Softmax, library, true, 1536, 128)
AOT_NORM_BENCH(Softmax, generic, false, 1536, 128)
AOT_NORM_BENCH(Softmax, library, true, 1, 1000)
AOT_NORM_BENCH(Softmax, generic, false, 1, 1000)
AOT_NORM_BENCH(LayerNorm, library, true, 128, 768)
AOT_NORM_BENCH(LayerNorm, generic, false, 128, 768)

}  // namespace

BENCHMARK_MAIN();
