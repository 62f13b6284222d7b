// The suite of small C++ programs over ATen tensors that exercises mutation
// and aliasing (views of views, in-place writes through every view kind,
// index_put_, copy_ with broadcasting and dtype change, multi-output ops,
// writes to inputs, outputs aliasing inputs, aliasing inputs). Each program is
// traced, run through a pipeline stage and compared with running it eagerly.
#pragma once

#include <ATen/Tensor.h>

#include <functional>
#include <string>
#include <vector>

#include "capture/cpp_trace.h"

namespace atenaot {

struct SuiteProgram {
  std::string name;
  CppProgram fn;
  // Fresh sample inputs (deterministic: seeded inside).
  std::function<std::vector<at::Tensor>()> inputs;
  // Non-empty for programs atenaot must refuse to functionalize (the import
  // stage still runs them): the error must contain this text.
  std::string rejected_with;
};

const std::vector<SuiteProgram>& ProgramSuite();

}  // namespace atenaot
