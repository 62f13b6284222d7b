// GEMM and convolution split over threads (aot__sgemm_mt: column or row
// ranges, one packing-scratch slot per thread) give the same bits for any
// thread count: one compiled library, with every kernel split (tiny grain),
// runs on 1, 2 and 3 threads; the runs must be bitwise equal and equal eager.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <regex>

#include "capture/cpp_trace.h"
#include "capture/load_model.h"
#include "capture/tensor_convert.h"
#include "driver/compile_graph.h"
#include "interp/annotate.h"
#include "io/npy.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/compiled_runner.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {
namespace {

namespace fs = std::filesystem;

bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.nbytes()) == 0;
}

// Whether the generated C splits a GEMM by columns (split_n 1) or rows (0).
bool SplitsGemm(const std::string& source, bool by_columns) {
  return std::regex_search(source,
                           std::regex(std::string(R"(aot__sgemm_mt\([^;]*, )") + (by_columns ? "1" : "0") + R"(\);)"));
}

// max |got - want| <= tol * max |want|: kernels that round differently
// from eager's sums, bounded by the output's scale.
void ExpectWithinScale(const at::Tensor& want, const at::Tensor& got, double tol) {
  const double scale = want.abs().max().item<double>(), err = (got - want).abs().max().item<double>();
  EXPECT_LE(err, tol * scale) << "max |compiled - eager| " << err << " over max |eager| " << scale;
}

// Runs r.runs[0] against every later run, tensor by tensor.
void ExpectRunsBitwiseEqual(const CompiledRun& r) {
  ASSERT_EQ(r.runs.size(), 3u);
  for (size_t k = 1; k < r.runs.size(); ++k) {
    ASSERT_EQ(r.runs[k].size(), r.runs[0].size());
    for (size_t i = 0; i < r.runs[0].size(); ++i)
      EXPECT_TRUE(SameBits(r.runs[0][i], r.runs[k][i])) << "output " << i << " on " << k + 1 << " threads differs";
  }
}

// fn traced on `inputs` and compiled into threads_NAME with every kernel
// split (tiny grain), run on 1, 2 and 3 threads (r.error: why not); eager's
// outputs of the same inputs in *expected.
CompiledRun TraceAndRun(const CppProgram& fn, std::vector<at::Tensor>& inputs, const std::string& name,
                        std::vector<at::Tensor>* expected, int winograd = 2) {
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  if (!g.ok()) {
    CompiledRun r;
    r.error = "tracing failed: " + g.status().ToString();
    return r;
  }
  *expected = fn(inputs);
  return CompileAndRun(**g, inputs, ::testing::TempDir() + "/threads_" + name, "-Wall -Wextra -Werror", false,
                       {1, 2, 3}, winograd);
}

