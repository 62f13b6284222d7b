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
  std::string name = "model";     // C identifier prefix: NAME_run, NAME_arena_bytes, ...
  bool embed_weights = true;      // false: weights are read from NAME.weights at open
  std::string source_note;        // e.g. the model path, for the file banner
};

// Values the codegen evaluates inside another kernel's loop: they need no
// buffer, so the planner skips them. Compute this first, then plan with it.
std::unordered_set<const Value*> FusedAwayValues(const Graph& g);

// (output, input) pairs whose kernels may write over their input: pass them
// to the planner so an output takes over its input's buffer when that dies.
ReusePairs KernelReusePairs(const Graph& g, const std::unordered_set<const Value*>& fused);

struct GeneratedC {
  std::string header;           // NAME.h
  std::string source;           // NAME.c
  std::vector<uint8_t> weights;  // NAME.weights contents when not embedded
  int64_t arena_bytes = 0;
  int kernels = 0;
};

// Fails listing every op it cannot compile, with the node of each.
StatusOr<GeneratedC> GenerateC(const Graph& g, const MemoryPlan& plan, const CodegenOptions& opts);

}  // namespace atenaot
