#include "codegen/embedding_mean_bag.h"

#include <cstring>
#include <vector>

#include "codegen/kernel_util.h"

namespace atenaot {
namespace {

// Whether a literal argument is the int list {1} or {-2} (dim 1 of a 3-D tensor).
bool IsDimOne(const Arg& a) {
  if (a.kind != Arg::Kind::kLiteral || a.literal.kind != Literal::Kind::kIntList || a.literal.ints.size() != 1)
    return false;
  return a.literal.ints[0] == 1 || a.literal.ints[0] == -2;
}

bool IsLiteral(const Arg& a, Literal::Kind k) { return a.kind == Arg::Kind::kLiteral && a.literal.kind == k; }

bool RewriteOne(Graph& g, const OpInfo* reshape, const OpInfo* bag, Node* mean) {
  if (mean->op().schema.name != "mean" || mean->op().schema.overload != "dim" || mean->outputs().size() != 1 ||
      mean->args().size() != 4 || !IsDimOne(mean->args()[1]) || !IsLiteral(mean->args()[2], Literal::Kind::kBool) ||
      mean->args()[2].literal.b || !IsLiteral(mean->args()[3], Literal::Kind::kNone))
    return false;
  Value* e = mean->input(0);
  Node* emb = e ? e->producer() : nullptr;
  if (!emb || emb->op().schema.name != "embedding" || emb->outputs().size() != 1 || e->uses().size() != 1 ||
      emb->args().size() < 2)
    return false;
  Value *w = emb->input(0), *idx = emb->input(1);
  if (!w || !idx) return false;
  const TensorMeta &wm = w->meta(), &im = idx->meta(), &em = e->meta();
  if (wm.dtype != DType::kFloat32 || wm.sizes.size() != 2 || im.dtype != DType::kInt64 || im.sizes.size() != 2 ||
      !im.IsContiguous() || im.sizes[1] < 1 || em.sizes != std::vector<int64_t>{im.sizes[0], im.sizes[1], wm.sizes[1]})
    return false;
  const int64_t B = im.sizes[0], J = im.sizes[1];
  std::vector<uint8_t> bytes(static_cast<size_t>(B) * 8);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t off = b * J;
    std::memcpy(&bytes[static_cast<size_t>(b) * 8], &off, 8);
  }
  Value* offsets = AddFoldedWeight(g, idx->name() + ".bag_offsets", DType::kInt64, {B}, std::move(bytes));
  Node* flat = g.CreateNode(reshape, {Arg::Of(idx), Arg::Of(Literal::IntList({-1}))}, 1, mean);
  TensorMeta fm = im;  // a view of the indices
  fm.sizes = {B * J};
  fm.strides = {1};
  flat->output()->mutable_meta() = fm;
  Node* n = g.CreateNode(bag,
                         {Arg::Of(w), Arg::Of(flat->output()), Arg::Of(offsets), Arg::Of(Literal::Bool(false)),
                          Arg::Of(Literal::Int(1)), Arg::Of(Literal::Bool(false)), Arg::Of(Literal::None()),
                          Arg::Of(Literal::Bool(false)), Arg::Of(Literal::None())},
                         4, mean);
  n->output(0)->mutable_meta() = mean->output()->meta();
  // offset2bag [B J], bag_size [B], max_indices [B]: the C kernel writes none of them (nothing reads them).
  const std::vector<std::vector<int64_t>> extra = {{B * J}, {B}, {B}};
  for (int k = 0; k < 3; ++k) {
    TensorMeta m;
    m.dtype = DType::kInt64;
    m.sizes = extra[static_cast<size_t>(k)];
    m.strides = {1};
    m.storage = g.NewStorageId();
    n->output(k + 1)->mutable_meta() = m;
  }
  g.ReplaceAllUsesWith(mean->output(), n->output(0));
  g.Destroy(mean);
  g.Destroy(emb);
  return true;
}

}  // namespace

int EmbeddingMeanToBag(Graph& g, const OpTable& ops) {
  const OpInfo *reshape = ops.Find("aten::reshape"), *bag = ops.Find("aten::embedding_bag.padding_idx");
  if (!reshape || !bag) return 0;
  std::vector<Node*> means;
  for (Node* n : g.nodes())
    if (n->op().schema.name == "mean") means.push_back(n);
  int done = 0;
  for (Node* m : means) done += RewriteOne(g, reshape, bag, m) ? 1 : 0;
  return done;
}

}  // namespace atenaot
