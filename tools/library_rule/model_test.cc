// atenaot_library's generated NAME_test: the compiled model, linked
// statically, on the sample inputs against the expected outputs (eager
// PyTorch's, or the reference interpreter's recorded at build time), and the
// statuses it must return when misused.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "tools/library_rule/model_driver.h"

namespace atenaot {
namespace {

DriverArgs g_args;

class CompiledModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = AOT_UT_MODEL();
    ASSERT_NE(model_, nullptr);
    auto in = ReadArrays(g_args.inputs);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    inputs_ = std::move(in).value();
    ASSERT_EQ(inputs_.size(), model_->num_inputs) << "sample inputs given vs the model's inputs";
    for (size_t k = 0; k < inputs_.size(); ++k) {
      auto t = DescribeFor(inputs_[k], model_->inputs[k], "input " + std::to_string(k));
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      in_.push_back(t.value());
    }
    auto out = OutputArrays(*model_);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    outputs_ = std::move(out).value();
    for (size_t k = 0; k < outputs_.size(); ++k) {
      auto t = DescribeFor(outputs_[k], model_->outputs[k], "output " + std::to_string(k));
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      out_.push_back(t.value());
    }
    auto w = ReadWeights(g_args.weights);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    weights_ = std::move(w).value();
    ASSERT_EQ(weights_->size(), model_->weights_bytes) << "NAME.weights given vs the model's weights_bytes";
    arena_ = std::make_unique<AlignedBuffer>(model_->arena_bytes);
  }

  int Run(void* arena, size_t arena_bytes) {
    return AOT_UT_RUN_MSG(in_.data(), in_.size(), out_.data(), out_.size(), arena, arena_bytes,
                          weights_->size() ? weights_->data() : nullptr, err_, sizeof err_);
  }

  const aot_compiled_model* model_ = nullptr;
  std::vector<NpyArray> inputs_, outputs_;
  std::vector<aot_tensor> in_, out_;
  std::unique_ptr<AlignedBuffer> weights_, arena_;
  char err_[512] = {0};
};

TEST_F(CompiledModelTest, MatchesExpectedOutputs) {
  auto expected = ReadArrays(g_args.expected);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_EQ(expected.value().size(), outputs_.size()) << "expected outputs given vs the model's outputs";
  ASSERT_EQ(Run(arena_->data(), arena_->size()), AOT_OK) << err_;
  for (size_t k = 0; k < outputs_.size(); ++k) {
    // The tests' tolerances (atenaot compare): rtol 1e-5, atol 1e-6 times the output's scale.
    std::string diff = CompareArrays(expected.value()[k], outputs_[k], 1e-5, 1e-6);
    EXPECT_EQ(diff, "") << "output " << k;
  }
}

TEST_F(CompiledModelTest, RejectsWrongShape) {
  aot_tensor bad = in_[0];
  bad.sizes[0] += 1;  // and keep the strides consistent with it
  std::vector<aot_tensor> in = in_;
  in[0] = bad;
  const std::vector<NpyArray> before = outputs_;
  int s = AOT_UT_RUN_MSG(in.data(), in.size(), out_.data(), out_.size(), arena_->data(), arena_->size(),
                         weights_->size() ? weights_->data() : nullptr, err_, sizeof err_);
  EXPECT_EQ(s, AOT_ERR_BAD_SHAPE) << err_;
  EXPECT_NE(std::string(err_), "");
  for (size_t k = 0; k < outputs_.size(); ++k) EXPECT_EQ(outputs_[k].data, before[k].data) << "wrote output " << k;
}

TEST_F(CompiledModelTest, RejectsSmallArena) {
  if (model_->arena_bytes == 0) GTEST_SKIP() << "the model needs no arena";
  EXPECT_EQ(Run(arena_->data(), model_->arena_bytes - 1), AOT_ERR_ARENA_TOO_SMALL) << err_;
  EXPECT_EQ(Run(arena_->data(), 0), AOT_ERR_ARENA_TOO_SMALL) << err_;
  EXPECT_EQ(Run(nullptr, 0), AOT_ERR_NULL_POINTER) << err_;
}

TEST_F(CompiledModelTest, RejectsWrongCount) {
  EXPECT_EQ(AOT_UT_RUN_MSG(in_.data(), in_.size() + 1, out_.data(), out_.size(), arena_->data(), arena_->size(),
                           weights_->size() ? weights_->data() : nullptr, err_, sizeof err_),
            AOT_ERR_BAD_COUNT)
      << err_;
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) {
  if (!atenaot::TakeDriverArgs(&argc, argv, &atenaot::g_args)) return 2;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
