#include "interp/reference_interpreter.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <unordered_map>
#include <unordered_set>

#include "capture/libtorch_error.h"
#include "capture/tensor_convert.h"
#include "plan/memory_plan.h"

namespace atenaot {
namespace {

StatusOr<c10::IValue> LiteralToIValue(const Literal& l, const SchemaType& t) {
  using K = Literal::Kind;
  switch (l.kind) {
    case K::kNone:
      return c10::IValue();
    case K::kInt:
      if (t.base == BaseType::kFloat) return c10::IValue(static_cast<double>(l.i));
      return c10::IValue(l.i);
    case K::kFloat:
      return c10::IValue(l.f);
    case K::kBool:
      return c10::IValue(l.b);
    case K::kString:
      return c10::IValue(l.s);
    case K::kDevice:
      try {
        return c10::IValue(c10::Device(l.s));
      } catch (const std::exception&) {
        return InvalidArgument("bad device '" + l.s + "'");
      }
    case K::kIntList: {
      if (t.base == BaseType::kFloat)
        return c10::IValue(c10::List<double>(std::vector<double>(l.ints.begin(), l.ints.end())));
      return c10::IValue(c10::List<int64_t>(l.ints));
    }
    case K::kFloatList:
      return c10::IValue(c10::List<double>(l.floats));
    case K::kBoolList: {
      c10::List<bool> bs;
      for (bool b : l.bools) bs.push_back(b);
      return c10::IValue(bs);
    }
  }
  return Internal("unknown literal kind");
}

// Counts CPU allocator traffic on this thread (the hook LibTorch's profiler
// uses); frees report negative sizes.
struct PeakReporter final : c10::MemoryReportingInfoBase {
  int64_t live = 0, peak = 0;
  void reportMemoryUsage(void*, int64_t size, int64_t, int64_t, c10::Device d) override {
    if (!d.is_cpu()) return;
    live += size;
    peak = std::max(peak, live);
  }
  bool memoryProfilingEnabled() const override { return true; }
};

class Interpreter {
 public:
  explicit Interpreter(const RunOptions& opts) : opts_(opts) {}

