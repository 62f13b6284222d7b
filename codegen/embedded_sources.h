// c_api/atenaot.h and runtime/atenaot_runtime.c, embedded at build time.
#pragma once

namespace atenaot {

extern const char kAtenaotHeader[];
extern const char kRuntimeSource[];

}  // namespace atenaot
