// The aot_tensor_info tables a compiled library exports (c_api/atenaot.h),
// shared by the C and CUDA emitters so both describe a graph identically.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace atenaot {

// Inputs the graph writes (through any alias): AOT_INFO_MUTATED in the ABI.
std::vector<bool> MutatedInputs(const Graph& g);

// "static const aot_tensor_info SYM[n] = {...};" for the graph's inputs or
// outputs (names, dtypes, sizes, flags). Fails for dtypes or ranks the ABI
// cannot describe.
StatusOr<std::string> TensorInfoTable(const Graph& g, const std::string& sym, bool inputs);

}  // namespace atenaot
