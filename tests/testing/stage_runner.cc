#include "tests/testing/stage_runner.h"

#include <ATen/ATen.h>

#include "capture/jit_import.h"
#include "codegen/inplace_cat.h"
#include "interp/annotate.h"
#include "interp/reference_interpreter.h"
#include "ir/printer.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {

std::string RunProgramAtStage(const SuiteProgram& p, Stage stage) {
  std::vector<at::Tensor> inputs = p.inputs();
  auto g = TraceCpp(p.fn, inputs, LiveOpTable());
  if (!g.ok()) return "import failed: " + g.status().ToString();
  Status s = RunPipeline(**g, stage, LiveOpTable(), {});
  if (!p.rejected_with.empty() && stage != Stage::kImport) {
    if (s.ok()) return "expected the stage to refuse the program (" + p.rejected_with + "), but it passed";
    if (s.message().find(p.rejected_with) == std::string::npos)
      return "refused with the wrong message: " + s.ToString();
    return "";
  }
  if (!s.ok()) return std::string("stage ") + StageName(stage) + " failed: " + s.ToString();
  std::vector<at::Tensor> eager_in = CloneKeepingAliasing(inputs);
  std::vector<at::Tensor> eager_out = p.fn(eager_in);
  std::vector<at::Tensor> ref_in = CloneKeepingAliasing(inputs);
  auto ref_out = RunReference(**g, ref_in);
  if (!ref_out.ok()) return "run failed: " + ref_out.status().ToString() + "\n" + PrintGraph(**g);
  std::string diff = CompareTensorLists(eager_out, *ref_out, "output") + CompareInputsAfter(eager_in, ref_in);
  if (!diff.empty()) diff += "\n" + PrintGraph(**g);
  return diff;
}

}  // namespace atenaot

namespace atenaot {

std::string RunProgramPlanned(const SuiteProgram& p, const std::string& algorithm) {
  std::vector<at::Tensor> inputs = p.inputs();
  auto g = TraceCpp(p.fn, inputs, LiveOpTable());
  if (!g.ok()) return "import failed: " + g.status().ToString();
  Status s = RunPipeline(**g, Stage::kReinplaced, LiveOpTable(), {});
  if (!p.rejected_with.empty()) {  // refused before planning, with this message
    if (s.ok()) return "expected the passes to refuse the program (" + p.rejected_with + "), but they passed";
    if (s.message().find(p.rejected_with) == std::string::npos)
      return "refused with the wrong message: " + s.ToString();
    return "";
  }
  if (s.ok()) s = AnnotateFromRun(**g, inputs);
  if (!s.ok()) return s.ToString();
  // Cats written in place (codegen/inplace_cat.h) and the memory-aware op
  // order (plan/schedule.h) are checked here too: the interpreter runs the
  // nodes in the new order with every buffer, and every cat slice, at its offset.
  WriteCatInputsInPlace(**g);
  StatusOr<ScheduleStats> scheduled = ScheduleForMemory(**g, 64, nullptr, nullptr);
  if (!scheduled.ok()) return "scheduling failed: " + scheduled.status().ToString();
  auto plan = PlanMemory(**g, algorithm);
  if (!plan.ok()) return "planning failed: " + plan.status().ToString();
  std::vector<at::Tensor> eager_in = CloneKeepingAliasing(inputs);
  std::vector<at::Tensor> eager_out = p.fn(eager_in);
  std::vector<at::Tensor> ref_in = CloneKeepingAliasing(inputs);
  RunOptions opts;
  opts.plan = &*plan;
  auto ref_out = RunReference(**g, ref_in, opts);
  if (!ref_out.ok()) return "planned run failed: " + ref_out.status().ToString() + "\n" + PrintGraph(**g);
  std::string diff = CompareTensorLists(eager_out, *ref_out, "output") + CompareInputsAfter(eager_in, ref_in);
  if (!diff.empty()) diff += "\n" + PrintGraph(**g) + "\n" + PlanTable(*plan, {});
  return diff;
}

}  // namespace atenaot
