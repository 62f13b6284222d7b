#include "passes/decompose.h"

#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/test_op_table.h"
#include "ir/verifier.h"

namespace atenaot {
namespace {

TEST(Decompose, RewritesCompositesIntoSupportedOps) {
  auto g = ParseGraph(R"(graph @f(%x: f32[3,4]@s0, %y: f32[3,4]@s1) {
  %s = aten::stack([%x, %y], 1) : f32[3,2,4]@s2
  %v = aten::var.dim(%x, [1], true, false) : f32[3]@s3
  return (%s, %v)
}
)",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(Decompose(**g, SnapshotOpTable()).ok());
  ASSERT_TRUE(VerifyGraph(**g).ok()) << VerifyGraph(**g).ToString();
  std::string text = PrintGraph(**g);
  EXPECT_EQ(text.find("aten::stack"), std::string::npos) << text;
  EXPECT_EQ(text.find("aten::var"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::unsqueeze(%x, 1) : f32[3,1,4]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::cat("), std::string::npos) << text;
  EXPECT_NE(text.find("aten::mean.dim(%x, [1], true, none) : f32[3,1]"), std::string::npos) << text;
  // n / (n - 1) for an unbiased variance of 4 elements.
  EXPECT_NE(text.find("aten::mul.Scalar("), std::string::npos) << text;
  EXPECT_NE(text.find(", 1.3333333333333333)"), std::string::npos) << text;
  EXPECT_GE(DecomposedOps().size(), 8u);
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(Decompose, UnrollsRecurrentLayersOverTheSequence) {
  // A 1-layer bidirectional GRU over 3 steps, batch_first: per direction one
  // linear for the input projection and one per step for the hidden state.
  auto g = ParseGraph(R"(graph @f(%x: f32[2,3,4]@s0, %h: f32[2,2,5]@s1, %wi: f32[15,4]@s2, %wh: f32[15,5]@s3,
    %bi: f32[15]@s4, %bh: f32[15]@s5, %ri: f32[15,4]@s6, %rh: f32[15,5]@s7, %ci: f32[15]@s8, %ch: f32[15]@s9) {
  %y, %hn = aten::gru.input(%x, %h, [%wi, %wh, %bi, %bh, %ri, %rh, %ci, %ch], true, 1, 0.0, false, true, true) : f32[2,3,10]@s10, f32[2,2,5]@s11
  return (%y, %hn)
}
)",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(Decompose(**g, SnapshotOpTable()).ok());
  ASSERT_TRUE(VerifyGraph(**g).ok()) << VerifyGraph(**g).ToString();
  std::string text = PrintGraph(**g);
  EXPECT_EQ(text.find("aten::gru"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "aten::linear("), 2 * (1 + 3)) << text;
  EXPECT_EQ(Count(text, "aten::sigmoid("), 2 * 3 * 2) << text;
  EXPECT_EQ(Count(text, "aten::tanh("), 2 * 3) << text;
  // Sequence-first inside, batch_first again for the result: [2, 3, 10].
  EXPECT_NE(text.find("aten::transpose.int(%x, 0, 1) : f32[3,2,4]"), std::string::npos) << text;
  EXPECT_NE(text.find(" : f32[2,3,10]"), std::string::npos) << text;
}

TEST(Decompose, NativeMultiHeadAttentionBecomesTheSlowPath) {
  // Self-attention (q is k is v): one fused qkv linear, softmax over keys,
  // the output projection; the bool key padding mask (mask_type 1) becomes a
  // masked_fill; need_weights=false leaves an empty second result.
  auto g = ParseGraph(
      R"(graph @f(%x: f32[2,5,8]@s0, %w: f32[24,8]@s1, %b: f32[24]@s2, %pw: f32[8,8]@s3, %pb: f32[8]@s4, %m: bool[2,5]@s5) {
  %y, %a = aten::_native_multi_head_attention(%x, %x, %x, 8, 2, %w, %b, %pw, %pb, %m, false, true, 1) : f32[2,5,8]@s6, f32[0]@s7
  return %y
}
)",
      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(Decompose(**g, SnapshotOpTable()).ok());
  ASSERT_TRUE(VerifyGraph(**g).ok()) << VerifyGraph(**g).ToString();
  std::string text = PrintGraph(**g);
  EXPECT_EQ(text.find("_native_multi_head_attention"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "aten::linear("), 2) << text;
  EXPECT_NE(text.find("aten::linear(%x, %w, %b) : f32[2,5,24]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::view(%m, [2, 1, 1, 5]) : bool[2,1,1,5]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::masked_fill.Scalar("), std::string::npos) << text;
  EXPECT_NE(text.find("aten::softmax.int("), std::string::npos) << text;
}

TEST(Decompose, RefusesTrainingDropoutBetweenRnnLayers) {
  auto g = ParseGraph(R"(graph @f(%x: f32[3,2,4]@s0, %h: f32[2,2,5]@s1) {
  weight %a: f32[5,4]@s2 = "a"
  weight %b: f32[5,5]@s3 = "b"
  weight %c: f32[5,5]@s4 = "c"
  weight %d: f32[5,5]@s5 = "d"
  %y, %hn = aten::rnn_tanh.input(%x, %h, [%a, %b, %c, %d], false, 2, 0.5, true, false, false) : f32[3,2,5]@s6, f32[2,2,5]@s7
  return (%y, %hn)
}
)",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Status s = Decompose(**g, SnapshotOpTable());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("eval mode"), std::string::npos) << s.ToString();
}

// Decomposes `body` (the graph text) and returns the printed result.
std::string Decomposed(const std::string& text) {
  auto g = ParseGraph(text, SnapshotOpTable());
  if (!g.ok()) return "parse: " + g.status().ToString();
  Status s = Decompose(**g, SnapshotOpTable());
  if (!s.ok()) return "decompose: " + s.ToString();
  if (!VerifyGraph(**g).ok()) return "verify: " + VerifyGraph(**g).ToString();
  return PrintGraph(**g);
}

TEST(Decompose, PadCropsThenConcatenatesFullBlocks) {
  // Last dim: 1 before, 2 after; dim 1: crop 1 at the end.
  std::string text = Decomposed(R"(graph @f(%x: f32[2,3,4]@s0) {
  %y = aten::constant_pad_nd(%x, [1, 2, 0, -1], 0.5) : f32[2,2,7]@s1
  return %y
}
)");
  EXPECT_EQ(text.find("constant_pad_nd"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::slice.Tensor(%x, 1, 0, 2, 1) : f32[2,2,4]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::full([2, 2, 1], 0.5, 6,"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::full([2, 2, 2], 0.5, 6,"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "aten::cat("), 1) << text;
  EXPECT_EQ(text.find("aten::clone"), std::string::npos) << text;  // the cat owns its memory
  // Other modes are not decomposed.
  EXPECT_NE(Decomposed(R"(graph @f(%x: f32[2,3,4]@s0) {
  %y = aten::pad(%x, [1, 1], "reflect", none) : f32[2,3,6]@s1
  return %y
}
)")
                .find("only constant padding"),
            std::string::npos);
}

TEST(Decompose, RollIsSliceAndCatPerDim) {
  std::string text = Decomposed(R"(graph @f(%x: f32[2,3,4]@s0) {
  %y = aten::roll(%x, [-1, 5], [-1, 0]) : f32[2,3,4]@s1
  %z = aten::roll(%x, [0], [1]) : f32[2,3,4]@s2
  return (%y, %z)
}
)");
  EXPECT_EQ(text.find("aten::roll"), std::string::npos) << text;
  // shift -1 on the last dim: [1, 4) then [0, 1); shift 5 on a dim of 2 is 1.
  EXPECT_NE(text.find("aten::slice.Tensor(%x, 2, 1, 4, 1) : f32[2,3,3]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::slice.Tensor(%x, 2, 0, 1, 1) : f32[2,3,1]"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "aten::cat("), 2) << text;
  // A roll by 0 still gives the result its own memory.
  EXPECT_NE(text.find("aten::clone(%x, none) : f32[2,3,4]"), std::string::npos) << text;
}

