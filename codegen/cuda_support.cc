#include "codegen/cuda_support.h"

namespace atenaot {

const char kCudaSupportDevice[] =
#include "codegen/templates/aot_cuda_device.inc"
    ;

const char kCudaSupportHost[] =
#include "codegen/templates/aot_cuda_host.inc"
    ;

const char kCudaCtxSource[] =
#include "codegen/templates/aot_cuda_ctx.inc"
    ;

const char kCudaModelSource[] =
#include "codegen/templates/aot_cuda_model.inc"
    ;

}  // namespace atenaot
