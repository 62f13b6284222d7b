// Parses atenaot's IR text format (docs/ir_format.md) into a Graph. Every
// error names the line and column. Weight data is not part of the text: the
// parsed graph has weight values whose data the caller attaches (see
// io/weights_file.h).
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

StatusOr<std::unique_ptr<Graph>> ParseGraph(const std::string& text, const OpTable& ops);

// True when the text looks like atenaot IR (first non-comment token "graph @").
bool LooksLikeAtenaotIr(const std::string& text);

}  // namespace atenaot