TEST(Decompose, RepeatIsAnExpandedCopy) {
  std::string text = Decomposed(R"(graph @f(%x: f32[2,3]@s0) {
  %y = aten::repeat(%x, [2, 1, 3]) : f32[2,2,9]@s1
  return %y
}
)");
  EXPECT_EQ(text.find("aten::repeat"), std::string::npos) << text;
  // [2, 3] -> [1, 2, 3] -> [1, 1, 1, 2, 1, 3], expanded to [2, 1, 1, 2, 3, 3],
  // copied (memory_format 0: contiguous), viewed as [2, 2, 9].
  EXPECT_NE(text.find("aten::unsqueeze(%x, 0) : f32[1,2,3]"), std::string::npos) << text;
  EXPECT_NE(text.find(", [2, 1, 1, 2, 3, 3], false) : f32[2,1,1,2,3,3]"), std::string::npos) << text;
  EXPECT_NE(text.find(", 0) : f32[2,1,1,2,3,3]"), std::string::npos) << text;
  EXPECT_NE(text.find(", [2, 2, 9]) : f32[2,2,9]"), std::string::npos) << text;
}

TEST(Decompose, RepeatWithFewerRepeatsThanDimsIsRefused) {
  const std::string text = Decomposed(R"(graph @f(%x: f32[2,3]@s0) {
  %y = aten::repeat(%x, [2]) : f32[2,3]@s1
  return %y
}
)");
  EXPECT_NE(text.find("decompose: "), std::string::npos) << text;
  EXPECT_NE(text.find("repeat needs at least as many repeats (1) as the tensor has dimensions (2)"), std::string::npos)
      << text;
}

