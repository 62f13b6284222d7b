#include "interp/run_arrays.h"

#include <ATen/ATen.h>

#include "capture/tensor_convert.h"
#include "interp/annotate.h"
#include "interp/reference_interpreter.h"

namespace atenaot {
namespace {

std::vector<at::Tensor> Tensors(const std::vector<NpyArray>& arrays) {
  std::vector<at::Tensor> ts;
  for (const NpyArray& a : arrays) ts.push_back(TensorFromNpy(a));
  return ts;
}

}  // namespace

StatusOr<ArrayRunResult> RunOnArrays(const Graph& g, const std::vector<NpyArray>& inputs, const MemoryPlan* plan) {
  std::vector<at::Tensor> ts = Tensors(inputs);
  RunOptions opts;
  opts.plan = plan;
  AOT_ASSIGN_OR_RETURN(std::vector<at::Tensor> outs, RunReference(g, ts, opts));
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

Status AnnotateFromArrays(Graph& g, const std::vector<NpyArray>& inputs) { return AnnotateFromRun(g, Tensors(inputs)); }

StatusOr<int64_t> MeasureEagerPeak(const Graph& g, const std::vector<NpyArray>& inputs) {
  int64_t peak = 0;
  RunOptions opts;
  opts.free_dead_values = true;
  opts.peak_bytes = &peak;
  AOT_RETURN_IF_ERROR(RunReference(g, Tensors(inputs), opts).status().WithContext("measuring eager peak"));
  return peak;
}

}  // namespace atenaot
