// Capturing a program written in C++: the function runs once under LibTorch's
// tracer on copies of the sample inputs (in-place ops and views recorded as
// they happen), and the trace is imported like any TorchScript graph.
#pragma once

#include <ATen/Tensor.h>

#include <functional>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

using CppProgram = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

StatusOr<std::unique_ptr<Graph>> TraceCpp(const CppProgram& fn, const std::vector<at::Tensor>& sample_inputs,
                                          const OpTable& ops);

}  // namespace atenaot
