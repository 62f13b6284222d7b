// functionalize: removes every mutation (and, with remove_views, every view)
// from a graph while keeping its semantics, like torch.func.functionalize.
//
// Precondition: an imported graph whose values carry capture metadata (the
// storage ids say which values alias).
//
// Algorithm (one walk over the nodes, linear in graph size):
//  1. Every value gets an alias record: the root of its storage (the value
//     that allocated it: an input, a weight or a non-view op result), its
//     parent (the view's input) and the view step (op, arguments, kind).
//     Each root has a current value and a version counter.
//  2. A read of a value reads its current version: roots read their current
//     value; views are regenerated from the current root by replaying their
//     view steps (memoised per version), inserted just before the reader.
//  3. A write `foo_(a, ...)` (or `foo.out(..., out=a)`) becomes its functional
//     twin `b = foo(current args)`, cast back to a's dtype with _to_copy when
//     type promotion changes it; then b is scattered back up the view chain
//     with each step's inverse (select_scatter, slice_scatter,
//     diagonal_scatter, as_strided_scatter, view/transpose/permute back) and
//     the result becomes the root's new current value.
//  4. Graph outputs read their current versions. Each mutated program input is
//     restored at the end with one copy_(input, new_value), after all reads.
//  5. With remove_views, kept views become their *_copy twins (identity views
//     disappear), so no op returns an alias.
// Writes atenaot cannot express exactly are rejected with the node named:
// writes into overlapping memory (expanded or overlapping as_strided views),
// writes to weights, in-place metadata ops (t_, squeeze_, resize_), ops
// without a functional twin.
// Postcondition (checked by CheckFunctional): nothing writes except the
// trailing copy_ into inputs; with remove_views no op returns an alias.
#pragma once

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

struct FunctionalizeOptions {
  bool remove_views = false;  // torch.func.functionalize(remove='mutations_and_views')
};

Status Functionalize(Graph& g, const OpTable& ops, const FunctionalizeOptions& opts);

// The postcondition above, as a check usable after any later pass.
Status CheckFunctional(const Graph& g, bool no_views);

}  // namespace atenaot