// The examples' CNN and MLP: their convolutions and linears split by columns.
void RunExample(const std::string& name) {
  const fs::path dir = fs::path("examples") / name;
  auto x = ReadNpy((dir / "input_0.npy").string());
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  auto g = LoadModel((dir / "model.pt").string(), {*x}, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<at::Tensor> ins = {TensorFromNpy(*x)};
  CompiledRun r =
      CompileAndRun(**g, ins, ::testing::TempDir() + "/threads_" + name, "-Wall -Wextra -Werror", false, {1, 2, 3});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(SplitsGemm(r.source, true)) << "no GEMM was split: the test would prove nothing";
  ExpectRunsBitwiseEqual(r);
  auto want = ReadNpy((dir / "expected" / "output_0.npy").string());
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(CompareTensorLists({TensorFromNpy(*want)}, r.outputs, "output"), "");
}

TEST(ThreadsBitwise, ConvNet) { RunExample("cnn"); }
TEST(ThreadsBitwise, Mlp) { RunExample("mlp"); }

// Many output channels over few pixels: the convolution splits by rows
// (each thread packs the whole im2col panel into its own slot).
TEST(ThreadsBitwise, ConvSplitByRows) {
  at::manual_seed(5);
  const at::Tensor w = at::randn({64, 16, 3, 3}) * 0.1, b = at::randn({64});
  CppProgram fn = [w, b](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    return {at::relu(at::conv2d(in[0], w, b, {1, 1}, {1, 1}))};
  };
  std::vector<at::Tensor> inputs = {at::randn({2, 16, 4, 4})};
  std::vector<at::Tensor> expected;
  CompiledRun r = TraceAndRun(fn, inputs, "rows", &expected);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(SplitsGemm(r.source, false)) << "no GEMM was split by rows";
  ExpectRunsBitwiseEqual(r);
  EXPECT_EQ(CompareTensorLists(expected, r.outputs, "output"), "");
}

// Winograd convolutions, F(2x2, 3x3) (the default) and F(4x4, 3x3)
// (`--winograd 4`), 64 channels in, maps 28 and more wide
// (codegen/kernel_scratch.cc's rule), two images, with a bias (the first) or
// a residual add and relu (the second) in the store; the one Winograd keeps
// splits by blocks of tile rows; against eager.
TEST(ThreadsBitwise, WinogradSplitByTileRows) {
  at::manual_seed(7);
  const at::Tensor w1 = at::randn({48, 64, 3, 3}) * 0.05, b1 = at::randn({48}), w2 = at::randn({64, 64, 3, 3}) * 0.05;
  // t (7 MB, live across both) raises the peak: without it F(2x2)'s larger
  // scratch is refused for both convolutions.
  CppProgram fn = [w1, b1, w2](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    const at::Tensor t = at::exp(at::cat(std::vector<at::Tensor>(16, in[0]), 1));
    const at::Tensor a = at::relu(at::conv2d(in[0], w1, b1, {1, 1}, {1, 1}));
    return {at::relu(at::conv2d(at::cat({a, a.slice(1, 0, 16)}, 1), w2, at::Tensor(), at::IntArrayRef{1, 1},
                                at::IntArrayRef{0, 2}) +
                     in[1]) +
            t.mean()};
  };
  for (int m : {2, 4}) {
    SCOPED_TRACE("F(" + std::to_string(m) + "x" + std::to_string(m) + ", 3x3)");
    std::vector<at::Tensor> inputs = {at::randn({2, 64, 30, 29}), at::randn({2, 64, 28, 31})};
    std::vector<at::Tensor> expected;
    CompiledRun r = TraceAndRun(fn, inputs, "winograd" + std::to_string(m), &expected, m);
    ASSERT_EQ(r.error, "");
    const std::string call = "aot__wino_mt(" + std::to_string(m) + ", &geom";
    size_t calls = 0;
    for (size_t at = r.source.find(call); at != std::string::npos; at = r.source.find(call, at + 1)) ++calls;
    // PlanForCodegen keeps a convolution on im2col GEMM where Winograd's
    // scratch raised the peak (one of the two here): one call.
    EXPECT_EQ(calls, 1u) << "one convolution should run as Winograd, split over threads";
    ExpectRunsBitwiseEqual(r);
    // Winograd rounds differently from eager's direct sums: bound the error
    // by the output's scale (kernels_test bounds it per element).
    ASSERT_EQ(r.outputs.size(), 1u);
    ExpectWithinScale(expected[0], r.outputs[0], m == 2 ? 2e-6 : 2e-5);
  }
}

// Depthwise convolutions (3x3 and 5x5, stride 1 and 2, two images) split
// by (image, channel) ranges on the pool.
TEST(ThreadsBitwise, DepthwiseSplitByChannels) {
  at::manual_seed(6);
  const at::Tensor w3 = at::randn({24, 1, 3, 3}) * 0.3, b3 = at::randn({24}), w5 = at::randn({24, 1, 5, 5}) * 0.2;
  CppProgram fn = [w3, b3, w5](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    const at::Tensor a = at::clamp(at::conv2d(in[0], w3, b3, {1, 1}, {1, 1}, {1, 1}, 24), 0, 6);
    const at::Tensor c = at::conv2d(a, w5, {}, {2, 2}, {2, 2}, {1, 1}, 24);
    return {at::silu(c)};
  };
  std::vector<at::Tensor> inputs = {at::randn({2, 24, 23, 23})};
  std::vector<at::Tensor> expected;
  CompiledRun r = TraceAndRun(fn, inputs, "depthwise", &expected);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(std::regex_search(r.source, std::regex(R"(aot__parallel_for\([^;]*_part)")) &&
              r.source.find("aot__conv2d_depthwise_range(&geom") != std::string::npos)
      << "no depthwise convolution was split: the test would prove nothing";
  ExpectRunsBitwiseEqual(r);
  EXPECT_EQ(CompareTensorLists(expected, r.outputs, "output"), "");
}

// An expansion and the depthwise convolution reading it (MobileNet's
// inverted bottleneck) on a map 14 wide: one band, so the pair splits by
// channel chunks of whole 8-row tiles instead (44 channels: 16 and 28),
// likewise a convolution and the max pooling reading it; against eager.
TEST(ThreadsBitwise, OneBandPairsSplitByChannelChunks) {
  at::manual_seed(8);
  const at::Tensor we = at::randn({44, 16, 1, 1}) * 0.3, be = at::randn({44}), wd = at::randn({44, 1, 3, 3}) * 0.3,
                   bd = at::randn({44}), wc = at::randn({40, 16, 3, 3}) * 0.1;
  CppProgram fn = [we, be, wd, bd, wc](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    const at::Tensor e = at::clamp(at::conv2d(in[0], we, be), 0, 6);
    const at::Tensor d = at::clamp(at::conv2d(e, wd, bd, {1, 1}, {1, 1}, {1, 1}, 44), 0, 6);
    const at::Tensor c = at::relu(at::conv2d(in[0], wc, {}, {1, 1}, {1, 1}));
    return {d, at::max_pool2d(c, {3, 3}, {2, 2}, {1, 1})};
  };
  std::vector<at::Tensor> inputs = {at::randn({2, 16, 14, 14})};
  std::vector<at::Tensor> expected;
  CompiledRun r = TraceAndRun(fn, inputs, "band_chunks", &expected);
  ASSERT_EQ(r.error, "");
  EXPECT_NE(r.source.find("aot__conv_band_mt(&cgeom, &qgeom, AOT_BAND_DEPTHWISE, 44, 16, 2,"), std::string::npos)
      << "the expansion and depthwise pair did not split into two channel chunks";
  EXPECT_NE(r.source.find("aot__conv_band_mt(&cgeom, &qgeom, AOT_BAND_MAX_POOL, 40, 144, 2,"), std::string::npos)
      << "the convolution and pooling pair did not split into two channel chunks";
  ExpectRunsBitwiseEqual(r);
  EXPECT_EQ(CompareTensorLists(expected, r.outputs, "output"), "");
}

// Convolutions on channels-last images (ConvNeXt's downsampling layers
// read LayerNorm2d's permuted result, and LibTorch lays their results and
// the stage after them out channels-last too) run in the library: the
// image gathered into CHW order in the kernel's scratch, the GEMM storing
// through the result's strides, a residual add in its store; a 2x2
// stride-2 im2col convolution, a 7x7 depthwise one (the channels-last
// kernel) and a pointwise one (odd channel counts), two images, against
// eager.
TEST(ThreadsBitwise, ChannelsLastConvolutionsRunInTheLibrary) {
  at::manual_seed(9);
  const at::Tensor w1 = at::randn({40, 24, 2, 2}) * 0.2, b1 = at::randn({40}), w2 = at::randn({36, 40, 1, 1}) * 0.2,
                   wd = at::randn({40, 1, 7, 7}) * 0.1, bd = at::randn({40});
  CppProgram fn = [w1, b1, w2, wd, bd](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    const at::Tensor x = in[0].permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});  // NHWC strides
    const at::Tensor d = at::conv2d(x, w1, b1, {2, 2});
    const at::Tensor e = at::conv2d(d, wd, bd, {1, 1}, {3, 3}, {1, 1}, 40);  // ConvNeXt's depthwise layer
    return {at::conv2d(e, w2) + in[1].permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2})};
  };
  std::vector<at::Tensor> inputs = {at::randn({2, 24, 30, 26}), at::randn({2, 36, 15, 13})};
  std::vector<at::Tensor> expected;
  CompiledRun r = TraceAndRun(fn, inputs, "channels_last", &expected);
  ASSERT_EQ(r.error, "");
  ASSERT_FALSE(expected[0].is_contiguous()) << "LibTorch's result is no longer channels-last: the test proves less";
  EXPECT_NE(r.source.find("aot__gather_chw(24, 30, 26, "), std::string::npos) << "the image was not gathered";
  size_t gemms = 0;
  for (size_t at = r.source.find("aot__sgemm"); at != std::string::npos; at = r.source.find("aot__sgemm", at + 1))
    gemms += r.source.compare(at, 16, "aot__sgemm_range") != 0;
  EXPECT_GE(gemms, 2u) << "the convolutions did not run as library GEMMs";
  EXPECT_NE(r.source.find("aot__conv2d_depthwise_cl(&geom"), std::string::npos)
      << "the depthwise convolution did not run as the channels-last kernel";
  ExpectRunsBitwiseEqual(r);
  ASSERT_EQ(r.outputs.size(), 1u);
  ExpectWithinScale(expected[0], r.outputs[0], 1e-5);
}

