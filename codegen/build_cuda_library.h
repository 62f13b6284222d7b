// Writes a CUDA-compiled model's directory and builds it with nvcc:
// DIR/NAME.cu, DIR/NAME.h, DIR/atenaot.h, DIR/atenaot_model.h,
// DIR/NAME.weights (weights not embedded), DIR/libNAME.so (nvcc -O3, SASS for
// the chosen architecture plus its PTX, linked with cuBLAS) and
// DIR/libatenaot_runtime.so (the C ABI loader, built with the C compiler).
#pragma once

#include <string>

#include "codegen/cuda_codegen.h"
#include "ir/status.h"

namespace atenaot {

struct CudaBuildOptions {
  std::string nvcc;            // empty: $NVCC, else /usr/local/cuda/bin/nvcc
  std::string arch = "sm_90";  // sm_XX: SASS for it and PTX of compute_XX
  std::string extra_flags;     // e.g. "-Werror all-warnings" in tests
  std::string cc = "cc";       // for libatenaot_runtime.so ($CC when set)
};

// The nvcc to use (see CudaBuildOptions::nvcc); empty when it is not an
// executable file.
std::string FindNvcc(const CudaBuildOptions& opts);

// "-gencode arch=compute_90,code=[sm_90,compute_90]" for "sm_90"; fails for
// anything not of the form sm_<digits>.
StatusOr<std::string> CudaArchFlags(const std::string& arch);

// The sources alone; creates DIR (written beside it and moved in when done).
Status WriteCudaSources(const GeneratedCuda& gen, const std::string& dir, const std::string& name);

// The sources, DIR/libNAME.so from NAME.cu and DIR/libatenaot_runtime.so, all
// built beside DIR and moved in only when everything succeeded; returns the
// library's path.
StatusOr<std::string> WriteAndBuildCuda(const GeneratedCuda& gen, const std::string& dir, const std::string& name,
                                        const CudaBuildOptions& opts);

}  // namespace atenaot
