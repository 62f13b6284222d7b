// C source that every generated library carries (static functions, so two
// models linked into one firmware do not clash): argument validation for the
// C ABI, and the few numeric routines kernels call (GEMM, integer division).
// The text is codegen/templates/'s C files (its cpu_model_check_* tests
// compile them as they stand).
#pragma once

namespace atenaot {

// First in every generated C file: pragmas that keep known compiler bugs off
// generated code (each with its reproducer in codegen/compiler_workaround_test.cc).
extern const char kCCompilerWorkarounds[];
// Validation and the aot_compiled_model entry type. Needs "atenaot.h".
extern const char kCSupportValidation[];
// GEMM and helpers. Needs <math.h>, <stdint.h>, <string.h>.
extern const char kCSupportMath[];
// runtime/aot_crc32.h: aot__crc32(), which checks the weights.
extern const char kCrc32Source[];
// codegen/templates/aot_weights_check.h: aot__check_weights (AOT_M_* macros).
extern const char kWeightsCheckSource[];
// codegen/templates/aot_cpu_model.h: a CPU model's entry points, options,
// open hook and loader table, from the AOT_M_* macros the emitter defines.
extern const char kCpuModelSource[];

}  // namespace atenaot
