// What LibTorch throws, as the one line atenaot prints: its message without
// the C++ backtrace some errors carry ("Exception raised from ..." or
// "frame #0: ..." lines), lines joined with spaces, at most 1000 characters.
#pragma once

#include <exception>
#include <string>

namespace atenaot {

std::string LibTorchMessage(const std::exception& e);
std::string LibTorchMessage(const std::string& what);

}  // namespace atenaot
