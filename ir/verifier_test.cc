#include "ir/verifier.h"

#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/test_op_table.h"

namespace atenaot {
namespace {

std::unique_ptr<Graph> Parse(const std::string& text) {
  auto g = ParseGraph(text, SnapshotOpTable());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(g).value() : nullptr;
}

TEST(Verifier, AcceptsAWellFormedGraph) {
  auto g = Parse("graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x) : f32[2]@s1\n  return (%y, %x)\n}");
  EXPECT_TRUE(VerifyGraph(*g).ok());
}

TEST(Verifier, RejectsLiteralOfTheWrongKind) {
  auto g = Parse("graph @f(%x: f32[2,2]@s0) {\n  %y = aten::transpose.int(%x, 0, 1.5) : f32[2,2]@s0\n  return %y\n}");
  Status s = VerifyGraph(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("argument 2 ('dim1'): literal 1.5 does not fit type int"), std::string::npos)
      << s.message();
}

TEST(Verifier, RejectsLiteralWhereATensorIsNeeded) {
  auto g = Parse("graph @f(%x: f32[2]@s0) {\n  %y = aten::add.Tensor(%x, 1) : f32[2]@s1\n  return %y\n}");
  Status s = VerifyGraph(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected a tensor value"), std::string::npos) << s.message();
}

TEST(Verifier, RejectsWrongResultCount) {
  auto g = Parse("graph @f(%x: f32[2,2]@s0) {\n  %y = aten::max.dim(%x, 0) : f32[2]@s1\n  return %y\n}");
  Status s = VerifyGraph(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("defines 1 results, the op returns 2"), std::string::npos) << s.message();
}

TEST(Verifier, RejectsListResultsNotMarked) {
  auto g =
      Parse("graph @f(%x: f32[2,2]@s0) {\n  %a, %b = aten::unbind.int(%x, 0) : f32[2]@s0, f32[2]+2@s0\n  return %a\n}");
  Status s = VerifyGraph(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("returns a tensor list"), std::string::npos) << s.message();
}

TEST(Verifier, RequiresWeightData) {
  auto g = Parse(
      "graph @f(%x: f32[2]@s0) {\n  weight %w: f32[2]@s1 = \"w\"\n  %y = aten::mul.Tensor(%x, %w) : f32[2]@s2\n  "
      "return %y\n}");
  Status s = VerifyGraph(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no data for key \"w\""), std::string::npos) << s.message();
  WeightData w;
  w.meta.sizes = {2};
  w.meta.strides = {1};
  w.bytes.resize(8);
  g->weights()["w"] = w;
  EXPECT_TRUE(VerifyGraph(*g).ok());
  g->weights()["w"].bytes.resize(4);
  EXPECT_FALSE(VerifyGraph(*g).ok());
}

TEST(Verifier, RejectsUnrepresentableOps) {
  auto g = Parse("graph @f(%x: f32[2]@s0) {\n  %y = aten::relu(%x) : f32[2]@s1\n  return %y\n}");
  // aten::size returns int: nodes of such ops cannot exist in the IR.
  const OpInfo* size = SnapshotOpTable().Find("aten::size.int");
  ASSERT_NE(size, nullptr);
  EXPECT_FALSE(size->Representable());
  // A node of such an op (set behind the parser's back) must be refused.
  ASSERT_TRUE(VerifyGraph(*g).ok());
  g->SetOp(g->first(), size);
  Status s = VerifyGraph(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op has argument or return types atenaot cannot represent"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace atenaot
