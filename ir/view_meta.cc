#include "ir/view_meta.h"

#include <algorithm>

namespace atenaot {

TensorMeta ScatterViewMeta(const OpInfo& view_op, const std::vector<Arg>& args, const TensorMeta& base) {
  TensorMeta m = base;
  const int64_t rank = static_cast<int64_t>(base.sizes.size());
  auto lit = [&](size_t i) -> const Literal& { return args[i].literal; };
  auto norm = [&](int64_t d) { return d < 0 ? d + rank : d; };
  const std::string& name = view_op.schema.name;
  if (name == "select") {
    size_t d = static_cast<size_t>(norm(lit(1).i));
    int64_t idx = lit(2).i < 0 ? lit(2).i + base.sizes[d] : lit(2).i;
    m.offset += idx * base.strides[d];
    m.sizes.erase(m.sizes.begin() + static_cast<std::ptrdiff_t>(d));
    m.strides.erase(m.strides.begin() + static_cast<std::ptrdiff_t>(d));
  } else if (name == "slice") {
    size_t d = static_cast<size_t>(norm(lit(1).i));
    int64_t size = base.sizes[d], step = lit(4).i;
    auto clampi = [&](const Literal& l, int64_t dflt) {
      int64_t v = l.kind == Literal::Kind::kNone ? dflt : l.i;
      if (v < 0) v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    int64_t start = clampi(lit(2), 0), end = std::max(start, clampi(lit(3), size));
    m.offset += start * base.strides[d];
    m.sizes[d] = (end - start + step - 1) / step;
    m.strides[d] = base.strides[d] * step;
  } else if (name == "diagonal") {
    int64_t off = lit(1).i;
    size_t d1 = static_cast<size_t>(norm(lit(2).i)), d2 = static_cast<size_t>(norm(lit(3).i));
    int64_t len = off >= 0 ? std::max<int64_t>(0, std::min(base.sizes[d1], base.sizes[d2] - off))
                           : std::max<int64_t>(0, std::min(base.sizes[d1] + off, base.sizes[d2]));
    m.offset += off >= 0 ? off * base.strides[d2] : -off * base.strides[d1];
    m.sizes.clear();
    m.strides.clear();
    for (size_t k = 0; k < base.sizes.size(); ++k)
      if (k != d1 && k != d2) {
        m.sizes.push_back(base.sizes[k]);
        m.strides.push_back(base.strides[k]);
      }
    m.sizes.push_back(len);
    m.strides.push_back(base.strides[d1] + base.strides[d2]);
  } else {  // as_strided
    m.sizes = lit(1).ints;
    m.strides = lit(2).ints;
    if (lit(3).kind == Literal::Kind::kInt) m.offset = lit(3).i;
  }
  return m;
}

}  // namespace atenaot
