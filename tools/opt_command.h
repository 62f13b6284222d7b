// `atenaot opt`: runs a list of registered passes (passes/pass_registry.def)
// on a model and prints its IR, like LLVM's opt and mlir-opt; the tool behind
// the per-pass golden tests (tests/golden/passes/).
#pragma once

#include <string>
#include <vector>

#include "ir/status.h"

namespace atenaot {

// The command's --help text, with every registered pass and its options.
std::string OptHelp();

// args: what follows "opt" on the command line. The IR goes to stdout,
// statistics and per-case errors to stderr.
Status OptCommand(const std::vector<std::string>& args);

}  // namespace atenaot
