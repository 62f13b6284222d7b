// An embedding's rows averaged over the sequence -- mean(embedding(W, idx),
// dim 1), a text classifier's pooling -- rewritten as one embedding_bag in
// mean mode over idx's rows (bags of J indices at offsets 0, J, 2J, ...), so
// the B x J x D gathered rows are never stored: the bag kernel sums them into
// each bag's row. The embedding's padding_idx only affects gradients, so no
// index is left out of a bag.
#pragma once

#include "ir/graph.h"
#include "ir/op_table.h"

namespace atenaot {

// Rewrites every mean.dim over dim 1 (or -2, keepdim false, no dtype) of an
// embedding that nothing else reads, with int64 indices [B, J] (contiguous,
// J >= 1) and a float32 2-D table; returns how many. Run after the graph has
// exact layouts and before planning, for a backend with an embedding_bag
// kernel (the C backend).
int EmbeddingMeanToBag(Graph& g, const OpTable& ops);

}  // namespace atenaot
