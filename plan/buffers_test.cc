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
  EXPECT_EQ(a.buffers[2].home, BufferHome::kArena);  // %d: consumed, not returned
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
)",
                      SnapshotOpTable());
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

// Every buffer at offset 0: s2 and s4, live together at op 5, share bytes.
Placement AllAtZero(const std::vector<BufferRequest>& r) {
  Placement p;
  p.offsets.assign(r.size(), 0);
  for (const BufferRequest& b : r) p.arena_bytes = std::max(p.arena_bytes, b.bytes);
  return p;
}
// Apart, but in an arena too small to hold the second buffer.
Placement ArenaTooSmall(const std::vector<BufferRequest>& r) {
  Placement p;
  for (const BufferRequest& b : r) {
    p.offsets.push_back(p.arena_bytes);
    p.arena_bytes += b.bytes;
  }
  p.arena_bytes -= 1;
  return p;
}

TEST(Buffers, PlanMemoryRejectsABadPlacement) {
  auto g = ParseGraph(kGraph, SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  SetPlacementForTesting("all_at_zero", AllAtZero);
  SetPlacementForTesting("arena_too_small", ArenaTooSmall);
  auto overlap = PlanMemory(**g, "all_at_zero", 64);
  auto small = PlanMemory(**g, "arena_too_small", 64);
  SetPlacementForTesting("all_at_zero", nullptr);
  SetPlacementForTesting("arena_too_small", nullptr);
  ASSERT_FALSE(overlap.ok());
  EXPECT_EQ(overlap.status().code(), StatusCode::kInternal) << overlap.status().ToString();
  EXPECT_NE(overlap.status().message().find("placement all_at_zero is wrong"), std::string::npos)
      << overlap.status().ToString();
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("placement arena_too_small is wrong"), std::string::npos)
      << small.status().ToString();
  // Removed again: the name is unknown.
  EXPECT_FALSE(PlanMemory(**g, "all_at_zero", 64).ok());
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
)",
                      SnapshotOpTable());
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
)",
                      SnapshotOpTable());
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

// %u is computed inside the last add's kernel (fused), so that kernel reads %t:
// %t's buffer must live until op 4, not die at op 2 where %u is "defined".
TEST(Buffers, ReadingAFusedValueReadsWhatItsProducerReads) {
  auto g = ParseGraph(R"(graph @f(%x: f32[64]@s0, %y: f32[2,64]@s1, %w: f32[2,64]@s6) {
  %t = aten::mul.Scalar(%x, 2) : f32[64]@s2
  %s = aten::sum(%t, none) : f32[]@s7
  %u = aten::add.Tensor(%t, %y, 1) : f32[2,64]@s3
  %z = aten::softmax.int(%w, 1, 7) : f64[2,64]@s4
  %o = aten::add.Tensor(%u, %z, 1) : f64[2,64]@s5
  return (%o, %s)
}
)",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::unordered_set<const Value*> fused = {(*g)->FindValue("u")};
  ASSERT_NE(*fused.begin(), nullptr);
  BufferAnalysis a = AnalyzeBuffers(**g, 64, &fused);
  ASSERT_EQ(a.buffers[0].name, "t");
  EXPECT_EQ(a.buffers[0].last, 4);
  for (const Buffer& b : a.buffers) EXPECT_NE(b.name, "u");  // no buffer of its own
  auto p = PlanMemory(**g, "best", 64, &fused);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->arena_bytes(), 256 + 1024);  // %t and %z overlap in time now
}

// A kernel's scratch is an arena buffer live at its node alone: it shares
// bytes with an activation that died before, and LOAD counts it.
TEST(Buffers, KernelScratchLivesOnlyDuringItsNode) {
  auto g = ParseGraph(R"(graph @f(%x: f32[256]@s0) {
  %a = aten::mul.Scalar(%x, 2) : f32[256]@s1
  %b = aten::mul.Scalar(%a, 3) : f32[256]@s2
  %c = aten::mul.Scalar(%b, 4) : f32[256]@s3
  %d = aten::mul.Scalar(%c, 5) : f32[256]@s4
  return %d
}
)",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Node* nd = (*g)->FindValue("d")->producer();
  const NodeBytes scratch = {{nd, 1000}};
  BufferAnalysis a = AnalyzeBuffers(**g, 64, nullptr, nullptr, &scratch);
  const Buffer* sc = nullptr;
  for (const Buffer& b : a.buffers)
    if (b.scratch_for) sc = &b;
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->scratch_for, nd);
  EXPECT_EQ(sc->bytes, 1024);  // aligned
  EXPECT_EQ(sc->first, 3);
  EXPECT_EQ(sc->last, 3);
  EXPECT_TRUE(sc->storages.empty());
  EXPECT_EQ(sc->home, BufferHome::kArena);
  auto without = PlanMemory(**g, "best", 64);
  auto with = PlanMemory(**g, "best", 64, nullptr, nullptr, &scratch);
  ASSERT_TRUE(without.ok() && with.ok());
  EXPECT_EQ(without->lower_bound_bytes, 2048);  // two 1 KiB activations at a time
  // At op 3 only %c and the scratch live (%d is the caller's output): the
  // scratch takes dead %b's bytes and the arena does not grow.
  EXPECT_EQ(with->lower_bound_bytes, 2048);
  EXPECT_EQ(with->arena_bytes(), 2048);
  const NodeBytes big = {{nd, 2000}};  // more than %b left: LOAD grows by the difference
  auto bigger = PlanMemory(**g, "best", 64, nullptr, nullptr, &big);
  ASSERT_TRUE(bigger.ok());
  EXPECT_EQ(bigger->lower_bound_bytes, 1024 + 2048);
  EXPECT_EQ(bigger->arena_bytes(), 1024 + 2048);
  EXPECT_EQ(with->naive_bytes, 4 * 1024);  // %a, %b, %c and the scratch (%d is the output)
  EXPECT_NE(PlanTable(*with, {}).find("scratch of %d"), std::string::npos);
  EXPECT_NE(PlanJson(*with, {}).find("\"scratch\": true"), std::string::npos);
}

}  // namespace
}  // namespace atenaot
