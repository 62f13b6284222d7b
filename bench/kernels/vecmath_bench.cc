// aot_vecmath.h's transcendentals in a vectorised loop over 8,192 floats (in
// L1), built for this machine (-march=native, as `atenaot compile
// --march-native`) with FMA and without it (-mno-fma: the polynomial steps
// round twice), timed in one run; and the kernel library's epilogue rows
// (aot__act_row: AVX-512 blocks where the ISA has them):
//   bazel run -c opt //bench/kernels:vecmath_bench -- --benchmark_filter=_min
// (the rows ending in _min: ns_per_float is the fastest repetition's).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

using Loop = void (*)(const float*, float*, int64_t);

#define AOT_DECLARE(prefix)                                                \
  extern "C" void prefix##expf(const float*, float*, int64_t);             \
  extern "C" void prefix##logf(const float*, float*, int64_t);             \
  extern "C" void prefix##tanhf(const float*, float*, int64_t);            \
  extern "C" void prefix##sigmoidf(const float*, float*, int64_t);         \
  extern "C" void prefix##siluf(const float*, float*, int64_t);            \
  extern "C" void prefix##erff(const float*, float*, int64_t);             \
  extern "C" void prefix##gelu_erff(const float*, float*, int64_t);        \
  extern "C" void prefix##gelu_tanhf(const float*, float*, int64_t);       \
  extern "C" void prefix##act_row_sigmoidf(const float*, float*, int64_t); \
  extern "C" void prefix##act_row_siluf(const float*, float*, int64_t);
AOT_DECLARE(fma_)
AOT_DECLARE(nofma_)

namespace {

void Run(benchmark::State& state, Loop f, float lo, float hi) {
  const int64_t n = 8192;
  std::vector<float> x(n), y(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : x) v = dist(rng);
  for (auto _ : state) {
    f(x.data(), y.data(), n);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["ns_per_float"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Arguments where activations live (|x| < 10); log over (0, 100). Wall time,
// the fastest of 5 repetitions (other work on a shared machine only slows a
// repetition down).
#define AOT_BENCH(fn, lo, hi)                                                                                        \
  BENCHMARK_CAPTURE(Run, fn##_fma, fma_##fn, lo, hi)                                                                 \
      ->MinTime(0.1)                                                                                                 \
      ->UseRealTime()                                                                                                \
      ->Repetitions(5)                                                                                               \
      ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }) \
      ->ReportAggregatesOnly(true);                                                                                  \
  BENCHMARK_CAPTURE(Run, fn##_nofma, nofma_##fn, lo, hi)                                                             \
      ->MinTime(0.1)                                                                                                 \
      ->UseRealTime()                                                                                                \
      ->Repetitions(5)                                                                                               \
      ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }) \
      ->ReportAggregatesOnly(true);
AOT_BENCH(expf, -10.0f, 10.0f)
AOT_BENCH(logf, 1e-3f, 100.0f)
AOT_BENCH(tanhf, -10.0f, 10.0f)
AOT_BENCH(sigmoidf, -10.0f, 10.0f)
AOT_BENCH(siluf, -10.0f, 10.0f)
AOT_BENCH(erff, -10.0f, 10.0f)
AOT_BENCH(gelu_erff, -10.0f, 10.0f)
AOT_BENCH(gelu_tanhf, -10.0f, 10.0f)
// The epilogue rows (aot__act_row: a copy of x, then the activation in place).
AOT_BENCH(act_row_sigmoidf, -10.0f, 10.0f)
AOT_BENCH(act_row_siluf, -10.0f, 10.0f)

}  // namespace

BENCHMARK_MAIN();
