#include "passes/dce.h"

namespace atenaot {

Status EliminateDeadCode(Graph& g, const OpTable&) {
  for (Node* n = g.last(); n;) {
    Node* prev = n->prev();
    bool used = n->op().Writes();  // side effects keep a node alive
    for (const Value* o : n->outputs()) used |= !o->uses().empty();
    if (!used) g.Destroy(n);
    n = prev;
  }
  return Status::Ok();
}

}  // namespace atenaot
