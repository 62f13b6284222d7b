#include "passes/decompose_rnn.h"

#include <string>

namespace atenaot {
namespace {

enum class Cell { kLstm, kGru, kTanh, kRelu };

struct Rnn {
  DecomposeBuilder& b;
  Cell cell;
  DType dt;
  int64_t batch, hidden;

  int64_t Gates() const { return cell == Cell::kLstm ? 4 : cell == Cell::kGru ? 3 : 1; }

  StatusOr<Value*> Op(const std::string& op, std::vector<Arg> args, std::vector<int64_t> sizes) {
    return b.Emit(op, std::move(args), std::move(sizes), dt);
  }
  StatusOr<Value*> Unary(const char* op, Value* x) { return Op(op, {Arg::Of(x)}, x->meta().sizes); }
  StatusOr<Value*> Binary(const char* op, Value* x, Value* y) {
    std::vector<Arg> args = {Arg::Of(x), Arg::Of(y)};
    if (std::string(op) != "aten::mul.Tensor") args.push_back(L(Literal::Int(1)));  // alpha
    return Op(op, std::move(args), x->meta().sizes);
  }
  // Gate k of a [batch, gates * hidden] tensor.
  StatusOr<Value*> Gate(Value* x, int64_t k) {
    return Op("aten::slice.Tensor",
              {Arg::Of(x), L(Literal::Int(1)), L(Literal::Int(k * hidden)), L(Literal::Int((k + 1) * hidden)),
               L(Literal::Int(1))},
              {batch, hidden});
  }
  StatusOr<Value*> Linear(Value* x, Value* w, Value* bias, std::vector<int64_t> sizes) {
    return Op("aten::linear", {Arg::Of(x), Arg::Of(w), bias ? Arg::Of(bias) : L(Literal::None())}, std::move(sizes));
  }
  StatusOr<Value*> Select(Value* x, int64_t i) {
    std::vector<int64_t> s(x->meta().sizes.begin() + 1, x->meta().sizes.end());
    return Op("aten::select.int", {Arg::Of(x), L(Literal::Int(0)), L(Literal::Int(i))}, s);
  }
  // cat of [B, H] (or [T, B, H]) pieces along a new leading (or the given) dim.
  StatusOr<Value*> Stack(const std::vector<Value*>& xs) {
    std::vector<Value*> us;
    for (Value* x : xs) {
      std::vector<int64_t> s = x->meta().sizes;
      s.insert(s.begin(), 1);
      AOT_ASSIGN_OR_RETURN(Value * u, Op("aten::unsqueeze", {Arg::Of(x), L(Literal::Int(0))}, s));
      us.push_back(u);
    }
    return Cat(us, 0);
  }
  StatusOr<Value*> Cat(const std::vector<Value*>& xs, int64_t dim) {
    if (xs.size() == 1) return xs[0];
    std::vector<int64_t> s = xs[0]->meta().sizes;
    s[static_cast<size_t>(dim)] = 0;
    for (Value* x : xs) s[static_cast<size_t>(dim)] += x->meta().sizes[static_cast<size_t>(dim)];
    return Op("aten::cat", {Arg::List(xs), L(Literal::Int(dim))}, s);
  }

