// The op table built from the committed schema snapshot, for LibTorch-free tests.
#pragma once

#include "ir/op_table.h"

namespace atenaot {

const OpTable& SnapshotOpTable();

}  // namespace atenaot
