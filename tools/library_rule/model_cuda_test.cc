// atenaot_library(target = "cuda")'s generated NAME_test: the model through
// its table (open, run, close), host tensors staged by the model, against the
// expected outputs; and a wrong shape rejected. Built wherever nvcc is; on a
// machine without a CUDA device every case reports itself skipped.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "tools/library_rule/model_driver.h"

namespace atenaot {
namespace {

DriverArgs g_args;

class CompiledCudaModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no CUDA device";
    model_ = AOT_UT_MODEL();
    ASSERT_EQ(model_->device, AOT_DEVICE_CUDA);
    auto in = ReadArrays(g_args.inputs);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    inputs_ = std::move(in).value();
    ASSERT_EQ(inputs_.size(), model_->num_inputs);
    for (size_t k = 0; k < inputs_.size(); ++k) {
      auto t = DescribeFor(inputs_[k], model_->inputs[k], "input " + std::to_string(k));
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      in_.push_back(t.value());
    }
    auto out = OutputArrays(*model_);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    outputs_ = std::move(out).value();
    for (size_t k = 0; k < outputs_.size(); ++k)
      out_.push_back(DescribeFor(outputs_[k], model_->outputs[k], "out").value());
    auto w = ReadWeights(g_args.weights);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    weights_ = std::move(w).value();
    const void* wp = weights_->size() ? weights_->data() : nullptr;
    if (model_->open) {
      ASSERT_EQ(model_->open(wp, &state_, err_, sizeof err_), AOT_OK) << err_;
    }
  }
  void TearDown() override {
    if (model_ && model_->close && state_) model_->close(state_);
  }
  int Run(const std::vector<aot_tensor>& in) {
    return model_->run(state_, in.data(), in.size(), out_.data(), out_.size(), nullptr, 0,
                       weights_->size() ? weights_->data() : nullptr, nullptr, err_, sizeof err_);
  }

  const aot_compiled_model* model_ = nullptr;
  void* state_ = nullptr;
  std::vector<NpyArray> inputs_, outputs_;
  std::vector<aot_tensor> in_, out_;
  std::unique_ptr<AlignedBuffer> weights_;
  char err_[512] = {0};
};

TEST_F(CompiledCudaModelTest, MatchesExpectedOutputs) {
  auto expected = ReadArrays(g_args.expected);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_EQ(expected.value().size(), outputs_.size());
  ASSERT_EQ(Run(in_), AOT_OK) << err_;
  for (size_t k = 0; k < outputs_.size(); ++k) {
    // Looser than the host's 1e-5/1e-6: GPU reductions and cuBLAS sum in
    // another order. Still relative to the output's scale.
    EXPECT_EQ(CompareArrays(expected.value()[k], outputs_[k], 1e-4, 1e-5), "") << "output " << k;
  }
}

TEST_F(CompiledCudaModelTest, RejectsWrongShape) {
  std::vector<aot_tensor> in = in_;
  in[0].sizes[0] += 1;
  EXPECT_EQ(Run(in), AOT_ERR_BAD_SHAPE) << err_;
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) {
  if (!atenaot::TakeDriverArgs(&argc, argv, &atenaot::g_args)) return 2;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
