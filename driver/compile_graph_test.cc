// PlanForCodegen's per-convolution Winograd decision (issue 17's fusion-aware
// scratch): a convolution whose Winograd scratch raises the plan's peak is
// kept on im2col GEMM, one whose scratch fits under a peak set elsewhere
// keeps Winograd; the C source and the plan follow the decision.
#include "driver/compile_graph.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "ir/parser.h"
#include "ir/test_op_table.h"

namespace atenaot {
namespace {

// A 3x3 convolution, 64 -> 32 channels on 56x56 maps, which Winograd takes
// (codegen/kernel_scratch.cc ChooseWinograd); `extra` adds ops after it.
std::string ConvGraph(const std::string& inputs, const std::string& extra, const std::string& ret) {
  return "graph @f(%x: f32[1,64,56,56]@s0" + inputs +
         ") {\n"
         "  weight %w: f32[32,64,3,3]@s1 = \"w\"\n"
         "  %c = aten::conv2d(%x, %w, none, [1, 1], [1, 1], [1, 1], 1) : f32[1,32,56,56]@s2\n"
         "  %r = aten::relu(%c) : f32[1,32,56,56]@s3\n" +
         extra + "  return " + ret + "\n}\n";
}

// The comment on a Winograd convolution's transformed filters in the C
// source (the kernel library's text is in every source, so its function
// names are not); the default tile is F(2x2, 3x3).
constexpr char kWinogradFilters[] = "as Winograd F(";

struct Planned {
  std::unique_ptr<Graph> g;
  MemoryPlan plan;
  std::unordered_set<const Node*> im2col;
  std::string timing;
  std::string source;
};

Planned Plan(const std::string& ir, int winograd = 2) {
  Planned p;
  auto g = ParseGraph(ir, SnapshotOpTable());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  p.g = std::move(*g);
  WeightData& w = p.g->weights()["w"];
  w.meta.dtype = DType::kFloat32;
  w.meta.sizes = {32, 64, 3, 3};
  w.meta.strides = {576, 9, 3, 1};
  std::vector<float> f(32 * 64 * 9);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-0.1f, 0.1f);
  for (float& v : f) v = d(rng);
  w.bytes.resize(f.size() * 4);
  std::memcpy(w.bytes.data(), f.data(), w.bytes.size());
  std::ostringstream timing;
  PipelineOptions popts;
  popts.timing = &timing;
  CodegenOptions copts;
  copts.name = "m";
  copts.winograd = winograd;
  auto none = [](Graph&) { return Status::Ok(); };  // the IR's types are complete
  KernelPlan kernels;
  auto plan = PlanForCodegen(*p.g, SnapshotOpTable(), none, "best", popts, 64, true, copts, &p.im2col, &kernels);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  if (!plan.ok()) return p;
  p.plan = std::move(*plan);
  p.timing = timing.str();
  copts.im2col_convs = p.im2col;
  auto c = GenerateC(*p.g, p.plan, kernels, copts);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  if (c.ok()) p.source = c->source;
  return p;
}

// Alone, the convolution's input and output are the caller's: the arena is
// the kernel's scratch, and Winograd's (a transformed tile block, 36 GEMM
// panels) is larger than im2col's packed panel, so it would set the peak.
TEST(WinogradRefusal, ConvolutionAtThePeakStaysOnIm2col) {
  Planned p = Plan(ConvGraph("", "", "%r"));
  EXPECT_EQ(p.im2col.size(), 1u);
  EXPECT_NE(p.timing.find("winograd: 1 convolution(s) kept on im2col GEMM"), std::string::npos) << p.timing;
  EXPECT_EQ(p.source.find(kWinogradFilters), std::string::npos);
  EXPECT_NE(p.source.find("aot__sgemm_mt(32, 3136, 576, "), std::string::npos);  // im2col: M, N, K
}

// Two convolutions of the same input, each at the peak (their results are
// the caller's, so each level is its scratch alone): refusing either one
// alone leaves the peak where it was, so a one-at-a-time rule kept both; both
// stay on im2col GEMM.
TEST(WinogradRefusal, ConvolutionsOnAPlateauAllStayOnIm2col) {
  Planned p = Plan(ConvGraph("",
                             "  %c2 = aten::conv2d(%x, %w, none, [1, 1], [1, 1], [1, 1], 1) : f32[1,32,56,56]@s4\n"
                             "  %r2 = aten::relu(%c2) : f32[1,32,56,56]@s5\n",
                             "(%r, %r2)"));
  EXPECT_EQ(p.im2col.size(), 2u);
  EXPECT_NE(p.timing.find("winograd: 2 convolution(s) kept on im2col GEMM"), std::string::npos) << p.timing;
  EXPECT_EQ(p.source.find(kWinogradFilters), std::string::npos);
}

// A 16 MB product of a second input, live across the convolution, sets the
// peak: Winograd's scratch fits under it and stays (ties keep Winograd).
TEST(WinogradRefusal, ConvolutionUnderAHigherPeakKeepsWinograd) {
  Planned p = Plan(ConvGraph(", %y: f32[4,1024,1024]@s4",
                             "  %a = aten::mul.Scalar(%y, 2.0) : f32[4,1024,1024]@s5\n"
                             "  %b = aten::exp(%a) : f32[4,1024,1024]@s6\n"
                             "  %s = aten::sum(%a) : f32[]@s7\n"
                             "  %t = aten::sum(%b) : f32[]@s8\n",
                             "(%r, %s, %t)"));
  EXPECT_TRUE(p.im2col.empty());
  EXPECT_NE(p.timing.find("winograd: 0 convolution(s) kept on im2col GEMM"), std::string::npos) << p.timing;
  EXPECT_NE(p.source.find(kWinogradFilters), std::string::npos);
}

// `compile --winograd 2|4|off`: the same convolution, under the same higher
// peak, as F(2x2, 3x3), F(4x4, 3x3) or on im2col GEMM (no Winograd at all).
TEST(WinogradOption, TwoTakesF2x2FourF4x4AndZeroNone) {
  const std::string ir = ConvGraph(", %y: f32[4,1024,1024]@s4",
                                   "  %a = aten::mul.Scalar(%y, 2.0) : f32[4,1024,1024]@s5\n"
                                   "  %s = aten::sum(%a) : f32[]@s7\n",
                                   "(%r, %s)");
  Planned two = Plan(ir, 2);
  EXPECT_NE(two.source.find("as Winograd F(2x2, 3x3) filters"), std::string::npos);
  EXPECT_EQ(two.source.find("as Winograd F(4x4, 3x3) filters"), std::string::npos);
  Planned four = Plan(ir, 4);
  EXPECT_NE(four.source.find("as Winograd F(4x4, 3x3) filters"), std::string::npos);
  EXPECT_EQ(four.source.find("as Winograd F(2x2, 3x3) filters"), std::string::npos);
  Planned off = Plan(ir, 0);
  EXPECT_TRUE(off.im2col.empty());  // nothing to refuse: Winograd was never chosen
  EXPECT_EQ(off.source.find("as Winograd F("), std::string::npos);
  EXPECT_NE(off.source.find("aot__sgemm_mt(32, 3136, 576, "), std::string::npos);
}

}  // namespace
}  // namespace atenaot
