#include "ir/literal.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace atenaot {

bool Literal::operator==(const Literal& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::kNone:
      return true;
    case Kind::kInt:
      return i == o.i;
    case Kind::kFloat:
      return (std::isnan(f) && std::isnan(o.f)) || f == o.f;
    case Kind::kBool:
      return b == o.b;
    case Kind::kString:
    case Kind::kDevice:
      return s == o.s;
    case Kind::kIntList:
      return ints == o.ints;
    case Kind::kFloatList:
      return floats == o.floats;
    case Kind::kBoolList:
      return bools == o.bools;
  }
  return false;
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest text that reads back exactly, fixed or scientific, whichever is shorter.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string out(buf, res.ptr);
  if (out.find_first_of(".eE") == std::string::npos) out += ".0";
  return out;
}

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

template <typename T, typename F>
std::string JoinList(const std::vector<T>& v, F f) {
  std::string out = "[";
  for (size_t k = 0; k < v.size(); ++k) {
    if (k) out += ", ";
    out += f(v[k]);
  }
  return out + "]";
}

}  // namespace

std::string Literal::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kInt:
      return std::to_string(i);
    case Kind::kFloat:
      return FormatDouble(f);
    case Kind::kBool:
      return b ? "true" : "false";
    case Kind::kString:
      return Quote(s);
    case Kind::kDevice:
      return "device(" + Quote(s) + ")";
    case Kind::kIntList:
      return JoinList(ints, [](int64_t x) { return std::to_string(x); });
    case Kind::kFloatList:
      return JoinList(floats, [](double x) { return FormatDouble(x); });
    case Kind::kBoolList:
      return JoinList(bools, [](bool x) { return std::string(x ? "true" : "false"); });
  }
  return "?";
}

}  // namespace atenaot
