// Prints every schema the LibTorch dispatcher knows, one per line, sorted:
// the snapshot the LibTorch-free tests use.
#include <iostream>

#include "schema/dispatcher_schemas.h"

int main() {
  for (const std::string& s : atenaot::DispatcherSchemaStrings()) std::cout << s << "\n";
  return 0;
}
