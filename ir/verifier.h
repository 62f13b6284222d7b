// The IR verifier: SSA order (every value defined before use and still
// alive), argument arity and kinds against each op's schema, result counts,
// tensor metadata shape, weight data presence and the output tree. Run after
// every pass by the pipeline.
#pragma once

#include "ir/graph.h"
#include "ir/status.h"

namespace atenaot {

struct VerifyOptions {
  bool require_weight_data = true;  // every weight value has bytes in weights()
};

Status VerifyGraph(const Graph& g, const VerifyOptions& opts = {});

}  // namespace atenaot
