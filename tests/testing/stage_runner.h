// Runs a suite program at a pipeline stage and compares it with eager.
#pragma once

#include <string>

#include "passes/pipeline.h"
#include "tests/testing/program_suite.h"

namespace atenaot {

// Empty when the stage's result equals eager on outputs and inputs after the
// run; otherwise the differences (with the IR at that stage appended).
std::string RunProgramAtStage(const SuiteProgram& p, Stage stage);

}  // namespace atenaot
