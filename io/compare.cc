#include "io/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

namespace atenaot {

bool ElementAsDouble(const NpyArray& a, int64_t k, double* v) {
  const uint8_t* p = a.data.data() + k * DTypeSize(a.dtype);
  switch (a.dtype) {
    case DType::kFloat32: {
      float f;
      std::memcpy(&f, p, 4);
      *v = f;
      return true;
    }
    case DType::kFloat64:
      std::memcpy(v, p, 8);
      return true;
    case DType::kInt64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      *v = static_cast<double>(x);
      return true;
    }
    case DType::kInt32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      *v = x;
      return true;
    }
    case DType::kInt16: {
      int16_t x;
      std::memcpy(&x, p, 2);
      *v = x;
      return true;
    }
    case DType::kBool:
    case DType::kUInt8:
      *v = *p;
      return true;
    case DType::kInt8:
      *v = static_cast<int8_t>(*p);
      return true;
    default:
      return false;
  }
}

std::pair<double, double> DefaultTolerances(DType t) {
  if (t == DType::kFloat64) return {1e-7, 1e-7};
  if (t == DType::kFloat16) return {1e-3, 1e-5};
  return {1.3e-6, 1e-5};
}

std::string CompareArrays(const NpyArray& e, const NpyArray& a, double rtol, double atol) {
  if (e.dtype != a.dtype) return std::string("dtype ") + DTypeName(a.dtype) + " != expected " + DTypeName(e.dtype);
  if (e.shape != a.shape) return "shape differs";
  const bool floating = IsFloatingPoint(e.dtype);
  const int64_t item = DTypeSize(e.dtype);
  int64_t bad = 0;
  if (!floating) {  // integers and bools: the bytes must match (exact for all of int64)
    for (int64_t k = 0; k < e.numel(); ++k)
      if (std::memcmp(e.data.data() + k * item, a.data.data() + k * item, static_cast<size_t>(item)) != 0) ++bad;
    return bad == 0 ? "" : std::to_string(bad) + " of " + std::to_string(e.numel()) + " elements differ";
  }
  const auto defaults = DefaultTolerances(e.dtype);
  if (rtol < 0) rtol = defaults.first;
  if (atol < 0) atol = defaults.second;
  std::vector<double> xs(static_cast<size_t>(e.numel())), ys(xs.size());
  double scale = 0;
  for (int64_t k = 0; k < e.numel(); ++k) {
    if (!ElementAsDouble(e, k, &xs[static_cast<size_t>(k)]) || !ElementAsDouble(a, k, &ys[static_cast<size_t>(k)]))
      return "dtype cannot be compared";
    if (std::isfinite(xs[static_cast<size_t>(k)])) scale = std::max(scale, std::fabs(xs[static_cast<size_t>(k)]));
  }
  if (scale == 0) scale = 1;
  double worst = 0;  // over all elements, not only the failing ones
  int64_t worst_at = -1;
  for (size_t k = 0; k < xs.size(); ++k) {
    const double x = xs[k], y = ys[k];
    if ((std::isnan(x) && std::isnan(y)) || x == y) continue;  // equal infinities included
    const double diff = std::fabs(y - x);
    if (!(diff <= worst) && !std::isnan(worst)) {
      worst = diff;
      worst_at = static_cast<int64_t>(k);
    }
    // An infinity (or NaN) on either side matches only itself (handled above):
    // rtol * |inf| would otherwise accept inf against -inf or any finite value.
    if (std::isfinite(x) && std::isfinite(y) && diff <= atol * scale + rtol * std::fabs(x)) continue;
    ++bad;
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os << bad << " of " << e.numel() << " elements differ (max abs diff " << worst << " at element " << worst_at
     << "; scale " << scale << ", allowed " << atol << " * scale + " << rtol << " * |expected|)";
  return os.str();
}

}  // namespace atenaot
