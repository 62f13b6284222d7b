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

#include "codegen/codegen_options.h"
#include "codegen/kernel_schedule.h"
#include "ir/graph.h"
#include "plan/memory_plan.h"

namespace atenaot {

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

// Emits `kernels` (the fusion and kernel order `plan` was made for, from
// PlanForCodegen); fails listing every op it cannot compile, with the node of
// each.
StatusOr<GeneratedC> GenerateC(const Graph& g, const MemoryPlan& plan, const KernelPlan& kernels,
                               const CodegenOptions& opts);

}  // namespace atenaot
