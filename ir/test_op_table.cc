#include "ir/test_op_table.h"

#include <cstdio>
#include <cstdlib>

namespace atenaot {

const OpTable& SnapshotOpTable() {
  static const OpTable* table = [] {
    auto t = OpTable::FromSnapshotFile("ir/testdata/aten_schemas.txt");
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().ToString().c_str());
      std::abort();  // test setup failure: the data file is missing
    }
    return std::move(t).value().release();
  }();
  return *table;
}

}  // namespace atenaot
