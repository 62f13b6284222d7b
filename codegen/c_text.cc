#include "codegen/c_text.h"

#include <cctype>
#include <cstdio>

namespace atenaot {
namespace {

bool Printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }

void PutHex(unsigned char c, std::string* out) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "<%02X>", c);
  *out += buf;
}

}  // namespace

Status CheckModelName(const std::string& name) {
  const std::string shown = "model name '" + CComment(name) + "'";
  if (name.empty()) return InvalidArgument("the model name is empty");
  if (name.size() > 64) return InvalidArgument(shown + " is longer than 64 characters");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_') || static_cast<unsigned char>(c) >= 0x80)
      return InvalidArgument(shown + " is not a C identifier (letters, digits and '_')");
  if (std::isdigit(static_cast<unsigned char>(name[0])))
    return InvalidArgument(shown + " is not a C identifier (it starts with a digit)");
  if (name[0] == '_') return InvalidArgument(shown + " starts with '_', which C reserves");
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.compare(0, 3, "aot") == 0)  // "atenaot..." starts differently: checked next
    return InvalidArgument(shown + " starts with 'aot', which the C ABI's names use (aot_model, aot_tensor, ...)");
  if (lower.compare(0, 7, "atenaot") == 0)
    return InvalidArgument(shown +
                           " starts with 'atenaot', which the runtime's files use (atenaot.h, "
                           "atenaot_model.h, libatenaot_runtime.so)");
  return Status::Ok();
}

std::string CComment(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const char prev = out.empty() ? '\0' : out.back();
    // "*/" ends the comment and "/*" nests badly: never put '/' after '*' or
    // '*' after '/'. '\\' could splice lines, "??" start a trigraph.
    const bool unsafe =
        !Printable(c) || c == '\\' || c == '?' || (c == '/' && prev == '*') || (c == '*' && prev == '/');
    if (unsafe)
      PutHex(c, &out);
    else
      out += static_cast<char>(c);
  }
  // A trailing '*' or '/' would meet the "*/" the caller writes after it.
  if (!out.empty() && (out.back() == '*' || out.back() == '/')) out += ' ';
  return out;
}

std::string CStringLiteral(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (Printable(c) && c != '"' && c != '\\' && c != '?') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

}  // namespace atenaot
