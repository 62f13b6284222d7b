// Memory planning end to end: storage analysis -> placement -> overlap check
// (always run: a plan that fails it is an atenaot bug, reported as one).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "plan/buffers.h"
#include "plan/placement.h"
#include "plan/schedule.h"

namespace atenaot {

struct MemoryPlan {
  BufferAnalysis analysis;
  Placement placement;            // over the arena buffers, in analysis.arena order
  std::vector<int64_t> offsets;   // per buffer in analysis.buffers; -1 outside the arena
  int64_t lower_bound_bytes = 0;  // LOAD over the arena buffers
  int64_t naive_bytes = 0;        // no reuse
  // When the ops were reordered for memory (plan/schedule.h): LOAD and the
  // live bytes per op of the traced order; -1 and empty when not scheduled.
  int64_t unscheduled_lower_bound_bytes = -1;
  std::vector<int64_t> unscheduled_live;
  ScheduleStats schedule;
  int64_t arena_bytes() const { return placement.arena_bytes; }
};

std::vector<BufferRequest> ArenaRequests(const BufferAnalysis& a);
// Arena bytes live at each op index 0..num_ops (its maximum is LOAD).
std::vector<int64_t> LiveBytesCurve(const BufferAnalysis& a);

// Buffer alignment is a power of two up to a page; the buffers of one plan
// add up to at most 2^60 bytes (far above any real model, and low enough that
// no sum the planner forms can overflow).
constexpr int64_t kMaxAlignment = 4096;
constexpr int64_t kMaxPlannedBytes = int64_t{1} << 60;

// `scratch`: kernel scratch per node (AnalyzeBuffers), planned with the rest.
StatusOr<MemoryPlan> PlanMemory(const Graph& g, const std::string& algorithm = "best", int64_t alignment = 64,
                                const std::unordered_set<const Value*>* virtual_values = nullptr,
                                const ReusePairs* reuse = nullptr, const NodeBytes* scratch = nullptr);

// Numbers measured outside the plan, for reports.
struct PlanTotals {
  int64_t eager_peak_bytes = -1;                    // LibTorch eager, -1 when not measured
  int64_t lower_bound_before_reinplace_bytes = -1;  // LOAD of the functional graph
};

// A table: one row per buffer (name, home, bytes, live range, offset), then
// the totals.
std::string PlanTable(const MemoryPlan& p, const PlanTotals& t);
std::string PlanJson(const MemoryPlan& p, const PlanTotals& t);
// An SVG: x = op index, y = arena offset, one rectangle per arena buffer
// (hover for its name, size and range) and the live-bytes (LOAD) curve.
std::string PlanSvg(const MemoryPlan& p);

}  // namespace atenaot
