// Exact metadata from a sample run: passes keep sizes and dtypes exact but
// can only estimate strides, offsets and which results share memory. Before
// memory planning, the graph runs once on the sample inputs and every value
// gets the layout and storage LibTorch actually produced (storage ids by
// identity of the underlying storage; inputs and weights keep theirs).
#pragma once

#include <ATen/Tensor.h>

#include <vector>

#include "ir/graph.h"

namespace atenaot {

Status AnnotateFromRun(Graph& g, const std::vector<at::Tensor>& sample_inputs);

}  // namespace atenaot
