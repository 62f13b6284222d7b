// What the C backend is asked to generate (c_codegen.h), and what the planner
// must know of it to plan the same kernels' scratch (kernel_scratch.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "ir/graph.h"

namespace atenaot {

struct CodegenOptions {
  std::string name = "model";  // C identifier prefix: NAME_run, NAME_arena_bytes, ...
  bool embed_weights = true;   // false: weights are read from NAME.weights at open
  // Embedded weights as C array initializers in NAME.c (slow to compile once
  // they reach megabytes) instead of one binary blob, NAME_weights.bin, that
  // NAME_weights.S pulls in with `.incbin` (the default).
  bool weights_as_c_arrays = false;
  // float32 reductions, softmax, layer/batch norm and pools accumulate in
  // float (compensated sums) instead of double, so a single-precision FPU
  // (Cortex-M4F) needs no soft-double routines. `compile --embedded` sets it.
  bool float_accumulation = false;
  // GEMM, convolution and their fused epilogues through the kernel library
  // (codegen/kernels: packed weights, scratch planned per kernel). Ignored
  // with float_accumulation, whose targets keep the small generic kernels.
  bool kernel_library = true;
  // Split large kernels (elementwise ranges, reductions and softmax over
  // rows) over a thread pool (codegen/c_threads.h); the "threads" option
  // and NAME_set_threads choose how many. `compile --embedded` clears it: no
  // thread code at all.
  bool threads = true;
  int64_t thread_grain = 16384;  // elements of work per thread at least (tests use tiny ones to split everything)
  // The most threads one GEMM or convolution splits over (with threads):
  // each needs its own packing scratch, so the plan holds this many slots.
  int gemm_threads = 4;
  // 3x3 convolutions Winograd's rule picks but that stay on im2col GEMM:
  // PlanForCodegen refuses Winograd where its scratch raised the plan's peak.
  std::unordered_set<const Node*> im2col_convs;
  // Winograd's output tile m for the convolutions its rule takes: F(2x2,
  // 3x3) (the default: models within 1.1x of eager's error from float64,
  // layers 1.0-1.2x im2col GEMM's speed), F(4x4, 3x3) (4: ~1.5x im2col's
  // speed on ResNet's 3x3 layers, but a layer's error up to ~35x eager's and
  // ResNet-18's logits 2.8x; bench/accuracy.py), or 0: im2col GEMM only.
  int winograd = 2;
  std::string source_note;  // e.g. the model path, for the file banner
};

}  // namespace atenaot