// DenseNet's pattern: an eval batch norm and relu_ of a concatenation read
// by a 1x1 convolution (and a batch norm alone in front of another, after a
// second concatenation): the
// GEMMs apply them as they pack the image (aot__prologue), so no
// elementwise kernel stores them; bitwise on 1, 2 and 3 threads, and within
// 1e-5 of eager's scale.
TEST(ThreadsBitwise, BatchNormReluAppliedAsTheConvolutionPacks) {
  at::manual_seed(10);
  const at::Tensor wa = at::randn({16, 24, 3, 3}) * 0.1, w1 = at::randn({32, 40, 1, 1}) * 0.2, b1 = at::randn({32}),
                   w2 = at::randn({8, 56, 1, 1}) * 0.2;
  auto bn = [](int64_t c, int seed) {
    at::manual_seed(seed);
    return std::vector<at::Tensor>{at::rand({c}) + 0.5, at::randn({c}) * 0.2, at::randn({c}) * 0.5,
                                   at::rand({c}) + 0.1};
  };
  const std::vector<at::Tensor> n1 = bn(40, 11), n2 = bn(56, 12);
  CppProgram fn = [wa, w1, b1, w2, n1, n2](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    const at::Tensor c = at::cat({in[0], at::conv2d(in[0], wa, {}, {1, 1}, {1, 1})}, 1);
    at::Tensor h = at::batch_norm(c, n1[0], n1[1], n1[2], n1[3], false, 0.1, 1e-5, false);
    h.relu_();
    const at::Tensor c2 = at::cat({at::conv2d(h, w1, b1), in[0]}, 1);  // after a cat: no conv absorbs the norm
    return {at::conv2d(at::batch_norm(c2, n2[0], n2[1], n2[2], n2[3], false, 0.1, 1e-5, false), w2)};
  };
  std::vector<at::Tensor> inputs = {at::randn({2, 24, 20, 18})};
  std::vector<at::Tensor> expected;
  CompiledRun r = TraceAndRun(fn, inputs, "prologue", &expected);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(std::regex_search(r.source, std::regex(R"(const aot__prologue pro = \{[^;]*, 1\};)")))
      << "no batch norm and relu in a packing: the test proves nothing";
  EXPECT_TRUE(std::regex_search(r.source, std::regex(R"(const aot__prologue pro = \{[^;]*, 0\};)")))
      << "no batch norm alone in a packing";
  EXPECT_EQ(r.source.find("aten::addcmul"), std::string::npos) << "a batch norm still ran as its own kernel";
  EXPECT_TRUE(SplitsGemm(r.source, true)) << "no GEMM was split: the test would prove less";
  ExpectRunsBitwiseEqual(r);
  ASSERT_EQ(r.outputs.size(), 1u);
  ExpectWithinScale(expected[0], r.outputs[0], 1e-5);
}

