#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/test_op_table.h"
#include "ir/verifier.h"

namespace atenaot {
namespace {

constexpr char kText[] = R"(graph @forward(%x: f32[2,3]@s0, %a: f32[3,3]@s1, %idx: i64[2]@s2) {
  weight %w: f32[4,3]@s3 = "self.lin.weight"
  %v = aten::view(%x, [-1]) : f32[6]@s0
  %t = aten::transpose.int(%a, 0, 1) : f32[3,3]{1,3}@s1
  %d = aten::diagonal(%a, 0, 0, 1) : f32[3]{4}@s1
  %s = aten::slice.Tensor(%v, 0, 1, none, 2) : f32[3]{2}+1@s0
  %m = aten::mul.Scalar(%x, 2.5) : f32[2,3]@s4
  %p = aten::index_put(%x, [%idx, none], %m, false) : f32[2,3]@s5
  %c = aten::clamp(%m, -1, 1.5e-07) : f32[2,3]@s6
  %l = aten::linear(%x, %w, none) : f32[2,4]@s7
  %mx, %ix = aten::max.dim(%m, 1, false) : f32[2]@s8, i64[2]@s9
  %u0, %u1 = aten::unbind.int(%x, 0) : [f32[3]@s0, f32[3]+3@s0]
  %k = aten::cat([%u0, %u1], 0) : f32[6]@s10
  %z = aten::_to_copy(%k, 7, none, device("cpu"), none, false, none) : f64[6]@s11
  %e = aten::div.Tensor_mode(%k, %k, "floor") : f32[6]@s12
  %f = aten::fill_.Scalar(%d, -inf) : f32[3]{4}@s1
  return (%v, (%t, %s), [%p, %mx], %ix, %l, %c, %z, %e, %f)
}
)";

TEST(TextFormat, RoundTripsExactly) {
  auto g = ParseGraph(kText, SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(PrintGraph(**g), kText);
  auto g2 = ParseGraph(PrintGraph(**g), SnapshotOpTable());
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ(PrintGraph(**g2), kText);
  Status v = VerifyGraph(**g, {.require_weight_data = false});
  EXPECT_TRUE(v.ok()) << v.ToString();
}

TEST(TextFormat, KeepsMetadata) {
  auto g = ParseGraph(kText, SnapshotOpTable());
  ASSERT_TRUE(g.ok());
  const Value* s = (*g)->FindValue("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->meta().strides, std::vector<int64_t>({2}));
  EXPECT_EQ(s->meta().offset, 1);
  EXPECT_EQ(s->meta().storage, 0);
  EXPECT_EQ((*g)->weight_values()[0]->weight_key(), "self.lin.weight");
  EXPECT_TRUE((*g)->FindValue("u0")->producer()->list_output());
  EXPECT_EQ((*g)->outputs().size(), 11u);
}

TEST(TextFormat, FillsTrailingDefaults) {
  auto g = ParseGraph("graph @f(%x: f32[2]@s0) {\n  %y = aten::add.Tensor(%x, %x) : f32[2]@s1\n  return %y\n}\n",
                      SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_NE(PrintGraph(**g).find("aten::add.Tensor(%x, %x, 1)"), std::string::npos);
}

struct BadCase {
  const char* text;
  const char* error;
};

class TextFormatErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(TextFormatErrors, NamesTheProblem) {
  auto g = ParseGraph(GetParam().text, SnapshotOpTable());
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find(GetParam().error), std::string::npos) << g.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    All, TextFormatErrors,
    ::testing::Values(
        BadCase{"", "expected 'graph'"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %y = aten::nope(%x) : f32[2]@s1\n  return %y\n}",
                "2:8: unknown op 'aten::nope'"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%q) : f32[2]@s1\n  return %y\n}",
                "use of undefined value %q"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %x = aten::relu(%x) : f32[2]@s1\n  return %x\n}", "redefinition of %x"},
        BadCase{"graph @f(%x: q9[2]@s0) {\n  return %x\n}", "unknown dtype 'q9'"},
        BadCase{"graph @f(%x: f32[2]) {\n  return %x\n}", "storage id"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x, 1) : f32[2]@s1\n  return %y\n}",
                "takes 1 arguments, got 2"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %y = aten::select.int(%x) : f32[]@s1\n  return %y\n}",
                "missing argument 'dim'"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x)\n  return %y\n}",
                "defines 1 results but annotates 0"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x) : f32[2]@s1\n", "missing 'return'"},
        BadCase{"graph @f(%x: f32[2]@s0) {\n  return %x\n} junk", "unexpected text after"},
        BadCase{"graph @f(%x: f32[2,3]{1}@s0) {\n  return %x\n}", "strides and sizes differ"},
        BadCase{
            "graph @f(%x: f32[2]@s0) {\n  %y = aten::add.Tensor(%x, 99999999999999999999) : f32[2]@s1\n  return %y\n}",
            "out of range"}));

}  // namespace
}  // namespace atenaot
