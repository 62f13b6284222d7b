// The kernel library (codegen/kernels, built with -march=native like
// `atenaot compile --march-native`) against OpenBLAS cblas_sgemm on one
// thread, on the GEMM and convolution shapes of ResNet-50, MobileNetV2 and a
// transformer block. Counters: FLOPS (2*M*N*K per iteration).
//   bazel run -c opt //bench/kernels:gemm_bench
// OpenBLAS runs the plain GEMM (no im2col); "AotConv" includes packing the
// im2col panels from the image, "AotGemm" the same GEMM as OpenBLAS with the
// weight prepacked (as compiled models store it) and B packed at run time.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>
#include <vector>

#include "codegen/kernels/aot_kernels.h"

extern "C" void openblas_set_num_threads(int);

namespace {

std::vector<float> Random(size_t n) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

void Flops(benchmark::State& s, double flops) {
  s.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

// args: M, N, K
void OpenBlas(benchmark::State& s) {
  openblas_set_num_threads(1);
  const int M = static_cast<int>(s.range(0)), N = static_cast<int>(s.range(1)), K = static_cast<int>(s.range(2));
  std::vector<float> a = Random(static_cast<size_t>(M) * K), b = Random(static_cast<size_t>(K) * N),
                     c(static_cast<size_t>(M) * N);
  for (auto _ : s) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.f, a.data(), K, b.data(), N, 0.f, c.data(), N);
    benchmark::DoNotOptimize(c.data());
  }
  Flops(s, 2.0 * M * N * K);
}

void AotGemm(benchmark::State& s) {
  const int64_t M = s.range(0), N = s.range(1), K = s.range(2);
  std::vector<float> a = Random(static_cast<size_t>(M * K)), b = Random(static_cast<size_t>(K * N)),
                     c(static_cast<size_t>(M * N));
  std::vector<float> pa(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
  aot__sgemm_pack_a(M, K, a.data(), K, 1, pa.data());
  const aot__operand A = {pa.data(), 0, 0, 1, nullptr}, B = {b.data(), N, 1, 0, nullptr};
  std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, AOT_GEMM_PACK_B)));
  for (auto _ : s) {
    aot__sgemm_range_packing(M, N, K, &A, &B, c.data(), N, 1, nullptr, scratch.data(), 0, M, 0, N, AOT_GEMM_PACK_B);
    benchmark::DoNotOptimize(c.data());
  }
  Flops(s, 2.0 * M * N * K);
}

// args: Cin, H (= W), Cout, kernel, stride, force packing (a 1x1 stride-1
// conv's B, the image itself, is otherwise read as aot__sgemm's rule says)
void AotConv(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1), Co = s.range(2), k = s.range(3), st = s.range(4), p = k / 2;
  aot__conv_geom g = {C, H, H, k, k, st, st, p, p, 1, 1, 0, 0};
  g.OH = g.OW = (H + 2 * p - k) / st + 1;
  const int64_t M = Co, N = g.OH * g.OW, K = C * k * k;
  std::vector<float> x = Random(static_cast<size_t>(C * H * H)), w = Random(static_cast<size_t>(M * K)),
                     y(static_cast<size_t>(M * N));
  std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
  aot__sgemm_pack_a(M, K, w.data(), K, 1, pw.data());
  const bool pointwise = k == 1 && st == 1;
  const aot__operand A = {pw.data(), 0, 0, 1, nullptr};
  const aot__operand B = pointwise ? aot__operand{x.data(), N, 1, 0, nullptr} : aot__operand{x.data(), 0, 0, 0, &g};
  const int packing = s.range(5) ? AOT_GEMM_PACK_B : aot__sgemm_packing(M, N, K, &A, &B);
  std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, packing)));
  aot__epilogue ep = {};
  ep.act = AOT_ACT_RELU;
  for (auto _ : s) {
    aot__sgemm_range_packing(M, N, K, &A, &B, y.data(), N, 1, &ep, scratch.data(), 0, M, 0, N, packing);
    benchmark::DoNotOptimize(y.data());
  }
  s.SetLabel("M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K));
  Flops(s, 2.0 * M * N * K);
}

