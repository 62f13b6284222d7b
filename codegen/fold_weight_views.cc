#include "codegen/fold_weight_views.h"

#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/kernel_util.h"

namespace atenaot {

namespace {

// v's elements (a view into `data`'s storage), contiguous.
std::vector<uint8_t> Gather(const TensorMeta& v, const std::vector<uint8_t>& data) {
  const int64_t item = DTypeSize(v.dtype), n = v.numel();
  std::vector<uint8_t> out(static_cast<size_t>(n * item));
  std::vector<int64_t> idx(v.sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t e = v.offset;
    for (size_t d = 0; d < idx.size(); ++d) e += idx[d] * v.strides[d];
    std::memcpy(&out[static_cast<size_t>(i * item)], &data[static_cast<size_t>(e * item)], static_cast<size_t>(item));
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < v.sizes[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

int FoldWeightViews(Graph& g) {
  std::unordered_set<int64_t> written;
  for (const Node* n : g.nodes())
    for (int w : n->op().written_args)
      if (n->input(w)) written.insert(n->input(w)->meta().storage);
  std::unordered_map<int64_t, const Value*> weight_of;  // storage -> its weight
  for (const Value* w : g.weight_values()) weight_of.emplace(w->meta().storage, w);
  int folded = 0;
  std::vector<Node*> views;
  for (Node* n : g.nodes()) {
    // One tensor input in a weight's storage (the weight or a view of it),
    // never written: the view's storage is that weight's data.
    if (!IsViewNode(n) || n->InputValues().size() != 1) continue;
    views.push_back(n);
    const Value* src = n->InputValues()[0];
    auto root = weight_of.find(src->meta().storage);
    const WeightData* data = root == weight_of.end() ? nullptr : WeightDataOf(g, root->second);
    if (!data || written.count(src->meta().storage)) continue;
    for (Value* o : n->outputs()) {
      const TensorMeta& m = o->meta();
      int64_t last = m.offset;  // the last element the view reaches
      bool odd_strides = false, viewed = false;
      for (size_t d = 0; d < m.sizes.size(); ++d) {
        last += (m.sizes[d] - 1) * m.strides[d];
        // Negative strides, and broadcasts (stride 0), which would grow the weights blob.
        odd_strides = odd_strides || m.strides[d] < 0 || (m.strides[d] == 0 && m.sizes[d] > 1);
      }
      // Only a chain's last view folds: the views after it keep their
      // layouts relative to the weight's storage.
      for (const Use& u : o->uses()) viewed = viewed || (u.user && IsViewNode(u.user));
      if (o->uses().empty() || viewed || odd_strides || m.numel() == 0 || m.storage != src->meta().storage ||
          m.dtype != data->meta.dtype || m.offset < 0 ||
          (last + 1) * DTypeSize(m.dtype) > static_cast<int64_t>(data->bytes.size()))
        continue;
      g.ReplaceAllUsesWith(o, AddFoldedWeight(g, o->name() + "_w", m.dtype, m.sizes, Gather(m, data->bytes)));
      ++folded;
    }
  }
  // The views nothing reads any more (chains included, last first) go; a
  // graph output is a use (the return's).
  for (size_t i = views.size(); i-- > 0;) {
    bool used = false;
    for (const Value* o : views[i]->outputs()) used = used || !o->uses().empty();
    if (!used) g.Destroy(views[i]);
  }
  return folded;
}

}  // namespace atenaot
