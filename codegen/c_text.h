// User-controlled text (model paths, value and graph names, op names, string
// arguments) placed into generated C, CUDA and assembler sources. Whatever the
// text holds, the result cannot end a comment or a string literal, start a
// preprocessor line, splice lines or form a trigraph: it stays inert text.
#pragma once

#include <string>

#include "ir/status.h"

namespace atenaot {

// The model name (--name) prefixes every symbol and file of a compiled
// library: NAME.c, libNAME.so, NAME_run, the NAME_H_ guard. It must be a C
// identifier of at most 64 characters, not starting with '_' (reserved in C)
// nor with "aot" or "atenaot" in any case (the C ABI's names: aot_model,
// atenaot.h, atenaot_model.h, libatenaot_runtime.so, the ATENAOT_H_ guard).
Status CheckModelName(const std::string& name);

// For the inside of a /* ... */ comment: printable ASCII except '*', '/',
// '\\' and '?' pass through; '*' and '/' only where they cannot form "*/" or
// "/*"; every other byte (newlines, non-ASCII, '\\', '?') becomes <XX> hex.
std::string CComment(const std::string& text);

// A complete C string literal with quotes: printable ASCII except '"', '\\'
// and '?' as it is, everything else as three-digit octal escapes.
std::string CStringLiteral(const std::string& text);

}  // namespace atenaot
