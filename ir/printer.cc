#include "ir/printer.h"

#include <sstream>

namespace atenaot {
namespace {

std::string Ref(const Value* v) { return v ? "%" + v->name() : "none"; }

std::string ArgText(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::kValue:
      return Ref(a.value);
    case Arg::Kind::kLiteral:
      return a.literal.ToString();
    case Arg::Kind::kValueList: {
      std::string s = "[";
      for (size_t i = 0; i < a.list.size(); ++i) s += (i ? ", " : "") + Ref(a.list[i]);
      return s + "]";
    }
  }
  return "?";
}

void PrintTree(const Graph& g, const OutputTree& t, std::ostream& os) {
  if (t.kind == OutputTree::Kind::kLeaf) {
    os << Ref(g.outputs()[static_cast<size_t>(t.leaf)]);
    return;
  }
  bool tuple = t.kind == OutputTree::Kind::kTuple;
  os << (tuple ? "(" : "[");
  for (size_t i = 0; i < t.elems.size(); ++i) {
    if (i) os << ", ";
    PrintTree(g, t.elems[i], os);
  }
  // A one-element tuple keeps its trailing comma so it reads back as a tuple.
  if (tuple && t.elems.size() == 1) os << ",";
  os << (tuple ? ")" : "]");
}

}  // namespace

std::string PrintValueType(const Value& v) { return v.meta().ToString() + "@s" + std::to_string(v.meta().storage); }

std::string PrintGraph(const Graph& g) {
  std::ostringstream os;
  os << "graph @" << g.name() << "(";
  for (size_t i = 0; i < g.inputs().size(); ++i)
    os << (i ? ", " : "") << Ref(g.inputs()[i]) << ": " << PrintValueType(*g.inputs()[i]);
  os << ") {\n";
  for (const Value* w : g.weight_values())
    os << "  weight " << Ref(w) << ": " << PrintValueType(*w) << " = " << Literal::String(w->weight_key()).ToString()
       << "\n";
  for (const Node* n : g.nodes()) {
    os << "  ";
    for (size_t i = 0; i < n->outputs().size(); ++i) os << (i ? ", " : "") << Ref(n->outputs()[i]);
    if (!n->outputs().empty()) os << " = ";
    os << n->op().qualified_name << "(";
    for (size_t i = 0; i < n->args().size(); ++i) os << (i ? ", " : "") << ArgText(n->args()[i]);
    os << ")";
    if (!n->outputs().empty() || n->list_output()) {
      os << " : ";
      if (n->list_output()) os << "[";
      for (size_t i = 0; i < n->outputs().size(); ++i) os << (i ? ", " : "") << PrintValueType(*n->outputs()[i]);
      if (n->list_output()) os << "]";
    }
    os << "\n";
  }
  os << "  return ";
  PrintTree(g, g.output_tree(), os);
  os << "\n}\n";
  return os.str();
}

}  // namespace atenaot
