// Compiled libraries take inputs in the layout they were traced with (issue 21
// item 2): strided, offset and aliasing inputs run in the caller's memory, and
// a caller whose tensors are laid out differently gets one clear status, not
// wrong numbers.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "atenaot.h"
#include "capture/cpp_trace.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/compiled_runner.h"

namespace atenaot {
namespace {

using Ts = std::vector<at::Tensor>;

// Traces fn on `inputs`, compiles it and opens the library.
aot_model* Compile(const CppProgram& fn, const Ts& inputs, const std::string& name) {
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return nullptr;
  aot_model* m = nullptr;
  std::string err = CompileAndOpen(**g, inputs, ::testing::TempDir() + "/layout_" + name, &m);
  EXPECT_EQ(err, "");
  return m;
}

aot_status RunModel(aot_model* m, const Ts& inputs, at::Tensor& out) {
  std::vector<aot_tensor> in;
  for (const at::Tensor& t : inputs) in.push_back(DescribeTensor(t));
  aot_tensor o = DescribeTensor(out);
  return aot_model_run(m, in.data(), in.size(), &o, 1, nullptr, 0);
}

TEST(InputLayout, TransposedInputRunsInPlaceAndOtherStridesAreRefused) {
  CppProgram fn = [](const Ts& in) -> Ts {
    in[0].select(0, 1).add_(1);
    return {in[0].sum(1)};
  };
  at::manual_seed(1);
  aot_model* m = Compile(fn, {at::randn({4, 3}).t()}, "transposed");
  ASSERT_NE(m, nullptr);
  at::Tensor x = at::randn({4, 3}).t(), want_x = x.clone(), out = at::empty({3});
  Ts want = fn({want_x});
  ASSERT_EQ(RunModel(m, {x}, out), AOT_OK) << aot_last_error();
  EXPECT_TRUE(at::allclose(out, want[0], 1e-6, 1e-6));
  EXPECT_TRUE(at::equal(x, want_x)) << "the caller's strided input must be updated in place";
  // The same values, contiguous: not the layout the model was compiled for.
  at::Tensor c = at::randn({3, 4});
  EXPECT_EQ(RunModel(m, {c}, out), AOT_ERR_BAD_STRIDES);
  EXPECT_NE(
      std::string(aot_last_error()).find("has strides (4, 1); the model was traced and compiled with strides (1, 3)"),
      std::string::npos)
      << aot_last_error();
  aot_model_free(m);
}

TEST(InputLayout, AliasingInputsMustShareMemoryAsTraced) {
  CppProgram fn = [](const Ts& in) -> Ts {
    in[1].add_(10);  // in[1] is row 1 of in[0]
    return {in[0] * 1};
  };
  at::manual_seed(2);
  at::Tensor base = at::randn({3, 4});
  aot_model* m = Compile(fn, {base, base.select(0, 1)}, "alias");
  ASSERT_NE(m, nullptr);
  at::Tensor b = at::randn({3, 4}), want_b = b.clone(), out = at::empty({3, 4});
  Ts want = fn({want_b, want_b.select(0, 1)});
  ASSERT_EQ(RunModel(m, {b, b.select(0, 1)}, out), AOT_OK) << aot_last_error();
  EXPECT_TRUE(at::equal(out, want[0]));
  EXPECT_TRUE(at::equal(b, want_b));
  // Row 2 instead of row 1: the kernels would write the wrong row.
  EXPECT_EQ(RunModel(m, {b, b.select(0, 2)}, out), AOT_ERR_BAD_STRIDES);
  EXPECT_NE(std::string(aot_last_error()).find("input 1 ("), std::string::npos) << aot_last_error();
  EXPECT_NE(std::string(aot_last_error()).find("must start 16 bytes from input 0"), std::string::npos)
      << aot_last_error();
  // Two separate tensors: eager would not see the write through in[0].
  at::Tensor row = at::randn({4});
  EXPECT_EQ(RunModel(m, {b, row}, out), AOT_ERR_BAD_STRIDES);
  aot_model_free(m);
}

TEST(InputLayout, UpdatedInputMustNotOverlapAnInputTracedApart) {
  CppProgram fn = [](const Ts& in) -> Ts {
    in[0].mul_(2);
    return {in[1] + 1};
  };
  at::manual_seed(3);
  aot_model* m = Compile(fn, {at::randn({4}), at::randn({4})}, "apart");
  ASSERT_NE(m, nullptr);
  at::Tensor a = at::randn({4}), out = at::empty({4});
  ASSERT_EQ(RunModel(m, {a, at::randn({4})}, out), AOT_OK) << aot_last_error();
  // The same tensor twice: eager would read the doubled values through in[1].
  EXPECT_EQ(RunModel(m, {a, a}, out), AOT_ERR_OVERLAP);
  EXPECT_NE(std::string(aot_last_error()).find("input 0 ("), std::string::npos) << aot_last_error();
  EXPECT_NE(std::string(aot_last_error()).find("is updated in place and overlaps input 1"), std::string::npos)
      << aot_last_error();
  // Inputs only read may still share memory.
  aot_model_free(m);
  CppProgram ro = [](const Ts& in) -> Ts { return {in[0] + in[1]}; };
  m = Compile(ro, {at::randn({4}), at::randn({4})}, "readonly");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunModel(m, {a, a}, out), AOT_OK) << aot_last_error();
  EXPECT_TRUE(at::equal(out, a + a));
  aot_model_free(m);
}

}  // namespace
}  // namespace atenaot
