#include "capture/libtorch_error.h"

#include <cstdio>

namespace atenaot {

std::string LibTorchMessage(const std::exception& e) { return LibTorchMessage(std::string(e.what())); }

std::string LibTorchMessage(const std::string& what) {
  constexpr size_t kMax = 1000;
  std::string out;
  size_t start = 0;
  while (start <= what.size()) {
    size_t end = what.find('\n', start);
    if (end == std::string::npos) end = what.size();
    std::string line = what.substr(start, end - start);
    start = end + 1;
    // The backtrace starts at either marker; everything after it is frames.
    if (line.compare(0, 21, "Exception raised from") == 0 || line.compare(0, 7, "frame #") == 0) break;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.pop_back();
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    out += (out.empty() ? "" : " ") + line.substr(first);
  }
  // c10::Error's enforce prefix says where in LibTorch, not what went wrong.
  if (out.compare(0, 17, "[enforce fail at ") == 0) {
    size_t close = out.find("] ");
    if (close != std::string::npos) out = out.substr(close + 2);
    if (out.compare(0, 2, ". ") == 0) out = out.substr(2);
  }
  // Bytes of the model file quoted in a message (a lexer's "found 'X'") may
  // be control bytes or half a UTF-8 character: shown as \xNN.
  std::string clean;
  for (unsigned char c : out) {
    if (c >= 0x20 && c < 0x7f) {
      clean += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      clean += buf;
    }
  }
  if (clean.size() > kMax) clean = clean.substr(0, kMax) + "...";
  if (clean.empty()) clean = "LibTorch gave no message";
  return clean;
}

}  // namespace atenaot