TEST(Decompose, NewZerosAndNormsUseSupportedOps) {
  std::string text = Decomposed(R"(graph @f(%x: f32[2,5]@s0) {
  %z = aten::new_zeros(%x, [3], none, none, none, none) : f32[3]@s1
  %n = aten::norm.ScalarOpt_dim(%x, 2, [-1], true) : f32[2,1]@s2
  %m = aten::norm.ScalarOpt_dim(%x, inf, [1], false) : f32[2]@s3
  %p = aten::norm.ScalarOpt_dim(%x, 3, [1], false) : f32[2]@s4
  return (%z, %n, %m, %p)
}
)");
  EXPECT_EQ(text.find("new_zeros"), std::string::npos) << text;
  EXPECT_EQ(text.find("aten::norm"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::zeros([3], 6, none, device(\"cpu\"), none) : f32[3]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::sqrt("), std::string::npos) << text;
  EXPECT_NE(text.find("aten::amax("), std::string::npos) << text;
  EXPECT_NE(text.find("aten::pow.Tensor_Scalar("), std::string::npos) << text;
  EXPECT_NE(text.find(", 0.3333333333333333)"), std::string::npos) << text;
}

TEST(Decompose, LogsumexpFlipAndFrobeniusNormUseSupportedOps) {
  std::string text = Decomposed(R"(graph @f(%x: f32[2,5]@s0) {
  %l = aten::logsumexp(%x, [1], false) : f32[2]@s1
  %r = aten::flip(%x, [-1, 0]) : f32[2,5]@s2
  %n = aten::frobenius_norm.dim(%x, [0, 1], false) : f32[]@s3
  %c = aten::flip(%x, []) : f32[2,5]@s4
  return (%l, %r, %n, %c)
}
)");
  for (const char* op : {"logsumexp", "aten::flip", "frobenius"}) EXPECT_EQ(text.find(op), std::string::npos) << text;
  // logsumexp: the max kept as [2, 1], infinite maxima set to 0, then
  // log(sum(exp(x - m))) + m viewed as the result's shape.
  EXPECT_NE(text.find("aten::amax(%x, [1], true) : f32[2,1]"), std::string::npos) << text;
  EXPECT_NE(text.find(", inf) : bool[2,1]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::masked_fill.Scalar("), std::string::npos) << text;
  EXPECT_NE(text.find("aten::log("), std::string::npos) << text;
  EXPECT_NE(text.find(", [2]) : f32[2]"), std::string::npos) << text;
  // flip: one index_select per dim (last first), each with a reversed arange.
  EXPECT_NE(text.find("aten::arange.start_step(4, -1, -1, 4, none, device(\"cpu\"), none) : i64[5]"), std::string::npos)
      << text;
  EXPECT_NE(text.find("aten::index_select(%x, 1, "), std::string::npos) << text;
  EXPECT_EQ(Count(text, "aten::index_select("), 2) << text;
  // flip of no dims: a copy; frobenius_norm: the 2-norm's sum of squares.
  EXPECT_NE(text.find("aten::clone(%x, none) : f32[2,5]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::sqrt("), std::string::npos) << text;
}

TEST(Decompose, ArgsortIsSortsIndices) {
  const std::string text = Decomposed(R"(graph @f(%x: f32[2,3]@s0) {
  %i = aten::argsort(%x, 0, true) : i64[2,3]@s1
  %j = aten::argsort.stable(%x, true, -1, false) : i64[2,3]@s2
  return (%i, %j)
}
)");
  EXPECT_EQ(text.find("argsort"), std::string::npos) << text;
  EXPECT_NE(text.find("= aten::sort(%x, 0, true) : f32[2,3]@"), std::string::npos) << text;
  EXPECT_NE(text.find("= aten::sort.stable(%x, true, -1, false) : f32[2,3]@"), std::string::npos) << text;
}

TEST(Decompose, FlipOfARepeatedDimIsRefused) {
  const std::string text = Decomposed(R"(graph @f(%x: f32[2,3]@s0) {
  %y = aten::flip(%x, [1, -1]) : f32[2,3]@s1
  return %y
}
)");
  EXPECT_NE(text.find("flip: dimension 1 given twice"), std::string::npos) << text;
}

TEST(Decompose, EinsumBecomesPermutesAndOneBmmPerPair) {
  std::string text = Decomposed(R"(graph @f(%q: f32[2,3,4,5]@s0, %k: f32[2,3,6,5]@s1) {
  %y = aten::einsum("bhid,bhjd->bhij", [%q, %k], none) : f32[2,3,4,6]@s2
  return %y
}
)");
  EXPECT_EQ(text.find("einsum"), std::string::npos) << text;
  EXPECT_EQ(Count(text, "aten::bmm("), 1) << text;
  // b, h batch (6), i left (4), d contracted (5), j right (6).
  EXPECT_NE(text.find(" : f32[6,4,5]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::permute(%k, [0, 1, 3, 2]) : f32[2,3,5,6]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::bmm("), std::string::npos) << text;
  EXPECT_NE(text.find(" : f32[6,4,6]"), std::string::npos) << text;
  EXPECT_NE(Decomposed(R"(graph @f(%x: f32[3,3]@s0) {
  %y = aten::einsum("ii->i", [%x], none) : f32[3]@s1
  return %y
}
)")
                .find("a label repeated in one operand (a diagonal)"),
            std::string::npos);
}

}  // namespace
}  // namespace atenaot
