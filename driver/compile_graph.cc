#include "driver/compile_graph.h"

#include <chrono>

#include "codegen/embedding_mean_bag.h"
#include "codegen/fold_batch_norm.h"
#include "codegen/fold_weight_views.h"
#include "codegen/inplace_cat.h"
#include "codegen/kernel_scratch.h"

namespace atenaot {

namespace {

// Runs body(); with popts.timing set, reports "time: WHAT MS ms" like the
// pipeline's passes do.
template <typename F>
auto Timed(const PipelineOptions& popts, const char* what, F&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = body();
  if (popts.timing)
    *popts.timing << "time: " << what << " "
                  << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
                  << " ms\n";
  return result;
}

}  // namespace

StatusOr<MemoryPlan> PlanForCodegen(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                    const std::string& algorithm, const PipelineOptions& popts, int64_t alignment,
                                    bool schedule, const CodegenOptions& kernels,
                                    std::unordered_set<const Node*>* im2col_convs, KernelPlan* kernel_plan) {
  // The reinplaced stage, then decompose: registry passes, each timed, verified and checked.
  std::vector<std::string> names = PassesForStage(Stage::kReinplaced);
  names.push_back("decompose");
  std::vector<PassSpec> passes;
  for (const std::string& name : names) {
    AOT_ASSIGN_OR_RETURN(PassSpec spec, MakePassSpec(name));
    passes.push_back(std::move(spec));
  }
  AOT_RETURN_IF_ERROR(RunPasses(g, passes, ops, popts));
  AOT_RETURN_IF_ERROR(Timed(popts, "annotate", [&] { return annotate(g); }));  // the sample run
  Timed(popts, "fold batch_norm", [&] { return FoldBatchNormIntoConv(g, ops); });
  if (kernels.kernel_library)  // the C backend's (CUDA has no embedding_bag kernel)
    Timed(popts, "embedding mean to bag", [&] { return EmbeddingMeanToBag(g, ops); });
  Timed(popts, "fold weight views", [&] { return FoldWeightViews(g); });
  CodegenOptions kopts = kernels;
  std::unordered_set<const Value*> fused;
  ReusePairs reuse;
  NodeBytes scratch;
  auto fuse = [&] {
    fused = FusedAwayValues(g, kopts);  // what the C kernels fold away with these options too
    reuse = KernelReusePairs(g, fused);
    for (const auto& p : ConvInPlacePairs(g, kopts)) reuse.push_back(p);
    // Which node holds a kernel's scratch depends on the order too: a
    // convolution runs in bands at its reader's step only where nothing
    // between them writes its input (ConvBandsOf).
    scratch = KernelScratchBytes(g, kopts);
    return 0;
  };
  fuse();
  auto load = [&] {
    fuse();
    return LiveBytesLowerBound(ArenaRequests(AnalyzeBuffers(g, alignment, &fused, &reuse, &scratch)));
  };
  Timed(popts, "cat in place", [&] {
    // Each cat's moves stay only where they do not raise the peak.
    int64_t best = load();
    const CatInPlaceStats st = WriteCatInputsInPlace(g, [&] {
      const int64_t now = load();
      if (now > best) return false;
      best = now;
      return true;
    });
    if (popts.timing)
      *popts.timing << "cat in place: " << st.inputs << " input(s) written in place, " << st.copy_free
                    << " cat(s) copy nothing, " << st.undone << " cat(s) kept their copies (moving raised the peak)\n";
    return st;
  });
  Timed(popts, "winograd", [&] {
    // Winograd's scratch (0.5-1.5 MB a thread) stays only where it does not
    // raise the peak above that of im2col GEMM everywhere. From all refused,
    // each convolution gets it back while the peak stays there (refusing one
    // at a time would keep all of a plateau: ResNet's first stage has four
    // Winograd convolutions at the same peak).
    const std::vector<const Node*> wino = WinogradConvs(g, kopts);
    for (const Node* n : wino) kopts.im2col_convs.insert(n);
    const int64_t best = load();  // load() plans the scratch these options give
    int refused = 0;
    for (const Node* n : wino) {
      kopts.im2col_convs.erase(n);
      if (load() <= best) continue;
      kopts.im2col_convs.insert(n);
      ++refused;
    }
    if (popts.timing)
      *popts.timing << "winograd: " << refused << " convolution(s) kept on im2col GEMM (Winograd raised the peak)\n";
    return refused;
  });
  if (im2col_convs) *im2col_convs = kopts.im2col_convs;
  Timed(popts, "fusion", fuse);
  int64_t before = -1;
  std::vector<int64_t> before_live;
  ScheduleStats stats;
  if (schedule) {
    AOT_RETURN_IF_ERROR(Timed(popts, "schedule", [&]() -> Status {
      const BufferAnalysis traced = AnalyzeBuffers(g, alignment, &fused, &reuse, &scratch);
      before = LiveBytesLowerBound(ArenaRequests(traced));
      before_live = LiveBytesCurve(traced);
      const std::vector<Node*> traced_order = g.NodesSnapshot();
      AOT_ASSIGN_OR_RETURN(stats, ScheduleForMemory(g, alignment, &fused, &reuse, {}, &scratch));
      if (stats.changed) {
        // Fusion is decided again for the new order; keep the traced order if
        // that undoes the gain (the schedule's model assumed the old fusion).
        fuse();
        if (LiveBytesLowerBound(ArenaRequests(AnalyzeBuffers(g, alignment, &fused, &reuse, &scratch))) >= before) {
          ApplyNodeOrder(g, traced_order);
          fuse();
          stats.changed = false;
        }
      }
      return Status::Ok();
    }));
  }
  // "time: plan" is the placement alone (buffer analysis, LOAD, placement, overlap check).
  AOT_ASSIGN_OR_RETURN(MemoryPlan plan, Timed(popts, "plan", [&] {
                         return PlanMemory(g, algorithm, alignment, &fused, &reuse, &scratch);
                       }));
  if (schedule) {
    plan.unscheduled_lower_bound_bytes = before;
    plan.unscheduled_live = std::move(before_live);
    plan.schedule = stats;
  }
  if (kernel_plan) *kernel_plan = MakeKernelPlan(g, std::move(fused));  // the emitters' kernels, decided here once
  return plan;
}

StatusOr<CompiledGraph> CompileGraph(Graph& g, const OpTable& ops, const std::function<Status(Graph&)>& annotate,
                                     const CodegenOptions& copts, const std::string& algorithm,
                                     const PipelineOptions& popts, bool schedule) {
  CompiledGraph out;
  CodegenOptions o = copts;  // with the convolutions the plan kept on im2col GEMM
  KernelPlan kernels;
  AOT_ASSIGN_OR_RETURN(
      out.plan, PlanForCodegen(g, ops, annotate, algorithm, popts, 64, schedule, copts, &o.im2col_convs, &kernels));
  AOT_ASSIGN_OR_RETURN(out.c, GenerateC(g, out.plan, kernels, o));
  return out;
}

StatusOr<CompiledGraphCuda> CompileGraphCuda(Graph& g, const OpTable& ops,
                                             const std::function<Status(Graph&)>& annotate,
                                             const CudaCodegenOptions& copts, const std::string& algorithm,
                                             const PipelineOptions& popts, bool schedule) {
  CompiledGraphCuda out;
  CodegenOptions no_scratch;  // cuBLAS and the fused CUDA kernels need no planned scratch
  no_scratch.kernel_library = false;
  KernelPlan kernels;
  AOT_ASSIGN_OR_RETURN(out.plan,
                       PlanForCodegen(g, ops, annotate, algorithm, popts, 64, schedule, no_scratch, nullptr, &kernels));
  AOT_ASSIGN_OR_RETURN(out.cuda, GenerateCuda(g, out.plan, kernels, copts));
  return out;
}

}  // namespace atenaot
