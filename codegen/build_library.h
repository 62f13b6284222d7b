// Writes a compiled model's directory and builds it with the system C
// compiler: DIR/NAME.h, DIR/NAME.c, DIR/atenaot.h, the weights (embedded:
// DIR/NAME_weights.S + NAME_weights.bin, assembled into a data-only object;
// --weights file: DIR/NAME.weights, read at open), DIR/libNAME.so (with the
// loader's entry point), DIR/libNAME.a (for static linking) and
// DIR/libatenaot_runtime.so (the C ABI loader, for callers in C, Python,
// Rust, ...).
#pragma once

#include <string>
#include <vector>

#include "codegen/c_codegen.h"
#include "ir/status.h"

namespace atenaot {

struct BuildOptions {
  std::string cc = "cc";        // $CC when set
  bool march_native = false;    // -march=native
  std::string extra_cflags;     // e.g. "-Wall -Wextra -Werror" in tests
};

// The sources alone (what `compile --embedded` writes): NAME.h, NAME.c, the
// ABI headers and the weights files; creates DIR and its parents. Both
// functions write into a directory beside DIR and move the files in only when
// everything succeeded: a failed build leaves DIR as it was.
Status WriteSources(const GeneratedC& gen, const std::string& dir, const std::string& name);

// WriteSources, then builds; returns the path of the shared library.
StatusOr<std::string> WriteAndBuild(const GeneratedC& gen, const std::string& dir, const std::string& name,
                                    const BuildOptions& opts);

// Helpers the CUDA builder shares: the C compiler's command words (cc, or
// $CC when cc is "cc"), and building DIR/libatenaot_runtime.so (writes
// DIR/atenaot_runtime.c; returns the library's file name).
std::vector<std::string> CompilerCommand(const std::string& cc);
StatusOr<std::string> BuildRuntime(const std::string& dir, const std::string& cc);

}  // namespace atenaot
