#include "passes/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "ir/parser.h"
#include "ir/printer.h"
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
  auto g =
      ParseGraph("graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x) : f32[2]@s1\n  return %y\n}", SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  std::ostringstream timing;
  PipelineOptions opts;
  opts.timing = &timing;
  EXPECT_TRUE(RunPipeline(**g, Stage::kImport, SnapshotOpTable(), opts).ok());
  EXPECT_NE(timing.str().find("time: verify"), std::string::npos);
}

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(Pipeline, VerifyEndsOnlyVerifiesTheInputAndTheLastPass) {
  const char* text =
      "graph @f(%x: f32[2]@s0) {\n  %y = aten::clone(%x) : f32[2]@s1\n  %z = aten::add_.Tensor(%y, %x) : "
      "f32[2]@s1\n  return %z\n}";
  for (bool ends_only : {false, true}) {
    auto g = ParseGraph(text, SnapshotOpTable());
    ASSERT_TRUE(g.ok());
    std::ostringstream timing;
    PipelineOptions opts;
    opts.timing = &timing;
    opts.verify_ends_only = ends_only;
    ASSERT_TRUE(RunPipeline(**g, Stage::kReinplaced, SnapshotOpTable(), opts).ok());
    int passes = static_cast<int>(PassesForStage(Stage::kReinplaced).size());
    EXPECT_EQ(Count(timing.str(), "time: verify"), ends_only ? 2 : passes + 1) << timing.str();
    const std::string t = timing.str();
    EXPECT_EQ(t.compare(t.rfind('\n', t.size() - 2) + 1, 12, "time: verify"), 0) << t;  // after the last pass
  }
  auto bad = ParseGraph("graph @f(%x: f32[2]@s0) {\n  %y = aten::add.Tensor(%x, 1) : f32[2]@s1\n  return %y\n}",
                        SnapshotOpTable());
  ASSERT_TRUE(bad.ok());
  PipelineOptions opts;
  opts.verify_ends_only = true;
  Status s = RunPipeline(**bad, Stage::kReinplaced, SnapshotOpTable(), opts);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("verifier (input graph)"), std::string::npos) << s.message();
}

TEST(Pipeline, VerifierFailureIsReported) {
  auto g = ParseGraph("graph @f(%x: f32[2]@s0) {\n  %y = aten::add.Tensor(%x, 1) : f32[2]@s1\n  return %y\n}",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  Status s = RunPipeline(**g, Stage::kImport, SnapshotOpTable(), {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("verifier (input graph)"), std::string::npos) << s.message();
}

std::unique_ptr<Graph> Parse(const std::string& text) {
  auto g = ParseGraph(text, SnapshotOpTable());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : nullptr;
}

TEST(Registry, EveryStagePassAndDecomposeAreRegisteredWithSummaries) {
  std::vector<std::string> names;
  for (const PassInfo& p : RegisteredPasses()) {
    names.push_back(p.name);
    EXPECT_FALSE(p.summary.empty()) << p.name;
  }
  for (Stage s : {Stage::kFunctional, Stage::kFunctionalNoViews, Stage::kReinplaced})
    for (const std::string& p : PassesForStage(s))
      EXPECT_NE(std::find(names.begin(), names.end(), p), names.end()) << p;
  EXPECT_NE(std::find(names.begin(), names.end(), "decompose"), names.end());
  const std::string help = PassListHelp();
  EXPECT_NE(help.find("reinplace"), std::string::npos) << help;
  EXPECT_NE(help.find("{fuse-cast-back=true}"), std::string::npos) << help;
}

TEST(Registry, ParsesPassListsWithOptions) {
  auto l = ParsePassList("functionalize,dce,reinplace{fuse-cast-back=false,reuse-restored-inputs=0},dce");
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->size(), 4u);
  EXPECT_EQ((*l)[2].name, "reinplace");
  EXPECT_FALSE((*l)[2].options.Flag("fuse-cast-back"));
  EXPECT_FALSE((*l)[2].options.Flag("reuse-restored-inputs"));
  auto d = ParsePassList("reinplace");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE((*d)[0].options.Flag("fuse-cast-back"));  // the registry's default
  for (const char* bad : {"", "dce,", "nosuch", "dce,,dce", "reinplace{fuse-cast-back}", "reinplace{nokey=true}",
                          "reinplace{fuse-cast-back=true", "dce{x=1}", "reinplace{fuse-cast-back=true}dce"})
    EXPECT_FALSE(ParsePassList(bad).ok()) << bad;
  EXPECT_NE(ParsePassList("nosuch").status().message().find("passes: functionalize"), std::string::npos);
}

// Options reach the pass (ReinplaceOptions) and its statistics come back (ReinplaceStats).
TEST(Registry, ReinplaceOptionsAndStatsGoThroughTheRegistry) {
  const std::string text =
      "graph @f(%a: f32[3]@s0, %b: f32[3]@s1) {\n"
      "  %x = aten::mul.Scalar(%a, 1) : f32[3]@s2\n"
      "  %t = aten::ge.Tensor(%x, %b) : bool[3]@s3\n"
      "  %y = aten::_to_copy(%t, 6, none, none, none, false, none) : f32[3]@s4\n"
      "  return %y\n}";
  for (bool fuse : {true, false}) {
    auto g = Parse(text);
    ASSERT_TRUE(g);
    auto passes = ParsePassList(std::string("reinplace{fuse-cast-back=") + (fuse ? "true" : "false") + "},dce");
    ASSERT_TRUE(passes.ok());
    std::vector<std::pair<std::string, PassStats>> stats;
    PipelineOptions opts;
    opts.stats = &stats;
    Status s = RunPasses(*g, *passes, SnapshotOpTable(), opts);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0].first, "reinplace");
    int64_t fused = -1;
    for (const auto& [k, v] : stats[0].second)
      if (k == "casts-fused") fused = v;
    EXPECT_EQ(fused, fuse ? 1 : 0) << PrintGraph(*g);
    EXPECT_EQ(PrintGraph(*g).find("_to_copy") == std::string::npos, fuse) << PrintGraph(*g);
  }
}

