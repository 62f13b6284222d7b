// Element types of tensors in the IR, their names in IR text and .npy files,
// and their ATen ScalarType codes (ATen passes dtypes to ops as those ints).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace atenaot {

enum class DType : uint8_t {
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kBool,
  kBFloat16,
  kComplex64,
};

// IR text name: "f32", "i64", "bool", ...
const char* DTypeName(DType t);
std::optional<DType> DTypeFromName(const std::string& name);
// Bytes per element.
int64_t DTypeSize(DType t);
bool IsFloatingPoint(DType t);
bool IsIntegral(DType t);  // bool excluded
// ATen c10::ScalarType numbering (Byte=0 ... Float=6, Double=7, Bool=11, BFloat16=15).
int AtenScalarTypeCode(DType t);
std::optional<DType> DTypeFromAtenCode(int code);

}  // namespace atenaot
