#include "passes/decompose_attention.h"

#include <cmath>
#include <limits>
#include <string>

namespace atenaot {
namespace {

using Sizes = std::vector<int64_t>;

struct Ops {
  DecomposeBuilder& b;
  DType dt;

  StatusOr<Value*> Op(const std::string& op, std::vector<Arg> args, Sizes s) {
    return b.Emit(op, std::move(args), std::move(s), dt);
  }
  static Arg I(int64_t i) { return L(Literal::Int(i)); }
  StatusOr<Value*> Slice(Value* x, int64_t dim, int64_t lo, int64_t hi) {
    Sizes s = x->meta().sizes;
    s[static_cast<size_t>(dim)] = hi - lo;
    return Op("aten::slice.Tensor", {Arg::Of(x), I(dim), I(lo), I(hi), I(1)}, s);
  }
  StatusOr<Value*> Linear(Value* x, Value* w, Value* bias) {
    Sizes s = x->meta().sizes;
    s.back() = w->meta().sizes[0];
    return Op("aten::linear", {Arg::Of(x), Arg::Of(w), bias ? Arg::Of(bias) : L(Literal::None())}, s);
  }
  StatusOr<Value*> Transpose(Value* x, int64_t a, int64_t c) {
    Sizes s = x->meta().sizes;
    std::swap(s[static_cast<size_t>(a)], s[static_cast<size_t>(c)]);
    return Op("aten::transpose.int", {Arg::Of(x), I(a), I(c)}, s);
  }
  StatusOr<Value*> Contiguous(Value* x) { return Op("aten::contiguous", {Arg::Of(x), I(0)}, x->meta().sizes); }
  StatusOr<Value*> View(Value* x, Sizes s) { return Op("aten::view", {Arg::Of(x), L(Literal::IntList(s))}, s); }
  StatusOr<Value*> Matmul(Value* x, Value* y) {
    Sizes s = x->meta().sizes;
    s.back() = y->meta().sizes.back();
    return Op("aten::matmul", {Arg::Of(x), Arg::Of(y)}, s);
  }
  StatusOr<Value*> Add(Value* x, Value* y) {
    return Op("aten::add.Tensor", {Arg::Of(x), Arg::Of(y), I(1)}, x->meta().sizes);
  }
  StatusOr<Value*> LayerNorm(Value* x, Value* w, Value* bias, double eps) {
    return Op("aten::layer_norm",
              {Arg::Of(x), L(Literal::IntList({x->meta().sizes.back()})), Arg::Of(w), Arg::Of(bias),
               L(Literal::Float(eps)), L(Literal::Bool(true))},
              x->meta().sizes);
  }
  // [B, L, E] -> [B, H, L, D]: x made contiguous (nothing to copy once
  // passes/split_linear.h has split the packed projection) and viewed as
  // heads, strided: the products read the view in place.
  StatusOr<Value*> Heads(Value* x, int64_t heads) {
    const Sizes& s = x->meta().sizes;
    AOT_ASSIGN_OR_RETURN(Value * c, Contiguous(x));
    AOT_ASSIGN_OR_RETURN(Value * v, View(c, {s[0], s[1], heads, s[2] / heads}));
    return Transpose(v, 1, 2);
  }
};

struct MhaArgs {
  Value *q, *k, *v, *w, *bias, *proj_w, *proj_b, *mask;
  int64_t heads, mask_type;  // mask_type -1: none given
  bool need_weights, average;
};

// Returns (output, attention weights or nullptr).
StatusOr<std::pair<Value*, Value*>> Attention(Ops& o, const MhaArgs& a) {
  for (Value* x : {a.q, a.k, a.v})
    if (x->meta().sizes.size() != 3) return Unsupported("only batched [B, L, E] attention inputs are supported");
  const int64_t E = a.q->meta().sizes[2], H = a.heads;
  if (H <= 0 || E % H != 0) return Unsupported("embed_dim is not a multiple of num_heads");
  Value *Q, *K, *V;
  if (a.q == a.k && a.k == a.v) {
    AOT_ASSIGN_OR_RETURN(Value * qkv, o.Linear(a.q, a.w, a.bias));
    AOT_ASSIGN_OR_RETURN(Q, o.Slice(qkv, 2, 0, E));
    AOT_ASSIGN_OR_RETURN(K, o.Slice(qkv, 2, E, 2 * E));
    AOT_ASSIGN_OR_RETURN(V, o.Slice(qkv, 2, 2 * E, 3 * E));
  } else {
    Value* proj[3];
    Value* in[3] = {a.q, a.k, a.v};
    for (int i = 0; i < 3; ++i) {
      AOT_ASSIGN_OR_RETURN(Value * w, o.Slice(a.w, 0, i * E, (i + 1) * E));
      AOT_ASSIGN_OR_RETURN(Value * bias, o.Slice(a.bias, 0, i * E, (i + 1) * E));
      AOT_ASSIGN_OR_RETURN(proj[i], o.Linear(in[i], w, bias));
    }
    Q = proj[0], K = proj[1], V = proj[2];
  }
  AOT_ASSIGN_OR_RETURN(Value * qh, o.Heads(Q, H));
  AOT_ASSIGN_OR_RETURN(Value * kh, o.Heads(K, H));
  AOT_ASSIGN_OR_RETURN(Value * vh, o.Heads(V, H));
  // PyTorch scales q by 1/sqrt(D) before the product.
  const double scale = 1.0 / std::sqrt(static_cast<double>(E / H));
  AOT_ASSIGN_OR_RETURN(Value * qs, o.Op("aten::mul.Scalar", {Arg::Of(qh), L(Literal::Float(scale))}, qh->meta().sizes));
  AOT_ASSIGN_OR_RETURN(Value * kt, o.Transpose(kh, 2, 3));
  AOT_ASSIGN_OR_RETURN(Value * scores, o.Matmul(qs, kt));
  if (a.mask) {
    Value* m = a.mask;
    const Sizes& ms = m->meta().sizes;
    const Sizes& ss = scores->meta().sizes;  // [B, H, L, S]
    if (a.mask_type == 1 && ms.size() == 2) {
      AOT_ASSIGN_OR_RETURN(m, o.b.Emit("aten::view", {Arg::Of(m), L(Literal::IntList({ss[0], 1, 1, ss[3]}))},
                                       {ss[0], 1, 1, ss[3]}, m->meta().dtype));
    } else if (ms.size() != 2 && ms.size() != 4) {
      return Unsupported("an attention mask of rank " + std::to_string(ms.size()));
    }
    if (m->meta().dtype == DType::kBool) {
      AOT_ASSIGN_OR_RETURN(
          scores, o.Op("aten::masked_fill.Scalar",
                       {Arg::Of(scores), Arg::Of(m), L(Literal::Float(-std::numeric_limits<double>::infinity()))}, ss));
    } else {
      AOT_ASSIGN_OR_RETURN(scores, o.Add(scores, m));
    }
  }
  AOT_ASSIGN_OR_RETURN(
      Value * attn, o.Op("aten::softmax.int", {Arg::Of(scores), Ops::I(-1), L(Literal::None())}, scores->meta().sizes));
  AOT_ASSIGN_OR_RETURN(Value * ctx, o.Matmul(attn, vh));  // [B, H, L, D]
  AOT_ASSIGN_OR_RETURN(Value * ct, o.Transpose(ctx, 1, 2));
  AOT_ASSIGN_OR_RETURN(Value * cc, o.Contiguous(ct));
  const Sizes& qs3 = a.q->meta().sizes;
  AOT_ASSIGN_OR_RETURN(Value * merged, o.View(cc, {qs3[0], qs3[1], E}));
  AOT_ASSIGN_OR_RETURN(Value * out, o.Linear(merged, a.proj_w, a.proj_b));
  Value* weights = nullptr;
  if (a.need_weights) {
    if (a.average) {
      Sizes s = attn->meta().sizes;
      s.erase(s.begin() + 1);
      AOT_ASSIGN_OR_RETURN(
          weights, o.Op("aten::mean.dim",
                        {Arg::Of(attn), L(Literal::IntList({1})), L(Literal::Bool(false)), L(Literal::None())}, s));
    } else {
      weights = attn;
    }
  }
  return std::make_pair(out, weights);
}

Value* MaybeValue(const Node* n, int i) { return n->input(i); }
int64_t OptInt(const Arg& a) { return a.literal.kind == Literal::Kind::kInt ? a.literal.i : -1; }

}  // namespace

StatusOr<std::vector<Value*>> DecomposeNativeMha(DecomposeBuilder& b, const Node* n) {
  const std::vector<Arg>& a = n->args();
  if (a.size() != 13) return Unsupported("unexpected arguments");
  Ops o{b, n->output(0)->meta().dtype};
  MhaArgs m{n->input(0), n->input(1),      n->input(2),    n->input(5),   n->input(6),     n->input(7),
            n->input(8), MaybeValue(n, 9), a[4].literal.i, OptInt(a[12]), a[10].literal.b, a[11].literal.b};
  AOT_ASSIGN_OR_RETURN(auto r, Attention(o, m));
  Value* w = r.second;
  if (!w) {  // need_weights=False: PyTorch returns an undefined tensor, imported as an empty one
    AOT_ASSIGN_OR_RETURN(w, o.Op("aten::empty.memory_format",
                                 {L(Literal::IntList({0})), L(Literal::None()), L(Literal::None()), L(Literal::None()),
                                  L(Literal::None()), L(Literal::None())},
                                 {0}));
  }
  return std::vector<Value*>{r.first, w};
}

StatusOr<std::vector<Value*>> DecomposeEncoderLayer(DecomposeBuilder& b, const Node* n) {
  const std::vector<Arg>& a = n->args();
  if (a.size() != 20) return Unsupported("unexpected arguments");
  Ops o{b, n->output(0)->meta().dtype};
  Value* x = n->input(0);
  const bool gelu = a[7].literal.b, norm_first = a[8].literal.b;
  const double eps = a[9].literal.f;
  auto mha = [&](Value* h) {
    MhaArgs m{h,
              h,
              h,
              n->input(3),
              n->input(4),
              n->input(5),
              n->input(6),
              MaybeValue(n, 18),
              a[2].literal.i,
              OptInt(a[19]),
              false,
              false};
    return Attention(o, m);
  };
  auto ffn = [&](Value* h) -> StatusOr<Value*> {
    AOT_ASSIGN_OR_RETURN(Value * f1, o.Linear(h, n->input(14), n->input(15)));
    AOT_ASSIGN_OR_RETURN(Value * act,
                         gelu ? o.Op("aten::gelu", {Arg::Of(f1), L(Literal::String("none"))}, f1->meta().sizes)
                              : o.Op("aten::relu", {Arg::Of(f1)}, f1->meta().sizes));
    return o.Linear(act, n->input(16), n->input(17));
  };
  Value *n1w = n->input(10), *n1b = n->input(11), *n2w = n->input(12), *n2b = n->input(13);
  if (norm_first) {
    AOT_ASSIGN_OR_RETURN(Value * h, o.LayerNorm(x, n1w, n1b, eps));
    AOT_ASSIGN_OR_RETURN(auto att, mha(h));
    AOT_ASSIGN_OR_RETURN(x, o.Add(x, att.first));
    AOT_ASSIGN_OR_RETURN(Value * h2, o.LayerNorm(x, n2w, n2b, eps));
    AOT_ASSIGN_OR_RETURN(Value * f, ffn(h2));
    AOT_ASSIGN_OR_RETURN(x, o.Add(x, f));
  } else {
    AOT_ASSIGN_OR_RETURN(auto att, mha(x));
    AOT_ASSIGN_OR_RETURN(Value * s1, o.Add(x, att.first));
    AOT_ASSIGN_OR_RETURN(x, o.LayerNorm(s1, n1w, n1b, eps));
    AOT_ASSIGN_OR_RETURN(Value * f, ffn(x));
    AOT_ASSIGN_OR_RETURN(Value * s2, o.Add(x, f));
    AOT_ASSIGN_OR_RETURN(x, o.LayerNorm(s2, n2w, n2b, eps));
  }
  return std::vector<Value*>{x};
}

}  // namespace atenaot
