// The check a generated CPU library runs at aot_model_open: does this CPU
// have every instruction-set extension the library was compiled for? A
// library built with --cpu x86-64-v4 and copied to an AVX2-only machine then
// fails with AOT_ERR_UNSUPPORTED_CPU and a message instead of SIGILL.
#pragma once

namespace atenaot {

// C source: aot__cpu_check(err, err_len) (AOT_OK or AOT_ERR_UNSUPPORTED_CPU)
// and the AOT_BASELINE attribute. Needs "atenaot.h" and the validation
// helpers (aot__fail). Compiles to nothing off x86-64. aot_cpu_model.h's
// aot__open_checked, the model table's open hook, runs it.
extern const char kCpuCheckSource[];

}  // namespace atenaot
