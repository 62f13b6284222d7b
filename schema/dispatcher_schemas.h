// The op table derived from LibTorch's c10 dispatcher at startup: every
// registered schema is printed with c10's own printer and parsed by the core's
// LibTorch-free schema parser, so there is one path from ATen's truth to
// atenaot's op facts.
#pragma once

#include <string>
#include <vector>

#include "ir/op_table.h"

namespace atenaot {

// Every schema the dispatcher knows, printed as c10 prints it, sorted.
std::vector<std::string> DispatcherSchemaStrings();
// Built once on first use; lives for the process.
const OpTable& LiveOpTable();

}  // namespace atenaot
