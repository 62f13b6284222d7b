#include "ir/verifier.h"

#include <unordered_set>

namespace atenaot {
namespace {

bool LiteralFits(const SchemaType& t, const Literal& l) {
  using K = Literal::Kind;
  if (l.kind == K::kNone) return t.optional;
  if (t.list) {
    switch (t.base) {
      case BaseType::kInt:
        return l.kind == K::kIntList;
      case BaseType::kFloat:
        return l.kind == K::kFloatList || l.kind == K::kIntList;
      case BaseType::kBool:
        return l.kind == K::kBoolList;
      case BaseType::kScalar:
        return l.kind == K::kIntList || l.kind == K::kFloatList;
      default:
        return false;
    }
  }
  switch (t.base) {
    case BaseType::kInt:
    case BaseType::kScalarType:
    case BaseType::kLayout:
    case BaseType::kMemoryFormat:
      return l.kind == K::kInt;
    case BaseType::kFloat:
      return l.kind == K::kFloat || l.kind == K::kInt;
    case BaseType::kBool:
      return l.kind == K::kBool;
    case BaseType::kScalar:
      return l.kind == K::kInt || l.kind == K::kFloat || l.kind == K::kBool;
    case BaseType::kString:
      return l.kind == K::kString;
    case BaseType::kDevice:
      return l.kind == K::kDevice;
    default:
      return false;
  }
}

// What is wrong with m, or nullptr: callers build the value's description
// only when there is a problem.
const char* MetaProblem(const TensorMeta& m) {
  if (m.sizes.size() != m.strides.size()) return "sizes and strides differ in rank";
  for (int64_t s : m.sizes)
    if (s < 0) return "negative size";
  if (m.offset < 0) return "negative storage offset";
  return nullptr;
}

Status CheckMeta(const TensorMeta& m, const std::string& what) {
  const char* problem = MetaProblem(m);
  return problem ? InvalidArgument(what + ": " + problem) : Status::Ok();
}

Status CheckTree(const OutputTree& t, size_t n_flat, std::vector<int>* seen) {
  if (t.kind == OutputTree::Kind::kLeaf) {
    if (t.leaf < 0 || static_cast<size_t>(t.leaf) >= n_flat)
      return InvalidArgument("return: output tree names a missing output");
    (*seen)[static_cast<size_t>(t.leaf)]++;
    return Status::Ok();
  }
  for (const OutputTree& e : t.elems) AOT_RETURN_IF_ERROR(CheckTree(e, n_flat, seen));
  return Status::Ok();
}

}  // namespace

Status VerifyGraph(const Graph& g, const VerifyOptions& opts) {
  std::unordered_set<const Value*> defined;
  defined.reserve(g.inputs().size() + g.weight_values().size() + 2 * static_cast<size_t>(g.num_nodes()));
  for (const Value* v : g.inputs()) {
    AOT_RETURN_IF_ERROR(CheckMeta(v->meta(), "input %" + v->name()));
    defined.insert(v);
  }
  for (const Value* v : g.weight_values()) {
    AOT_RETURN_IF_ERROR(CheckMeta(v->meta(), "weight %" + v->name()));
    if (opts.require_weight_data) {
      auto it = g.weights().find(v->weight_key());
      if (it == g.weights().end())
        return InvalidArgument("weight %" + v->name() + ": no data for key \"" + v->weight_key() + "\"");
      const TensorMeta& d = it->second.meta;
      if (d.dtype != v->meta().dtype || d.sizes != v->meta().sizes)
        return InvalidArgument("weight %" + v->name() + ": data is " + d.ToString() + " but the value is " +
                               v->meta().ToString());
      if (static_cast<int64_t>(it->second.bytes.size()) != d.numel() * DTypeSize(d.dtype))
        return InvalidArgument("weight %" + v->name() + ": data has the wrong byte count");
    }
    defined.insert(v);
  }
  int64_t count = 0;
  for (const Node* n : g.nodes()) {
    ++count;
    const OpInfo& op = n->op();
    const auto& sargs = op.schema.args;
    if (!op.Representable())
      return Unsupported(DescribeNode(n) + ": op has argument or return types atenaot cannot represent");
    if (n->args().size() != sargs.size())
      return InvalidArgument(DescribeNode(n) + ": has " + std::to_string(n->args().size()) + " arguments, schema '" +
                             op.qualified_name + "' takes " + std::to_string(sargs.size()));
    for (size_t i = 0; i < sargs.size(); ++i) {
      const Arg& a = n->args()[i];
      const SchemaType& t = sargs[i].type;
      // Built only on failure: describing every argument of every node cost
      // most of a verifier run on large graphs.
      auto arg_where = [&] {
        return DescribeNode(n) + ", argument " + std::to_string(i) + " ('" + sargs[i].name + "')";
      };
      bool tensor = t.base == BaseType::kTensor;
      if (tensor && t.list) {
        if (a.kind != Arg::Kind::kValueList)
          return InvalidArgument(arg_where() + ": expected a tensor list, got " +
                                 (a.kind == Arg::Kind::kValue ? "a value" : a.literal.ToString()));
        for (const Value* v : a.list)
          if (!v && !t.elem_optional) return InvalidArgument(arg_where() + ": none in a list of tensors");
      } else if (tensor) {
        if (a.kind == Arg::Kind::kLiteral && a.literal.kind == Literal::Kind::kNone && t.optional) continue;
        if (a.kind != Arg::Kind::kValue) return InvalidArgument(arg_where() + ": expected a tensor value");
      } else {
        if (a.kind != Arg::Kind::kLiteral)
          return InvalidArgument(arg_where() + ": expected a " + t.raw + " literal, got a tensor");
        if (!LiteralFits(t, a.literal))
          return InvalidArgument(arg_where() + ": literal " + a.literal.ToString() + " does not fit type " + t.raw);
      }
    }
    // The args, not InputValues(): no vector built per node.
    auto check_defined = [&](const Value* v) {
      return defined.count(v) ? Status::Ok()
                              : InvalidArgument(DescribeNode(n) + ": uses %" + v->name() + " before its definition");
    };
    for (const Arg& a : n->args()) {
      if (a.kind == Arg::Kind::kValue) AOT_RETURN_IF_ERROR(check_defined(a.value));
      if (a.kind == Arg::Kind::kValueList)
        for (const Value* v : a.list)
          if (v) AOT_RETURN_IF_ERROR(check_defined(v));
    }
    bool list_ret = op.schema.returns.size() == 1 && op.schema.returns[0].type.list;
    if (list_ret != n->list_output())
      return InvalidArgument(DescribeNode(n) + (list_ret
                                                    ? ": returns a tensor list but its results are not marked as one"
                                                    : ": results marked as a list but the op does not return one"));
    if (!list_ret && n->outputs().size() != op.schema.returns.size())
      return InvalidArgument(DescribeNode(n) + ": defines " + std::to_string(n->outputs().size()) +
                             " results, the op returns " + std::to_string(op.schema.returns.size()));
    for (const Value* v : n->outputs()) {
      if (const char* problem = MetaProblem(v->meta()))
        return InvalidArgument(DescribeNode(n) + " result %" + v->name() + ": " + problem);
      if (v->producer() != n) return Internal(DescribeNode(n) + ": result's producer link is broken");
      defined.insert(v);
    }
  }
  if (count != g.num_nodes()) return Internal("node count does not match the node list");
  for (const Value* v : g.outputs())
    if (!defined.count(v)) return InvalidArgument("return: %" + v->name() + " is not defined");
  std::vector<int> seen(g.outputs().size(), 0);
  AOT_RETURN_IF_ERROR(CheckTree(g.output_tree(), g.outputs().size(), &seen));
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i] != 1)
      return InvalidArgument("return: output " + std::to_string(i) + " appears " + std::to_string(seen[i]) +
                             " times in the output tree");
  return Status::Ok();
}

}  // namespace atenaot
