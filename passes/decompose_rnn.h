// aten::lstm / gru / rnn_tanh / rnn_relu (the .input overloads, with a
// static sequence length) unrolled into what the C backend compiles: per
// layer and direction one linear over the whole sequence for the input
// projection, then per step one linear for the hidden projection and the
// elementwise gate math (which the backend fuses into one kernel per step).
// Multi-layer, bidirectional and batch_first; eval mode only (dropout between
// layers with train=True is refused), no proj_size.
#pragma once

#include <vector>

#include "passes/decompose_builder.h"

namespace atenaot {

StatusOr<std::vector<Value*>> UnrollRnn(DecomposeBuilder& b, const Node* n);

}  // namespace atenaot
