// The compile path from an imported graph to C source, in one place:
// functionalize + reinplace (pipeline stage `reinplaced`) and decompose, all
// registry passes (passes/pass_registry.def), exact
// layouts from a sample run (`annotate`, supplied by the caller because it
// needs LibTorch), fusion, kernel buffer reuse, memory planning, C codegen.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>

#include "codegen/c_codegen.h"
#include "codegen/cuda_codegen.h"
#include "ir/graph.h"
#include "ir/op_table.h"
#include "passes/pipeline.h"
#include "plan/memory_plan.h"

namespace atenaot {

struct CompiledGraph {
  MemoryPlan plan;
  GeneratedC c;
};

// Everything up to and including the memory plan (what `atenaot plan`
// reports): works for graphs with ops the C backend cannot compile too.
// `schedule` reorders the ops to lower LOAD first (plan/schedule.h). The
// kernel scratch planned is what the C backend with `kernels` needs
// (KernelScratchBytes; none with kernel_library off, as for CUDA), less the
// Winograd convolutions it keeps on im2col GEMM because their scratch raised
// the peak: returned in *im2col_convs, for GenerateC's options. The fusion the
// plan was made for and the kernels it leaves go to *kernel_plan, for the
// emitter (GenerateC or GenerateCuda).
StatusOr<MemoryPlan> PlanForCodegen(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                    const std::string& algorithm = "best", const PipelineOptions& popts = {},
                                    int64_t alignment = 64, bool schedule = true,
                                    const CodegenOptions& kernels = CodegenOptions(),
                                    std::unordered_set<const Node*>* im2col_convs = nullptr,
                                    KernelPlan* kernel_plan = nullptr);

StatusOr<CompiledGraph> CompileGraph(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                     const CodegenOptions& copts, const std::string& algorithm = "best",
                                     const PipelineOptions& popts = {}, bool schedule = true);

// The same plan as CompileGraph, compiled to CUDA (codegen/cuda_codegen.h).
struct CompiledGraphCuda {
  MemoryPlan plan;
  GeneratedCuda cuda;
};
StatusOr<CompiledGraphCuda> CompileGraphCuda(Graph& g, const OpTable& ops,
                                             const std::function<Status(Graph&)>& annotate,
                                             const CudaCodegenOptions& copts, const std::string& algorithm = "best",
                                             const PipelineOptions& popts = {}, bool schedule = true);

}  // namespace atenaot
