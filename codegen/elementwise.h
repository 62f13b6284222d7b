// The elementwise ops the C backend fuses, as formulas over C expressions:
// one table row per ATen op (in-place forms share their functional row).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

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

// Whether a gelu node takes the tanh approximation (approximate='tanh'; else
// the erf form), as its lowering and the GEMM epilogue both read it.
bool GeluTanhForm(const Node& n);

// The tensors the fused elementwise tree rooted at n reads, each once, in
// first-use order (values in `fused` are computed inline, so their own
// operands are read instead); argument `skip_arg` of n (or -1) is left out.
void FusedLoads(const Node* n, int skip_arg, const std::unordered_set<const Value*>& fused,
                std::vector<const Value*>* loads);

// The expressions reading each loaded tensor at the current index, as an
// emitter prepared them for one kernel (one per value FusedLoads listed).
using LoadExprs = std::unordered_map<const Value*, std::string>;

// loads[v], read by n's kernel; a value with no prepared load is an internal
// error naming n.
StatusOr<std::string> PreparedLoad(const LoadExprs& loads, const Node* n, const Value* v);

// n's result, in its output dtype, as a C (or CUDA) expression with the
// producers of its `fused` operands inlined and the other tensor operands
// read through `loads`; a non-empty `self_expr` replaces argument 0 (the
// running value of an in-place run).
StatusOr<std::string> FusedExpr(const Node* n, const std::string& self_expr,
                                const std::unordered_set<const Value*>& fused, const LoadExprs& loads);

}  // namespace atenaot
