#include "codegen/c_types.h"

#include <cmath>

namespace atenaot {

StatusOr<std::string> CType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return std::string("float");
    case DType::kFloat64:
      return std::string("double");
    case DType::kInt64:
      return std::string("int64_t");
    case DType::kInt32:
      return std::string("int32_t");
    case DType::kInt16:
      return std::string("int16_t");
    case DType::kInt8:
      return std::string("int8_t");
    case DType::kUInt8:
      return std::string("uint8_t");
    case DType::kBool:
      return std::string("uint8_t");
    default:
      return Unsupported(std::string("dtype ") + DTypeName(t) + " is not supported by the C backend");
  }
}

namespace {

struct AbiRow {
  DType dtype;
  aot_dtype abi;
  const char* name;
};
constexpr AbiRow kAbiDTypes[] = {
    {DType::kFloat32, AOT_FLOAT32, "AOT_FLOAT32"}, {DType::kFloat64, AOT_FLOAT64, "AOT_FLOAT64"},
    {DType::kInt32, AOT_INT32, "AOT_INT32"},       {DType::kInt64, AOT_INT64, "AOT_INT64"},
    {DType::kBool, AOT_BOOL, "AOT_BOOL"},          {DType::kUInt8, AOT_UINT8, "AOT_UINT8"},
    {DType::kInt8, AOT_INT8, "AOT_INT8"},          {DType::kInt16, AOT_INT16, "AOT_INT16"},
};

}  // namespace

StatusOr<std::string> AbiDType(DType t) {
  for (const AbiRow& r : kAbiDTypes)
    if (r.dtype == t) return std::string(r.name);
  return Unsupported(std::string("dtype ") + DTypeName(t) + " cannot cross the C ABI");
}

StatusOr<aot_dtype> AbiDTypeOf(DType t) {
  for (const AbiRow& r : kAbiDTypes)
    if (r.dtype == t) return r.abi;
  return Unsupported(std::string("dtype ") + DTypeName(t) + " cannot cross the C ABI");
}

StatusOr<DType> DTypeOfAbi(aot_dtype t) {
  for (const AbiRow& r : kAbiDTypes)
    if (r.abi == t) return r.dtype;
  return InvalidArgument("unknown aot_dtype " + std::to_string(t));
}

std::string CLiteral(const Literal& l, const std::string& ctype) {
  std::string v;
  switch (l.kind) {
    case Literal::Kind::kInt:
      v = std::to_string(l.i) + (l.i > 2147483647LL || l.i < -2147483647LL ? "LL" : "");
      break;
    case Literal::Kind::kBool:
      v = l.b ? "1" : "0";
      break;
    case Literal::Kind::kFloat:
      if (std::isnan(l.f))
        v = "NAN";
      else if (std::isinf(l.f))
        v = l.f > 0 ? "INFINITY" : "(-INFINITY)";
      else
        v = FormatDouble(l.f);
      break;
    default:
      v = "0";
  }
  return "((" + ctype + ")" + v + ")";
}

std::string CCast(const std::string& expr, DType t) {
  if (t == DType::kBool) return "((uint8_t)((" + expr + ") != 0))";
  auto c = CType(t);
  return "((" + (c.ok() ? *c : std::string("float")) + ")(" + expr + "))";
}

}  // namespace atenaot