// A 1x1 convolution (32 -> 32 channels) whose input dies at it writes over
// its input (LibraryGemm::in_place), split by columns over the threads:
// bitwise on 1, 2 and 3 threads, and within 1e-5 of eager's scale.
TEST(ThreadsBitwise, PointwiseConvolutionOverItsInput) {
  at::manual_seed(14);
  const at::Tensor wa = at::randn({32, 24, 3, 3}) * 0.1, wp = at::randn({32, 32, 1, 1}) * 0.2, bp = at::randn({32}),
                   wb = at::randn({8, 32, 3, 3}) * 0.1;
  CppProgram fn = [wa, wp, bp, wb](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    const at::Tensor t = at::conv2d(in[0], wa, {}, {1, 1}, {1, 1});
    return {at::conv2d(at::relu(at::conv2d(t, wp, bp)), wb, {}, {2, 2}, {1, 1})};
  };
  std::vector<at::Tensor> inputs = {at::randn({2, 24, 20, 18})};
  std::vector<at::Tensor> expected;
  CompiledRun r = TraceAndRun(fn, inputs, "in_place", &expected);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(std::regex_search(
      r.source, std::regex(R"(float\* const p[0-9]+ = \(float\*\)\(\(arena \+ ([0-9]+)\) \+ 0\);\n  float\* const )"
                           R"(p[0-9]+ = \(float\*\)\(\(arena \+ \1\) \+ 0\);\n  float\* const p[0-9]+ = [^\n]*\n  )"
                           R"(static const aot__conv_geom geom = \{32, 20, 18, 1, 1,)")))
      << "the 1x1 convolution does not read and write one buffer: the test proves nothing";
  EXPECT_TRUE(SplitsGemm(r.source, true)) << "no GEMM was split by columns";
  ExpectRunsBitwiseEqual(r);
  ASSERT_EQ(r.outputs.size(), 1u);
  ExpectWithinScale(expected[0], r.outputs[0], 1e-5);
}

// Without threads (`compile --embedded`, or threads off) the source has no
// thread code, and each GEMM plans one scratch slot.
TEST(ThreadsBitwise, NoThreadCodeWithoutThreads) {
  auto x = ReadNpy("examples/cnn/input_0.npy");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  for (bool embedded : {false, true}) {
    auto g = LoadModel("examples/cnn/model.pt", {*x}, LiveOpTable());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    std::vector<at::Tensor> ins = {TensorFromNpy(*x)};
    CodegenOptions copts;
    copts.threads = false;
    copts.float_accumulation = embedded;
    copts.thread_grain = 1;  // would split everything, were there threads
    auto c = CompileGraph(
        **g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromRun(gg, ins); }, copts);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    for (const char* s : {"pthread", "aot__parallel_for", "aot__sgemm_mt"})
      EXPECT_EQ(c->c.source.find(s), std::string::npos) << s << (embedded ? " (embedded)" : "");
    if (!embedded) EXPECT_NE(c->c.source.find("aot__sgemm("), std::string::npos);
  }
}

}  // namespace
}  // namespace atenaot
