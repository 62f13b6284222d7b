// Memory-aware op ordering: a topological order of the graph's nodes that
// lowers the most arena bytes live at once (LOAD). Placement is already
// optimal for a given order (arena == LOAD on the zoo); the order the trace
// recorded is not, on branchy graphs (Inception blocks, DenseNet
// concatenations, attention heads, skips).
//
// The search is a dynamic program over the graph's downsets (the sets of
// nodes that can have run), as in Serenity (MLSys 2020): the live bytes after
// a downset depend only on the set, so each set keeps its lowest peak. Sets
// are expanded in order of size; a size class holding more sets than the
// budget allows keeps the best ones (a beam), which makes the result a bound
// rather than the optimum, and `exact` says which it is. Nodes that allocate
// nothing (views, fused values, weight transposes) run as soon as they are
// ready, which never raises a peak and keeps the sets few.
//
// The order respects data dependences and, per storage, the order of writes
// against every other access (reinplaced ops write their input's buffer).
#pragma once

#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "plan/buffers.h"

namespace atenaot {

// The graph reduced to what ordering needs, nodes numbered in the traced order.
struct ScheduleProblem {
  int num_nodes = 0;
  std::vector<std::vector<int>> preds;     // per node: nodes that must run before it
  std::vector<int64_t> bytes;              // per storage: arena bytes, 0 where it lives elsewhere
  std::vector<bool> pinned;                // per storage: once created, live to the end (arena outputs)
  std::vector<std::vector<int>> touchers;  // per storage: the nodes that define or read it
  std::vector<std::vector<int>> creates;   // per node: storages it creates
  std::vector<std::vector<int>> touches;   // per node: storages it defines or reads
  // Per node: (created storage, read storage) pairs whose kernel may write
  // its output over that input when the input dies there (KernelReusePairs).
  std::vector<std::vector<std::pair<int, int>>> reuse;
};

struct ScheduleOptions {
  int64_t max_states_per_size = 0;  // 0: chosen from the graph's size
  double time_budget_ms = 500;      // past it, the rest is scheduled greedily (planning stays under 1 s)
};

struct ScheduleResult {
  std::vector<int> order;     // node indices
  int64_t peak = 0;           // modelled peak of `order`
  int64_t original_peak = 0;  // modelled peak of the traced order
  bool exact = true;          // no set was dropped: `peak` is the minimum
  int64_t states = 0;         // sets expanded
};

// Peak live bytes of running `order` (must be topological).
int64_t SchedulePeak(const ScheduleProblem& p, const std::vector<int>& order);
// The traced order when nothing beats it; never a higher peak than it.
ScheduleResult SolveSchedule(const ScheduleProblem& p, const ScheduleOptions& o = {});

// Storages, sizes and homes as AnalyzeBuffers sees them (same alignment,
// fused values, reuse pairs and kernel scratch: a storage that its node
// creates and frees).
// An Internal error when g is malformed (a node reads a value whose producer is
// not in g, or a reuse pair's output comes from outside g).
StatusOr<ScheduleProblem> BuildScheduleProblem(const Graph& g, int64_t alignment,
                                               const std::unordered_set<const Value*>* virtual_values,
                                               const ReusePairs* reuse, const NodeBytes* scratch = nullptr);

struct ScheduleStats {
  bool changed = false;
  bool exact = true;
  int64_t modelled_before = 0, modelled_after = 0;
  int64_t states = 0;
  double ms = 0;
};

// Puts g's nodes in `order` (a permutation of all of them).
void ApplyNodeOrder(Graph& g, const std::vector<Node*>& order);

// Reorders g's nodes into SolveSchedule's order (a no-op when the traced
// order is as good). An internal error (a node reading a value from outside
// g) leaves g in its order.
StatusOr<ScheduleStats> ScheduleForMemory(Graph& g, int64_t alignment,
                                          const std::unordered_set<const Value*>* virtual_values,
                                          const ReusePairs* reuse, const ScheduleOptions& o = {},
                                          const NodeBytes* scratch = nullptr);

}  // namespace atenaot
