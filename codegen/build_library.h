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
  std::string cc = "cc";      // $CC when set
  bool march_native = false;  // -march=native (the same as cpu = "native")
  // The instruction set (`compile --cpu`): native, x86-64-v2, x86-64-v3,
  // x86-64-v4, armv8-a (with an AArch64 $CC), or "" for DefaultCpu().
  std::string cpu;
  std::string extra_cflags;  // e.g. "-Wall -Wextra -Werror" in tests
};

// The default --cpu: the highest x86-64 level (v4, v3, v2) of the machine
// atenaot runs on, so a library built here runs at this machine's speed
// (bench/RESULTS.md measures the levels), or "" (the compiler's baseline) on
// other machines. Libraries check at open that the CPU has what they were
// built for (AOT_ERR_UNSUPPORTED_CPU), so copying one to an older machine
// fails cleanly.
std::string DefaultCpu();

// The --cpu a build with `opts` is for: "native", opts.cpu, or DefaultCpu().
std::string BuildCpu(const BuildOptions& opts);

// The compiler flags for --cpu NAME (empty for ""); fails for unknown names.
StatusOr<std::vector<std::string>> CpuFlags(const std::string& cpu);

// Every library's C flags before the CPU's: C99, -O3, no errno or traps from
// math (so sqrtf is an instruction and loops vectorise), PIC.
std::vector<std::string> LibraryCFlags();

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