// Issue 15: operands read in place vs packed into scratch, on the GEMMs of a
// transformer block (batch 1, seq tokens, d_model d, heads of 64, FFN 4d).
// args: M, N, K, lda, ldb, B prepacked (a linear's weight), B transposed
// (B[k, n] at b[n*ldb + k]: Q K^T), form (0: both packed at run time as
// before, 1: aot__sgemm's rule, 2: whatever can be, in place). Label: the
// rule's choice.
void AotTransformer(benchmark::State& s) {
  const int64_t M = s.range(0), N = s.range(1), K = s.range(2), lda = s.range(3), ldb = s.range(4) ? s.range(4) : N;
  const bool b_pre = s.range(5) != 0, b_trans = s.range(6) != 0;
  const int form = static_cast<int>(s.range(7));
  std::vector<float> a = Random(static_cast<size_t>(M * lda)),
                     b = Random(static_cast<size_t>(b_trans ? N * ldb : K * ldb)), c(static_cast<size_t>(M * N));
  std::vector<float> pb(static_cast<size_t>(aot__sgemm_packed_b_floats(K, N)));
  aot__operand A = {a.data(), lda, 1, 0, nullptr}, B = {b.data(), b_trans ? 1 : ldb, b_trans ? ldb : 1, 0, nullptr};
  if (b_pre) {
    aot__sgemm_pack_b(K, N, b.data(), B.s0, B.s1, pb.data());
    B = {pb.data(), 0, 0, 1, nullptr};
  }
  const int rule = aot__sgemm_packing(M, N, K, &A, &B);
  const int pack_b = b_pre ? 0 : AOT_GEMM_PACK_B;  // a prepacked B is never packed again
  const int packing = form == 0 ? AOT_GEMM_PACK_A | pack_b : form == 1 ? rule : b_trans ? pack_b : 0;
  std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, packing)));
  for (auto _ : s) {
    aot__sgemm_range_packing(M, N, K, &A, &B, c.data(), N, 1, nullptr, scratch.data(), 0, M, 0, N, packing);
    benchmark::DoNotOptimize(c.data());
  }
  s.SetLabel(std::string("rule packs") + (rule & AOT_GEMM_PACK_A ? " A" : "") + (rule & AOT_GEMM_PACK_B ? " B" : "") +
             ", scratch " + std::to_string(aot__sgemm_scratch_floats(M, N, K, packing) * 4) + " B");
  Flops(s, 2.0 * M * N * K);
}

// seq tokens x d_model: the QKV projection (one fused weight, 3d), the
// output projection, the FFN's two layers (weights prepacked, A the
// activations), then per head Q K^T (Q and K columns of the fused QKV
// output, stride 3d) and attention @ V (V likewise); then B an activation
// of stride N, 4 KB multiples among them; then B's stride alone.
void TransformerShapes(benchmark::internal::Benchmark* b) {
  for (int64_t form = 0; form < 3; ++form) {
    for (int64_t d : {64, 256, 768})
      for (int64_t seq : {10, 128}) {
        b->Args({seq, 3 * d, d, d, 0, 1, 0, form});
        b->Args({seq, d, d, d, 0, 1, 0, form});
        b->Args({seq, 4 * d, d, d, 0, 1, 0, form});
        b->Args({seq, d, 4 * d, 4 * d, 0, 1, 0, form});
        b->Args({seq, seq, 64, 3 * d, 3 * d, 0, 1, form});
        b->Args({seq, 64, seq, seq, 3 * d, 0, 0, form});
      }
    for (auto m : std::vector<std::vector<int64_t>>{
             {128, 128, 128}, {128, 512, 128}, {128, 1024, 256}, {256, 768, 768}, {64, 3072, 768}, {128, 4096, 256}})
      b->Args({m[0], m[1], m[2], m[2], m[1], 0, 0, form});
    // attention @ V of d_model 1024 (V's rows 12 KB apart)
    b->Args({128, 64, 128, 128, 3072, 0, 0, form});
    b->Args({10, 64, 10, 10, 3072, 0, 0, form});
    // B's row stride alone: 4 KB multiples put a panel's rows in few L1 sets.
    for (int64_t ldb : {256, 272, 1024, 1040, 4096, 4112})
      for (int64_t k : {256, 768}) b->Args({128, 256, k, k, ldb, 0, 0, form});
  }
}

