#include "passes/decompose_shape.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace atenaot {
namespace {

using Sizes = std::vector<int64_t>;

Arg I(int64_t v) { return L(Literal::Int(v)); }

// Values made here that view their input (a slice, a view) are copied before
// they replace a node's result, which owns its memory in the graph.
struct Piecewise {
  DecomposeBuilder& b;
  DType dt;
  bool fresh = false;  // whether `cur` has its own memory

  StatusOr<Value*> Slice(Value* x, int64_t dim, int64_t lo, int64_t hi) {
    Sizes s = x->meta().sizes;
    s[static_cast<size_t>(dim)] = hi - lo;
    fresh = false;
    return b.Emit("aten::slice.Tensor", {Arg::Of(x), I(dim), I(lo), I(hi), I(1)}, s, dt);
  }
  StatusOr<Value*> Full(Sizes s, const Literal& value) {
    return b.Emit("aten::full",
                  {L(Literal::IntList(s)), L(value), I(AtenScalarTypeCode(dt)), L(Literal::None()),
                   L(Literal::Device("cpu")), L(Literal::None())},
                  s, dt);
  }
  StatusOr<Value*> Cat(const std::vector<Value*>& pieces, int64_t dim) {
    Sizes s = pieces[0]->meta().sizes;
    s[static_cast<size_t>(dim)] = 0;
    for (Value* p : pieces) s[static_cast<size_t>(dim)] += p->meta().sizes[static_cast<size_t>(dim)];
    fresh = true;
    return b.Emit("aten::cat", {Arg::List(pieces), I(dim)}, s, dt);
  }
  StatusOr<Value*> Owned(Value* x) {
    if (fresh) return x;
    return b.Emit("aten::clone", {Arg::Of(x), L(Literal::None())}, x->meta().sizes, dt);
  }
};

}  // namespace

StatusOr<Value*> DecomposeConstantPad(DecomposeBuilder& b, const Node* n) {
  Value* x = n->input(0);
  const Sizes& pad = n->args()[1].literal.ints;
  Literal value = Literal::Float(0);
  if (n->op().schema.name == "pad") {
    const Literal& mode = n->args()[2].literal;
    if (mode.kind == Literal::Kind::kString && mode.s != "constant")
      return Unsupported("pad in mode '" + mode.s + "' (only constant padding is decomposed)");
    if (n->args()[3].literal.kind != Literal::Kind::kNone) value = n->args()[3].literal;
  } else {
    value = n->args()[2].literal;
  }
  const int64_t rank = static_cast<int64_t>(x->meta().sizes.size());
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * rank)
    return InvalidArgument("pad needs an even number of sizes, at most two per dimension");
  Piecewise p{b, n->output()->meta().dtype};
  Value* cur = x;
  // pad lists (low, high) pairs from the last dimension backwards. Crops
  // (negative pads) first, so the blocks are only as large as what is kept.
  for (size_t k = 0; 2 * k < pad.size(); ++k) {
    const int64_t d = rank - 1 - static_cast<int64_t>(k), lo = pad[2 * k], hi = pad[2 * k + 1];
    if (lo >= 0 && hi >= 0) continue;
    const int64_t size = cur->meta().sizes[static_cast<size_t>(d)];
    const int64_t from = std::max<int64_t>(-lo, 0), to = size - std::max<int64_t>(-hi, 0);
    if (to < from) return InvalidArgument("pad crops dimension " + std::to_string(d) + " below size 0");
    AOT_ASSIGN_OR_RETURN(cur, p.Slice(cur, d, from, to));
  }
  for (size_t k = 0; 2 * k < pad.size(); ++k) {
    const int64_t d = rank - 1 - static_cast<int64_t>(k), lo = pad[2 * k], hi = pad[2 * k + 1];
    std::vector<Value*> pieces = {cur};
    Sizes block = cur->meta().sizes;
    if (lo > 0) {
      block[static_cast<size_t>(d)] = lo;
      AOT_ASSIGN_OR_RETURN(Value * f, p.Full(block, value));
      pieces.insert(pieces.begin(), f);
    }
    if (hi > 0) {
      block[static_cast<size_t>(d)] = hi;
      AOT_ASSIGN_OR_RETURN(Value * f, p.Full(block, value));
      pieces.push_back(f);
    }
    if (pieces.size() > 1) {
      AOT_ASSIGN_OR_RETURN(cur, p.Cat(pieces, d));
    }
  }
  return p.Owned(cur);
}

