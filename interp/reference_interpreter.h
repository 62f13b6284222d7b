// The reference interpreter: executes atenaot IR op by op through the LibTorch
// dispatcher. Views and in-place ops behave exactly as in eager PyTorch: the
// caller's input tensors are used as they are, so a write through a view of an
// input is visible in the caller's tensor afterwards.
#pragma once

#include <ATen/Tensor.h>

#include <vector>

#include "ir/graph.h"

namespace atenaot {

// Returns the graph's flat outputs (which may alias the inputs).
StatusOr<std::vector<at::Tensor>> RunReference(const Graph& g, const std::vector<at::Tensor>& inputs);

}  // namespace atenaot
