// The passes on IR text, what atenaot-passes (a process per call) and
// libatenaot_passes.so (loaded into Python by atenaot.fx, no process start)
// both run: parse, the pipeline up to a stage, print.
#pragma once

#include <ostream>
#include <string>

namespace atenaot {

struct TextPassOptions {
  bool time_passes = false;       // "time: PASS MS ms" lines to `err`
  bool verify_ends_only = false;  // PipelineOptions::verify_ends_only
};

// Runs the pipeline up to `stage` on the IR `text`. Returns 0 with the
// resulting IR in *out, or the tool's exit status (1 bad input, 2 bad stage)
// with one line "atenaot: error: ..." written to `err`. `context` names the
// input in errors (a path, or "-").
int RunPassesOnText(const std::string& text, const std::string& stage, const TextPassOptions& opts,
                    const std::string& context, std::string* out, std::ostream& err);

}  // namespace atenaot