TEST(Registry, DecomposeRunsWithVerifierAndPostcondition) {
  auto g = Parse(
      "graph @f(%x: f32[3,4]@s0, %y: f32[3,4]@s1) {\n"
      "  %s = aten::stack([%x, %y], 1) : f32[3,2,4]@s2\n  return %s\n}");
  ASSERT_TRUE(g);
  std::vector<std::string> seen;
  std::ostringstream timing;
  PipelineOptions opts;
  opts.timing = &timing;
  opts.after_pass = [&](const std::string& p, const Graph& gg) { seen.push_back(p + ":" + PrintGraph(gg)); };
  auto passes = ParsePassList("decompose");
  ASSERT_TRUE(passes.ok());
  ASSERT_TRUE(RunPasses(*g, *passes, SnapshotOpTable(), opts).ok());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].find("decompose:"), 0u);
  EXPECT_EQ(seen[0].find("aten::stack"), std::string::npos) << seen[0];
  EXPECT_NE(timing.str().find("time: decompose"), std::string::npos);
  // Two verifier runs: the input graph and after decompose.
  EXPECT_NE(timing.str().find("time: verify", timing.str().find("time: decompose")), std::string::npos);
}

TEST(Registry, DceLeavesNoDeadNode) {
  auto g = Parse(
      "graph @f(%x: f32[2]@s0) {\n  %a = aten::relu(%x) : f32[2]@s1\n  %b = aten::neg(%a) : f32[2]@s2\n"
      "  %c = aten::sin(%x) : f32[2]@s3\n  return %c\n}");
  ASSERT_TRUE(g);
  std::vector<std::pair<std::string, PassStats>> stats;
  PipelineOptions opts;
  opts.stats = &stats;
  ASSERT_TRUE(RunPasses(*g, *ParsePassList("dce"), SnapshotOpTable(), opts).ok());
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].second[0], (std::pair<std::string, int64_t>{"nodes-before", 3}));
  EXPECT_EQ(stats[0].second[1], (std::pair<std::string, int64_t>{"nodes-after", 1}));
}

// A pass list naming an unregistered pass fails before anything runs, with the context.
TEST(Registry, ErrorsNameThePassAndTheContext) {
  auto g = Parse("graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x) : f32[2]@s1\n  return %y\n}");
  ASSERT_TRUE(g);
  PipelineOptions opts;
  opts.context = "m.ir";
  Status s = RunPasses(*g, {PassSpec{"nosuch", {}}}, SnapshotOpTable(), opts);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'nosuch' pass is not registered"), std::string::npos) << s.message();
  EXPECT_NE(s.ToString().find("m.ir"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace atenaot
