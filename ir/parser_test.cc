// Parser limits found by fuzzing (fuzz/README.md, FZ1-FZ3): malformed or
// hostile text must give an error naming the problem, never UB or a crash.
#include "ir/parser.h"

#include <gtest/gtest.h>

#include <string>

#include "ir/graph.h"
#include "ir/test_op_table.h"

namespace atenaot {
namespace {

std::string ParseError(const std::string& text) {
  auto g = ParseGraph(text, SnapshotOpTable());
  return g.ok() ? "parsed" : g.status().message();
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(Parser, RejectsHugeStorageIds) {  // FZ1
  EXPECT_NE(ParseError("graph @f(%x: i32[]@s9223372036854775807) {\n  return %x\n}").find("storage id"),
            std::string::npos);
  EXPECT_NE(ParseError("graph @f(%x: i32[]@s200000000) {\n  return %x\n}").find("too large"), std::string::npos);
  EXPECT_EQ(ParseError("graph @f(%x: i32[]@s1048575) {\n  return %x\n}"), "parsed");
}

TEST(Parser, RejectsSizesWhoseProductOverflows) {  // FZ2
  EXPECT_NE(ParseError("graph @i(%x: f16[2368548,9223372036850]@s0) {\n  return %x\n}").find("2^48"),
            std::string::npos);
  // A zero size does not hide the others: they still size the strides.
  EXPECT_NE(ParseError("graph @i(%x: f32[0,4611686018427387904,4]@s0) {\n  return %x\n}").find("2^48"),
            std::string::npos);
  EXPECT_NE(ParseError("graph @i(%x: f32[2,2]{4611686018427387904,1}@s0) {\n  return %x\n}").find("strides"),
            std::string::npos);
  EXPECT_NE(ParseError("graph @i(%x: f32[2]+9223372036854775807@s0) {\n  return %x\n}").find("offset"),
            std::string::npos);
  EXPECT_EQ(ParseError("graph @i(%x: f32[0,3]@s0) {\n  return %x\n}"), "parsed");
}

TEST(Parser, BoundsNesting) {  // FZ3
  const std::string list =
      "graph @f(%x: f32[2]@s0) {\n  %y = aten::view(%x, " + Repeat("[", 100000) + ") : f32[2]@s1\n  return %y\n}";
  EXPECT_NE(ParseError(list).find("nesting deeper than 64"), std::string::npos);
  const std::string ret = "graph @f(%x: f32[2]@s0) {\n  return " + Repeat("(", 100000) + "%x\n}";
  EXPECT_NE(ParseError(ret).find("nesting deeper than 64"), std::string::npos);
  // Moderate nesting of the return tree still parses.
  EXPECT_EQ(ParseError("graph @f(%x: f32[2]@s0) {\n  return " + Repeat("(", 10) + "%x" + Repeat(")", 10) + "\n}"),
            "parsed");
}

TEST(TensorMeta, SizeErrorBoundsNumelAndSpan) {
  TensorMeta m;
  m.sizes = {int64_t{1} << 40, 16};  // 2^44 floats = 2^46 bytes: fine
  m.strides = ContiguousStrides(m.sizes);
  EXPECT_EQ(m.SizeError(), "");
  m.sizes = {int64_t{1} << 62, 4};  // wraps numel to 0 without the check (FZ5)
  m.strides = ContiguousStrides(m.sizes);
  EXPECT_NE(m.SizeError(), "");
  EXPECT_EQ(m.numel(), 0);  // defined (unsigned) wrap, no UB
}

}  // namespace
}  // namespace atenaot
