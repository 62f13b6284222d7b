#include "schema/dispatcher_schemas.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <sstream>

namespace atenaot {

std::vector<std::string> DispatcherSchemaStrings() {
  auto& d = c10::Dispatcher::singleton();
  std::vector<std::string> out;
  for (const c10::OperatorName& name : d.getAllOpNames()) {
    auto h = d.findSchema(name);
    if (!h) continue;
    std::ostringstream ss;
    ss << h->schema();
    out.push_back(ss.str());
  }
  std::sort(out.begin(), out.end());
  return out;
}

const OpTable& LiveOpTable() {
  static const OpTable* table = OpTable::FromSchemaStrings(DispatcherSchemaStrings()).release();
  return *table;
}

}  // namespace atenaot
