// Running external tools (the C compiler, ar, nvcc) without a shell: the
// program and its arguments are separate words, so paths or $CC values with
// spaces, quotes or ';' are never interpreted as commands.
#pragma once

#include <string>
#include <vector>

#include "ir/status.h"

namespace atenaot {

// Runs argv[0] (looked up on PATH when it has no '/') with the arguments and
// waits for it. Succeeds only when it exits with status 0; otherwise the
// error names `what`, the command and the start of its output (stdout and
// stderr, captured). A non-empty `cwd` is its working directory (builds run
// inside their output directory with relative names, so no path of ours ends
// up in what they make and two builds give the same bytes).
Status RunProgram(const std::vector<std::string>& argv, const std::string& what, const std::string& cwd = "");

// Words of a command setting such as $CC ("ccache gcc -m64"), split at blanks
// with no quoting or expansion.
std::vector<std::string> SplitWords(const std::string& s);

// A path as a program argument: one starting with '-' gets a "./" in front,
// so `-o -d5` never reaches a tool as an option.
std::string PathArg(const std::string& path);

}  // namespace atenaot
