// Differential tests of functionalize and reinplace: every suite program,
// traced from C++, run at stages import, functional, functional-noviews and
// reinplaced, equals running it
// eagerly (outputs and inputs after the run). Fixtures are covered the same
// way in tests/fixture_import_test.cc (FixtureTest.EveryStageRunsLikeEager).
#include <gtest/gtest.h>

#include "tests/testing/stage_runner.h"

namespace atenaot {
namespace {

struct Case {
  const SuiteProgram* program;
  Stage stage;
};

std::vector<Case> Cases() {
  std::vector<Case> cs;
  for (const SuiteProgram& p : ProgramSuite())
    for (Stage s : {Stage::kImport, Stage::kFunctional, Stage::kFunctionalNoViews, Stage::kReinplaced})
      cs.push_back({&p, s});
  return cs;
}

class FunctionalizeDiff : public ::testing::TestWithParam<Case> {};

TEST_P(FunctionalizeDiff, EqualsEager) { EXPECT_EQ(RunProgramAtStage(*GetParam().program, GetParam().stage), ""); }

INSTANTIATE_TEST_SUITE_P(Suite, FunctionalizeDiff, ::testing::ValuesIn(Cases()), [](const auto& info) {
  std::string s = StageName(info.param.stage);
  for (char& c : s)
    if (c == '-') c = '_';
  return info.param.program->name + "_" + s;
});

TEST(FunctionalizeDiff, SuiteIsLargeEnough) { EXPECT_GE(ProgramSuite().size(), 60u); }

}  // namespace
}  // namespace atenaot
