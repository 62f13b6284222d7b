// Generated benchmark graphs: a chain of elementwise ops over a 64-element
// vector with an in-place write into a slice of an intermediate every 10 ops
// (the shape functionalize and reinplace must scale on).
#pragma once

#include <memory>

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

// About `num_nodes` nodes (import stage, with capture-style metadata).
std::unique_ptr<Graph> MakeChainGraph(int64_t num_nodes, const OpTable& ops);

}  // namespace atenaot
