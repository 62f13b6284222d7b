// Runs a suite program at a pipeline stage and compares it with eager.
#pragma once

#include <string>

#include "passes/pipeline.h"
#include "tests/testing/program_suite.h"

namespace atenaot {

// Empty when the stage's result equals eager on outputs and inputs after the
// run; otherwise the differences (with the IR at that stage appended).
std::string RunProgramAtStage(const SuiteProgram& p, Stage stage);

// The reinplaced graph, annotated from a sample run and memory-planned with
// `algorithm`, run with every arena buffer at its planned offset: equal to
// eager only if the plan is right. Empty when equal.
std::string RunProgramPlanned(const SuiteProgram& p, const std::string& algorithm);

}  // namespace atenaot
