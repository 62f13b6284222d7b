// Comparing atenaot results with LibTorch eager: same dtype and shape, then
// bitwise equality for integer and bool tensors and torch::allclose with
// rtol=1e-5, atol=1e-6 (equal_nan) for floating-point ones.
#pragma once

#include <ATen/Tensor.h>

#include <string>
#include <vector>

namespace atenaot {

constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

// Empty when equal; otherwise says how they differ.
std::string CompareTensors(const at::Tensor& expected, const at::Tensor& actual);
std::string CompareTensorLists(const std::vector<at::Tensor>& expected, const std::vector<at::Tensor>& actual,
                               const std::string& what);

// Inputs after a run. An input whose sizes or strides eager changed in place
// (t_, unsqueeze_ on the input: the caller's tensor keeps them in a compiled
// program, as in PyTorch's functionalize) is compared by its memory, read
// with eager's sizes, strides and offset.
std::string CompareInputsAfter(const std::vector<at::Tensor>& expected, const std::vector<at::Tensor>& actual);

}  // namespace atenaot
