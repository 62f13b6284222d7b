// C codegen: turns a reinplaced, annotated and memory-planned graph into one
// self-contained C99 file (plus its header) with no LibTorch, no C++ runtime
// and no malloc: intermediates live in the caller's (or the loader's) arena
// at their planned offsets, outputs go straight to caller memory, views are
// pointer and stride arithmetic, and chains of elementwise ops (functional
// producers used once, and runs of in-place updates of one tensor) become one
// loop per chain. One C function per kernel, with comments naming its ops.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "plan/memory_plan.h"

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
  std::string source_note;  // e.g. the model path, for the file banner
};

// Values the codegen evaluates inside another kernel's loop: they need no
// buffer, so the planner skips them. Compute this first, then plan with it.
// Elementwise fusion only (both backends); with options, also what the C
// backend's kernels fold away with them (gated convolutions' products).
std::unordered_set<const Value*> FusedAwayValues(const Graph& g);
std::unordered_set<const Value*> FusedAwayValues(const Graph& g, const CodegenOptions& o);

// The kernels both backends emit, in order: a fused elementwise group (its
// first node, then the in-place elementwise updates of the same tensor that
// follow, skipping values in `fused`) writing `target`, or one other node
// (target nullptr). Views and fused values get no kernel.
struct KernelStep {
  std::vector<const Node*> nodes;
  const Value* target = nullptr;
};
std::vector<KernelStep> KernelSchedule(const Graph& g, const std::unordered_set<const Value*>& fused);

// (output, input) pairs whose kernels may write over their input: pass them
// to the planner so an output takes over its input's buffer when that dies.
ReusePairs KernelReusePairs(const Graph& g, const std::unordered_set<const Value*>& fused);

struct GeneratedC {
  std::string header;  // NAME.h
  std::string source;  // NAME.c
  // The weight bytes: NAME.weights when not embedded; NAME_weights.bin when
  // embedded as a binary object (weights_asm set); empty otherwise.
  std::vector<uint8_t> weights;
  // NAME_weights.S: defines the hidden symbol NAME_weights_data (64-byte
  // aligned, read-only) as `.incbin "NAME_weights.bin"`; assemble it where
  // NAME_weights.bin is (or with -Wa,-I,DIR) and link it with NAME.c.
  std::string weights_asm;
  int64_t arena_bytes = 0;
  int kernels = 0;
};

// Fails listing every op it cannot compile, with the node of each.
StatusOr<GeneratedC> GenerateC(const Graph& g, const MemoryPlan& plan, const CodegenOptions& opts);

}  // namespace atenaot
