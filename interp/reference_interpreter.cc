#include "interp/reference_interpreter.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <unordered_map>

#include "capture/tensor_convert.h"
#include "interp/run_arrays.h"

namespace atenaot {
namespace {

StatusOr<c10::IValue> LiteralToIValue(const Literal& l, const SchemaType& t) {
  using K = Literal::Kind;
  switch (l.kind) {
    case K::kNone: return c10::IValue();
    case K::kInt:
      if (t.base == BaseType::kFloat) return c10::IValue(static_cast<double>(l.i));
      return c10::IValue(l.i);
    case K::kFloat: return c10::IValue(l.f);
    case K::kBool: return c10::IValue(l.b);
    case K::kString: return c10::IValue(l.s);
    case K::kDevice:
      try {
        return c10::IValue(c10::Device(l.s));
      } catch (const std::exception&) {
        return InvalidArgument("bad device '" + l.s + "'");
      }
    case K::kIntList: {
      if (t.base == BaseType::kFloat) return c10::IValue(c10::List<double>(std::vector<double>(l.ints.begin(), l.ints.end())));
      return c10::IValue(c10::List<int64_t>(l.ints));
    }
    case K::kFloatList: return c10::IValue(c10::List<double>(l.floats));
    case K::kBoolList: {
      c10::List<bool> bs;
      for (bool b : l.bools) bs.push_back(b);
      return c10::IValue(bs);
    }
  }
  return Internal("unknown literal kind");
}

std::string Where(const Node* n) {
  std::string s = n->op().qualified_name;
  if (!n->outputs().empty()) s = "%" + n->output()->name() + " = " + s;
  return "node '" + s + "'";
}

class Interpreter {
 public:
  StatusOr<std::vector<at::Tensor>> Run(const Graph& g, const std::vector<at::Tensor>& inputs) {
    if (inputs.size() != g.inputs().size())
      return InvalidArgument("the graph takes " + std::to_string(g.inputs().size()) + " inputs, got " +
                             std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorMeta& m = g.inputs()[i]->meta();
      auto d = DTypeFromAten(inputs[i].scalar_type());
      if (!d.ok() || *d != m.dtype || inputs[i].sizes().vec() != m.sizes) {
        std::string got = std::string(c10::toString(inputs[i].scalar_type())) + " " +
                          c10::str(inputs[i].sizes());
        return InvalidArgument("input " + std::to_string(i) + " (%" + g.inputs()[i]->name() + "): expected " +
                               m.ToString() + ", got " + got);
      }
      env_[g.inputs()[i]] = inputs[i];
    }
    for (const Value* w : g.weight_values()) {
      auto it = g.weights().find(w->weight_key());
      if (it == g.weights().end()) return InvalidArgument("weight %" + w->name() + " has no data");
      env_[w] = TensorFromWeight(it->second);
    }
    for (const Node* n : g.nodes()) AOT_RETURN_IF_ERROR(RunNode(n).WithContext(Where(n)));
    std::vector<at::Tensor> outs;
    for (const Value* v : g.outputs()) outs.push_back(env_.at(v));
    return outs;
  }

 private:
  StatusOr<c10::OperatorHandle> Handle(const OpInfo& op) {
    auto it = handles_.find(&op);
    if (it != handles_.end()) return it->second;
    auto h = c10::Dispatcher::singleton().findSchema(
        {op.schema.ns + "::" + op.schema.name, op.schema.overload});
    if (!h) return NotFound("LibTorch has no operator " + op.qualified_name);
    handles_.emplace(&op, *h);
    return *h;
  }

  Status RunNode(const Node* n) {
    const OpInfo& op = n->op();
    AOT_ASSIGN_OR_RETURN(c10::OperatorHandle h, Handle(op));
    torch::jit::Stack stack;
    for (size_t i = 0; i < n->args().size(); ++i) {
      const Arg& a = n->args()[i];
      const SchemaType& t = op.schema.args[i].type;
      switch (a.kind) {
        case Arg::Kind::kValue: stack.push_back(env_.at(a.value)); break;
        case Arg::Kind::kLiteral: {
          AOT_ASSIGN_OR_RETURN(c10::IValue iv, LiteralToIValue(a.literal, t));
          stack.push_back(std::move(iv));
          break;
        }
        case Arg::Kind::kValueList: {
          if (t.elem_optional) {
            c10::List<c10::optional<at::Tensor>> l;
            for (const Value* v : a.list) l.push_back(v ? c10::optional<at::Tensor>(env_.at(v)) : c10::nullopt);
            stack.push_back(l);
          } else {
            c10::List<at::Tensor> l;
            for (const Value* v : a.list) l.push_back(env_.at(v));
            stack.push_back(l);
          }
          break;
        }
      }
    }
    try {
      h.callBoxed(stack);
    } catch (const std::exception& e) {
      std::string what = e.what();
      return InvalidArgument("LibTorch failed: " + what.substr(0, what.find('\n')));
    }
    std::vector<at::Tensor> results;
    if (n->list_output()) {
      if (stack.size() != 1 || !stack[0].isTensorList()) return Internal("expected a tensor list result");
      results = stack[0].toTensorVector();
      if (results.size() != n->outputs().size())
        return InvalidArgument("the op returned " + std::to_string(results.size()) + " tensors, the graph expects " +
                               std::to_string(n->outputs().size()));
    } else {
      if (stack.size() != n->outputs().size()) return Internal("result count differs from the graph");
      for (const c10::IValue& v : stack) results.push_back(v.toTensor());
    }
    for (size_t k = 0; k < results.size(); ++k) {
      // The IR's types are a contract: a result of another dtype or shape
      // means the graph (or a pass that rewrote it) is wrong.
      const TensorMeta& m = n->outputs()[k]->meta();
      if (results[k].scalar_type() != AtenFromDType(m.dtype) || results[k].sizes().vec() != m.sizes)
        return InvalidArgument("result %" + n->outputs()[k]->name() + " is " +
                               std::string(c10::toString(results[k].scalar_type())) + c10::str(results[k].sizes()) +
                               " but the IR declares " + m.ToString());
      env_[n->outputs()[k]] = results[k];
    }
    return Status::Ok();
  }

  std::unordered_map<const Value*, at::Tensor> env_;
  std::unordered_map<const OpInfo*, c10::OperatorHandle> handles_;
};

}  // namespace

StatusOr<std::vector<at::Tensor>> RunReference(const Graph& g, const std::vector<at::Tensor>& inputs) {
  try {
    return Interpreter().Run(g, inputs);
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Internal("LibTorch raised: " + what.substr(0, what.find('\n')));
  }
}

StatusOr<ArrayRunResult> RunOnArrays(const Graph& g, const std::vector<NpyArray>& inputs) {
  std::vector<at::Tensor> ts;
  for (const NpyArray& a : inputs) ts.push_back(TensorFromNpy(a));
  AOT_ASSIGN_OR_RETURN(std::vector<at::Tensor> outs, RunReference(g, ts));
  ArrayRunResult r;
  for (const at::Tensor& t : outs) {
    AOT_ASSIGN_OR_RETURN(NpyArray a, NpyFromTensor(t));
    r.outputs.push_back(std::move(a));
  }
  for (const at::Tensor& t : ts) {
    AOT_ASSIGN_OR_RETURN(NpyArray a, NpyFromTensor(t));
    r.inputs_after.push_back(std::move(a));
  }
  return r;
}

}  // namespace atenaot
