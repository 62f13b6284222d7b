#include "codegen/kernel_schedule.h"

#include <functional>
#include <string>
#include <unordered_map>

#include "codegen/elementwise.h"
#include "codegen/kernel_scratch.h"
#include "ir/view_meta.h"

namespace atenaot {
namespace {

// A functional elementwise value used once, by an elementwise op of its
// shape, fuses into that op's loop when nothing it reads changes before then.
std::unordered_set<const Value*> ComputeFusion(const Graph& g) {
  std::unordered_set<const Value*> fused;  // computed inside their single consumer
  std::unordered_map<int64_t, int> storage_count;
  std::unordered_map<int64_t, int64_t> last_write;  // storage -> last writing position
  std::unordered_map<const Node*, int64_t> pos;
  int64_t p = 0;
  for (const Node* n : g.nodes()) {
    pos[n] = p;
    for (const Value* o : n->outputs()) storage_count[o->meta().storage]++;
    if (n->op().Writes())
      for (int w : n->op().written_args)
        if (n->input(w)) last_write[n->input(w)->meta().storage] = p;
    ++p;
  }
  for (const Value* v : g.inputs()) storage_count[v->meta().storage]++;
  std::unordered_map<const Value*, std::unordered_set<int64_t>> reads;  // storages a fused value reads
  for (const Node* n : g.nodes()) {
    if (n->outputs().size() != 1 || n->op().Writes() || IsViewNode(n) || !FindElementwise(*n)) continue;
    const Value* u = n->output();
    if (u->uses().size() != 1 || !u->uses()[0].user || u->uses()[0].elem >= 0) continue;
    if (storage_count[u->meta().storage] != 1) continue;  // something views it
    const Node* c = u->uses()[0].user;
    if (!FindElementwise(*c) || IsViewNode(c) || c->outputs().empty()) continue;
    if (c->output()->meta().sizes != u->meta().sizes) continue;
    // What u's computation reads must not change before the consumer runs.
    std::unordered_set<int64_t> rs;
    for (const Value* in : n->InputValues()) {
      if (fused.count(in))
        rs.insert(reads[in].begin(), reads[in].end());
      else
        rs.insert(in->meta().storage);
    }
    bool stable = true;
    for (int64_t s : rs) {
      auto lw = last_write.find(s);
      if (lw != last_write.end() && lw->second > pos[n]) stable = false;
    }
    if (!stable) continue;
    fused.insert(u);
    reads[u] = std::move(rs);
  }
  return fused;
}

}  // namespace

std::vector<KernelStep> KernelSchedule(const Graph& g, const std::unordered_set<const Value*>& fused) {
  std::vector<const Node*> nodes;
  for (const Node* n : g.nodes()) nodes.push_back(n);
  std::vector<KernelStep> steps;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node* n = nodes[i];
    if (IsViewNode(n) || (n->outputs().size() == 1 && fused.count(n->output()))) continue;
    if (!FindElementwise(*n) || n->outputs().size() != 1) {
      steps.push_back({{n}, nullptr});
      continue;
    }
    // A run of in-place elementwise updates of the same tensor joins it.
    KernelStep k{{n}, n->op().Writes() ? n->input(0) : n->output()};
    while (i + 1 < nodes.size()) {
      const Node* m = nodes[i + 1];
      if (m->outputs().size() == 1 && fused.count(m->output())) {
        ++i;
        continue;
      }
      if (m->op().kind != OpKind::kInplace || m->input(0) != k.target || !FindElementwise(*m) ||
          m->output()->meta().sizes != k.target->meta().sizes)
        break;
      bool aliased = false;
      for (size_t a = 1; a < m->InputValues().size(); ++a)
        if (m->InputValues()[a]->meta().storage == k.target->meta().storage) aliased = true;
      if (aliased) break;
      k.nodes.push_back(m);
      ++i;
    }
    steps.push_back(std::move(k));
  }
  return steps;
}

std::unordered_set<const Value*> FusedAwayValues(const Graph& g) { return ComputeFusion(g); }

std::unordered_set<const Value*> FusedAwayValues(const Graph& g, const CodegenOptions& o) {
  std::unordered_set<const Value*> f = ComputeFusion(g);
  for (const Value* v : GatedConvProducts(g, o)) f.insert(v);
  for (const Value* v : ConvBandsResults(g, o)) f.insert(v);
  for (const Value* v : LinearBandsResults(g, o)) f.insert(v);
  for (const Value* v : ConvPrologueResults(g, o)) f.insert(v);
  for (const Node* n : g.nodes())  // the C kernel writes the bags only (and refuses a read of the others)
    if (ClassifyKernel(n) == KernelKind::kEmbeddingBag)
      for (size_t k = 1; k < n->outputs().size(); ++k)
        if (n->output(static_cast<int>(k))->uses().empty()) f.insert(n->output(static_cast<int>(k)));
  return f;
}

namespace {
// Whether a kernel writing its output over input 0 would change what it
// still reads: another operand in input 0's storage laid out differently
// (y = x + x[0] over x's buffer overwrote row 0 before rows 1.. read it),
// directly or through a fused operand's producer.
bool ReadsInput0Elsewhere(const Node* n, const std::unordered_set<const Value*>& fused) {
  const TensorMeta& m0 = n->input(0)->meta();
  std::function<bool(const Value*)> clashes = [&](const Value* v) {
    if (fused.count(v) && v->producer()) {
      for (const Value* w : v->producer()->InputValues())
        if (clashes(w)) return true;
      return false;
    }
    const TensorMeta& m = v->meta();
    return m.storage == m0.storage && !(m.offset == m0.offset && m.strides == m0.strides && m.sizes == m0.sizes);
  };
  const std::vector<Value*> ins = n->InputValues();
  for (size_t k = 1; k < ins.size(); ++k)
    if (clashes(ins[k])) return true;
  return false;
}
}  // namespace

ReusePairs KernelReusePairs(const Graph& g, const std::unordered_set<const Value*>& fused) {
  // Kernels that read element i of input 0 before writing element i of their
  // output (per element, or per row after the row's statistics).
  static const std::unordered_set<std::string> kRowwise = {"batch_norm", "layer_norm",  "native_layer_norm", "softmax",
                                                           "_softmax",   "log_softmax", "_log_softmax"};
  ReusePairs pairs;
  for (const Node* n : g.nodes()) {
    if (n->outputs().empty() || IsViewNode(n) || n->op().Writes() || !n->input(0)) continue;
    const Value* o = n->output(0);
    if (fused.count(o) || fused.count(n->input(0))) continue;
    if ((kRowwise.count(n->op().schema.name) || FindElementwise(*n)) && !ReadsInput0Elsewhere(n, fused))
      pairs.push_back({o, n->input(0)});
  }
  return pairs;
}

KernelPlan MakeKernelPlan(const Graph& g, std::unordered_set<const Value*> fused) {
  KernelPlan k;
  k.steps = KernelSchedule(g, fused);
  k.fused = std::move(fused);
  return k;
}

}  // namespace atenaot
