// Which values fuse into their consumer's loop, and the kernels left, in
// order. PlanForCodegen decides this once per plan (the planner needs the
// fused set: fused values take no buffer) and hands the result, a
// KernelPlan, to whichever emitter (C or CUDA) writes the kernels.
#pragma once

#include <unordered_set>
#include <vector>

#include "codegen/codegen_options.h"
#include "ir/graph.h"
#include "plan/buffers.h"

namespace atenaot {

// Values the codegen evaluates inside another kernel's loop: they need no
// buffer, so the planner skips them. Compute this first, then plan with it.
// Elementwise fusion only (both backends); with options, also what the C
// backend's kernels fold away with them (gated convolutions' products, the
// results of convolutions run in bands with their reader: ConvBandsOf; of
// linears run in bands with the linear reading them: LinearBandsOf; the
// batch norm and relu a 1x1 convolution applies as it packs its input:
// ConvPrologueOf) and
// the results its kernels never write (embedding_bag's offset2bag, bag_size
// and max_indices when nothing reads them).
std::unordered_set<const Value*> FusedAwayValues(const Graph& g);
std::unordered_set<const Value*> FusedAwayValues(const Graph& g, const CodegenOptions& o);

// The kernels both backends emit, in order: a fused elementwise group (its
// first node, then the in-place elementwise updates of the same tensor that
// follow, skipping values in `fused`) writing `target`, or one other node
// (target nullptr). Views and fused values get no kernel.
struct KernelStep {
  std::vector<const Node*> nodes;
  const Value* target = nullptr;
};
std::vector<KernelStep> KernelSchedule(const Graph& g, const std::unordered_set<const Value*>& fused);

// (output, input) pairs whose kernels may write over their input: pass them
// to the planner so an output takes over its input's buffer when that dies.
ReusePairs KernelReusePairs(const Graph& g, const std::unordered_set<const Value*>& fused);

// The fusion a memory plan was made for and the kernels it leaves, for the
// graph in its final (planned) order.
struct KernelPlan {
  std::unordered_set<const Value*> fused;
  std::vector<KernelStep> steps;
};
KernelPlan MakeKernelPlan(const Graph& g, std::unordered_set<const Value*> fused);

}  // namespace atenaot