StatusOr<Value*> DecomposeRoll(DecomposeBuilder& b, const Node* n) {
  Value* x = n->input(0);
  const Sizes& shifts = n->args()[1].literal.ints;
  Sizes dims = n->args()[2].literal.ints;
  const Sizes& xs = x->meta().sizes;
  const DType dt = n->output()->meta().dtype;
  Piecewise p{b, dt};
  Value* cur = x;
  if (dims.empty()) {  // roll the flattened tensor, then restore the shape
    if (shifts.size() != 1) return InvalidArgument("roll without dims takes one shift");
    AOT_ASSIGN_OR_RETURN(Value * c, b.Emit("aten::contiguous", {Arg::Of(x), I(0)}, xs, dt));
    AOT_ASSIGN_OR_RETURN(
        cur, b.Emit("aten::view", {Arg::Of(c), L(Literal::IntList({x->meta().numel()}))}, {x->meta().numel()}, dt));
    dims = {0};
  } else if (dims.size() != shifts.size()) {
    return InvalidArgument("roll needs as many shifts as dims");
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t rank = static_cast<int64_t>(cur->meta().sizes.size());
    const int64_t d = dims[k] < 0 ? dims[k] + rank : dims[k];
    const int64_t size = cur->meta().sizes[static_cast<size_t>(d)];
    if (size == 0) continue;
    const int64_t s = ((shifts[k] % size) + size) % size;  // elements that wrap to the front
    if (s == 0) continue;
    AOT_ASSIGN_OR_RETURN(Value * tail, p.Slice(cur, d, size - s, size));
    AOT_ASSIGN_OR_RETURN(Value * head, p.Slice(cur, d, 0, size - s));
    AOT_ASSIGN_OR_RETURN(cur, p.Cat({tail, head}, d));
  }
  if (cur->meta().sizes != xs) {
    AOT_ASSIGN_OR_RETURN(cur, b.Emit("aten::view", {Arg::Of(cur), L(Literal::IntList(xs))}, xs, dt));
    // A view of a fresh cat is still the roll's own memory.
  }
  return p.Owned(cur);
}

StatusOr<Value*> DecomposeRepeat(DecomposeBuilder& b, const Node* n) {
  Value* x = n->input(0);
  const Sizes& reps = n->args()[1].literal.ints;
  const Sizes& xs = x->meta().sizes;
  const DType dt = n->output()->meta().dtype;
  if (reps.size() < xs.size())
    return InvalidArgument("repeat needs at least as many repeats (" + std::to_string(reps.size()) +
                           ") as the tensor has dimensions (" + std::to_string(xs.size()) + ")");
  // x as [1, p0, 1, p1, ...] (p: its sizes after leading 1s up to reps'
  // length), expanded to [r0, p0, r1, p1, ...], copied, read as [r0 p0, ...].
  Value* cur = x;
  Sizes s = xs;
  auto unsqueeze = [&](int64_t dim) -> Status {
    s.insert(s.begin() + dim, 1);
    AOT_ASSIGN_OR_RETURN(cur, b.Emit("aten::unsqueeze", {Arg::Of(cur), I(dim)}, s, dt));
    return Status::Ok();
  };
  for (size_t k = xs.size(); k < reps.size(); ++k) AOT_RETURN_IF_ERROR(unsqueeze(0));
  const Sizes padded = s;
  for (size_t d = 0; d < reps.size(); ++d) AOT_RETURN_IF_ERROR(unsqueeze(static_cast<int64_t>(2 * d)));
  Sizes wide, out;
  for (size_t d = 0; d < reps.size(); ++d) {
    wide.push_back(reps[d]);
    wide.push_back(padded[d]);
    out.push_back(reps[d] * padded[d]);
  }
  AOT_ASSIGN_OR_RETURN(
      cur, b.Emit("aten::expand", {Arg::Of(cur), L(Literal::IntList(wide)), L(Literal::Bool(false))}, wide, dt));
  // A contiguous copy even where every repeat is 1 (the result owns its memory).
  AOT_ASSIGN_OR_RETURN(cur, b.Emit("aten::clone", {Arg::Of(cur), I(0)}, wide, dt));
  return b.Emit("aten::view", {Arg::Of(cur), L(Literal::IntList(out))}, out, dt);
}

StatusOr<Value*> DecomposeNewFactory(DecomposeBuilder& b, const Node* n) {
  const Value* out = n->output();
  const std::string& name = n->op().schema.name;  // new_zeros, new_ones, new_full
  const DType dt = out->meta().dtype;
  std::vector<Arg> args = {L(Literal::IntList(out->meta().sizes))};
  if (name == "new_full") args.push_back(n->args()[2]);
  for (Arg a : {I(AtenScalarTypeCode(dt)), L(Literal::None()), L(Literal::Device("cpu")), L(Literal::None())})
    args.push_back(a);
  const std::string op = name == "new_zeros" ? "aten::zeros" : name == "new_ones" ? "aten::ones" : "aten::full";
  return b.Emit(op, std::move(args), out->meta().sizes, dt);
}

