// Running a graph with the reference interpreter on .npy arrays, for callers
// that keep LibTorch out of their translation units (the CLI).
#pragma once

#include <vector>

#include "io/npy.h"
#include "ir/graph.h"

namespace atenaot {

struct ArrayRunResult {
  std::vector<NpyArray> outputs;       // flat outputs, contiguous
  std::vector<NpyArray> inputs_after;  // the inputs after the run (mutations visible)
};

struct MemoryPlan;

// `plan`: run with every arena buffer at its planned offset (plan-checked).
StatusOr<ArrayRunResult> RunOnArrays(const Graph& g, const std::vector<NpyArray>& inputs,
                                     const MemoryPlan* plan = nullptr);

// Exact layouts and storage sharing from one run (interp/annotate.h).
Status AnnotateFromArrays(Graph& g, const std::vector<NpyArray>& inputs);

// Peak bytes LibTorch eager allocates running `g` op by op, each value freed
// after its last use (inputs and weights not counted).
StatusOr<int64_t> MeasureEagerPeak(const Graph& g, const std::vector<NpyArray>& inputs);

}  // namespace atenaot
