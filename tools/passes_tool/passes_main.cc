// atenaot-passes: atenaot IR text in, IR text out after the pipeline up to a
// stage. It links no LibTorch (the op table comes from the committed schema
// snapshot), so it starts in milliseconds where the full CLI needs seconds to
// load LibTorch: what atenaot.fx's drop-in passes run per call.
//
//   atenaot-passes [--stage functional|functional-noviews|reinplaced] [--time-passes] [--verify-ends-only]
//                  [FILE|-]
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "passes/pipeline.h"
#include "tools/passes_tool/passes_text.h"

namespace atenaot {
namespace {

const char kUsage[] =
    "usage: atenaot-passes [--stage STAGE] [--time-passes] [--verify-ends-only] [FILE|-]\n"
    "Reads atenaot IR text (FILE, or stdin for - or none), runs the passes up to STAGE\n"
    "(import, functional, functional-noviews, reinplaced; default reinplaced) and prints\n"
    "the resulting IR. Graphs with weights are not taken (no .weights file is read).\n"
    "--time-passes prints 'time: PASS MS ms' lines on stderr, as atenaot does.\n"
    "--verify-ends-only runs the verifier on the input and after the last pass only\n"
    "(default: after every pass too).\n"
    "Errors: one line 'atenaot: error: ...' on stderr, exit status 1 (2 for bad usage).\n";

int Fail(const std::string& msg, int code) {
  std::cerr << "atenaot: error: " << msg << "\n";
  return code;
}

int Main(int argc, char** argv) {
  std::string stage_name = "reinplaced", path = "-";
  bool have_path = false;
  TextPassOptions opts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--stage" && i + 1 < argc) {
      stage_name = argv[++i];
      continue;
    }
    if (a.rfind("--stage=", 0) == 0) {
      stage_name = a.substr(8);
      continue;
    }
    if (a == "--time-passes") {
      opts.time_passes = true;
      continue;
    }
    if (a == "--verify-ends-only") {
      opts.verify_ends_only = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && a != "-") return Fail("unknown option '" + a + "' (see --help)", 2);
    if (have_path) return Fail("more than one input file given", 2);
    path = a;
    have_path = true;
  }
  StatusOr<Stage> stage = ParseStage(stage_name);  // checked before reading stdin
  if (!stage.ok()) return Fail(stage.status().ToString(), 2);
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) return Fail("cannot open '" + path + "'", 1);
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  std::string out;
  int code = RunPassesOnText(text, stage_name, opts, path, &out, std::cerr);
  if (code != 0) return code;
  std::cout << out;
  return std::cout ? 0 : Fail("failed writing the output", 1);
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) { return atenaot::Main(argc, argv); }
