#include "capture/cpp_trace.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include "capture/jit_import.h"

namespace atenaot {

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
  } catch (const std::exception& e) {
    std::string what = e.what();
    return InvalidArgument("tracing the C++ program failed: " + what.substr(0, what.find('\n')));
  }
  return ImportJitGraph(*g, sample_inputs, ops);
}

}  // namespace atenaot
