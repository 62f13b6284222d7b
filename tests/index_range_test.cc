// Gathers whose indices come from a tensor check them at run time: an index
// outside the dimension returns AOT_ERR_INDEX_OUT_OF_RANGE with a message
// where eager raises IndexError (never a read outside the tensor, never a
// value reported as success); indices eager accepts run as in eager
// (advanced indexing wraps negatives, index_select and embedding do not).
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

struct Case {
  const char* name;
  CppProgram fn;
  Ts trace_inputs;  // in range
};

// Compiles c.fn, then runs each index tensor in `good` (compared with eager)
// and in `bad` (eager raises; the library must return the status).
void Check(const Case& c, const std::vector<at::Tensor>& good, const std::vector<at::Tensor>& bad,
           const std::string& where) {
  auto g = TraceCpp(c.fn, c.trace_inputs, LiveOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  aot_model* m = nullptr;
  ASSERT_EQ(CompileAndOpen(**g, c.trace_inputs, ::testing::TempDir() + "/index_range_" + c.name, &m), "");
  const at::Tensor out = at::empty_like(c.fn(c.trace_inputs)[0]);
  auto with = [&](const at::Tensor& idx) {  // the traced inputs, the index tensor (last) replaced
    Ts ins = c.trace_inputs;
    ins.back() = idx;
    return ins;
  };
  auto run = [&](const at::Tensor& idx) {
    std::vector<aot_tensor> in;
    for (const at::Tensor& t : with(idx)) in.push_back(DescribeTensor(t));
    aot_tensor o = DescribeTensor(out);
    return aot_model_run(m, in.data(), in.size(), &o, 1, nullptr, 0);
  };
  for (const at::Tensor& idx : good) {
    ASSERT_EQ(run(idx), AOT_OK) << c.name << ": " << aot_last_error();
    EXPECT_TRUE(at::equal(out, c.fn(with(idx))[0])) << c.name << " with indices " << idx;
  }
  for (const at::Tensor& idx : bad) {
    EXPECT_ANY_THROW(c.fn(with(idx))) << c.name << ": eager accepts " << idx << ", so the library must too";
    EXPECT_EQ(run(idx), AOT_ERR_INDEX_OUT_OF_RANGE) << c.name << " with indices " << idx;
    const std::string msg = aot_last_error();
    EXPECT_NE(msg.find("is out of range"), std::string::npos) << msg;
    EXPECT_NE(msg.find(where), std::string::npos) << msg;
  }
  aot_model_free(m);
}

at::Tensor L(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }

TEST(IndexRange, IndexSelectDoesNotWrap) {
  const at::Tensor w = at::arange(12, at::kFloat).reshape({4, 3});
  Case c{
      "index_select", [w](const Ts& in) -> Ts { return {at::index_select(in[0], 0, in[1]) * 2}; }, {w, L({0, 3, 1})}};
  Check(c, {L({3, 2, 0})}, {L({4, 0, 0}), L({0, -1, 0}), L({0, 0, -5})}, "in aten::index_select");
}

TEST(IndexRange, GatherDoesNotWrap) {
  const at::Tensor w = at::arange(12, at::kFloat).reshape({4, 3});
  auto I = [](std::vector<int64_t> v) { return L(v).reshape({2, 2}); };  // gathers along dim 1 of rows 0 and 1
  Case c{"gather", [w](const Ts& in) -> Ts { return {at::gather(in[0], 1, in[1]) - 1}; }, {w, I({0, 2, 1, 1})}};
  Check(c, {I({2, 2, 0, 1})}, {I({3, 0, 0, 0}), I({0, -1, 0, 0}), I({0, 0, 0, 7})}, "in aten::gather");
}

TEST(IndexRange, EmbeddingDoesNotWrap) {
  const at::Tensor w = at::arange(15, at::kFloat).reshape({5, 3});
  Case c{"embedding", [w](const Ts& in) -> Ts { return {at::embedding(w, in[0]) + 1}; }, {L({0, 4})}};
  Check(c, {L({4, 4})}, {L({5, 0}), L({0, -1})}, "in aten::embedding");
}

TEST(IndexRange, AdvancedIndexingWrapsNegatives) {
  Case c{"index",
         [](const Ts& in) -> Ts { return {in[0].index({in[1]}) * 3}; },
         {at::arange(8, at::kFloat).reshape({4, 2}), L({1, 2})}};
  Check(c, {L({-1, -4}), L({3, 0})}, {L({4, 0}), L({0, -5})}, "in aten::index.Tensor");
}

TEST(IndexRange, IndexPutWrapsNegatives) {
  Case c{"index_put",
         [](const Ts& in) -> Ts {
           at::Tensor y = in[0] * 1;
           y.index_put_({in[1]}, at::ones({2}));
           return {y};
         },
         {at::zeros({5}), L({1, 2})}};
  Check(c, {L({-1, 4}), L({0, -5})}, {L({5, 0}), L({0, -6})}, "in aten::index_put");
}

TEST(IndexRange, EmbeddingBagChecksIndices) {
  const at::Tensor w = at::arange(12, at::kFloat).reshape({4, 3});
  CppProgram fn = [w](const Ts& in) -> Ts { return {std::get<0>(at::embedding_bag(w, in[0], in[1], false, 0)) * 1}; };
  Case c{"embedding_bag", [fn](const Ts& in) -> Ts { return fn({in[1], in[0]}); }, {L({0, 2}), L({0, 1, 2, 3})}};
  Check(c, {L({3, 3, 0, 1})}, {L({0, 4, 1, 1}), L({-1, 0, 0, 0})}, "in aten::embedding_bag");
}

TEST(IndexRange, EmbeddingBagChecksOffsets) {
  const at::Tensor w = at::arange(12, at::kFloat).reshape({4, 3});
  Case c{"embedding_bag_offsets",
         [w](const Ts& in) -> Ts { return {std::get<0>(at::embedding_bag(w, in[0], in[1], false, 1)) * 1}; },
         {L({0, 1, 2, 3}), L({0, 2})}};
  // An offset equal to the number of indices is an empty bag (zeros).
  Check(c, {L({0, 4}), L({0, 0})}, {L({0, 5}), L({1, 2}), L({-1, 2})}, "in aten::embedding_bag");
}

}  // namespace
}  // namespace atenaot
