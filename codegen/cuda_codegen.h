// CUDA codegen: the same reinplaced, annotated and memory-planned graph the C
// backend compiles (PlanForCodegen), as one self-contained .cu file: one fused
// kernel per elementwise fusion group (exactly the values FusedAwayValues
// names are computed inside their consumer and have no buffer), block
// reductions for sum/mean/amax/..., softmax, layer_norm, batch_norm, the
// matmul family through cuBLAS, direct kernels for conv2d and pools, and the
// copies, cats, gathers and scatters of the C backend. Intermediates live in
// one device arena of the planned size; views are pointer arithmetic.
//
// The generated library implements atenaot_model.h for AOT_DEVICE_CUDA:
// open allocates the device arena, staging buffers for host tensors, a
// stream, a cuBLAS handle and workspace and uploads the weights once; run
// validates descriptors, checks that tensors are where their descriptors say,
// stages host tensors, launches everything on the run's stream (optionally
// through a captured CUDA graph) and never allocates. No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/kernel_schedule.h"
#include "ir/graph.h"
#include "ir/status.h"
#include "plan/memory_plan.h"

namespace atenaot {

struct CudaCodegenOptions {
  std::string name = "model";  // C identifier prefix (NAME_model, file names)
  bool embed_weights = true;   // false: weights come from NAME.weights at open
  std::string source_note;     // e.g. the model path, for the file banner
  int block_size = 256;        // threads per block of elementwise kernels
};

struct GeneratedCuda {
  std::string header;            // NAME.h
  std::string source;            // NAME.cu
  std::vector<uint8_t> weights;  // NAME.weights contents when not embedded
  int64_t arena_bytes = 0;       // device arena (the plan's)
  int64_t weight_bytes = 0;      // device copy of the weights kernels read
  int64_t staging_bytes = 0;     // device buffers for host inputs/outputs
  int kernels = 0;               // __global__ functions
  int gemms = 0;                 // cuBLAS calls sites
};

// Fails listing every op it cannot compile, with the node of each.
StatusOr<GeneratedCuda> GenerateCuda(const Graph& g, const MemoryPlan& plan, const KernelPlan& kernels,
                                     const CudaCodegenOptions& opts);

}  // namespace atenaot