StatusOr<Value*> DecomposeNorm(DecomposeBuilder& b, const Node* n) {
  const Value* out = n->output();
  Value* x = n->input(0);
  const std::string& name = n->op().schema.name;
  const std::string& ov = n->op().schema.overload;
  const DType dt = out->meta().dtype;
  if (!IsFloatingPoint(dt) || !IsFloatingPoint(x->meta().dtype)) return Unsupported("norm of a non-float tensor");
  // (p, dims, keepdim): norm.Scalar(self, p), norm.ScalarOpt_dim(self, p, dim,
  // keepdim), linalg_vector_norm(self, ord, dim, keepdim, dtype),
  // frobenius_norm(self) and frobenius_norm.dim(self, dim, keepdim) (p = 2).
  const bool frobenius = name == "frobenius_norm";
  const Literal& pl = frobenius ? Literal::None() : n->args()[1].literal;
  double p = pl.kind == Literal::Kind::kNone    ? 2.0
             : pl.kind == Literal::Kind::kFloat ? pl.f
                                                : static_cast<double>(pl.i);
  Literal dims = Literal::IntList({});
  bool keepdim = false;
  if (frobenius) {
    if (ov == "dim") {
      dims = n->args()[1].literal;
      keepdim = n->args()[2].literal.b;
    } else if (!ov.empty()) {
      return Unsupported("frobenius_norm overload " + ov);
    }
  } else if (name == "linalg_vector_norm" || ov == "ScalarOpt_dim") {
    if (n->args()[2].literal.kind == Literal::Kind::kIntList) dims = n->args()[2].literal;
    keepdim = n->args()[3].literal.b;
  } else if (!ov.empty() && ov != "Scalar") {
    return Unsupported("norm overload " + ov);
  }
  if (name == "linalg_vector_norm" && n->args()[4].literal.kind != Literal::Kind::kNone)
    return Unsupported("linalg_vector_norm with a dtype");
  const Sizes& xs = x->meta().sizes;
  const Sizes& ys = out->meta().sizes;
  auto reduce = [&](const char* op, Value* v) {
    std::vector<Arg> args = {Arg::Of(v), L(dims), L(Literal::Bool(keepdim))};
    if (std::string(op) == "aten::sum.dim_IntList") args.push_back(I(AtenScalarTypeCode(dt)));
    return b.Emit(op, std::move(args), ys, dt);
  };
  if (p == 0) {  // the number of non-zero elements
    AOT_ASSIGN_OR_RETURN(Value * nz, b.Emit("aten::ne.Scalar", {Arg::Of(x), I(0)}, xs, DType::kBool));
    return reduce("aten::sum.dim_IntList", nz);
  }
  if (p == 2) {
    AOT_ASSIGN_OR_RETURN(Value * sq, b.Emit("aten::mul.Tensor", {Arg::Of(x), Arg::Of(x)}, xs, dt));
    AOT_ASSIGN_OR_RETURN(Value * s, reduce("aten::sum.dim_IntList", sq));
    return b.Emit("aten::sqrt", {Arg::Of(s)}, ys, dt);
  }
  AOT_ASSIGN_OR_RETURN(Value * a, b.Emit("aten::abs", {Arg::Of(x)}, xs, dt));
  if (std::isinf(p)) return reduce(p > 0 ? "aten::amax" : "aten::amin", a);
  if (p == 1) return reduce("aten::sum.dim_IntList", a);
  AOT_ASSIGN_OR_RETURN(Value * pw, b.Emit("aten::pow.Tensor_Scalar", {Arg::Of(a), L(Literal::Float(p))}, xs, dt));
  AOT_ASSIGN_OR_RETURN(Value * s, reduce("aten::sum.dim_IntList", pw));
  return b.Emit("aten::pow.Tensor_Scalar", {Arg::Of(s), L(Literal::Float(1.0 / p))}, ys, dt);
}

