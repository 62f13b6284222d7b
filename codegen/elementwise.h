// The elementwise ops the C backend fuses, as formulas over C expressions:
// one table row per ATen op (in-place forms share their functional row).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace atenaot {

struct ElementwiseOp {
  // Argument indices read per element (tensors, or Scalar literals).
  std::vector<int> operands;
  // Builds the result from the operands' C expressions (already converted to
  // `ct`, the compute type) and the node's literal arguments.
  std::function<std::string(const std::vector<std::string>& x, const Node& n, const std::string& ct)> formula;
  // Compute in the operands' promoted type, not the result's (comparisons).
  bool compute_in_promoted = false;
};

// nullptr when the node's op is not elementwise (or not supported as such).
const ElementwiseOp* FindElementwise(const Node& n);

}  // namespace atenaot
