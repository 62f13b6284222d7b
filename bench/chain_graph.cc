#include "bench/chain_graph.h"

namespace atenaot {

std::unique_ptr<Graph> MakeChainGraph(int64_t num_nodes, const OpTable& ops) {
  auto g = std::make_unique<Graph>();
  const OpInfo* add = ops.Find("aten::add.Tensor");
  const OpInfo* mul = ops.Find("aten::mul.Scalar");
  const OpInfo* slice = ops.Find("aten::slice.Tensor");
  const OpInfo* add_ = ops.Find("aten::add_.Scalar");
  TensorMeta m;
  m.sizes = {64};
  m.strides = {1};
  m.storage = g->NewStorageId();
  Value* x = g->AddInput("x", m);
  Value* v = x;
  int64_t made = 0;
  while (made < num_nodes) {
    for (int k = 0; k < 9 && made < num_nodes; ++k, ++made) {
      Node* n = k % 2 ? g->CreateNode(mul, {Arg::Of(v), Arg::Of(Literal::Float(0.5))}, 1)
                      : g->CreateNode(add, {Arg::Of(v), Arg::Of(x), Arg::Of(Literal::Int(1))}, 1);
      TensorMeta om = m;
      om.storage = g->NewStorageId();
      n->output()->mutable_meta() = om;
      v = n->output();
    }
    if (made + 2 > num_nodes) break;
    // s = v[8:40]; s.add_(1): a write through a view of an intermediate.
    Node* s = g->CreateNode(slice,
                            {Arg::Of(v), Arg::Of(Literal::Int(0)), Arg::Of(Literal::Int(8)), Arg::Of(Literal::Int(40)),
                             Arg::Of(Literal::Int(1))},
                            1);
    TensorMeta sm = v->meta();
    sm.sizes = {32};
    sm.offset = 8;
    s->output()->mutable_meta() = sm;
    Node* w = g->CreateNode(add_, {Arg::Of(s->output()), Arg::Of(Literal::Int(1)), Arg::Of(Literal::Int(1))}, 1);
    w->output()->mutable_meta() = sm;
    made += 2;
  }
  g->SetOutputs({v}, OutputTree{});
  return g;
}

}  // namespace atenaot
