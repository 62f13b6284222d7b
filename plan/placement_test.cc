#include "plan/placement.h"

#include <gtest/gtest.h>

#include <random>

namespace atenaot {
namespace {

TEST(Placement, ChainReusesTheFreedGapExactly) {
  // A [0,1] 100 B, B [1,2] 200 B, C [2,3] 100 B: B goes first (largest) at 0;
  // A and C overlap B, not each other, so both sit at 200.
  std::vector<BufferRequest> r = {{100, 0, 1}, {200, 1, 2}, {100, 2, 3}};
  auto p = PlaceBuffers(r, "greedy_by_size");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->offsets, std::vector<int64_t>({200, 0, 200}));
  EXPECT_EQ(p->arena_bytes, 300);
  EXPECT_EQ(LiveBytesLowerBound(r), 300);
  EXPECT_EQ(NaiveBytes(r), 400);
}

TEST(Placement, BestFitUsesTheLeadingGap) {
  // X [0,0] 64 and Y [0,3] 128 are placed; after X dies, Z [1,2] 64 fits the
  // gap at offset 0 left by X (below Y), not above Y.
  std::vector<BufferRequest> r = {{128, 0, 3}, {64, 0, 0}, {64, 1, 2}};
  auto p = PlaceBuffers(r, "greedy_by_size");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->offsets, std::vector<int64_t>({0, 128, 128}));
  EXPECT_EQ(p->arena_bytes, 192);
  // TFLM-style: a long-lived small buffer first in time must not push the
  // big ones up when there is a gap before it.
  std::vector<BufferRequest> r2 = {{64, 2, 3}, {256, 0, 1}, {256, 2, 3}};
  auto p2 = PlaceBuffers(r2, "greedy_by_size");
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->offsets, std::vector<int64_t>({256, 0, 0}));
  EXPECT_EQ(p2->arena_bytes, 320);
}

TEST(Placement, ResNetBlockReachesTheLowerBound) {
  // x = conv(in) [0,3] (kept for the skip add), a = conv(x) [1,2],
  // b = conv(a) [2,3], y = add(b, x) [3,4], z = relu(y) [4,5]; sizes in KiB.
  std::vector<BufferRequest> r = {{4096, 0, 3}, {4096, 1, 2}, {2048, 2, 3}, {4096, 3, 4}, {4096, 4, 5}};
  int64_t load = LiveBytesLowerBound(r);
  EXPECT_EQ(load, 4096 + 4096 + 2048);
  for (const std::string& a : PlacementAlgorithms()) {
    auto p = PlaceBuffers(r, a);
    ASSERT_TRUE(p.ok()) << a;
    EXPECT_EQ(CheckPlacement(r, *p), "") << a;
    if (a != "greedy_by_size") {
      EXPECT_EQ(p->arena_bytes, load) << a;
    }
  }
}

TEST(Placement, FanOutWhereOrderMatters) {
  // One producer feeding four consumers of mixed sizes (TVM's fan-out
  // shape): `best` is no worse than any single algorithm and reaches LOAD.
  std::vector<BufferRequest> r = {{50, 0, 4}, {20, 1, 2}, {30, 1, 1}, {40, 2, 3}, {10, 3, 4}, {60, 4, 5}};
  auto best = PlaceBuffers(r, "best");
  ASSERT_TRUE(best.ok());
  for (const std::string& a : {"greedy_by_size", "greedy_by_conflicts", "hill_climb"}) {
    auto p = PlaceBuffers(r, a);
    ASSERT_TRUE(p.ok());
    EXPECT_LE(best->arena_bytes, p->arena_bytes) << a;
  }
  EXPECT_EQ(best->arena_bytes, LiveBytesLowerBound(r));
}

TEST(Placement, RejectsBadInput) {
  EXPECT_FALSE(PlaceBuffers({{-1, 0, 0}}, "greedy_by_size").ok());
  EXPECT_FALSE(PlaceBuffers({{1, 3, 2}}, "greedy_by_size").ok());
  auto bad = PlaceBuffers({{1, 0, 0}}, "optimal_please");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("algorithms: greedy_by_size"), std::string::npos);
}

TEST(Placement, CheckerCatchesOverlap) {
  std::vector<BufferRequest> r = {{64, 0, 2}, {64, 1, 3}};
  Placement p;
  p.offsets = {0, 32};
  p.arena_bytes = 96;
  EXPECT_NE(CheckPlacement(r, p), "");
  p.offsets = {0, 64};
  p.arena_bytes = 128;
  EXPECT_EQ(CheckPlacement(r, p), "");
  p.arena_bytes = 100;  // the second buffer sticks out
  EXPECT_NE(CheckPlacement(r, p), "");
}

TEST(Placement, InvariantsOnRandomIntervalSets) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    int n = 1 + static_cast<int>(rng() % 40);
    int horizon = 1 + static_cast<int>(rng() % 30);
    std::vector<BufferRequest> r;
    for (int i = 0; i < n; ++i) {
      int64_t a = rng() % horizon, b = rng() % horizon;
      r.push_back({64 * (1 + static_cast<int64_t>(rng() % 16)), std::min(a, b), std::max(a, b)});
    }
    const int64_t load = LiveBytesLowerBound(r), naive = NaiveBytes(r);
    int64_t best_seen = naive;
    for (const std::string& a : {"greedy_by_size", "greedy_by_conflicts"}) {
      auto p = PlaceBuffers(r, a);
      ASSERT_TRUE(p.ok());
      ASSERT_EQ(CheckPlacement(r, *p), "") << a << " trial " << trial;
      ASSERT_LE(load, p->arena_bytes);
      ASSERT_LE(p->arena_bytes, naive);
      best_seen = std::min(best_seen, p->arena_bytes);
    }
    if (trial % 20 == 0) {  // the search is slower; check it on a tenth
      auto b = PlaceBuffers(r, "best");
      ASSERT_TRUE(b.ok());
      ASSERT_EQ(CheckPlacement(r, *b), "");
      ASSERT_LE(b->arena_bytes, best_seen);
      ASSERT_LE(load, b->arena_bytes);
    }
  }
}

}  // namespace
}  // namespace atenaot
