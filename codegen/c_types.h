// C spellings of atenaot dtypes and literals for generated code.
#pragma once

#include <string>

#include "atenaot.h"
#include "ir/dtype.h"
#include "ir/literal.h"
#include "ir/status.h"

namespace atenaot {

// "float", "double", "int64_t", ... ; bool is "uint8_t" holding 0 or 1.
StatusOr<std::string> CType(DType t);
// The aot_dtype enumerator for the C ABI ("AOT_FLOAT32"), if the ABI has one.
StatusOr<std::string> AbiDType(DType t);
// The same as a value, and back (one table: what generated code and the
// programs that call it agree on).
StatusOr<aot_dtype> AbiDTypeOf(DType t);
StatusOr<DType> DTypeOfAbi(aot_dtype t);
// A C expression of type `ctype` for a numeric literal (inf/nan spelled out).
std::string CLiteral(const Literal& l, const std::string& ctype);
// A C expression converting `expr` (of any arithmetic type) to dtype `t`,
// with bool normalised to 0/1.
std::string CCast(const std::string& expr, DType t);

}  // namespace atenaot
