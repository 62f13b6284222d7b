// A deep copy of a graph (values, nodes, weights), made by printing and
// parsing: the text format round-trips exactly, so the copy is identical.
#pragma once

#include <memory>

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

StatusOr<std::unique_ptr<Graph>> CloneGraph(const Graph& g, const OpTable& ops);

}  // namespace atenaot
