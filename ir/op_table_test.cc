#include "ir/op_table.h"

#include <gtest/gtest.h>

#include "ir/test_op_table.h"

namespace atenaot {
namespace {

const OpInfo& Op(const char* name) {
  const OpInfo* op = SnapshotOpTable().Find(name);
  EXPECT_NE(op, nullptr) << name;
  static OpInfo dummy;
  return op ? *op : dummy;
}

TEST(OpTable, LoadsTheWholeSnapshot) {
  EXPECT_GT(SnapshotOpTable().size(), 3000u);
  EXPECT_EQ(SnapshotOpTable().parse_failures(), 0);
  EXPECT_EQ(SnapshotOpTable().Find("aten::no_such_op"), nullptr);
  EXPECT_EQ(SnapshotOpTable().Find("aten::view")->qualified_name, "aten::view");
}

TEST(OpTable, ClassifiesKinds) {
  EXPECT_EQ(Op("aten::add.Tensor").kind, OpKind::kFunctional);
  EXPECT_EQ(Op("aten::add_.Tensor").kind, OpKind::kInplace);
  EXPECT_EQ(Op("aten::add.out").kind, OpKind::kOut);
  EXPECT_EQ(Op("aten::view").kind, OpKind::kView);
  EXPECT_EQ(Op("aten::split.Tensor").kind, OpKind::kView);
  EXPECT_EQ(Op("aten::unbind.int").kind, OpKind::kView);
  EXPECT_EQ(Op("aten::index_put_").kind, OpKind::kInplace);
  EXPECT_EQ(Op("aten::copy_").kind, OpKind::kInplace);
  EXPECT_EQ(Op("aten::max.dim").kind, OpKind::kFunctional);
  EXPECT_EQ(Op("aten::max.dim_max").kind, OpKind::kOut);
}

TEST(OpTable, WrittenArgsAndReturnAliases) {
  EXPECT_EQ(Op("aten::add_.Tensor").written_args, std::vector<int>({0}));
  EXPECT_EQ(Op("aten::add.out").written_args, std::vector<int>({3}));
  EXPECT_EQ(Op("aten::transpose.int").return_alias_arg, std::vector<int>({0}));
  EXPECT_EQ(Op("aten::max.dim").return_alias_arg, std::vector<int>({-1, -1}));
  EXPECT_EQ(Op("aten::max.dim_max").written_args, std::vector<int>({3, 4}));
}

TEST(OpTable, FunctionalTwins) {
  EXPECT_EQ(Op("aten::add_.Tensor").functional, &Op("aten::add.Tensor"));
  EXPECT_EQ(Op("aten::add_.Scalar").functional, &Op("aten::add.Scalar"));
  EXPECT_EQ(Op("aten::add.out").functional, &Op("aten::add.Tensor"));
  EXPECT_EQ(Op("aten::index_put_").functional, &Op("aten::index_put"));
  EXPECT_EQ(Op("aten::copy_").functional, &Op("aten::copy"));
  EXPECT_EQ(Op("aten::fill_.Scalar").functional, &Op("aten::fill.Scalar"));
  EXPECT_EQ(Op("aten::zero_").functional, &Op("aten::zero"));
  EXPECT_EQ(Op("aten::masked_fill_.Scalar").functional, &Op("aten::masked_fill.Scalar"));
  EXPECT_EQ(Op("aten::max.dim_max").functional, &Op("aten::max.dim"));
  EXPECT_EQ(Op("aten::add.Tensor").inplace, &Op("aten::add_.Tensor"));
  EXPECT_EQ(Op("aten::ge.Tensor").inplace, &Op("aten::ge_.Tensor"));
  // View-like in-place ops have no functional twin of the same name.
  EXPECT_EQ(Op("aten::transpose_").functional, &Op("aten::transpose.int"));
  // Twins whose arguments are named differently (self vs input) match by type.
  EXPECT_EQ(Op("aten::dropout_").functional, &Op("aten::dropout"));
  EXPECT_EQ(Op("aten::feature_dropout_").functional, &Op("aten::feature_dropout"));
  EXPECT_EQ(Op("aten::alpha_dropout_").functional, &Op("aten::alpha_dropout"));
  EXPECT_EQ(Op("aten::feature_alpha_dropout_").functional, &Op("aten::feature_alpha_dropout"));
  EXPECT_EQ(Op("aten::dropout").inplace, &Op("aten::dropout_"));
}

TEST(OpTable, TwinsPreferNameMatchesAndNeedSameAliasing) {
  auto t = OpTable::FromSchemaStrings({
      "aten::foo_(Tensor(a!) self, int n) -> Tensor(a!)",
      "aten::foo.other(Tensor input, int m) -> Tensor",
      "aten::foo(Tensor self, int n) -> Tensor",
      "aten::bar_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
      "aten::bar(Tensor self, Tensor(b) other) -> Tensor(b)",
  });
  EXPECT_EQ(t->Find("aten::foo_")->functional, t->Find("aten::foo"));
  // bar's other is a view source where bar_'s is plain: not a twin.
  EXPECT_EQ(t->Find("aten::bar_")->functional, nullptr);
}

TEST(OpTable, ViewCopyTwinsAndScatterInverses) {
  EXPECT_EQ(Op("aten::view").view_copy, &Op("aten::view_copy"));
  EXPECT_EQ(Op("aten::select.int").view_copy, &Op("aten::select_copy.int"));
  EXPECT_EQ(Op("aten::transpose.int").view_copy, &Op("aten::transpose_copy.int"));
  EXPECT_EQ(Op("aten::split.Tensor").view_copy, &Op("aten::split_copy.Tensor"));
  EXPECT_EQ(Op("aten::select_copy.int").view_of_copy, &Op("aten::select.int"));
  EXPECT_EQ(Op("aten::select.int").scatter, &Op("aten::select_scatter"));
  EXPECT_EQ(Op("aten::slice.Tensor").scatter, &Op("aten::slice_scatter"));
  EXPECT_EQ(Op("aten::diagonal").scatter, &Op("aten::diagonal_scatter"));
  EXPECT_EQ(Op("aten::as_strided").scatter, &Op("aten::as_strided_scatter"));
  EXPECT_EQ(Op("aten::select_scatter").scatter_view, &Op("aten::select.int"));
  EXPECT_EQ(Op("aten::view").scatter, nullptr);
}

TEST(OpTable, BuildsFromStringsAndSkipsBadLines) {
  auto t = OpTable::FromSchemaStrings(
      {"aten::relu(Tensor self) -> Tensor", "garbage", "aten::relu_(Tensor(a!) self) -> Tensor(a!)"});
  EXPECT_EQ(t->size(), 2u);
  EXPECT_EQ(t->parse_failures(), 1);
  EXPECT_EQ(t->Find("aten::relu_")->functional, t->Find("aten::relu"));
}

}  // namespace
}  // namespace atenaot