// Winograd F(m x m, 3x3) (aot_winograd.c) on the 3x3 stride-1 layers its
// rule picks (codegen/kernel_scratch.cc), ReLU in the store; GFLOP/s counted
// as the direct convolution's 2 * Cout * OH * OW * Cin * 9, so the rows read
// against AotConv's on the same layer. args: Cin, H (= W), Cout, m (2: the
// default of compiled models, 4: `--winograd 4`).
void AotWinograd(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1), M = s.range(2);
  const int m = static_cast<int>(s.range(3));
  const aot__conv_geom g = {C, H, H, 3, 3, 1, 1, 1, 1, 1, 1, H, H};
  std::vector<float> x = Random(static_cast<size_t>(C * H * H)), w = Random(static_cast<size_t>(M * C * 9)),
                     y(static_cast<size_t>(M * H * H)), tmp(static_cast<size_t>(M * C));
  std::vector<float> u(static_cast<size_t>(aot__wino_packed_floats(m, M, C)));
  aot__wino_pack(m, M, C, w.data(), tmp.data(), u.data());
  std::vector<float> scratch(static_cast<size_t>(aot__wino_scratch_floats(m, &g, M)));
  const int64_t rows = aot__wino_tile_rows(m, &g);
  aot__epilogue ep = {};
  ep.act = AOT_ACT_RELU;
  for (auto _ : s) {
    aot__conv2d_wino_range(m, &g, M, x.data(), u.data(), y.data(), &ep, scratch.data(), 0, rows);
    benchmark::DoNotOptimize(y.data());
  }
  s.SetLabel("scratch " + std::to_string(scratch.size() * 4 / 1024) + " KB");
  Flops(s, 2.0 * M * H * H * C * 9);
}

// args: C, H (= W), stride, k (padding k / 2)
void AotDepthwise(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1), st = s.range(2), k = s.range(3), p = k / 2;
  aot__conv_geom g = {C, H, H, k, k, st, st, p, p, 1, 1, 0, 0};
  g.OH = g.OW = (H + 2 * p - k) / st + 1;
  std::vector<float> x = Random(static_cast<size_t>(C * H * H)), w = Random(static_cast<size_t>(C * k * k)),
                     y(static_cast<size_t>(C * g.OH * g.OW));
  aot__epilogue ep = {};
  ep.act = AOT_ACT_CLAMP;
  ep.hi = 6;
  for (auto _ : s) {
    aot__conv2d_depthwise(&g, x.data(), w.data(), y.data(), &ep);
    benchmark::DoNotOptimize(y.data());
  }
  Flops(s, 2.0 * C * g.OH * g.OW * k * k);
}

// args: C, H (= W): 3x3 max pooling, stride 2, padding 1 (ResNet's and
// DenseNet's stem pool, GoogLeNet's).
void AotMaxPool(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1);
  aot__conv_geom g = {C, H, H, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0};
  g.OH = g.OW = (H + 2 - 3) / 2 + 1;
  std::vector<float> x = Random(static_cast<size_t>(C * H * H)), y(static_cast<size_t>(C * g.OH * g.OW));
  for (auto _ : s) {
    aot__max_pool2d_range(&g, x.data(), y.data(), 0, C);
    benchmark::DoNotOptimize(y.data());
  }
}

