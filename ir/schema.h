// OpSchema: a LibTorch-free copy of an ATen operator schema, parsed from the
// text form c10 prints ("aten::add_.Tensor(Tensor(a!) self, Tensor other, *,
// Scalar alpha=1) -> Tensor(a!)"). The schema strings come from the live
// dispatcher at startup (schema/) or from a committed snapshot in tests, so the
// IR and passes never include LibTorch headers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/status.h"

namespace atenaot {

enum class BaseType {
  kTensor,
  kInt,  // int and SymInt
  kFloat,
  kBool,
  kScalar,
  kScalarType,
  kLayout,
  kDevice,
  kMemoryFormat,
  kString,
  kGenerator,
  kDimname,
  kOther,  // Storage, Stream, t, Any, ...: ops using these are not compiled
};

struct SchemaType {
  BaseType base = BaseType::kOther;
  bool list = false;           // int[], Tensor[]
  bool optional = false;       // int?, int[]? (the list itself is optional)
  bool elem_optional = false;  // Tensor?[] (each element may be None)
  int fixed_size = 0;          // int[2]: 2; 0 when unsized
  std::string raw;             // original spelling, for messages
};

struct SchemaAlias {
  std::string set;  // "a" in Tensor(a!); empty when none
  bool write = false;
  bool wildcard = false;  // "*" or "a -> *"
};

struct SchemaArg {
  std::string name;
  SchemaType type;
  SchemaAlias alias;  // alias of the tensor (or of the list's elements)
  std::optional<Literal> default_value;
  bool kwarg_only = false;
  bool IsTensorLike() const { return type.base == BaseType::kTensor; }
};

struct OpSchema {
  std::string ns;        // "aten"
  std::string name;      // "add_"
  std::string overload;  // "Tensor"; empty for the default overload
  std::vector<SchemaArg> args;
  std::vector<SchemaArg> returns;  // name may be empty
  bool vararg = false;

  // "aten::add_.Tensor", or "aten::add" for the default overload.
  std::string QualifiedName() const;
  // "aten::add" (no overload).
  std::string BaseName() const { return ns + "::" + name; }
};

// Parses one schema string as printed by c10::toString(FunctionSchema).
StatusOr<OpSchema> ParseSchema(const std::string& text);

}  // namespace atenaot
