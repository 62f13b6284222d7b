// Reading whole files with every failure as a Status: missing files,
// directories and read errors never throw or abort. Pipes and /dev/stdin work
// (the file is read once, front to back).
#pragma once

#include <string>

#include "ir/status.h"

namespace atenaot {

// `what` names the file's role in messages ("model file", ".npy file").
StatusOr<std::string> ReadFileBytes(const std::string& path, const std::string& what);

}  // namespace atenaot
