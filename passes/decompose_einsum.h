// einsum as permutes, reshapes, sums and batched matrix products: the
// operands are contracted left to right; per pair, the labels both keep are
// the batch, the labels both have that nothing later needs are contracted
// (one bmm), and labels only one side has that nothing later needs are
// summed first. Ellipses broadcast like eager's; a label repeated within one
// operand (a diagonal) is refused.
#pragma once

#include "passes/decompose_builder.h"

namespace atenaot {

StatusOr<Value*> DecomposeEinsum(DecomposeBuilder& b, const Node* n);

}  // namespace atenaot
