#include "ir/clone.h"

#include "ir/parser.h"
#include "ir/printer.h"

namespace atenaot {

StatusOr<std::unique_ptr<Graph>> CloneGraph(const Graph& g, const OpTable& ops) {
  auto copy = ParseGraph(PrintGraph(g), ops);
  if (!copy.ok()) return Internal("graph does not round-trip through text: " + copy.status().message());
  (*copy)->weights() = g.weights();
  return copy;
}

}  // namespace atenaot