// A convolution (padding k / 2, ReLU in the store) and the max pooling
// that alone reads it (pk 3: 3x3 stride 2 padding 1, ResNet's stem; pk 2:
// 2x2 stride 2, VGG's blocks): unfused (units 0: the whole convolution into
// its C x OH x OW result, then the pooling), or in bands
// (aot__conv_band_range) split into `units` ranges as that many threads
// would split them, one after another here. args: C, H, Cout, k, stride, pk,
// units.
void AotConvPool(benchmark::State& s) {
  const int64_t C = s.range(0), H = s.range(1), Co = s.range(2), k = s.range(3), st = s.range(4), pk = s.range(5),
                units = s.range(6), p = k / 2;
  aot__conv_geom cg = {C, H, H, k, k, st, st, p, p, 1, 1, 0, 0};
  cg.OH = cg.OW = (H + 2 * p - k) / st + 1;
  const int64_t pp = pk == 3 ? 1 : 0, M = Co, N = cg.OH * cg.OW, K = C * k * k;
  aot__conv_geom pg = {Co, cg.OH, cg.OW, pk, pk, 2, 2, pp, pp, 1, 1, 0, 0};
  pg.OH = pg.OW = (cg.OH + 2 * pp - pk) / 2 + 1;
  std::vector<float> x = Random(static_cast<size_t>(C * H * H)), w = Random(static_cast<size_t>(M * K)),
                     y(static_cast<size_t>(M * pg.OH * pg.OW));
  std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
  aot__sgemm_pack_a(M, K, w.data(), K, 1, pw.data());
  const aot__operand A = {pw.data(), 0, 0, 1, nullptr}, B = {x.data(), 0, 0, 0, &cg};
  aot__epilogue ep = {};
  ep.act = AOT_ACT_RELU;
  const int64_t bands = aot__conv_bands(&cg, &pg, AOT_BAND_MAX_POOL, M);
  const int64_t slot = units ? aot__conv_band_scratch_floats(&cg, &pg, AOT_BAND_MAX_POOL, M, K, 1) : 0;
  std::vector<float> conv(units ? 0 : static_cast<size_t>(M * N)),
      scratch(static_cast<size_t>(units ? units * slot : aot__sgemm_scratch_floats(M, N, K, AOT_GEMM_PACK_B)));
  for (auto _ : s) {
    if (units == 0) {
      aot__sgemm(M, N, K, &A, &B, conv.data(), N, 1, &ep, scratch.data());
      aot__max_pool2d_range(&pg, conv.data(), y.data(), 0, M);
    } else {
      for (int64_t u = 0; u < units; ++u)
        aot__conv_band_range(&cg, &pg, AOT_BAND_MAX_POOL, M, K, 1, pw.data(), x.data(), &ep, nullptr, nullptr, y.data(),
                             scratch.data() + u * slot, u * bands / units, (u + 1) * bands / units);
    }
    benchmark::DoNotOptimize(y.data());
  }
  s.SetLabel("bands=" + std::to_string(bands));
  Flops(s, 2.0 * M * N * K);
}

// GEMM shapes (M, N, K): ResNet-50's convolutions as im2col GEMMs, a
// transformer block's projections (128 tokens, d=768, ffn 3072).
void GemmShapes(benchmark::internal::Benchmark* b) {
  for (auto s : std::vector<std::vector<int64_t>>{{64, 12544, 147},
                                                  {64, 3136, 576},
                                                  {128, 784, 1152},
                                                  {256, 196, 2304},
                                                  {512, 49, 4608},
                                                  {256, 3136, 64},
                                                  {64, 3136, 256},
                                                  {1024, 196, 256},
                                                  {2048, 49, 512},
                                                  {3072, 128, 768},
                                                  {768, 128, 3072},
                                                  {768, 128, 768}})
    b->Args(s);
}

