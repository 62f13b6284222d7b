#include "ir/schema.h"

#include <gtest/gtest.h>

#include <fstream>

namespace atenaot {
namespace {

TEST(Schema, ParsesInplaceAdd) {
  auto s = ParseSchema("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->ns, "aten");
  EXPECT_EQ(s->name, "add_");
  EXPECT_EQ(s->overload, "Tensor");
  ASSERT_EQ(s->args.size(), 3u);
  EXPECT_EQ(s->args[0].alias.set, "a");
  EXPECT_TRUE(s->args[0].alias.write);
  EXPECT_FALSE(s->args[1].kwarg_only);
  EXPECT_TRUE(s->args[2].kwarg_only);
  EXPECT_EQ(s->args[2].type.base, BaseType::kScalar);
  ASSERT_TRUE(s->args[2].default_value.has_value());
  EXPECT_EQ(*s->args[2].default_value, Literal::Int(1));
  ASSERT_EQ(s->returns.size(), 1u);
  EXPECT_EQ(s->returns[0].alias.set, "a");
  EXPECT_EQ(s->QualifiedName(), "aten::add_.Tensor");
}

TEST(Schema, ParsesListsOptionalsAndDefaults) {
  auto s = ParseSchema(
      "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
      "int[2] dilation=1, int groups=1) -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->args[2].type.optional);
  EXPECT_EQ(*s->args[2].default_value, Literal::None());
  EXPECT_TRUE(s->args[3].type.list);
  EXPECT_EQ(s->args[3].type.fixed_size, 2);
  EXPECT_EQ(*s->args[3].default_value, Literal::IntList({1, 1}));
  auto ip =
      ParseSchema("aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor");
  ASSERT_TRUE(ip.ok());
  EXPECT_TRUE(ip->args[1].type.list);
  EXPECT_TRUE(ip->args[1].type.elem_optional);
  EXPECT_FALSE(ip->args[1].type.optional);
  auto ln = ParseSchema(
      "aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
      "float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor");
  ASSERT_TRUE(ln.ok());
  EXPECT_EQ(*ln->args[4].default_value, Literal::Float(1.0000000000000001e-05));
  EXPECT_EQ(*ln->args[5].default_value, Literal::Bool(true));
}

TEST(Schema, ParsesMultipleNamedReturnsAndTensorListAlias) {
  auto s = ParseSchema("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->returns.size(), 2u);
  EXPECT_EQ(s->returns[1].name, "indices");
  auto sp = ParseSchema("aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  ASSERT_TRUE(sp.ok()) << sp.status().ToString();
  EXPECT_TRUE(sp->args[0].alias.wildcard);
  EXPECT_TRUE(sp->returns[0].type.list);
  EXPECT_EQ(sp->returns[0].alias.set, "a");
}

TEST(Schema, RejectsGarbageWithAMessage) {
  auto s = ParseSchema("aten::add(Tensor self");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("bad schema"), std::string::npos);
  EXPECT_FALSE(ParseSchema("no_namespace(Tensor x) -> Tensor").ok());
}

TEST(Schema, EverySnapshotLineParses) {
  std::ifstream in("ir/testdata/aten_schemas.txt");
  ASSERT_TRUE(in.good());
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    auto s = ParseSchema(line);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    ++n;
  }
  EXPECT_GT(n, 3000);
}

}  // namespace
}  // namespace atenaot
