// Prints a Graph in atenaot's IR text format (docs/ir_format.md). The parser
// reads this text back to an identical graph, so print -> parse -> print is
// the identity.
#pragma once

#include <string>

#include "ir/graph.h"

namespace atenaot {

std::string PrintGraph(const Graph& g);
// "f32[2,3]@s0": a value's full type as printed in IR text.
std::string PrintValueType(const Value& v);

}  // namespace atenaot
