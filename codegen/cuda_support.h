// CUDA source that every generated .cu carries: device helpers the kernels
// call (block reductions, the integer/float helpers the elementwise table
// names) and the host-side error reporting of the model's open/run/close.
#pragma once

namespace atenaot {

// Device helpers. Needs <cuda_runtime.h>, <math.h>, <stdint.h> and
// kCSupportValidation (AOT_UNUSED) before it.
extern const char kCudaSupportDevice[];
// Host helpers: CUDA/cuBLAS error messages, launch sizes, pointer checks.
// Needs "atenaot.h", <cublas_v2.h>, <stdio.h>, and kCSupportValidation
// (aot__fail_at) before it.
extern const char kCudaSupportHost[];
// codegen/templates/aot_cuda_ctx.cuh: aot__ctx, what the launchers see.
extern const char kCudaCtxSource[];
// codegen/templates/aot_cuda_model.cuh: the model's state, open, close,
// options, run and loader table, from the AOT_M_* macros the emitter defines.
extern const char kCudaModelSource[];

}  // namespace atenaot
