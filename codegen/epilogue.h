// Which in-place elementwise updates of a GEMM/convolution result can run in
// its store (the kernel library's fused epilogue): at most one residual add_
// of a same-layout tensor, then at most one activation (relu_, hardtanh_,
// clamp_, hardswish_, sigmoid_, silu_, gelu_ in either form), in that order.
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/graph.h"

namespace atenaot {

struct EpilogueMatch {
  size_t nodes = 0;                 // how many leading nodes of the group fold in
  const Value* residual = nullptr;  // added before the activation
  int act = 0;                      // AOT_ACT_* of codegen/kernels/aot_kernels.h
  double lo = 0, hi = 0;            // AOT_ACT_CLAMP's bounds
};

// `group`: an in-place elementwise run updating `result` (the kernel's
// output) right after the kernel; `fused`: values computed inside other
// kernels (they have no memory, so cannot be a residual).
EpilogueMatch MatchEpilogue(const Value* result, const std::vector<const Node*>& group,
                            const std::unordered_set<const Value*>& fused);

}  // namespace atenaot
