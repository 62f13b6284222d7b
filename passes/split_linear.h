// Splits a linear whose result is only read in pieces along its last
// dimension (chunk, split, split_with_sizes, slice) into one linear per piece,
// over the matching rows of the weight and bias (slices of the weights, which
// the C backend folds at compile time). nn.MultiheadAttention's and GPT's
// packed q/k/v projections are the case: the pieces were strided views of one
// [.., 3E] result, which attention then copied to contiguous heads; now each
// piece is its own contiguous result, those copies are views, and a piece
// need not be live before its first reader (issue 17: the transformer
// layers' peak was the packed result plus the q and k copies).
#pragma once

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

// Rewrites every such linear whose weight (and bias, if any) is a graph
// weight; pieces nothing reads get no linear. Returns how many linears were
// split. Part of the decompose pass; new values get exact sizes and dtypes.
int SplitLinearPieces(Graph& g, const OpTable& ops);

}  // namespace atenaot
