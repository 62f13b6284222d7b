#include "plan/buffers.h"

#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/test_op_table.h"
#include "plan/memory_plan.h"

namespace atenaot {
namespace {

constexpr char kGraph[] = R"(graph @f(%x: f32[4,4]@s0) {
  weight %w: f32[4,4]@s1 = "w"
  %a = aten::mul.Tensor(%x, %w) : f32[4,4]@s2
  %v = aten::view(%a, [16]) : f32[16]@s2
  %b = aten::relu_(%v) : f32[16]@s2
  %c = aten::sum(%a, none) : f32[]@s3
  %s = aten::select.int(%a, 0, 1) : f32[4]+4@s2
  %d = aten::mul.Scalar(%s, 2) : f32[4]@s4
  %e = aten::add.Scalar(%d, 1, 1) : f32[4]@s5
  return (%c, %e)
}
)";

TEST(Buffers, SharedStorageIsOneBufferWithTheWholeLiveRange) {
  auto g = ParseGraph(kGraph, SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  BufferAnalysis a = AnalyzeBuffers(**g, 64);
  ASSERT_EQ(a.buffers.size(), 4u);  // s2, s3, s4, s5
  const Buffer& s2 = a.buffers[0];
  EXPECT_EQ(s2.name, "a");
  EXPECT_EQ(s2.bytes, 64);
  EXPECT_EQ(s2.first, 0);
  EXPECT_EQ(s2.last, 5);  // %s (a view of %a) is read by op 5
  EXPECT_EQ(s2.home, BufferHome::kArena);
  EXPECT_EQ(a.buffers[1].home, BufferHome::kOutput);  // %c
  EXPECT_EQ(a.buffers[1].output_index, 0);
  EXPECT_EQ(a.buffers[2].home, BufferHome::kArena);   // %d: consumed, not returned
  EXPECT_EQ(a.buffers[2].first, 5);
  EXPECT_EQ(a.buffers[2].last, 6);
  EXPECT_EQ(a.buffers[3].home, BufferHome::kOutput);  // %e
  EXPECT_EQ(a.arena, std::vector<int>({0, 2}));
  EXPECT_EQ(a.num_ops, 7);
}

TEST(Buffers, PartialViewOutputsStayInTheArena) {
  auto g = ParseGraph(R"(graph @f(%x: f32[4]@s0) {
  %a = aten::mul.Scalar(%x, 2) : f32[4]@s1
  %s = aten::slice.Tensor(%a, 0, 1, 3, 1) : f32[2]+1@s1
  return %s
}
)", SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  BufferAnalysis a = AnalyzeBuffers(**g, 16);
  ASSERT_EQ(a.buffers.size(), 1u);
  EXPECT_EQ(a.buffers[0].home, BufferHome::kArena);
  EXPECT_EQ(a.buffers[0].bytes, 16);
  EXPECT_EQ(a.buffers[0].last, 2);  // read by the caller after the last op
}

TEST(Buffers, PlanMemoryPutsTheArenaBuffersApart) {
  auto g = ParseGraph(kGraph, SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  auto p = PlanMemory(**g, "best", 64);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  // s2 lives over ops 0..5 and s4 over 5..6: they meet at op 5.
  EXPECT_EQ(p->arena_bytes(), 128);
  EXPECT_EQ(p->lower_bound_bytes, 128);
  EXPECT_EQ(p->naive_bytes, 128);
  EXPECT_NE(PlanJson(*p, {}).find("\"arena_bytes\": 128"), std::string::npos);
  EXPECT_NE(PlanSvg(*p).find("<svg"), std::string::npos);
  EXPECT_NE(PlanTable(*p, {}).find("optimal"), std::string::npos);
  EXPECT_FALSE(PlanMemory(**g, "best", 48).ok());  // not a power of two
}

TEST(Buffers, ReadsOfFusedNodesLastUntilTheirKernelRuns) {
  // %r reads a slice of %g but is fused into %t's kernel (op 4): %g must stay
  // live until op 4, not die at op 2 where %r sits, or %u (op 3) could take
  // its place and the kernel would read overwritten data (a GRU step did).
  auto g = ParseGraph(R"(graph @f(%x: f32[2,8]@s0) {
  %g = aten::mul.Scalar(%x, 2) : f32[2,8]@s1
  %h = aten::slice.Tensor(%g, 1, 0, 4, 1) : f32[2,4]@s1
  %r = aten::sigmoid(%h) : f32[2,4]@s2
  %u = aten::mul.Scalar(%x, 3) : f32[2,8]@s3
  %t = aten::add.Tensor(%r, %r, 1) : f32[2,4]@s4
  return (%t, %u)
}
)", SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::unordered_set<const Value*> fused = {(*g)->FindValue("r")};
  BufferAnalysis a = AnalyzeBuffers(**g, 64, &fused);
  ASSERT_EQ(a.buffers[0].name, "g");
  EXPECT_EQ(a.buffers[0].last, 4);
  EXPECT_EQ(AnalyzeBuffers(**g, 64).buffers[0].last, 2);  // unfused: %r's own op
}

}  // namespace
}  // namespace atenaot

namespace atenaot {
namespace {

TEST(Buffers, KernelReuseTakesOverADyingInputsBuffer) {
  auto g = ParseGraph(R"(graph @f(%x: f32[4,4]@s0) {
  %a = aten::mul.Scalar(%x, 2) : f32[4,4]@s1
  %b = aten::softmax.int(%a, 1, none) : f32[4,4]@s2
  %c = aten::mul.Scalar(%b, 3) : f32[4,4]@s3
  %d = aten::softmax.int(%a, 0, none) : f32[4,4]@s4
  return %c
}
)", SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Value* a = (*g)->FindValue("a");
  const Value* b = (*g)->FindValue("b");
  const Value* c = (*g)->FindValue("c");
  ReusePairs pairs = {{b, a}, {c, b}};
  BufferAnalysis plain = AnalyzeBuffers(**g, 64);
  BufferAnalysis reused = AnalyzeBuffers(**g, 64, nullptr, &pairs);
  // %a is still read at op 3, so %b cannot take it; %c (op 2) takes %b's,
  // which dies at op 2, and writes the caller's output through it.
  EXPECT_EQ(plain.buffers.size(), 5u - 1u);  // s1..s4
  ASSERT_EQ(reused.buffers.size(), 3u);
  const Buffer& bc = reused.buffers[1];
  EXPECT_EQ(bc.storages, std::vector<int64_t>({2, 3}));
  EXPECT_EQ(bc.home, BufferHome::kOutput);
}

}  // namespace
}  // namespace atenaot
