#include "codegen/c_support.h"

namespace atenaot {

// GCC 12.2 (Debian 12's cc) at -O1/-O2: IVOPTs rewrites a kernel's arena loop
// into MEM[0B + iv], ipa-modref then reads that as a NULL access ("terminating
// BB"), summarises the kernel as storing nothing, and the caller drops the
// call: a kernel's output silently missing (tests/random/README.md G3). With
// null-pointer checks kept, modref does not take the path. Clang ignores it.
const char kCCompilerWorkarounds[] = R"C(#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-delete-null-pointer-checks")
#endif
)C";

const char kCSupportValidation[] =
#include "codegen/templates/aot_validation.inc"
    ;

// The four strings in this order (include sorting would reorder them).
// clang-format off
const char kCSupportMath[] =
#include "codegen/templates/aot_numeric.inc"
#include "codegen/kernels/aot_rows.inc"
#include "codegen/kernels/aot_vecmath.inc"
#include "codegen/templates/aot_gemm_ref.inc"
    ;
// clang-format on

const char kWeightsCheckSource[] =
#include "codegen/templates/aot_weights_check.inc"
    ;

const char kCpuModelSource[] =
#include "codegen/templates/aot_cpu_model.inc"
    ;

}  // namespace atenaot
