// libatenaot_passes.so: atenaot-passes as a C function, so atenaot.fx runs the
// passes in its own process (ctypes) instead of starting one per call.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>

#include "tools/passes_tool/passes_text.h"

namespace {

char* CopyOut(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

}  // namespace

extern "C" {

// Flags for atenaot_passes_run: the tool's --time-passes, --verify-ends-only.
enum { kAtenaotPassesTime = 1, kAtenaotPassesVerifyEndsOnly = 2 };

// atenaot-passes --stage STAGE [flags] on the `len` bytes at `text`:
// returns the tool's exit status (0; 1 bad input; 2 bad stage; 3 internal
// error or out of memory). *out is the resulting IR (empty on failure), *err
// what the tool prints on stderr (the error line, the timing lines); both are
// freed with atenaot_passes_free (either is NULL only when out of memory).
int atenaot_passes_run(const char* text, size_t len, const char* stage, int flags, char** out, char** err) {
  std::string result;
  std::ostringstream log;
  int code = 3;
  try {
    atenaot::TextPassOptions opts;
    opts.time_passes = (flags & kAtenaotPassesTime) != 0;
    opts.verify_ends_only = (flags & kAtenaotPassesVerifyEndsOnly) != 0;
    code = atenaot::RunPassesOnText(std::string(text, len), stage, opts, "-", &result, log);
  } catch (const std::exception& e) {  // must not unwind into the caller (Python's ctypes)
    log << "atenaot: error: internal error: " << e.what() << "\n";
  }
  *out = CopyOut(result);
  *err = CopyOut(log.str());
  return *out && *err ? code : 3;
}

void atenaot_passes_free(char* p) { std::free(p); }

}  // extern "C"
