// dce: removes nodes whose results are never used and that write nothing.
// One backward walk, so chains of dead nodes go in a single pass.
#pragma once

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

Status EliminateDeadCode(Graph& g, const OpTable& ops);

}  // namespace atenaot
