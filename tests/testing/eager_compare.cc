#include "tests/testing/eager_compare.h"

#include <ATen/ATen.h>

#include <sstream>

namespace atenaot {

std::string CompareTensors(const at::Tensor& e, const at::Tensor& a) {
  std::ostringstream os;
  if (e.scalar_type() != a.scalar_type()) {
    os << "dtype " << a.scalar_type() << " != expected " << e.scalar_type();
    return os.str();
  }
  if (e.sizes() != a.sizes()) {
    os << "shape " << a.sizes() << " != expected " << e.sizes();
    return os.str();
  }
  bool same = e.is_floating_point() ? at::allclose(a, e, kRtol, kAtol, /*equal_nan=*/true) : at::equal(a, e);
  if (same) return "";
  os << "values differ";
  if (e.is_floating_point()) os << " (max abs diff " << (a - e).abs().max().item<double>() << ")";
  return os.str();
}

std::string CompareTensorLists(const std::vector<at::Tensor>& e, const std::vector<at::Tensor>& a,
                               const std::string& what) {
  if (e.size() != a.size())
    return what + ": " + std::to_string(a.size()) + " tensors, expected " + std::to_string(e.size());
  std::string out;
  for (size_t i = 0; i < e.size(); ++i) {
    std::string d = CompareTensors(e[i], a[i]);
    if (!d.empty()) out += what + " " + std::to_string(i) + ": " + d + "; ";
  }
  return out;
}

std::string CompareInputsAfter(const std::vector<at::Tensor>& e, const std::vector<at::Tensor>& a) {
  std::vector<at::Tensor> seen = a;
  for (size_t i = 0; i < e.size() && i < a.size(); ++i) {
    if (e[i].sizes() == a[i].sizes() && e[i].strides() == a[i].strides() &&
        e[i].storage_offset() == a[i].storage_offset())
      continue;
    try {
      seen[i] = a[i].as_strided(e[i].sizes(), e[i].strides(), e[i].storage_offset());
    } catch (const std::exception&) {
      return "input-after " + std::to_string(i) + ": eager's layout of it lies outside its memory; ";
    }
  }
  return CompareTensorLists(e, seen, "input-after");
}

}  // namespace atenaot
