// Views of weights become weights of their own at compile time (issue 15's
// "constant-fold weight-only subgraphs", for the ops that only reinterpret
// memory): nn.MultiheadAttention splits its packed in_proj_weight into the
// q, k and v weights with split_with_sizes, and a GEMM whose B is such a view
// could be neither prepacked nor read in place (its W^T rows are strided),
// so it packed B at run time into arena scratch (multihead_attention's arena
// was 2x eager's peak). The folded weight holds the view's elements,
// contiguous; the view node goes when nothing else reads it.
#pragma once

#include "ir/graph.h"

namespace atenaot {

// Folds every view node whose tensor inputs are all weights with their data
// (never written in place); returns how many values became weights. Run
// after the graph has exact layouts and before planning.
int FoldWeightViews(Graph& g);

}  // namespace atenaot
