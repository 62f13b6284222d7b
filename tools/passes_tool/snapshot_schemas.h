// The committed ATen schema snapshot (ir/testdata/aten_schemas.txt), compiled
// in, so tools can build the op table without LibTorch.
#pragma once

#include <cstddef>

namespace atenaot {

extern const char* const kSnapshotSchemas[];
extern const size_t kNumSnapshotSchemas;

}  // namespace atenaot
