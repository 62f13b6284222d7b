// Plan-checked execution: every suite program, reinplaced and memory-planned
// by each placement algorithm, runs with all arena buffers at their planned
// offsets and still equals eager. This proves the plans, not just the
// arithmetic: two live buffers that share bytes would corrupt each other.
#include <gtest/gtest.h>

#include "plan/placement.h"
#include "tests/testing/stage_runner.h"

namespace atenaot {
namespace {

struct Case {
  const SuiteProgram* program;
  std::string algorithm;
};

std::vector<Case> Cases() {
  std::vector<Case> cs;
  for (const SuiteProgram& p : ProgramSuite())
    for (const std::string& a : PlacementAlgorithms()) cs.push_back({&p, a});
  return cs;
}

class PlanChecked : public ::testing::TestWithParam<Case> {};

TEST_P(PlanChecked, EqualsEager) { EXPECT_EQ(RunProgramPlanned(*GetParam().program, GetParam().algorithm), ""); }

INSTANTIATE_TEST_SUITE_P(Suite, PlanChecked, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.program->name + "_" + info.param.algorithm; });

}  // namespace
}  // namespace atenaot

// The check can fail: the same program with two live buffers forced onto the
// same bytes no longer equals eager.
#include <ATen/ATen.h>

#include "capture/jit_import.h"
#include "interp/annotate.h"
#include "interp/reference_interpreter.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {
namespace {

TEST(PlanChecked, OverlappingPlanIsCaught) {
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    at::Tensor a = in[0] * 2, b = in[0] * 3;
    at::Tensor c = a * b, d = a + b;
    return {c * d};
  };
  at::manual_seed(5);
  std::vector<at::Tensor> inputs = {at::randn({8})};
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(RunPipeline(**g, Stage::kReinplaced, LiveOpTable(), {}).ok());
  ASSERT_TRUE(AnnotateFromRun(**g, inputs).ok());
  auto plan = PlanMemory(**g, "best");
  ASSERT_TRUE(plan.ok());
  ASSERT_GE(plan->analysis.arena.size(), 2u);
  std::vector<at::Tensor> expected = fn(CloneKeepingAliasing(inputs));
  RunOptions opts;
  opts.plan = &*plan;
  auto good = RunReference(**g, CloneKeepingAliasing(inputs), opts);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(CompareTensorLists(expected, *good, "output"), "");
  // Every arena buffer at offset 0: live buffers now share bytes.
  MemoryPlan bad = *plan;
  for (int64_t& o : bad.offsets)
    if (o > 0) o = 0;
  auto wrong = RunReference(**g, CloneKeepingAliasing(inputs), RunOptions{&bad});
  EXPECT_TRUE(!wrong.ok() || CompareTensorLists(expected, *wrong, "output") != "");
}

}  // namespace
}  // namespace atenaot
