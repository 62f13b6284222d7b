#include "codegen/cpu_check.h"

namespace atenaot {

const char kCpuCheckSource[] =
#include "codegen/templates/aot_cpu_check.inc"
    ;

}  // namespace atenaot
