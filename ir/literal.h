// Literal: a non-tensor argument value (int, float, bool, None, string, lists,
// device). Non-tensor computations in captured graphs are folded into literals
// at import time, so the IR's values are always tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace atenaot {

struct Literal {
  enum class Kind { kNone, kInt, kFloat, kBool, kString, kIntList, kFloatList, kBoolList, kDevice };
  Kind kind = Kind::kNone;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;  // kString, and kDevice ("cpu", "cuda:0")
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<bool> bools;

  static Literal None() { return Literal(); }
  static Literal Int(int64_t v) {
    Literal l;
    l.kind = Kind::kInt;
    l.i = v;
    return l;
  }
  static Literal Float(double v) {
    Literal l;
    l.kind = Kind::kFloat;
    l.f = v;
    return l;
  }
  static Literal Bool(bool v) {
    Literal l;
    l.kind = Kind::kBool;
    l.b = v;
    return l;
  }
  static Literal String(std::string v) {
    Literal l;
    l.kind = Kind::kString;
    l.s = std::move(v);
    return l;
  }
  static Literal Device(std::string v) {
    Literal l;
    l.kind = Kind::kDevice;
    l.s = std::move(v);
    return l;
  }
  static Literal IntList(std::vector<int64_t> v) {
    Literal l;
    l.kind = Kind::kIntList;
    l.ints = std::move(v);
    return l;
  }
  static Literal FloatList(std::vector<double> v) {
    Literal l;
    l.kind = Kind::kFloatList;
    l.floats = std::move(v);
    return l;
  }
  static Literal BoolList(std::vector<bool> v) {
    Literal l;
    l.kind = Kind::kBoolList;
    l.bools = std::move(v);
    return l;
  }

  bool operator==(const Literal& o) const;
  bool operator!=(const Literal& o) const { return !(*this == o); }
  // IR text form: 3, 2.5, true, none, "str", [1, 2], [1.0], device("cpu").
  std::string ToString() const;
};

// Shortest text that reads back to the same double, always with a '.', 'e',
// "inf" or "nan" so it never reads back as an int.
std::string FormatDouble(double v);

}  // namespace atenaot
