// Programs written in C++ are traced, imported and run by the reference
// interpreter; each must equal running the same C++ function eagerly on copies
// of the same inputs (outputs and inputs after the run). Aliasing between
// inputs is recorded as a shared storage id.
#include "capture/cpp_trace.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "capture/jit_import.h"
#include "interp/reference_interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {
namespace {

void ExpectTraceMatchesEager(const CppProgram& fn, const std::vector<at::Tensor>& inputs) {
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(VerifyGraph(**g).ok()) << VerifyGraph(**g).ToString() << "\n" << PrintGraph(**g);
  std::vector<at::Tensor> eager_in = CloneKeepingAliasing(inputs);
  std::vector<at::Tensor> eager_out = fn(eager_in);
  std::vector<at::Tensor> ref_in = CloneKeepingAliasing(inputs);
  auto ref_out = RunReference(**g, ref_in);
  ASSERT_TRUE(ref_out.ok()) << ref_out.status().ToString();
  EXPECT_EQ(CompareTensorLists(eager_out, *ref_out, "output"), "") << PrintGraph(**g);
  EXPECT_EQ(CompareTensorLists(eager_in, ref_in, "input-after"), "") << PrintGraph(**g);
}

TEST(CppTrace, InPlaceThroughViewsOfInputs) {
  at::manual_seed(0);
  ExpectTraceMatchesEager(
      [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
        at::Tensor x = in[0], a = in[1];
        x.view({-1}).add_(1);
        x.select(0, 0).fill_(2);
        at::diagonal(a).zero_();
        at::Tensor y = at::mm(x, a).relu();
        return {y * 2 + y.sum()};
      },
      {at::randn({2, 3}), at::randn({3, 3})});
}

TEST(CppTrace, InPlaceOnAViewOfAnIntermediate) {
  at::manual_seed(1);
  ExpectTraceMatchesEager(
      [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
        at::Tensor b = in[0] + 1;
        b.view({-1}).mul_(3);
        b.transpose(0, 1).select(0, 1).sub_(5);
        return {b, b.t()};
      },
      {at::randn({3, 4})});
}

TEST(CppTrace, IndexPutAccumulateAndMultiOutputs) {
  at::manual_seed(2);
  ExpectTraceMatchesEager(
      [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
        at::Tensor x = in[0].clone();
        x.index_put_({in[1]}, in[2], /*accumulate=*/true);
        auto [vals, idx] = at::max(x, 1);
        auto parts = x.split(2, 0);
        return {vals, idx, parts[0] + parts[1]};
      },
      {at::randn({4, 3}), at::tensor({0, 2, 0}, at::kLong), at::randn({3, 3})});
}

TEST(CppTrace, AliasingInputsShareAStorageAndBehaveLikeEager) {
  at::manual_seed(3);
  at::Tensor base = at::randn({4, 4});
  const at::Tensor before = base.clone();
  std::vector<at::Tensor> inputs = {base.slice(0, 0, 2), base.slice(0, 1, 3)};  // rows overlap
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    in[0].add_(1);  // also visible through in[1]'s first row
    return {in[1] * 2};
  };
  auto g = TraceCpp(fn, inputs, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ((*g)->inputs().size(), 2u);
  EXPECT_EQ((*g)->inputs()[0]->meta().storage, (*g)->inputs()[1]->meta().storage);
  EXPECT_EQ((*g)->inputs()[1]->meta().offset, 4);
  ExpectTraceMatchesEager(fn, inputs);
  // The caller's tensors are not touched by tracing or importing.
  EXPECT_TRUE(at::equal(base, before));
  EXPECT_EQ(inputs[0].data_ptr(), base.data_ptr());  // still views of the caller's storage
}

TEST(CppTrace, SampleInputsAreNotModified) {
  at::Tensor x = at::ones({3});
  auto g = TraceCpp([](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> { return {in[0].add_(1)}; }, {x},
                    LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(at::equal(x, at::ones({3})));
}

}  // namespace
}  // namespace atenaot
