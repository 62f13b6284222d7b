#include "ir/dtype.h"

namespace atenaot {
namespace {

struct DTypeRow {
  DType dtype;
  const char* name;
  int64_t size;
  int aten_code;
};

constexpr DTypeRow kRows[] = {
    {DType::kUInt8, "u8", 1, 0},    {DType::kInt8, "i8", 1, 1},        {DType::kInt16, "i16", 2, 2},
    {DType::kInt32, "i32", 4, 3},   {DType::kInt64, "i64", 8, 4},      {DType::kFloat16, "f16", 2, 5},
    {DType::kFloat32, "f32", 4, 6}, {DType::kFloat64, "f64", 8, 7},    {DType::kComplex64, "c64", 8, 9},
    {DType::kBool, "bool", 1, 11},  {DType::kBFloat16, "bf16", 2, 15},
};

const DTypeRow& Row(DType t) {
  for (const DTypeRow& r : kRows)
    if (r.dtype == t) return r;
  return kRows[0];  // unreachable: every enumerator has a row
}

}  // namespace

const char* DTypeName(DType t) { return Row(t).name; }
int64_t DTypeSize(DType t) { return Row(t).size; }
int AtenScalarTypeCode(DType t) { return Row(t).aten_code; }

std::optional<DType> DTypeFromName(const std::string& name) {
  for (const DTypeRow& r : kRows)
    if (name == r.name) return r.dtype;
  return std::nullopt;
}

std::optional<DType> DTypeFromAtenCode(int code) {
  for (const DTypeRow& r : kRows)
    if (code == r.aten_code) return r.dtype;
  return std::nullopt;
}

bool IsFloatingPoint(DType t) {
  return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kBFloat16;
}

bool IsIntegral(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

}  // namespace atenaot
