// Issue 15's activation layout question, measured before it is built:
// channels-last (NHWC) kernels against the kernel library's NCHW ones on the
// layers of ResNet-50, MobileNetV2 and EfficientNet-B0, one thread, one
// image. Counters: FLOPS (the layer's multiply-adds x 2).
//   bazel run -c opt //bench/kernels:layout_bench
// - Depthwise: aot__conv2d_depthwise (NCHW: rows of one channel, vectorised
//   along the row) vs nhwc_depthwise (64 channels of one pixel at a time).
// - 3x3 convolution, stride 1: NCHW im2col GEMM (aot__sgemm with the conv
//   geometry: packs im2col panels) vs NHWC implicit GEMM with no packing: on
//   a zero-bordered NHWC image, output pixel q (row-major over the padded
//   width) of tap (kh, kw) reads input pixel q + kh Wp + kw, so each tap is
//   one GEMM (pixels x Cin) x (Cin x Cout) with A read in place and the
//   tap's weights prepacked; 9 GEMMs accumulate through the residual
//   epilogue, each into the other of two buffers (the padded width's 2
//   extra columns are computed and dropped). A real kernel would sum the
//   taps in registers; this is an upper bound on its time.
// - 1x1 convolution: NCHW W (prepacked) x X vs NHWC X x W^T (prepacked).
// Each pair is checked against the other before timing (max |diff| / max
// |y| <= 1e-5); a mismatch fails the run with an error row.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bench/kernels/layout_nhwc.h"
#include "codegen/kernels/aot_kernels.h"

namespace {

using Vec = std::vector<float>;

Vec Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  Vec v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void Flops(benchmark::State& s, double flops) {
  s.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

// max |nchw - nhwc| / max |nchw| over C x P outputs; nhwc's pixel p at
// row p / ow, column p % ow of rows `stride` pixels long.
double Mismatch(const Vec& nchw, const Vec& nhwc, int64_t C, int64_t oh, int64_t ow, int64_t stride) {
  double diff = 0, scale = 0;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t p = 0; p < oh * ow; ++p) {
      const double a = nchw[static_cast<size_t>(c * oh * ow + p)];
      const double b = nhwc[static_cast<size_t>(((p / ow) * stride + p % ow) * C + c)];
      diff = std::max(diff, std::fabs(a - b));
      scale = std::max(scale, std::fabs(a));
    }
  return diff / std::max(scale, 1e-30);
}

aot__conv_geom Geom(int64_t C, int64_t H, int64_t k, int64_t st) {
  aot__conv_geom g = {C, H, H, k, k, st, st, k / 2, k / 2, 1, 1, 0, 0};
  g.OH = g.OW = (H + 2 * (k / 2) - k) / st + 1;
  return g;
}

// args: C, H (= W), stride, k, layout (0 NCHW, 1 NHWC)
void Depthwise(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1), st = s.range(2), k = s.range(3);
  const aot__conv_geom g = Geom(C, H, k, st);
  const Vec x = Random(static_cast<size_t>(C * H * H), 1), w = Random(static_cast<size_t>(C * k * k), 2);
  Vec xh(x.size()), wh(w.size()), y(static_cast<size_t>(C * g.OH * g.OW)), yh(y.size());
  nchw_to_nhwc(C, H, H, 0, x.data(), xh.data());
  nchw_to_nhwc(C, k, k, 0, w.data(), wh.data());
  aot__epilogue ep = {};
  ep.act = AOT_ACT_CLAMP;
  ep.hi = 6;
  aot__conv2d_depthwise(&g, x.data(), w.data(), y.data(), &ep);
  nhwc_depthwise(&g, xh.data(), wh.data(), yh.data(), 0.f, 6.f);
  const double err = Mismatch(y, yh, C, g.OH, g.OW, g.OW);
  if (err > 1e-5) s.SkipWithError(("NHWC differs from NCHW: " + std::to_string(err)).c_str());
  const bool nhwc = s.range(4) != 0;
  for (auto _ : s) {
    if (nhwc)
      nhwc_depthwise(&g, xh.data(), wh.data(), yh.data(), 0.f, 6.f);
    else
      aot__conv2d_depthwise(&g, x.data(), w.data(), y.data(), &ep);
    benchmark::ClobberMemory();
  }
  Flops(s, 2.0 * C * g.OH * g.OW * k * k);
}

// The weights w (Co x C x k x k) of tap t as a prepacked GEMM B (C x Co).
Vec PackTap(const Vec& w, int64_t Co, int64_t C, int64_t kk, int64_t t) {
  Vec b(static_cast<size_t>(aot__sgemm_packed_b_floats(C, Co)));
  aot__sgemm_pack_b(C, Co, w.data() + t, kk, C * kk, b.data());
  return b;
}

