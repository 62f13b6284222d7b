// Decompositions of padding, rolling, new_* factories and vector norms into
// ops both backends lower, with eager's semantics:
//   pad (constant mode) / constant_pad_nd -> slice (negative pads) + cat with full blocks
//   roll -> slice + cat per rolled dim (flattened first when no dims are given)
//   repeat -> unsqueeze, expand, a contiguous clone, view
//   new_zeros / new_ones / new_full -> zeros / ones / full in self's dtype
//   norm / linalg_vector_norm / frobenius_norm -> abs, pow, sum, sqrt, amax / amin
//   logsumexp -> amax, masked_fill of infinite maxima, sub, exp, sum, log, add
//   flip -> index_select along each dim with a reversed arange
//   argsort -> sort's indices
#pragma once

#include "passes/decompose_builder.h"

namespace atenaot {

StatusOr<Value*> DecomposeConstantPad(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeRoll(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeRepeat(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeNewFactory(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeNorm(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeLogsumexp(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeFlip(DecomposeBuilder& b, const Node* n);
StatusOr<Value*> DecomposeArgsort(DecomposeBuilder& b, const Node* n);

}  // namespace atenaot
