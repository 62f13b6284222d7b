#include "codegen/c_threads.h"

namespace atenaot {

const char kCThreadsSource[] =
#include "codegen/templates/aot_threads.inc"
    ;

// After kCThreadsSource and the kernel library.
const char kCGemmThreadsSource[] =
#include "codegen/templates/aot_gemm_threads.inc"
    ;

}  // namespace atenaot