// args: Cin, H (= W), Cout, k (1 or 3; stride 1), layout (0 NCHW, 1 NHWC)
void Conv(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1), Co = s.range(2), k = s.range(3), kk = k * k, pad = k / 2;
  const aot__conv_geom g = Geom(C, H, k, 1);
  const int64_t N = H * H, K = C * kk, Wp = H + 2 * pad, rows = H * Wp - 2 * pad;  // NHWC GEMM rows
  const Vec x = Random(static_cast<size_t>(C * N), 3), w = Random(static_cast<size_t>(Co * K), 4);
  aot__epilogue relu = {};
  relu.act = AOT_ACT_RELU;
  // NCHW: W (prepacked A) x im2col(x), or x itself for 1x1.
  Vec pw(static_cast<size_t>(aot__sgemm_packed_a_floats(Co, K))), y(static_cast<size_t>(Co * N));
  aot__sgemm_pack_a(Co, K, w.data(), K, 1, pw.data());
  const aot__operand A = {pw.data(), 0, 0, 1, nullptr, nullptr};
  const aot__operand B =
      k == 1 ? aot__operand{x.data(), N, 1, 0, nullptr, nullptr} : aot__operand{x.data(), 0, 0, 0, &g, nullptr};
  const int packing = aot__sgemm_packing(Co, N, K, &A, &B);
  Vec scratch(static_cast<size_t>(aot__sgemm_scratch_floats(Co, N, K, packing)));
  auto nchw = [&] {
    aot__sgemm_range_packing(Co, N, K, &A, &B, y.data(), N, 1, &relu, scratch.data(), 0, Co, 0, N, packing);
  };
  // NHWC: per tap, (rows x C, read in place) x (C x Co, prepacked).
  // Tap t's GEMM adds tap t - 1's sums as its residual, from the other of
  // two buffers (aot__sgemm's residual is never its output); tap kk - 1's
  // lands in yh[(kk - 1) % 2].
  Vec xh(static_cast<size_t>(Wp * Wp * C));
  Vec yh[2] = {Vec(static_cast<size_t>((rows + 2 * pad) * Co)), Vec(static_cast<size_t>((rows + 2 * pad) * Co))};
  nchw_to_nhwc(C, H, H, pad, x.data(), xh.data());
  std::vector<Vec> taps;
  for (int64_t t = 0; t < kk; ++t) taps.push_back(PackTap(w, Co, C, kk, t));
  auto nhwc = [&] {
    for (int64_t t = 0; t < kk; ++t) {
      const aot__operand At = {xh.data() + ((t / k) * Wp + t % k) * C, C, 1, 0, nullptr, nullptr};
      const aot__operand Bt = {taps[static_cast<size_t>(t)].data(), 0, 0, 1, nullptr, nullptr};
      aot__epilogue ep = {};
      if (t > 0) {
        ep.res = yh[(t + 1) % 2].data();
        ep.res_m = Co;
        ep.res_n = 1;
      }
      if (t + 1 == kk) ep.act = AOT_ACT_RELU;
      aot__sgemm(rows, Co, C, &At, &Bt, yh[t % 2].data(), Co, 1, &ep, nullptr);
    }
  };
  nchw();
  nhwc();
  const double err = Mismatch(y, yh[(kk - 1) % 2], Co, H, H, Wp);
  if (err > 1e-5) s.SkipWithError(("NHWC differs from NCHW: " + std::to_string(err)).c_str());
  const bool use_nhwc = s.range(4) != 0;
  for (auto _ : s) {
    if (use_nhwc)
      nhwc();
    else
      nchw();
    benchmark::ClobberMemory();
  }
  s.SetLabel(use_nhwc ? "NHWC: " + std::to_string(kk) + " GEMMs " + std::to_string(rows) + "x" + std::to_string(Co) +
                            "x" + std::to_string(C)
                      : "NCHW: GEMM " + std::to_string(Co) + "x" + std::to_string(N) + "x" + std::to_string(K));
  Flops(s, 2.0 * Co * N * K);
}

// The layers: MobileNetV2's 3x3 and EfficientNet-B0's 5x5 depthwise ones
// (C, H, stride, k), ResNet-50's 3x3 (stride 1) and 1x1 ones and MobileNetV2's
// 1x1 ones (Cin, H, Cout, k).
struct Layer {
  bool depthwise;
  int64_t a, b, c, d;
};
const Layer kLayers[] = {
    {true, 144, 56, 1, 3},     {true, 96, 112, 2, 3},   {true, 144, 56, 2, 3},   {true, 192, 28, 2, 3},
    {true, 576, 14, 2, 3},     {true, 384, 14, 1, 3},   {true, 960, 7, 1, 3},    {true, 240, 28, 1, 5},
    {true, 672, 14, 2, 5},     {true, 1152, 7, 1, 5},   {false, 64, 56, 64, 3},  {false, 128, 28, 128, 3},
    {false, 256, 14, 256, 3},  {false, 512, 7, 512, 3}, {false, 256, 56, 64, 1}, {false, 64, 56, 256, 1},
    {false, 1024, 14, 256, 1}, {false, 144, 56, 24, 1}, {false, 96, 112, 24, 1}, {false, 960, 7, 160, 1},
};

// Each layer of one kind in both layouts (the last argument: 0 NCHW, 1 NHWC).
void Layers(benchmark::internal::Benchmark* b, bool depthwise) {
  for (const Layer& l : kLayers)
    if (l.depthwise == depthwise)
      for (int64_t layout : {0, 1}) b->Args({l.a, l.b, l.c, l.d, layout});
}

BENCHMARK(Depthwise)->Apply([](benchmark::internal::Benchmark* b) { Layers(b, true); })->Unit(benchmark::kMicrosecond);
BENCHMARK(Conv)->Apply([](benchmark::internal::Benchmark* b) { Layers(b, false); })->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