// Convolutions (Cin, H, Cout, k, stride): ResNet-50 and MobileNetV2 layers
// (ResNet's stride-2 3x3s too),
// then DenseNet-121's 3x3 layers (32 output channels: packing the image
// costs as much as the product), then AotWinograd's other layers.
void ConvShapes(benchmark::internal::Benchmark* b) {
  for (auto s : std::vector<std::vector<int64_t>>{{3, 224, 64, 7, 2},
                                                  {3, 224, 32, 3, 2},  // MobileNetV2's, EfficientNet-B0's stem
                                                  {64, 56, 64, 3, 1},
                                                  {128, 28, 128, 3, 1},
                                                  {256, 14, 256, 3, 1},
                                                  {512, 7, 512, 3, 1},
                                                  {64, 56, 256, 1, 1},
                                                  {256, 56, 64, 1, 1},
                                                  {256, 56, 512, 1, 2},
                                                  {64, 56, 128, 3, 2},
                                                  {128, 28, 256, 3, 2},
                                                  {16, 112, 96, 1, 1},
                                                  {144, 56, 24, 1, 1},
                                                  {960, 7, 320, 1, 1},
                                                  {128, 56, 32, 3, 1},
                                                  {128, 28, 32, 3, 1},
                                                  {128, 14, 32, 3, 1},
                                                  {128, 7, 32, 3, 1},
                                                  // the other layers of AotWinograd
                                                  {96, 28, 128, 3, 1},
                                                  {64, 56, 192, 3, 1}})
    for (int64_t force : {0, 1})
      if (!force || (s[3] == 1 && s[4] == 1)) {
        std::vector<int64_t> a = s;
        a.push_back(force);
        b->Args(a);
      }
}

BENCHMARK(OpenBlas)->Apply(GemmShapes)->Unit(benchmark::kMicrosecond);
BENCHMARK(AotGemm)->Apply(GemmShapes)->Unit(benchmark::kMicrosecond);
BENCHMARK(AotConv)->Apply(ConvShapes)->Unit(benchmark::kMicrosecond);
BENCHMARK(AotTransformer)->Apply(TransformerShapes)->Unit(benchmark::kMicrosecond);
// ResNet's 56 and 28 layers, DenseNet-121's, a wider one (GoogLeNet-like);
// F(2x2) and F(4x4) each.
void WinogradShapes(benchmark::internal::Benchmark* b) {
  for (auto s : std::vector<std::vector<int64_t>>{
           {64, 56, 64}, {128, 28, 128}, {128, 56, 32}, {128, 28, 32}, {96, 28, 128}, {64, 56, 192}})
    for (int64_t m : {2, 4}) b->Args({s[0], s[1], s[2], m});
}
BENCHMARK(AotWinograd)->Apply(WinogradShapes)->Unit(benchmark::kMicrosecond);
// MobileNetV2's 3x3 and EfficientNet-B0's 5x5 layers.
BENCHMARK(AotConvPool)
    ->Args({3, 224, 64, 7, 2, 3, 0})
    ->Args({3, 224, 64, 7, 2, 3, 1})
    ->Args({3, 224, 64, 7, 2, 3, 4})
    ->Args({3, 224, 64, 3, 1, 2, 0})
    ->Args({3, 224, 64, 3, 1, 2, 1})
    ->Args({64, 112, 128, 3, 1, 2, 0})
    ->Args({64, 112, 128, 3, 1, 2, 1})
    ->Args({64, 56, 192, 3, 1, 3, 0})
    ->Args({64, 56, 192, 3, 1, 3, 1})
    ->Args({64, 56, 192, 3, 1, 3, 2})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(AotMaxPool)->Args({64, 112})->Args({192, 56})->Args({480, 28})->Unit(benchmark::kMicrosecond);
BENCHMARK(AotDepthwise)
    ->Args({144, 56, 1, 3})
    ->Args({96, 112, 2, 3})
    ->Args({144, 56, 2, 3})
    ->Args({192, 28, 2, 3})
    ->Args({576, 14, 2, 3})
    ->Args({384, 14, 1, 3})
    ->Args({960, 7, 1, 3})
    ->Args({240, 28, 1, 5})
    ->Args({672, 14, 2, 5})
    ->Args({1152, 7, 1, 5})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
