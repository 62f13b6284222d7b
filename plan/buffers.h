// Storage analysis, the first part of memory planning: after reinplace,
// values that share storage (views of a base, an in-place result and its
// input) form one buffer. Each buffer gets a size in bytes (the furthest byte
// any of its values reaches, aligned), the op index that first defines it
// and the last op index that reads any of its values.
//
// Where buffers live:
//  - a storage class holding a program input or a weight is external
//    (caller memory or the weight blob), never in the arena;
//  - a class holding a graph output whose value covers the whole buffer
//    (contiguous, offset 0, same size) is written straight into the
//    caller's output memory: no copy when a view or in-place chain ends in
//    an output;
//  - every other class is an arena buffer (an output that is only a partial
//    or strided view of its buffer stays in the arena and is copied out);
//  - a kernel's scratch (e.g. the packed panels of a GEMM or convolution) is
//    an arena buffer of its own, live only while that node runs.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"

namespace atenaot {

enum class BufferHome { kArena, kOutput, kInput, kWeight };
const char* BufferHomeName(BufferHome h);

struct Buffer {
  int64_t storage = 0;            // the storage id shared by its values
  std::vector<int64_t> storages;  // every storage id living here (more than one when kernels reuse it)
  int64_t bytes = 0;              // aligned size
  int64_t first = 0;              // op index of the first definition
  int64_t last = 0;               // op index of the last read (num_ops for outputs)
  BufferHome home = BufferHome::kArena;
  int output_index = -1;  // kOutput: which flat output
  std::string name;       // the defining value, for reports
  std::vector<const Value*> values;
  const Node* scratch_for = nullptr;  // set for a kernel's scratch (no storage, no values)
};

// Per node: bytes of scratch its kernel needs while it runs (the C backend's
// KernelScratchBytes decides them; the planner only places them).
using NodeBytes = std::unordered_map<const Node*, int64_t>;

struct BufferAnalysis {
  std::vector<Buffer> buffers;  // every storage class defined by a node
  int64_t num_ops = 0;          // op indices run 0..num_ops-1
  int64_t alignment = 64;
  // The arena buffers as (size, first, last) for placement, with their
  // index into `buffers`.
  std::vector<int> arena;
};

// Bytes from the start of the storage to the end of the tensor's last element.
int64_t ExtentBytes(const TensorMeta& m);

// `g` must have exact metadata (after AnnotateFromRun or import). Values in
// `virtual_values` (computed inside another kernel, e.g. fused elementwise
// producers) get no buffer; reading one reads what its producer reads, so
// those buffers live until the fused value's reader runs.
// `reuse` lists (output, input) pairs of nodes whose kernel may write its
// output over its input (same layout, element i read before it is written):
// when the input's buffer dies at that node, the output takes it over.
// `scratch` adds one arena buffer per listed node, live at that node alone.
using ReusePairs = std::vector<std::pair<const Value*, const Value*>>;
BufferAnalysis AnalyzeBuffers(const Graph& g, int64_t alignment = 64,
                              const std::unordered_set<const Value*>* virtual_values = nullptr,
                              const ReusePairs* reuse = nullptr, const NodeBytes* scratch = nullptr);

}  // namespace atenaot
