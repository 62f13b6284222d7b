// Imports a TorchScript (JIT) graph into atenaot IR by running it once, node
// by node, on sample inputs: tensor-producing ATen ops become IR nodes whose
// values record the sizes, strides, offset and storage seen at capture time;
// non-tensor computations on shapes and constants are folded into literals;
// tensor constants become weights. Control flow, unknown ops and
// data-dependent scalars are rejected with the node named.
#pragma once

#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

struct JitImportOptions {
  // Input 0 is the module's `self`; it must be unused (frozen module).
  bool first_input_is_self = false;
};

// `sample_inputs` are not modified: the capture run uses copies that keep
// the inputs' aliasing.
StatusOr<std::unique_ptr<Graph>> ImportJitGraph(const torch::jit::Graph& jit_graph,
                                                const std::vector<at::Tensor>& sample_inputs, const OpTable& ops,
                                                const JitImportOptions& opts = {});

// Copies of `ts` that share storage exactly where `ts` do.
std::vector<at::Tensor> CloneKeepingAliasing(const std::vector<at::Tensor>& ts);

}  // namespace atenaot
