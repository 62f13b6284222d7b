// reinplace: turns out-of-place ops of a functional graph back into in-place
// ones where that is safe, and deletes the {select,slice,diagonal,as_strided}_
// scatter ops it can replace by view + copy_ (torch.fx.passes.reinplace, with
// two improvements its own text names as missed).
//
// Precondition: a functional graph (CheckFunctional) whose values carry
// capture metadata: storage ids say what aliases what.
//
// For each node `b = foo(a, args...)` in order (a = the self argument):
//  (1a) refuse unless b has a's dtype and sizes and a has no internal
//       overlap (an expanded tensor);
//  (1b) refuse when a aliases a weight, or a program input -- unless every
//       input in a's storage class is restored by a trailing copy_(input, v),
//       which overwrites whatever the in-place op wrote (beyond PyTorch), and
//       what moves into the input's memory (b, the matched scatters, their
//       views) is not read after that restore (returned, say) unless the
//       restore then copies the input onto itself;
//  (1c) refuse when a (or an alias of it) is another argument too;
//  (2)  refuse when a or any alias of it is used after the node, except by
//       (a) view ops (their outputs are aliases, checked in turn), (c) the
//       matching scatter chain: `out = view_scatter(base, x, args)` whose
//       view of base (same storage class) is laid out exactly like the region
//       just written -- the same memory -- and whose x is the value being
//       written (or the previous scatter's result: a check PyTorch lacks),
//       and (1b) the input restores;
//  (3a) `b = X_scatter(a, src, args)` becomes `s = X(a, args); s.copy_(src)`;
//  (3b) otherwise `b = foo(a, ...)` becomes `foo_(a, ...)`; the pair
//       `t = ge(a, c); b = _to_copy(t, a.dtype)` (what functionalize makes of
//       a.ge_(c), and of type-promoting in-place ops) becomes `ge_(a, c)`
//       (beyond PyTorch);
//  (4)  later uses of b (and of the deleted scatters) read a instead, and the
//       storage classes of a and b are merged (union-find);
//  (5)  the matched scatters are deleted, and so are restores that became
//       copy_(x, x); a restore whose source is the input's memory in another
//       layout copies from a clone of it (copy_ must not overlap).
// Cost: each node is visited once; a class's pending uses are scanned from
// the current position and dropped once passed, and classes merge small into
// large, so the pass is O(n log n) on realistic graphs.
#pragma once

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

struct ReinplaceOptions {
  bool reuse_restored_inputs = true;  // (1b) improvement
  bool fuse_cast_back = true;         // (3b) improvement for op + _to_copy
};

struct ReinplaceStats {
  int64_t inplaced = 0;           // (3b) rewrites
  int64_t scatters_replaced = 0;  // (3a) rewrites
  int64_t scatters_deleted = 0;   // matched later scatters removed
  int64_t into_inputs = 0;        // rewrites that reuse a restored input
  int64_t casts_fused = 0;        // op + _to_copy pairs made one in-place op
  int64_t restores_deleted = 0;   // copy_(x, x) removed
};

Status Reinplace(Graph& g, const OpTable& ops, const ReinplaceOptions& opts = {}, ReinplaceStats* stats = nullptr);

}  // namespace atenaot
