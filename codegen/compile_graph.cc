#include "codegen/compile_graph.h"

#include "passes/decompose.h"

namespace atenaot {

StatusOr<MemoryPlan> PlanForCodegen(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                    const std::string& algorithm, const PipelineOptions& popts, int64_t alignment) {
  AOT_RETURN_IF_ERROR(RunPipeline(g, Stage::kReinplaced, ops, popts));
  AOT_RETURN_IF_ERROR(Decompose(g, ops));
  AOT_RETURN_IF_ERROR(annotate(g));
  std::unordered_set<const Value*> fused = FusedAwayValues(g);
  ReusePairs reuse = KernelReusePairs(g, fused);
  return PlanMemory(g, algorithm, alignment, &fused, &reuse);
}

StatusOr<CompiledGraph> CompileGraph(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                     const CodegenOptions& copts, const std::string& algorithm,
                                     const PipelineOptions& popts) {
  CompiledGraph out;
  AOT_ASSIGN_OR_RETURN(out.plan, PlanForCodegen(g, ops, annotate, algorithm, popts));
  AOT_ASSIGN_OR_RETURN(out.c, GenerateC(g, out.plan, copts));
  return out;
}

StatusOr<CompiledGraphCuda> CompileGraphCuda(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                             const CudaCodegenOptions& copts, const std::string& algorithm,
                                             const PipelineOptions& popts) {
  CompiledGraphCuda out;
  AOT_ASSIGN_OR_RETURN(out.plan, PlanForCodegen(g, ops, annotate, algorithm, popts));
  AOT_ASSIGN_OR_RETURN(out.cuda, GenerateCuda(g, out.plan, copts));
  return out;
}

}  // namespace atenaot
