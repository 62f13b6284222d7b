#include "ir/graph.h"

#include <gtest/gtest.h>

#include "ir/test_op_table.h"
#include "ir/verifier.h"

namespace atenaot {
namespace {

TensorMeta Meta(std::vector<int64_t> sizes, int64_t storage) {
  TensorMeta m;
  m.sizes = sizes;
  m.strides = ContiguousStrides(sizes);
  m.storage = storage;
  return m;
}

TEST(TensorMeta, ContiguityAndOverlap) {
  TensorMeta m = Meta({2, 3}, 0);
  EXPECT_TRUE(m.IsContiguous());
  EXPECT_FALSE(m.HasInternalOverlap());
  EXPECT_EQ(m.SpanBytes(), 24);
  m.strides = {1, 2};  // transposed
  EXPECT_FALSE(m.IsContiguous());
  EXPECT_FALSE(m.HasInternalOverlap());
  m.strides = {0, 1};  // expanded
  EXPECT_TRUE(m.HasInternalOverlap());
  m.sizes = {4, 4};
  m.strides = {2, 1};  // as_strided overlap
  EXPECT_TRUE(m.HasInternalOverlap());
  EXPECT_EQ(m.ToString(), "f32[4,4]{2,1}");
  m.offset = 3;
  EXPECT_EQ(m.ToString(), "f32[4,4]{2,1}+3");
}

TEST(Graph, BuildReplaceAndDestroy) {
  const OpTable& t = SnapshotOpTable();
  Graph g;
  Value* x = g.AddInput("x", Meta({2}, 0));
  Node* a = g.CreateNode(t.Find("aten::relu"), {Arg::Of(x)}, 1);
  a->output()->mutable_meta() = Meta({2}, 1);
  Node* b = g.CreateNode(t.Find("aten::add.Tensor"),
                         {Arg::Of(a->output()), Arg::Of(a->output()), Arg::Of(Literal::Int(1))}, 1);
  b->output()->mutable_meta() = Meta({2}, 2);
  g.SetOutputs({b->output()}, OutputTree{});
  ASSERT_TRUE(VerifyGraph(g).ok());
  EXPECT_EQ(a->output()->uses().size(), 2u);
  // Insert a node before b and route b's inputs through it.
  Node* c = g.CreateNode(t.Find("aten::neg"), {Arg::Of(a->output())}, 1, b);
  c->output()->mutable_meta() = Meta({2}, 3);
  EXPECT_EQ(c->next(), b);
  g.SetArg(b, 1, Arg::Of(c->output()));
  EXPECT_EQ(a->output()->uses().size(), 2u);  // b arg 0 and c
  g.ReplaceAllUsesWith(b->output(), c->output());
  EXPECT_EQ(g.outputs()[0], c->output());
  EXPECT_TRUE(b->output()->uses().empty());
  g.Destroy(b);
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.last(), c);
  EXPECT_EQ(c->output()->uses().size(), 1u);  // the return
  EXPECT_TRUE(VerifyGraph(g).ok());
  g.Renumber();
  EXPECT_EQ(a->order(), 0);
  EXPECT_EQ(c->order(), 1);
}

}  // namespace
}  // namespace atenaot
