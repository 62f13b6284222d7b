#include "plan/buffers.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace atenaot {

const char* BufferHomeName(BufferHome h) {
  switch (h) {
    case BufferHome::kArena:
      return "arena";
    case BufferHome::kOutput:
      return "output";
    case BufferHome::kInput:
      return "input";
    case BufferHome::kWeight:
      return "weight";
  }
  return "?";
}

namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

}  // namespace

int64_t ExtentBytes(const TensorMeta& m) {
  if (m.numel() == 0) return m.offset * DTypeSize(m.dtype);
  int64_t last = m.offset;
  for (size_t i = 0; i < m.sizes.size(); ++i) last += (m.sizes[i] - 1) * std::max<int64_t>(m.strides[i], 0);
  return (last + 1) * DTypeSize(m.dtype);
}

BufferAnalysis AnalyzeBuffers(const Graph& g, int64_t alignment, const std::unordered_set<const Value*>* virtual_values,
                              const ReusePairs* reuse, const NodeBytes* scratch) {
  BufferAnalysis out;
  out.alignment = alignment;
  std::unordered_map<int64_t, int> index;  // storage id -> buffer
  std::unordered_map<int64_t, BufferHome> external;
  for (const Value* v : g.inputs()) external[v->meta().storage] = BufferHome::kInput;
  for (const Value* v : g.weight_values()) external[v->meta().storage] = BufferHome::kWeight;
  int64_t t = 0;
  std::function<void(const Value*, int64_t, bool)> touch = [&](const Value* v, int64_t when, bool defines) {
    if (virtual_values && virtual_values->count(v)) {
      // A fused value is computed inside its reader's kernel, so what its
      // producer reads is read then: those buffers live until this read.
      if (!defines && v->producer())
        for (const Value* in : v->producer()->InputValues()) touch(in, when, false);
      return;
    }
    int64_t s = v->meta().storage;
    auto it = index.find(s);
    if (it == index.end()) {
      if (!defines) return;  // inputs and weights
      Buffer b;
      b.storage = s;
      b.first = when;
      b.last = when;
      b.name = v->name();
      auto ext = external.find(s);
      if (ext != external.end()) b.home = ext->second;
      it = index.emplace(s, static_cast<int>(out.buffers.size())).first;
      out.buffers.push_back(b);
    }
    Buffer& b = out.buffers[static_cast<size_t>(it->second)];
    b.last = std::max(b.last, when);
    b.bytes = std::max(b.bytes, ExtentBytes(v->meta()));
    if (defines) b.values.push_back(v);
  };
  std::vector<const Node*> order;
  for (const Node* n : g.nodes()) order.push_back(n);
  for (const Node* n : order) {
    for (const Value* in : n->InputValues()) touch(in, t, false);
    for (const Value* o : n->outputs()) touch(o, t, true);
    auto sc = scratch ? scratch->find(n) : NodeBytes::const_iterator();
    if (scratch && sc != scratch->end() && sc->second > 0) {
      Buffer b;
      b.storage = -1;  // in no storage class, so reuse and outputs never touch it
      b.bytes = sc->second;
      b.first = b.last = t;
      b.name = "scratch of " + (n->outputs().empty() ? std::string("?") : "%" + n->output(0)->name());
      b.scratch_for = n;
      out.buffers.push_back(b);
    }
    ++t;
  }
  out.num_ops = t;
  for (Buffer& b : out.buffers)
    if (!b.scratch_for) b.storages = {b.storage};
  // Outputs are read by the caller after the last op.
  for (const Value* v : g.outputs()) {
    auto it = index.find(v->meta().storage);
    if (it != index.end()) out.buffers[static_cast<size_t>(it->second)].last = t;
  }
  // Kernel-level reuse: the output buffer folds into its dying input's.
  if (reuse) {
    std::unordered_map<const Node*, int64_t> pos;
    int64_t k = 0;
    for (const Node* n : g.nodes()) pos[n] = k++;
    std::vector<bool> dead(out.buffers.size(), false);
    for (const auto& [o, in] : *reuse) {
      auto io = index.find(o->meta().storage), ii = index.find(in->meta().storage);
      if (io == index.end() || ii == index.end() || io->second == ii->second || !o->producer()) continue;
      const int out_buf = io->second, in_buf = ii->second;  // index changes below
      Buffer& bo = out.buffers[static_cast<size_t>(out_buf)];
      Buffer& bi = out.buffers[static_cast<size_t>(in_buf)];
      const int64_t at = pos[o->producer()];
      const TensorMeta &mo = o->meta(), &mi = in->meta();
      bool same_layout = mo.sizes == mi.sizes && mo.strides == mi.strides && mo.offset == 0 && mi.offset == 0 &&
                         DTypeSize(mo.dtype) == DTypeSize(mi.dtype) && mi.IsContiguous();
      if (bo.home != BufferHome::kArena || bi.home != BufferHome::kArena || bi.last != at || bo.first != at ||
          bo.bytes != bi.bytes || !same_layout)
        continue;
      bi.last = std::max(bi.last, bo.last);
      bi.values.insert(bi.values.end(), bo.values.begin(), bo.values.end());
      for (int64_t st : bo.storages) {
        bi.storages.push_back(st);
        index[st] = in_buf;
      }
      dead[static_cast<size_t>(out_buf)] = true;
    }
    std::vector<Buffer> kept;
    for (size_t i = 0; i < out.buffers.size(); ++i)
      if (!dead[i]) kept.push_back(std::move(out.buffers[i]));
    out.buffers = std::move(kept);
    index.clear();
    for (size_t i = 0; i < out.buffers.size(); ++i)
      for (int64_t st : out.buffers[i].storages) index[st] = static_cast<int>(i);
  }
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    const Value* v = g.outputs()[k];
    auto it = index.find(v->meta().storage);
    if (it == index.end()) continue;  // an input or weight returned as is
    Buffer& b = out.buffers[static_cast<size_t>(it->second)];
    const TensorMeta& m = v->meta();
    bool covers = m.offset == 0 && m.IsContiguous() && m.numel() * DTypeSize(m.dtype) == b.bytes;
    if (b.home == BufferHome::kArena && covers) {
      b.home = BufferHome::kOutput;
      b.output_index = static_cast<int>(k);
    }
  }
  for (size_t i = 0; i < out.buffers.size(); ++i) {
    Buffer& b = out.buffers[i];
    b.bytes = AlignUp(std::max<int64_t>(b.bytes, 1), alignment);
    if (b.home == BufferHome::kArena) out.arena.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace atenaot
