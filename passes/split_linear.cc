#include "passes/split_linear.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "passes/decompose_builder.h"

namespace atenaot {
namespace {

// One piece of the linear's result: a result of a reader node, the columns
// [start, start + len) of the last dimension.
struct Piece {
  Value* value;
  int64_t start, len;
};

bool IntArg(const Node* n, size_t i, int64_t* out) {
  if (i >= n->args().size() || n->args()[i].kind != Arg::Kind::kLiteral) return false;
  const Literal& l = n->args()[i].literal;
  if (l.kind != Literal::Kind::kInt) return false;
  *out = l.i;
  return true;
}

// Appends the pieces `reader` takes of y along y's last dimension; false when
// it reads y otherwise (another op, another dimension, a step).
bool ReaderPieces(const Node* reader, const Value* y, std::vector<Piece>* pieces) {
  const std::string& op = reader->op().qualified_name;
  const int64_t rank = static_cast<int64_t>(y->meta().sizes.size()), cols = y->meta().sizes.back();
  const bool slice = op == "aten::slice.Tensor";
  if (!slice && op != "aten::chunk" && op != "aten::split.Tensor" && op != "aten::split_with_sizes" &&
      op != "aten::unsafe_chunk" && op != "aten::unsafe_split.Tensor" && op != "aten::unsafe_split_with_sizes")
    return false;
  int64_t dim = 0;
  if (reader->input(0) != y || !IntArg(reader, slice ? 1 : 2, &dim) || (dim != rank - 1 && dim != -1)) return false;
  int64_t start = 0;
  if (slice) {
    int64_t step = 0;
    if (!IntArg(reader, 4, &step) || step != 1) return false;
    const Arg& s = reader->args()[2];
    if (s.kind != Arg::Kind::kLiteral) return false;
    if (s.literal.kind == Literal::Kind::kInt) {
      start = s.literal.i < 0 ? s.literal.i + cols : s.literal.i;
      start = start < 0 ? 0 : start > cols ? cols : start;
    } else if (s.literal.kind != Literal::Kind::kNone) {
      return false;
    }
  }
  for (Value* o : reader->outputs()) {  // chunk/split: consecutive pieces from column 0
    const std::vector<int64_t>& s = o->meta().sizes;
    if (s.size() != y->meta().sizes.size() || !std::equal(s.begin(), s.end() - 1, y->meta().sizes.begin()))
      return false;
    if (start + s.back() > cols) return false;
    pieces->push_back({o, start, s.back()});
    start += s.back();
  }
  return true;
}

// A weight, or a view of one (nn.MultiheadAttention's cross-attention splits
// in_proj_weight into the q and the packed k/v weights): the C backend
// folds the slices of it at compile time.
bool IsWeight(const Value* v) {
  if (!v) return false;
  if (v->kind() == ValueKind::kWeight) return true;
  const Node* p = v->producer();
  if (!p || !p->op().IsView() || p->op().Writes() || p->InputValues().size() != 1) return false;
  return IsWeight(p->InputValues()[0]);
}

}  // namespace

int SplitLinearPieces(Graph& g, const OpTable& ops) {
  int split = 0;
  if (!ops.Find("aten::slice.Tensor") || !ops.Find("aten::linear")) return split;
  for (Node* n : g.NodesSnapshot()) {
    if (n->op().qualified_name != "aten::linear" || n->outputs().size() != 1 || n->args().size() != 3) continue;
    Value *y = n->output(), *w = n->input(1), *bias = n->input(2);
    if (!IsWeight(w) || w->meta().sizes.size() != 2 || (bias && !IsWeight(bias)) || y->meta().sizes.empty() ||
        y->uses().empty())
      continue;
    std::vector<const Node*> readers;
    std::vector<Piece> pieces;
    bool ok = true;
    for (const Use& u : y->uses()) {
      if (!u.user) ok = false;  // a graph output
      if (!ok) break;
      bool seen = false;
      for (const Node* r : readers) seen = seen || r == u.user;
      if (seen) continue;
      readers.push_back(u.user);
      ok = ReaderPieces(u.user, y, &pieces);
    }
    // Pieces nothing reads get no linear; overlapping ones would compute
    // their shared columns twice, so the pieces read may add up to at most
    // the result's columns.
    int64_t used = 0;
    for (const Piece& p : pieces) used += p.value->uses().empty() ? 0 : p.len;
    if (!ok || used > y->meta().sizes.back()) continue;
    DecomposeBuilder b(g, ops, n);
    for (const Piece& p : pieces) {
      if (p.value->uses().empty()) continue;
      auto rows = [&](Value* t) {
        std::vector<int64_t> s = t->meta().sizes;
        s[0] = p.len;
        return b.Emit("aten::slice.Tensor",
                      {Arg::Of(t), L(Literal::Int(0)), L(Literal::Int(p.start)), L(Literal::Int(p.start + p.len)),
                       L(Literal::Int(1))},
                      s, t->meta().dtype);
      };
      StatusOr<Value*> wp = rows(w);
      StatusOr<Value*> bp = bias ? rows(bias) : StatusOr<Value*>(static_cast<Value*>(nullptr));
      StatusOr<Value*> yp =
          b.Emit("aten::linear", {Arg::Of(n->input(0)), Arg::Of(*wp), *bp ? Arg::Of(*bp) : n->args()[2]},
                 p.value->meta().sizes, y->meta().dtype);
      g.ReplaceAllUsesWith(p.value, *yp);  // Emit fails only for an op the table lacks
    }
    for (const Node* r : readers) g.Destroy(const_cast<Node*>(r));
    g.Destroy(n);
    ++split;
  }
  return split;
}

}  // namespace atenaot
