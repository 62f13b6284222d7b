// Cat written in place (issue 17): the producers of cat's inputs write
// straight into their slice of the concatenated result, so the copy and the
// inputs' own buffers go away. Done by giving each such input the storage
// of the cat's result at its slice's offset: the planner then sees one
// buffer (live from the first slice's producer), the emitters' Ptr() lands
// every producer in its slice, and the cat copies only what is not in place
// (a cat whose inputs are all in place is a view: no code).
//
// A cat whose inputs all sit, in order and back to back, in another cat's
// result (DenseNet's per-layer cats are prefixes of its block's last cat)
// becomes a view of those bytes as well.
#pragma once

#include <functional>

#include "ir/graph.h"

namespace atenaot {

struct CatInPlaceStats {
  int inputs = 0;     // cat inputs now written in place
  int copy_free = 0;  // cats that now copy nothing (views of their inputs)
  int undone = 0;     // cats whose moves `accept` turned down
};

// Run after the graph has exact layouts (AnnotateFromRun) and before fusion
// and planning. An input moves only when it is safe whatever the emitter
// does with it: a fresh (functional) result of the same dtype, contiguous,
// read by no node that writes the same storage, no graph output, in no
// other storage class, written by nothing in place; and its slice of the
// cat's result is contiguous (nothing before the cat dim but size-1 dims).
// A slice's buffer now lives from the first slice's producer on, which can
// raise the peak (DenseNet's block-wide buffer): `accept` runs after each
// cat's moves and returning false undoes them; without it all are kept.
CatInPlaceStats WriteCatInputsInPlace(Graph& g, const std::function<bool()>& accept = nullptr);

}  // namespace atenaot
