// The product path, differentially: every suite program and every fixture is
// compiled to a C library (generated code built with -Wall -Wextra -Werror)
// and run through the C ABI; results equal eager (outputs and inputs after).
// A program the C backend refuses is skipped (with the refusal) only when
// every op it names is on kKnownUnsupported below, with the same reason;
// anything else that cannot compile is a failure (a codegen regression must
// not hide as a skip).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "capture/cpp_trace.h"
#include "capture/jit_import.h"
#include "capture/load_model.h"
#include "capture/tensor_convert.h"
#include "io/npy.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/compiled_runner.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {
namespace {

namespace fs = std::filesystem;

std::string Dir(const std::string& name) { return ::testing::TempDir() + "/compiled_" + name; }

// Fails on a C backend refusal naming an op not on kKnownUnsupported
// (tests/testing/compiled_runner.h), skips naming the ops on a known one, and
// skips with its reason a program RunProgramCompiled reports as "SKIP: ...".
#define SKIP_IF_KNOWN_UNSUPPORTED(error)                              \
  if (std::string k = KnownRefusal(error); k.rfind("FAIL: ", 0) == 0) \
    FAIL() << k << "\n" << (error).substr(0, 600);                    \
  else if (!k.empty())                                                \
    GTEST_SKIP() << k;                                                \
  else if ((error).rfind(kSkipPrefix, 0) == 0)                        \
  GTEST_SKIP() << (error).substr(kSkipPrefix.size())

TEST(KnownUnsupported, OnlyListedOpsAreSkipped) {
  EXPECT_EQ(KnownRefusal("stage failed"), "");
  EXPECT_EQ(KnownRefusal("unsupported: 1 op(s) the C backend cannot compile: [%6 = aten::index_put_: boolean-mask "
                         "index_put needs values that broadcast over the masked elements]")
                .rfind("known unsupported op(s):", 0),
            0u);
  EXPECT_EQ(KnownRefusal("unsupported: 2 op(s) the C backend cannot compile: [%6 = aten::index_put_: index_put "
                         "with several index tensors] [%7 = aten::mm: no kernel]")
                .rfind("FAIL: ", 0),
            0u);
  EXPECT_EQ(KnownRefusal("unsupported: 1 op(s) the C backend cannot compile: [%6 = aten::index_put_: other reason]")
                .rfind("FAIL: ", 0),
            0u);
}

class SuiteCompiled : public ::testing::TestWithParam<const SuiteProgram*> {};

TEST_P(SuiteCompiled, EqualsEager) {
  std::string r = RunProgramCompiled(*GetParam(), Dir(GetParam()->name));
  SKIP_IF_KNOWN_UNSUPPORTED(r);
  EXPECT_EQ(r, "");
}

std::vector<const SuiteProgram*> Programs() {
  std::vector<const SuiteProgram*> ps;
  for (const SuiteProgram& p : ProgramSuite()) ps.push_back(&p);
  return ps;
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteCompiled, ::testing::ValuesIn(Programs()),
                         [](const auto& info) { return info.param->name; });

std::vector<at::Tensor> LoadTensors(const fs::path& dir, const std::string& prefix) {
  std::vector<at::Tensor> ts;
  for (int k = 0;; ++k) {
    fs::path p = dir / (prefix + std::to_string(k) + ".npy");
    if (!fs::exists(p)) break;
    auto a = ReadNpy(p.string());
    if (a.ok()) ts.push_back(TensorFromNpy(*a));
  }
  return ts;
}

// Each model twice: as the host build generates it (double accumulation) and
// as `compile --embedded` does (float accumulation); both must equal eager.
class ModelCompiled : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(ModelCompiled, EqualsEager) {
  fs::path dir = std::get<0>(GetParam());
  const bool float_acc = std::get<1>(GetParam());
  std::vector<NpyArray> arrays;
  for (int k = 0;; ++k) {
    auto a = ReadNpy((dir / ("input_" + std::to_string(k) + ".npy")).string());
    if (!a.ok()) break;
    arrays.push_back(*a);
  }
  auto g = LoadModel((dir / "model.pt").string(), arrays, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<at::Tensor> ins;
  for (const NpyArray& a : arrays) ins.push_back(TensorFromNpy(a));
  std::string name = dir.filename().string() + (float_acc ? "_float_acc" : "");
  CompiledRun r = CompileAndRun(**g, ins, Dir("model_" + name), "-Wall -Wextra -Werror", float_acc);
  SKIP_IF_KNOWN_UNSUPPORTED(r.error);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(CompareTensorLists(LoadTensors(dir / "expected", "output_"), r.outputs, "output"), "") << r.source;
  std::vector<at::Tensor> after = LoadTensors(dir / "expected", "input_");
  if (!after.empty()) {
    EXPECT_EQ(CompareTensorLists(after, ins, "input-after"), "");
  }
}

std::vector<std::string> ModelDirs() {
  std::vector<std::string> ds;
  for (const char* root : {"tests/fixtures", "examples"})
    for (const auto& e : fs::directory_iterator(root))
      if (fs::exists(e.path() / "model.pt")) ds.push_back(e.path().string());
  std::sort(ds.begin(), ds.end());
  return ds;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelCompiled, ::testing::Combine(::testing::ValuesIn(ModelDirs()), ::testing::Bool()),
                         [](const auto& info) {
                           std::string s = std::get<0>(info.param);
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s + (std::get<1>(info.param) ? "_float_acc" : "");
                         });

}  // namespace
}  // namespace atenaot

