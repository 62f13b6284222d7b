// The layout of the four views that have a scatter inverse (select, slice,
// diagonal, as_strided), computed as ATen does: reinplace and codegen need
// it for views they create or write through.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace atenaot {

// `args` are the view's arguments with the base first (args[0] is ignored).
TensorMeta ScatterViewMeta(const OpInfo& view_op, const std::vector<Arg>& args, const TensorMeta& base);

}  // namespace atenaot
