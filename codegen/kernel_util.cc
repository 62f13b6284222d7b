#include "codegen/kernel_util.h"

#include <cstddef>

namespace atenaot {

bool IsViewNode(const Node* n) {
  if (n->op().Writes()) return false;
  for (const Value* o : n->outputs())
    for (const Value* in : n->InputValues())
      if (o->meta().storage == in->meta().storage) return true;
  return false;
}

std::vector<int64_t> BroadcastStrides(const TensorMeta& m, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size(), 0);
  const size_t r = sizes.size(), rm = m.sizes.size();
  for (size_t d = 0; d < r; ++d) {
    if (d + rm < r) continue;
    size_t od = d + rm - r;
    st[d] = (m.sizes[od] == 1 && sizes[d] != 1) ? 0 : m.strides[od];
  }
  return st;
}

LoopSpace CoalesceLoops(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides) {
  std::vector<int64_t> sz;
  std::vector<std::vector<int64_t>> st(strides.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    sz.push_back(sizes[d]);
    for (size_t t = 0; t < strides.size(); ++t) st[t].push_back(strides[t][d]);
  }
  for (size_t d = sz.size(); d-- > 1;) {
    bool ok = true;
    for (size_t t = 0; t < st.size(); ++t)
      if (st[t][d - 1] != st[t][d] * sz[d]) ok = false;
    if (!ok) continue;
    sz[d - 1] *= sz[d];
    sz.erase(sz.begin() + static_cast<std::ptrdiff_t>(d));
    for (size_t t = 0; t < st.size(); ++t) {
      st[t][d - 1] = st[t][d];
      st[t].erase(st[t].begin() + static_cast<std::ptrdiff_t>(d));
    }
  }
  return {sz, st};
}

}  // namespace atenaot
