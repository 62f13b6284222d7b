#include "passes/pipeline.h"

#include <sstream>

#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/test_op_table.h"

namespace atenaot {
namespace {

TEST(Pipeline, StageNamesRoundTrip) {
  for (const char* n : {"import", "functional", "functional-noviews", "reinplaced"}) {
    auto s = ParseStage(n);
    ASSERT_TRUE(s.ok());
    EXPECT_STREQ(StageName(*s), n);
  }
  auto bad = ParseStage("optimised");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("stages: import, functional"), std::string::npos);
}

TEST(Pipeline, ImportStageVerifiesAndTimes) {
  auto g = ParseGraph("graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x) : f32[2]@s1\n  return %y\n}",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  std::ostringstream timing;
  PipelineOptions opts;
  opts.timing = &timing;
  EXPECT_TRUE(RunPipeline(**g, Stage::kImport, SnapshotOpTable(), opts).ok());
  EXPECT_NE(timing.str().find("time: verify"), std::string::npos);
}

TEST(Pipeline, VerifierFailureIsReported) {
  auto g = ParseGraph("graph @f(%x: f32[2]@s0) {\n  %y = aten::add.Tensor(%x, 1) : f32[2]@s1\n  return %y\n}",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  Status s = RunPipeline(**g, Stage::kImport, SnapshotOpTable(), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("verifier (input graph)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace atenaot