namespace atenaot {
namespace {

// Long elementwise runs over big tensors take the tiled path (2-D broadcast
// operand, a length that is not a multiple of the tile); it must equal eager.
// Its sigmoids and SiLU of the tile run as 16-float blocks (3001 = 5 tiles
// of 512 and 441: a partial block at the end).
TEST(Compiled, LongElementwiseRunIsTiledAndExact) {
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    at::Tensor v = in[0] * 1.5;
    for (int k = 0; k < 6; ++k) {
      v = at::sigmoid(v + in[0]) - 0.25 * in[1];
      if (k == 2) v = at::silu(v * 4.0);
    }
    return {at::relu(v)};
  };
  at::manual_seed(11);
  std::vector<at::Tensor> inputs = {at::randn({3001}), at::randn({3001})};
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<at::Tensor> expected = fn(inputs);
  std::vector<at::Tensor> ins = CloneKeepingAliasing(inputs);
  CompiledRun r = CompileAndRun(**g, ins, ::testing::TempDir() + "/compiled_tiled", "-Wall -Wextra -Werror");
  ASSERT_EQ(r.error, "");
  EXPECT_NE(r.source.find("tile[j]"), std::string::npos);
  EXPECT_NE(r.source.find("AOT__ACT_BLOCKS(tile, n, aot__sigmoid16);"), std::string::npos);
  EXPECT_NE(r.source.find("AOT__ACT_BLOCKS(tile, n, aot__silu16);"), std::string::npos);
  EXPECT_EQ(CompareTensorLists(expected, r.outputs, "output"), "");
}

}  // namespace
}  // namespace atenaot

namespace atenaot {
namespace {

// Found by tests/random/random_compiled_test (seed 56): an output without
// elements, [3, 0], comes with PyTorch's contiguous strides {1, 1}; the C ABI
// took them for a non-contiguous layout and refused the run.
TEST(Compiled, EmptyOutputWithPyTorchStridesIsAccepted) {
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    return {in[0].slice(0, 4).t() + 1, in[0] * 2};
  };
  std::vector<at::Tensor> inputs = {at::randn({4, 3})};
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::vector<at::Tensor> expected = fn(inputs);
  ASSERT_EQ(expected[0].sizes(), (std::vector<int64_t>{3, 0}));
  CompiledRun r = CompileAndRun(**g, inputs, ::testing::TempDir() + "/compiled_empty_output");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(CompareTensorLists(expected, r.outputs, "output"), "");
}

}  // namespace
}  // namespace atenaot