  // One step: xg = x_t W_ih^T + b_ih (precomputed), hg = h W_hh^T + b_hh.
  Status Step(Value* xg, Value* w_hh, Value* b_hh, Value** h, Value** c) {
    const std::vector<int64_t> gs = {batch, Gates() * hidden};
    AOT_ASSIGN_OR_RETURN(Value * hg, Linear(*h, w_hh, b_hh, gs));
    switch (cell) {
      case Cell::kTanh:
      case Cell::kRelu: {
        AOT_ASSIGN_OR_RETURN(Value * s, Binary("aten::add.Tensor", xg, hg));
        AOT_ASSIGN_OR_RETURN(*h, Unary(cell == Cell::kTanh ? "aten::tanh" : "aten::relu", s));
        return Status::Ok();
      }
      case Cell::kLstm: {
        AOT_ASSIGN_OR_RETURN(Value * g, Binary("aten::add.Tensor", xg, hg));
        Value* gate[4];
        for (int k = 0; k < 4; ++k) {
          AOT_ASSIGN_OR_RETURN(Value * s, Gate(g, k));
          AOT_ASSIGN_OR_RETURN(gate[k], Unary(k == 2 ? "aten::tanh" : "aten::sigmoid", s));
        }
        AOT_ASSIGN_OR_RETURN(Value * fc, Binary("aten::mul.Tensor", gate[1], *c));
        AOT_ASSIGN_OR_RETURN(Value * ig, Binary("aten::mul.Tensor", gate[0], gate[2]));
        AOT_ASSIGN_OR_RETURN(*c, Binary("aten::add.Tensor", fc, ig));
        AOT_ASSIGN_OR_RETURN(Value * tc, Unary("aten::tanh", *c));
        AOT_ASSIGN_OR_RETURN(*h, Binary("aten::mul.Tensor", gate[3], tc));
        return Status::Ok();
      }
      case Cell::kGru: {
        Value *xr, *xz, *xn, *hr, *hz, *hn;
        AOT_ASSIGN_OR_RETURN(xr, Gate(xg, 0));
        AOT_ASSIGN_OR_RETURN(xz, Gate(xg, 1));
        AOT_ASSIGN_OR_RETURN(xn, Gate(xg, 2));
        AOT_ASSIGN_OR_RETURN(hr, Gate(hg, 0));
        AOT_ASSIGN_OR_RETURN(hz, Gate(hg, 1));
        AOT_ASSIGN_OR_RETURN(hn, Gate(hg, 2));
        AOT_ASSIGN_OR_RETURN(Value * r0, Binary("aten::add.Tensor", xr, hr));
        AOT_ASSIGN_OR_RETURN(Value * r, Unary("aten::sigmoid", r0));
        AOT_ASSIGN_OR_RETURN(Value * z0, Binary("aten::add.Tensor", xz, hz));
        AOT_ASSIGN_OR_RETURN(Value * z, Unary("aten::sigmoid", z0));
        AOT_ASSIGN_OR_RETURN(Value * rn, Binary("aten::mul.Tensor", r, hn));
        AOT_ASSIGN_OR_RETURN(Value * n0, Binary("aten::add.Tensor", xn, rn));
        AOT_ASSIGN_OR_RETURN(Value * nn, Unary("aten::tanh", n0));
        // h' = (1 - z) * n + z * h = n + z * (h - n)
        AOT_ASSIGN_OR_RETURN(Value * d, Binary("aten::sub.Tensor", *h, nn));
        AOT_ASSIGN_OR_RETURN(Value * zd, Binary("aten::mul.Tensor", z, d));
        AOT_ASSIGN_OR_RETURN(*h, Binary("aten::add.Tensor", nn, zd));
        return Status::Ok();
      }
    }
    return Internal("unknown RNN cell");
  }
};

bool Flag(const Node* n, int i) { return n->args()[static_cast<size_t>(i)].literal.b; }

}  // namespace

StatusOr<std::vector<Value*>> UnrollRnn(DecomposeBuilder& b, const Node* n) {
  const std::string& name = n->op().schema.name;
  const Cell cell = name == "lstm"       ? Cell::kLstm
                    : name == "gru"      ? Cell::kGru
                    : name == "rnn_tanh" ? Cell::kTanh
                                         : Cell::kRelu;
  const std::vector<Arg>& a = n->args();
  if (a.size() != 9 || a[2].kind != Arg::Kind::kValueList) return Unsupported("unexpected arguments");
  const bool has_biases = Flag(n, 3), train = Flag(n, 6), bidir = Flag(n, 7), batch_first = Flag(n, 8);
  const int64_t layers = a[4].literal.i, dirs = bidir ? 2 : 1;
  if (train && a[5].literal.f != 0.0 && layers > 1)
    return Unsupported("training-mode dropout between RNN layers is random; trace the model in eval mode");
  const std::vector<Value*>& params = a[2].list;
  const size_t per = has_biases ? 4 : 2;
  if (params.size() != per * static_cast<size_t>(layers * dirs))
    return Unsupported("RNN parameters of an unexpected count (proj_size is not supported)");
  std::vector<Value*> h0s, c0s;  // [layers * dirs, B, H]
  if (cell == Cell::kLstm) {
    if (a[1].kind != Arg::Kind::kValueList || a[1].list.size() != 2) return Unsupported("lstm needs (h0, c0)");
    h0s.push_back(a[1].list[0]);
    c0s.push_back(a[1].list[1]);
  } else {
    h0s.push_back(n->input(1));
  }
  Value* x = n->input(0);
  const DType dt = x->meta().dtype;
  if (x->meta().sizes.size() != 3 || !h0s[0] || h0s[0]->meta().sizes.size() != 3)
    return Unsupported("only batched (3-D) RNN inputs are supported");
  const int64_t hidden = h0s[0]->meta().sizes[2], batch = h0s[0]->meta().sizes[1];
  Rnn r{b, cell, dt, batch, hidden};
  if (batch_first) {
    std::vector<int64_t> s = {x->meta().sizes[1], x->meta().sizes[0], x->meta().sizes[2]};
    AOT_ASSIGN_OR_RETURN(x, r.Op("aten::transpose.int", {Arg::Of(x), L(Literal::Int(0)), L(Literal::Int(1))}, s));
  }
  const int64_t steps = x->meta().sizes[0];
  std::vector<Value*> h_n, c_n;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<Value*> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t p = per * static_cast<size_t>(l * dirs + d);
      Value *w_ih = params[p], *w_hh = params[p + 1];
      Value* b_ih = has_biases ? params[p + 2] : nullptr;
      Value* b_hh = has_biases ? params[p + 3] : nullptr;
      AOT_ASSIGN_OR_RETURN(Value * xg, r.Linear(x, w_ih, b_ih, {steps, batch, r.Gates() * hidden}));
      Value* c = nullptr;
      AOT_ASSIGN_OR_RETURN(Value * h, r.Select(h0s[0], l * dirs + d));
      if (cell == Cell::kLstm) {
        AOT_ASSIGN_OR_RETURN(c, r.Select(c0s[0], l * dirs + d));
      }
      std::vector<Value*> ys(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = d == 0 ? i : steps - 1 - i;
        AOT_ASSIGN_OR_RETURN(Value * xt, r.Select(xg, t));
        AOT_RETURN_IF_ERROR(r.Step(xt, w_hh, b_hh, &h, &c));
        ys[static_cast<size_t>(t)] = h;
      }
      AOT_ASSIGN_OR_RETURN(Value * y, r.Stack(ys));
      outs.push_back(y);
      h_n.push_back(h);
      if (c) c_n.push_back(c);
    }
    AOT_ASSIGN_OR_RETURN(x, r.Cat(outs, 2));
  }
  if (batch_first) {
    std::vector<int64_t> s = {x->meta().sizes[1], x->meta().sizes[0], x->meta().sizes[2]};
    AOT_ASSIGN_OR_RETURN(x, r.Op("aten::transpose.int", {Arg::Of(x), L(Literal::Int(0)), L(Literal::Int(1))}, s));
  }
  std::vector<Value*> results = {x};
  AOT_ASSIGN_OR_RETURN(Value * hs, r.Stack(h_n));
  results.push_back(hs);
  if (cell == Cell::kLstm) {
    AOT_ASSIGN_OR_RETURN(Value * cs, r.Stack(c_n));
    results.push_back(cs);
  }
  if (results.size() != n->outputs().size()) return Internal("RNN result count differs from the node's");
  return results;
}

}  // namespace atenaot