StatusOr<Value*> DecomposeLogsumexp(DecomposeBuilder& b, const Node* n) {
  const Value* out = n->output();
  Value* x = n->input(0);
  const DType dt = out->meta().dtype;
  if (!IsFloatingPoint(dt) || !IsFloatingPoint(x->meta().dtype)) return Unsupported("logsumexp of a non-float tensor");
  const Literal& dims = n->args()[1].literal;
  const bool keepdim = n->args()[2].literal.b;
  const Sizes &xs = x->meta().sizes, &ys = out->meta().sizes;
  const int64_t rank = static_cast<int64_t>(xs.size());
  Sizes ks = xs;  // the max's shape, reduced dims kept as 1 (all of them for an empty list)
  for (size_t d = 0; d < ks.size(); ++d)
    if (dims.ints.empty()) ks[d] = 1;
  for (int64_t d : dims.ints) {
    const int64_t w = d < 0 ? d + rank : d;
    if (w >= 0 && w < rank) ks[static_cast<size_t>(w)] = 1;
  }
  auto unary = [&](const char* op, Value* v) { return b.Emit(op, {Arg::Of(v)}, v->meta().sizes, dt); };
  auto sum_exp = [&](Value* v) -> StatusOr<Value*> {
    AOT_ASSIGN_OR_RETURN(Value * e, unary("aten::exp", v));
    AOT_ASSIGN_OR_RETURN(Value * s,
                         b.Emit("aten::sum.dim_IntList",
                                {Arg::Of(e), L(dims), L(Literal::Bool(keepdim)), I(AtenScalarTypeCode(dt))}, ys, dt));
    return unary("aten::log", s);
  };
  if (x->meta().numel() == 0) return sum_exp(x);  // eager: log of an empty sum, -inf (no max to take)
  // As ATen: m = amax(x, dims, keepdim=True) with infinite maxima replaced by
  // 0 (so inf - inf gives no NaN), log(sum(exp(x - m))) + m.
  AOT_ASSIGN_OR_RETURN(Value * m, b.Emit("aten::amax", {Arg::Of(x), L(dims), L(Literal::Bool(true))}, ks, dt));
  AOT_ASSIGN_OR_RETURN(Value * a, unary("aten::abs", m));
  AOT_ASSIGN_OR_RETURN(Value * inf,
                       b.Emit("aten::eq.Scalar", {Arg::Of(a), L(Literal::Float(INFINITY))}, ks, DType::kBool));
  AOT_ASSIGN_OR_RETURN(Value * m0, b.Emit("aten::masked_fill.Scalar", {Arg::Of(m), Arg::Of(inf), I(0)}, ks, dt));
  AOT_ASSIGN_OR_RETURN(Value * d, b.Emit("aten::sub.Tensor", {Arg::Of(x), Arg::Of(m0), I(1)}, xs, dt));
  AOT_ASSIGN_OR_RETURN(Value * l, sum_exp(d));
  Value* mk = m0;
  if (!keepdim) {
    AOT_ASSIGN_OR_RETURN(mk, b.Emit("aten::view", {Arg::Of(m0), L(Literal::IntList(ys))}, ys, dt));
  }
  return b.Emit("aten::add.Tensor", {Arg::Of(l), Arg::Of(mk), I(1)}, ys, dt);
}

StatusOr<Value*> DecomposeFlip(DecomposeBuilder& b, const Node* n) {
  Value* x = n->input(0);
  const DType dt = n->output()->meta().dtype;
  const int64_t rank = static_cast<int64_t>(x->meta().sizes.size()), wrap = std::max<int64_t>(rank, 1);
  std::vector<bool> seen(static_cast<size_t>(wrap), false);
  Value* cur = x;
  for (int64_t d : n->args()[1].literal.ints) {
    if (d < -wrap || d >= wrap)
      return InvalidArgument("flip: dimension " + std::to_string(d) + " out of range for a tensor of rank " +
                             std::to_string(rank));
    const int64_t w = d < 0 ? d + wrap : d;
    if (seen[static_cast<size_t>(w)]) return InvalidArgument("flip: dimension " + std::to_string(w) + " given twice");
    seen[static_cast<size_t>(w)] = true;
    const int64_t size = rank == 0 ? 1 : cur->meta().sizes[static_cast<size_t>(w)];
    if (size <= 1) continue;
    // index_select with the indices size - 1, ..., 0 (an arange the kernel writes each run)
    AOT_ASSIGN_OR_RETURN(Value * idx, b.Emit("aten::arange.start_step",
                                             {I(size - 1), I(-1), I(-1), I(AtenScalarTypeCode(DType::kInt64)),
                                              L(Literal::None()), L(Literal::Device("cpu")), L(Literal::None())},
                                             {size}, DType::kInt64));
    AOT_ASSIGN_OR_RETURN(cur, b.Emit("aten::index_select", {Arg::Of(cur), I(w), Arg::Of(idx)}, cur->meta().sizes, dt));
  }
  if (cur == x)  // nothing to reverse: still a new tensor, as eager's
    return b.Emit("aten::clone", {Arg::Of(x), L(Literal::None())}, x->meta().sizes, dt);
  return cur;
}

StatusOr<Value*> DecomposeArgsort(DecomposeBuilder& b, const Node* n) {
  // argsort(self, dim, descending) and argsort.stable(self, stable, dim,
  // descending) take sort's and sort.stable's arguments: their indices.
  Value* x = n->input(0);
  const std::string sort = n->op().schema.overload == "stable" ? "aten::sort.stable" : "aten::sort";
  AOT_ASSIGN_OR_RETURN(
      std::vector<Value*> r,
      b.EmitResults(sort, n->args(), {{x->meta().sizes, x->meta().dtype}, {x->meta().sizes, DType::kInt64}}));
  return r[1];
}

}  // namespace atenaot
