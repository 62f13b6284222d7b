// codegen/kernels/ (aot_kernels.h, then the .c files) as one C source string,
// which the C emitter puts into generated libraries that call the kernels.
#pragma once

namespace atenaot {

extern const char kKernelsSource[];

}  // namespace atenaot
