// Index-space helpers the code generators share (C and CUDA): which nodes are
// views, broadcasting strides, merging loop dimensions.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace atenaot {

// A node whose results share memory with an argument without writing it is a
// view: no code, only pointer arithmetic.
bool IsViewNode(const Node* n);

// Strides of `m` broadcast (right-aligned) to the index space `sizes`.
std::vector<int64_t> BroadcastStrides(const TensorMeta& m, const std::vector<int64_t>& sizes);

// Loop dimensions after dropping size-1 dimensions and merging dimensions
// that every tensor walks contiguously.
struct LoopSpace {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;  // per tensor, per dim
};
LoopSpace CoalesceLoops(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides);

}  // namespace atenaot
