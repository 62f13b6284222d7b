#include "ir/type_promotion.h"

#include <optional>

namespace atenaot {
namespace {

int Category(DType t) {  // bool < integral < floating < complex
  if (t == DType::kBool) return 0;
  if (IsIntegral(t)) return 1;
  if (IsFloatingPoint(t)) return 2;
  return 3;
}

int IntRank(DType t) {
  switch (t) {
    case DType::kInt8:
      return 1;
    case DType::kInt16:
      return 2;
    case DType::kInt32:
      return 3;
    case DType::kInt64:
      return 4;
    default:
      return 0;
  }
}

// c10::combine_categories on optional dtypes (nullopt = Undefined).
std::optional<DType> Combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (Category(*higher) == 3) return higher;
  if (Category(*lower) != 3 && IsFloatingPoint(*higher)) return higher;
  if (*higher == DType::kBool || IsFloatingPoint(*lower) || Category(*lower) == 3) return PromoteTypes(*higher, *lower);
  return higher;
}

std::optional<DType> Update(std::optional<DType> cur, DType t) { return cur ? PromoteTypes(*cur, t) : t; }

}  // namespace

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  int ca = Category(a), cb = Category(b);
  if (ca != cb) {
    DType hi = ca > cb ? a : b, lo = ca > cb ? b : a;
    // Mixed float16/bfloat16 never meet here; an integer never widens a float.
    (void)lo;
    return hi;
  }
  if (ca == 1) {
    if (a == DType::kUInt8 || b == DType::kUInt8) {
      DType other = a == DType::kUInt8 ? b : a;
      return other == DType::kInt8 ? DType::kInt16 : other;  // u8 + i8 -> i16
    }
    return IntRank(a) >= IntRank(b) ? a : b;
  }
  if (ca == 2) {
    if ((a == DType::kFloat16 && b == DType::kBFloat16) || (a == DType::kBFloat16 && b == DType::kFloat16))
      return DType::kFloat32;
    auto width = [](DType t) { return t == DType::kFloat64 ? 3 : t == DType::kFloat32 ? 2 : 1; };
    return width(a) >= width(b) ? a : b;
  }
  return a;  // complex: only c64 is modelled
}

DType WrappedScalarDType(const Literal& l) {
  if (l.kind == Literal::Kind::kBool) return DType::kBool;
  if (l.kind == Literal::Kind::kFloat) return DType::kFloat32;
  return DType::kInt64;
}

DType ResultType(const std::vector<PromotionOperand>& operands) {
  std::optional<DType> dim_result, zero_result, wrapped_result;
  for (const PromotionOperand& o : operands) {
    if (o.is_scalar)
      wrapped_result = Update(wrapped_result, o.dtype);
    else if (o.dim > 0)
      dim_result = Update(dim_result, o.dtype);
    else
      zero_result = Update(zero_result, o.dtype);
  }
  auto r = Combine(dim_result, Combine(zero_result, wrapped_result));
  return r ? *r : DType::kFloat32;
}

}  // namespace atenaot
