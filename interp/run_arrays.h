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

StatusOr<ArrayRunResult> RunOnArrays(const Graph& g, const std::vector<NpyArray>& inputs);

}  // namespace atenaot
