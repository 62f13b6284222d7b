#include "capture/cpp_trace.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <unordered_set>

#include "capture/jit_import.h"
#include "capture/libtorch_error.h"

namespace atenaot {
namespace {

namespace jit = torch::jit;

int64_t NumelOf(const jit::Value* v) {
  auto t = v->type()->cast<c10::TensorType>();
  auto n = t ? t->numel() : c10::nullopt;
  return n ? static_cast<int64_t>(*n) : -1;
}

// at::tensor(values) allocates with aten::empty and copies the values in
// behind the dispatcher, so the trace holds only the empty (bug T1): the IR
// would read uninitialised memory. An empty* result must therefore be written
// whole (fill_, zero_, copy_, an out= argument, a random fill) before anything
// reads it; views on the way are followed. Partial writes are refused too.
Status CheckEmptiesWrittenFirst(const jit::Graph& g) {
  static const std::unordered_set<std::string> kEmpty = {"aten::empty", "aten::empty_like", "aten::empty_strided",
                                                         "aten::new_empty", "aten::new_empty_strided"};
  static const std::unordered_set<std::string> kOverwrite = {
      "aten::fill_",      "aten::zero_",   "aten::copy_",      "aten::normal_",
      "aten::uniform_",   "aten::random_", "aten::bernoulli_", "aten::exponential_",
      "aten::geometric_", "aten::cauchy_", "aten::log_normal_"};
  static const std::unordered_set<std::string> kPartialViews = {"aten::expand", "aten::expand_as", "aten::as_strided",
                                                                "aten::broadcast_to"};
  std::vector<const jit::Node*> nodes(g.nodes().begin(), g.nodes().end());
  for (size_t k = 0; k < nodes.size(); ++k) {
    const jit::Node* e = nodes[k];
    if (!kEmpty.count(e->kind().toQualString())) continue;
    const int64_t numel = NumelOf(e->output());
    auto refuse = [&](const std::string& what) {
      return InvalidArgument("node '%" + e->output()->debugName() + " = " + e->kind().toQualString() +
                             "': its uninitialised result " + what +
                             ". at::tensor(values) is traced this way (its data is copied in untraced): make "
                             "such constants with torch::tensor, or outside the traced function");
    };
    // The empty's result and its views; true for views that cover all of it.
    std::unordered_map<const jit::Value*, bool> alias = {{e->output(), true}};
    bool decided = false;
    for (size_t j = k + 1; j < nodes.size() && !decided; ++j) {
      const jit::Node* n = nodes[j];
      const c10::FunctionSchema* schema = n->maybeSchema();
      for (size_t i = 0; i < n->inputs().size() && !decided; ++i) {
        auto a = alias.find(n->inputs()[i]);
        if (a == alias.end()) continue;
        const c10::AliasInfo* info =
            schema && i < schema->arguments().size() ? schema->arguments()[i].alias_info() : nullptr;
        const std::string kind = n->kind().toQualString();
        if (info && info->isWrite()) {
          // fill_/zero_/copy_... overwrite their self (argument 0); out= ops their out argument.
          const bool overwrites = kOverwrite.count(kind) ? i == 0 : schema->arguments()[i].is_out();
          if (!overwrites || !a->second) return refuse("is read or only partly written by " + kind + " first");
          decided = true;                                 // written whole first
        } else if (n->kind() == jit::prim::ListUnpack) {  // the views of split/unbind/chunk
          for (const jit::Value* o : n->outputs()) alias[o] = false;
        } else if (info && !info->isWrite() && schema->returns().size() == n->outputs().size()) {
          // A view: follow it (whole when it has all the elements and is no expand/as_strided).
          for (const jit::Value* o : n->outputs())
            alias[o] = a->second && !kPartialViews.count(kind) && NumelOf(o) == numel && numel >= 0;
        } else {
          return refuse("is read by " + kind + " before the program writes it");
        }
      }
    }
    if (decided) continue;
    for (const jit::Value* o : g.outputs())
      if (alias.count(o)) return refuse("is an output of the program");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Graph>> TraceCpp(const CppProgram& fn, const std::vector<at::Tensor>& sample_inputs,
                                          const OpTable& ops) {
  std::shared_ptr<torch::jit::Graph> g;
  try {
    torch::jit::Stack stack;
    for (const at::Tensor& t : CloneKeepingAliasing(sample_inputs)) stack.push_back(t);
    auto wrapped = [&fn](torch::jit::Stack in) -> torch::jit::Stack {
      std::vector<at::Tensor> ts;
      for (const c10::IValue& v : in) ts.push_back(v.toTensor());
      torch::jit::Stack out;
      for (const at::Tensor& t : fn(ts)) out.push_back(t);
      return out;
    };
    // force_outplace=false: the tracer must record in-place ops as they are.
    auto traced = torch::jit::tracer::trace(
        stack, wrapped, [](const at::Tensor&) { return std::string(); }, /*strict=*/true,
        /*force_outplace=*/false);
    g = traced.first->graph;
    torch::jit::EliminateDeadCode(g);
    AOT_RETURN_IF_ERROR(CheckEmptiesWrittenFirst(*g));
  } catch (const std::exception& e) {
    return InvalidArgument("tracing the C++ program failed: " + LibTorchMessage(e));
  }
  return ImportJitGraph(*g, sample_inputs, ops);
}

}  // namespace atenaot