  StatusOr<std::vector<at::Tensor>> Run(const Graph& g, const std::vector<at::Tensor>& inputs) {
    if (inputs.size() != g.inputs().size())
      return InvalidArgument("the graph takes " + std::to_string(g.inputs().size()) + " inputs, got " +
                             std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorMeta& m = g.inputs()[i]->meta();
      auto d = DTypeFromAten(inputs[i].scalar_type());
      if (!d.ok() || *d != m.dtype || inputs[i].sizes().vec() != m.sizes) {
        std::string got = std::string(c10::toString(inputs[i].scalar_type())) + " " + c10::str(inputs[i].sizes());
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
    AOT_RETURN_IF_ERROR(PreparePlan(g));
    if (opts_.free_dead_values) FindLastUses(g);
    std::shared_ptr<PeakReporter> reporter;
    std::unique_ptr<c10::DebugInfoGuard> guard;
    if (opts_.peak_bytes) {
      reporter = std::make_shared<PeakReporter>();
      guard = std::make_unique<c10::DebugInfoGuard>(c10::DebugInfoKind::PROFILER_STATE, reporter);
    }
    for (const Node* n : g.nodes()) {
      AOT_RETURN_IF_ERROR(RunNode(n).WithContext(DescribeNode(n)));
      if (opts_.free_dead_values)
        for (const Value* v : dies_after_[n]) env_.erase(v);
    }
    std::vector<at::Tensor> outs;
    for (const Value* v : g.outputs()) outs.push_back(env_.at(v));
    if (plan_) {
      // The arena dies with the interpreter: outputs still inside it are copied out.
      const uint8_t* lo = static_cast<const uint8_t*>(arena_.data_ptr());
      for (at::Tensor& t : outs) {
        const uint8_t* p = t.numel() ? static_cast<const uint8_t*>(t.data_ptr()) : nullptr;
        if (p && p >= lo && p < lo + arena_.numel()) t = t.clone();
      }
    }
    guard.reset();
    if (opts_.peak_bytes) *opts_.peak_bytes = reporter->peak;
    if (opts_.values) *opts_.values = env_;
    return outs;
  }

 private:
  StatusOr<c10::OperatorHandle> Handle(const OpInfo& op) {
    auto it = handles_.find(&op);
    if (it != handles_.end()) return it->second;
    auto h = c10::Dispatcher::singleton().findSchema({op.schema.ns + "::" + op.schema.name, op.schema.overload});
    if (!h) return NotFound("LibTorch has no operator " + op.qualified_name);
    handles_.emplace(&op, *h);
    return *h;
  }

  // aten::copy, copy_'s functional twin (what functionalize emits), returns
  // new memory laid out like self, as PyTorch >= 2.0 defines it. LibTorch
  // 1.13's composite returns src.to(self): src itself when dtype and shape
  // match (bug C1), and src's or a contiguous layout otherwise (F4).
  StatusOr<at::Tensor> RunCopy(const Node* n) {
    if (!n->input(0) || !n->input(1) || n->args()[2].kind != Arg::Kind::kLiteral)
      return InvalidArgument("aten::copy expects (Tensor, Tensor, bool)");
    const at::Tensor& self = env_.at(n->input(0));
    at::Tensor r = at::empty_like(self, at::MemoryFormat::Preserve);
    try {
      r.copy_(env_.at(n->input(1)), n->args()[2].literal.b);
    } catch (const std::exception& e) {
      return InvalidArgument("LibTorch failed: " + LibTorchMessage(e));
    }
    return r;
  }

  Status RunNode(const Node* n) {
    const OpInfo& op = n->op();
    if (op.qualified_name == "aten::copy") {
      AOT_ASSIGN_OR_RETURN(at::Tensor r, RunCopy(n));
      return SetResults(n, {r});
    }
    AOT_ASSIGN_OR_RETURN(c10::OperatorHandle h, Handle(op));
    torch::jit::Stack stack;
    for (size_t i = 0; i < n->args().size(); ++i) {
      const Arg& a = n->args()[i];
      const SchemaType& t = op.schema.args[i].type;
      switch (a.kind) {
        case Arg::Kind::kValue:
          stack.push_back(env_.at(a.value));
          break;
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
      return InvalidArgument("LibTorch failed: " + LibTorchMessage(e));
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
      // Undefined results (_native_multi_head_attention without weights) are
      // empty tensors, as the importer records them.
      for (const c10::IValue& v : stack)
        results.push_back(v.isNone() || !v.toTensor().defined() ? at::empty({0}) : v.toTensor());
    }
    return SetResults(n, std::move(results));
  }

  Status SetResults(const Node* n, std::vector<at::Tensor> results) {
    for (size_t k = 0; k < results.size(); ++k) {
      // The IR's types are a contract: a result of another dtype or shape
      // means the graph (or a pass that rewrote it) is wrong.
      const TensorMeta& m = n->outputs()[k]->meta();
      if (results[k].scalar_type() != AtenFromDType(m.dtype) || results[k].sizes().vec() != m.sizes)
        return InvalidArgument("result %" + n->outputs()[k]->name() + " is " +
                               std::string(c10::toString(results[k].scalar_type())) + c10::str(results[k].sizes()) +
                               " but the IR declares " + m.ToString());
      if (plan_) {
        AOT_ASSIGN_OR_RETURN(results[k], PlaceInArena(n->outputs()[k], results[k]));
      }
      env_[n->outputs()[k]] = results[k];
    }
    return Status::Ok();
  }

  // ---- plan-checked execution ----
  Status PreparePlan(const Graph& g) {
    plan_ = opts_.plan;
    if (!plan_) return Status::Ok();
    arena_ = at::empty({std::max<int64_t>(plan_->arena_bytes(), 1)}, at::kByte);
    for (size_t i = 0; i < plan_->analysis.buffers.size(); ++i) {
      const Buffer& b = plan_->analysis.buffers[i];
      if (b.home != BufferHome::kArena) continue;
      // Each storage's first value is copied into the buffer (several when a
      // kernel reuses a dying input's buffer), and so is every result of a
      // functional op (the slices of a cat written in place); the rest, views
      // and in-place results, must land inside it.
      std::unordered_set<int64_t> seen;
      for (int64_t st : b.storages) buffer_of_[st] = static_cast<int>(i);
      for (const Value* v : b.values)
        if (seen.insert(v->meta().storage).second || (v->producer() && v->producer()->op().kind == OpKind::kFunctional))
          defining_[v] = static_cast<int>(i);
    }
    (void)g;
    return Status::Ok();
  }

  StatusOr<at::Tensor> PlaceInArena(const Value* v, const at::Tensor& t) {
    auto b = buffer_of_.find(v->meta().storage);
    if (b == buffer_of_.end()) return t;  // not an arena buffer
    const Buffer& buf = plan_->analysis.buffers[static_cast<size_t>(b->second)];
    const int64_t off = plan_->offsets[static_cast<size_t>(b->second)];
    uint8_t* lo = static_cast<uint8_t*>(arena_.data_ptr()) + off;
    if (defining_.count(v)) {
      const TensorMeta& m = v->meta();
      const int64_t item = DTypeSize(m.dtype);
      if (off % item != 0)
        return Internal("plan offset " + std::to_string(off) + " is not aligned for " + DTypeName(m.dtype));
      // The arena is bytes; view it at this buffer with the value's layout.
      at::Tensor dst = at::from_blob(lo, {buf.bytes / item}, at::TensorOptions().dtype(t.scalar_type()))
                           .as_strided(m.sizes, m.strides, m.offset);
      dst.copy_(t);
      return dst;
    }
    // Views and in-place results of a buffer must stay inside it.
    const uint8_t* p = static_cast<const uint8_t*>(t.data_ptr());
    if (t.numel() > 0 && (p < lo || p >= lo + buf.bytes))
      return InvalidArgument("plan check: %" + v->name() + " should live in buffer %" + buf.name + " (arena offset " +
                             std::to_string(off) + ") but the op returned other memory");
    return t;
  }

  // ---- eager-like freeing ----
  void FindLastUses(const Graph& g) {
    std::unordered_map<const Value*, const Node*> last;
    for (const Node* n : g.nodes())
      for (const Value* v : n->InputValues()) last[v] = n;
    std::unordered_map<const Value*, bool> keep;
    for (const Value* v : g.outputs()) keep[v] = true;
    for (const Value* v : g.inputs()) keep[v] = true;
    for (const Node* n : g.nodes())
      for (const Value* o : n->outputs())
        if (!last.count(o) && !keep.count(o)) dies_after_[n].push_back(o);  // never read
    for (const auto& [v, n] : last)
      if (!keep.count(v) && v->kind() == ValueKind::kNodeOutput) dies_after_[n].push_back(v);
  }

  RunOptions opts_;
  std::unordered_map<const Value*, at::Tensor> env_;
  std::unordered_map<const OpInfo*, c10::OperatorHandle> handles_;
  const MemoryPlan* plan_ = nullptr;
  at::Tensor arena_;
  std::unordered_map<int64_t, int> buffer_of_;      // storage id -> arena buffer
  std::unordered_map<const Value*, int> defining_;  // first value of each arena buffer
  std::unordered_map<const Node*, std::vector<const Value*>> dies_after_;
};

}  // namespace

StatusOr<std::vector<at::Tensor>> RunReference(const Graph& g, const std::vector<at::Tensor>& inputs,
                                               const RunOptions& opts) {
  try {
    return Interpreter(opts).Run(g, inputs);
  } catch (const std::exception& e) {
    return Internal("LibTorch raised: " + LibTorchMessage(e));
  }
}

}  // namespace atenaot
