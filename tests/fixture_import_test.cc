// Every committed fixture, imported from its TorchScript archive (and from its
// TorchScript IR text where it has one) and run at stage `import` with the
// reference interpreter, equals eager PyTorch (and so does every later
// pipeline stage): the outputs and the inputs
// after the run, against both the Python eager results stored with the
// fixture and LibTorch running the TorchScript module on the same inputs.
// The imported IR also round-trips through the text format exactly.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>

#include <filesystem>

#include "capture/load_model.h"
#include "capture/tensor_convert.h"
#include "interp/annotate.h"
#include "interp/reference_interpreter.h"
#include "io/npy.h"
#include "io/weights_file.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {
namespace {

namespace fs = std::filesystem;
const char kFixtures[] = "tests/fixtures";

std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kFixtures))
    if (fs::exists(e.path() / "model.pt")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<NpyArray> LoadArrays(const fs::path& dir, const std::string& prefix) {
  std::vector<NpyArray> out;
  for (int k = 0;; ++k) {
    fs::path p = dir / (prefix + std::to_string(k) + ".npy");
    if (!fs::exists(p)) break;
    auto a = ReadNpy(p.string());
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    if (a.ok()) out.push_back(*a);
  }
  return out;
}

std::vector<at::Tensor> Tensors(const std::vector<NpyArray>& arrays) {
  std::vector<at::Tensor> ts;
  for (const NpyArray& a : arrays) ts.push_back(TensorFromNpy(a));
  return ts;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path dir() const { return fs::path(kFixtures) / GetParam(); }
  std::vector<NpyArray> inputs() const { return LoadArrays(dir(), "input_"); }
  std::vector<at::Tensor> expected_outputs() const { return Tensors(LoadArrays(dir() / "expected", "output_")); }
  std::vector<at::Tensor> expected_inputs() const { return Tensors(LoadArrays(dir() / "expected", "input_")); }

  // Runs `g` on fresh input tensors and checks outputs and inputs-after.
  void ExpectMatchesEager(const Graph& g, const std::string& how) {
    std::vector<at::Tensor> ins = Tensors(inputs());
    auto outs = RunReference(g, ins);
    ASSERT_TRUE(outs.ok()) << how << ": " << outs.status().ToString();
    EXPECT_EQ(CompareTensorLists(expected_outputs(), *outs, how + " output"), "");
    EXPECT_EQ(CompareTensorLists(expected_inputs(), ins, how + " input-after"), "");
  }
};

TEST_P(FixtureTest, ArchiveImportRunsLikeEager) {
  auto g = LoadModel((dir() / "model.pt").string(), inputs(), LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(VerifyGraph(**g).ok()) << VerifyGraph(**g).ToString();
  ExpectMatchesEager(**g, "archive");
}

TEST_P(FixtureTest, LibTorchModuleAgreesWithTheStoredEagerResults) {
  // The oracle itself: LibTorch running the TorchScript module in-process.
  torch::jit::Module m = torch::jit::load((dir() / "model.pt").string());
  m.eval();
  std::vector<at::Tensor> ins = Tensors(inputs());
  std::vector<c10::IValue> args(ins.begin(), ins.end());
  c10::IValue out = m.forward(args);
  std::vector<at::Tensor> flat;
  std::function<void(const c10::IValue&)> flatten = [&](const c10::IValue& v) {
    if (v.isTensor())
      flat.push_back(v.toTensor());
    else if (v.isTuple())
      for (const auto& e : v.toTupleRef().elements()) flatten(e);
    else if (v.isList())
      for (const auto& e : v.toListRef()) flatten(e);
  };
  flatten(out);
  EXPECT_EQ(CompareTensorLists(expected_outputs(), flat, "module output"), "");
  EXPECT_EQ(CompareTensorLists(expected_inputs(), ins, "module input-after"), "");
}

TEST_P(FixtureTest, TextRoundTripIsExactAndStillRunsLikeEager) {
  auto g = LoadModel((dir() / "model.pt").string(), inputs(), LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::string text = PrintGraph(**g);
  auto g2 = ParseGraph(text, LiveOpTable());
  ASSERT_TRUE(g2.ok()) << g2.status().ToString() << "\n" << text;
  EXPECT_EQ(PrintGraph(**g2), text);
  // Weights travel through the side file.
  std::string wpath = ::testing::TempDir() + "/" + GetParam() + ".weights";
  ASSERT_TRUE(WriteWeightsFile(wpath, (*g)->weights()).ok());
  auto w = ReadWeightsFile(wpath);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  (*g2)->weights() = *w;
  ASSERT_TRUE(VerifyGraph(**g2).ok()) << VerifyGraph(**g2).ToString();
  ExpectMatchesEager(**g2, "reparsed");
}

TEST_P(FixtureTest, TorchScriptTextImportRunsLikeEager) {
  fs::path ir = dir() / "model.ir";
  if (!fs::exists(ir)) GTEST_SKIP() << GetParam() << " has no TorchScript IR text (module with weights)";
  auto g = LoadModel(ir.string(), inputs(), LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectMatchesEager(**g, "ts-text");
  // The text carries complete input types, so it imports without --inputs too.
  auto typed = LoadModel(ir.string(), {}, LiveOpTable());
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  ASSERT_EQ((*typed)->inputs().size(), (*g)->inputs().size());
  for (size_t i = 0; i < (*g)->inputs().size(); ++i)
    EXPECT_EQ((*typed)->inputs()[i]->meta(), (*g)->inputs()[i]->meta());
}

TEST_P(FixtureTest, EveryStageRunsLikeEager) {
  for (Stage stage : {Stage::kFunctional, Stage::kFunctionalNoViews, Stage::kReinplaced}) {
    auto g = LoadModel((dir() / "model.pt").string(), inputs(), LiveOpTable());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    Status s = RunPipeline(**g, stage, LiveOpTable(), {});
    ASSERT_TRUE(s.ok()) << StageName(stage) << ": " << s.ToString();
    ExpectMatchesEager(**g, StageName(stage));
  }
}

TEST_P(FixtureTest, PlanCheckedRunLikeEager) {
  for (const std::string& algo : PlacementAlgorithms()) {
    auto g = LoadModel((dir() / "model.pt").string(), inputs(), LiveOpTable());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_TRUE(RunPipeline(**g, Stage::kReinplaced, LiveOpTable(), {}).ok());
    ASSERT_TRUE(AnnotateFromRun(**g, Tensors(inputs())).ok());
    auto plan = PlanMemory(**g, algo);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    std::vector<at::Tensor> ins = Tensors(inputs());
    RunOptions opts;
    opts.plan = &*plan;
    auto outs = RunReference(**g, ins, opts);
    ASSERT_TRUE(outs.ok()) << algo << ": " << outs.status().ToString();
    EXPECT_EQ(CompareTensorLists(expected_outputs(), *outs, algo + " output"), "");
    EXPECT_EQ(CompareTensorLists(expected_inputs(), ins, algo + " input-after"), "");
    EXPECT_GE(plan->arena_bytes(), plan->lower_bound_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(FixtureNames()),
                         [](const auto& info) { return info.param; });

TEST(Fixtures, AllPresent) { EXPECT_GE(FixtureNames().size(), 12u); }

}  // namespace
}  // namespace atenaot
