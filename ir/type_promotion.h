// ATen's type promotion (c10::promoteTypes and at::result_type) for the dtypes
// atenaot knows, so passes can tell the dtype of a functional op they create
// without running it.
#pragma once

#include <vector>

#include "ir/dtype.h"
#include "ir/literal.h"

namespace atenaot {

DType PromoteTypes(DType a, DType b);

// One operand of an elementwise op: a tensor (with its rank) or a Python
// scalar (a literal, which ATen wraps as a "wrapped number").
struct PromotionOperand {
  DType dtype;
  bool is_scalar = false;  // wrapped number
  int64_t dim = 0;         // tensors only
};

// at::result_type over the operands: dimensioned tensors first, then 0-dim
// tensors, then wrapped numbers, each group only when of a higher category.
DType ResultType(const std::vector<PromotionOperand>& operands);

// The dtype ATen gives a Python scalar literal when it is wrapped: int -> i64,
// float -> f32 (the default dtype), bool -> bool.
DType WrappedScalarDType(const Literal& l);

}  // namespace atenaot
