// Compile-time folding of eval-mode batch_norm into the convolution that
// feeds it: conv(x, W, b) -> bn(gamma, beta, mean, var, eps) becomes
// conv(x, W * s, (b - mean) * s + beta) with s = gamma / sqrt(var + eps) per
// output channel, computed in double and stored as new float32 weights. The
// batch_norm node goes away and its users (the relu_/add_ that follow) then
// update the convolution's result, which the C emitter fuses into the
// convolution's store. A batch_norm no conv absorbs becomes a per-channel
// multiply-add (addcmul) that fuses with the elementwise ops around it.
#pragma once

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

// Folds every conv -> batch_norm pair that qualifies (float32, constant
// weights and statistics, the conv's result used only by the batch_norm,
// same layout) and rewrites the other eval-mode ones with constant
// statistics as addcmul(shift, x, scale); returns how many it changed. Run
// after the graph has exact layouts and before planning.
int FoldBatchNormIntoConv(Graph& g, const OpTable& ops);

}  // namespace atenaot
