// The reference interpreter: executes atenaot IR op by op through the LibTorch
// dispatcher. Views and in-place ops behave exactly as in eager PyTorch: the
// caller's input tensors are used as they are, so a write through a view of an
// input is visible in the caller's tensor afterwards.
#pragma once

#include <ATen/Tensor.h>

#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace atenaot {

struct MemoryPlan;

struct RunOptions {
  // Plan-checked execution: every arena buffer lives at its planned offset in
  // one arena tensor (each buffer's first value is copied there; views and
  // in-place results must then land inside it). A plan whose live buffers
  // overlap changes the results, so equality with eager proves the plan.
  const MemoryPlan* plan = nullptr;
  // Drop every value after its last use, as eager execution does (for
  // measuring eager's peak memory).
  bool free_dead_values = false;
  // When set, receives every value's tensor (for metadata annotation).
  std::unordered_map<const Value*, at::Tensor>* values = nullptr;
  // When set, receives the peak bytes LibTorch's CPU allocator held for
  // tensors created while the ops ran (inputs and weights excluded).
  int64_t* peak_bytes = nullptr;
};

// Returns the graph's flat outputs (which may alias the inputs).
StatusOr<std::vector<at::Tensor>> RunReference(const Graph& g, const std::vector<at::Tensor>& inputs,
                                               const RunOptions& opts = {});

}  // namespace atenaot
