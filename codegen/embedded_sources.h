// c_api/atenaot.h, c_api/atenaot_model.h and runtime/atenaot_runtime.c,
// embedded at build time so compile can write a self-contained directory.
#pragma once

namespace atenaot {

extern const char kAtenaotHeader[];
extern const char kAtenaotModelHeader[];
extern const char kRuntimeSource[];

}  // namespace atenaot
