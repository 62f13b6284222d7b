#include "passes/decompose.h"

#include <functional>
#include <limits>
#include <map>

#include "passes/decompose_attention.h"
#include "passes/decompose_builder.h"
#include "passes/decompose_einsum.h"
#include "passes/decompose_rnn.h"
#include "passes/decompose_shape.h"
#include "passes/split_linear.h"

namespace atenaot {
namespace {

using Builder = DecomposeBuilder;

using Rule = std::function<StatusOr<Value*>(Builder&, const Node*)>;
// Rules for ops with several results: one replacement per result.
using MultiRule = std::function<StatusOr<std::vector<Value*>>(Builder&, const Node*)>;

StatusOr<Value*> Stack(Builder& b, const Node* n) {
  const Value* out = n->output();
  const int64_t rank = static_cast<int64_t>(out->meta().sizes.size());
  int64_t dim = n->args()[1].literal.i;
  if (dim < 0) dim += rank;
  std::vector<Value*> pieces;
  for (Value* t : n->args()[0].list) {
    std::vector<int64_t> s = t->meta().sizes;
    s.insert(s.begin() + dim, 1);
    AOT_ASSIGN_OR_RETURN(Value * u, b.Emit("aten::unsqueeze", {Arg::Of(t), L(Literal::Int(dim))}, s, t->meta().dtype));
    pieces.push_back(u);
  }
  return b.Emit("aten::cat", {Arg::List(pieces), L(Literal::Int(dim))}, out->meta().sizes, out->meta().dtype);
}

StatusOr<Value*> Baddbmm(Builder& b, const Node* n) {
  const Value* out = n->output();
  Value *self = n->input(0), *b1 = n->input(1), *b2 = n->input(2);
  std::vector<int64_t> ms = {b1->meta().sizes[0], b1->meta().sizes[1], b2->meta().sizes[2]};
  AOT_ASSIGN_OR_RETURN(Value * m, b.Emit("aten::bmm", {Arg::Of(b1), Arg::Of(b2)}, ms, out->meta().dtype));
  AOT_ASSIGN_OR_RETURN(
      Value * s, b.Emit("aten::mul.Scalar", {Arg::Of(self), n->args()[3]}, self->meta().sizes, out->meta().dtype));
  return b.Emit("aten::add.Tensor", {Arg::Of(s), Arg::Of(m), n->args()[4]}, out->meta().sizes, out->meta().dtype);
}

StatusOr<Value*> AsMatmul(Builder& b, const Node* n) {
  const Value* out = n->output();
  return b.Emit("aten::matmul", {Arg::Of(n->input(0)), Arg::Of(n->input(1))}, out->meta().sizes, out->meta().dtype);
}

// var / std: mean of squared deviations over `dims`, scaled by n / (n - correction).
StatusOr<Value*> VarStd(Builder& b, const Node* n, bool is_std) {
  const Value* out = n->output();
  Value* x = n->input(0);
  const std::vector<int64_t>& xs = x->meta().sizes;
  const int64_t rank = static_cast<int64_t>(xs.size());
  const std::string& ov = n->op().schema.overload;
  std::vector<int64_t> dims;
  bool keepdim = false;
  int64_t correction = 1;
  if (ov.empty()) {
    correction = n->args()[1].literal.b ? 1 : 0;
  } else {
    if (n->args()[1].literal.kind == Literal::Kind::kIntList) dims = n->args()[1].literal.ints;
    if (ov == "dim") {
      correction = n->args()[2].literal.b ? 1 : 0;
      keepdim = n->args()[3].literal.b;
    } else {  // correction
      if (n->args()[2].literal.kind == Literal::Kind::kInt) correction = n->args()[2].literal.i;
      keepdim = n->args()[3].literal.b;
    }
  }
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  std::vector<int64_t> kept = xs;
  int64_t count = 1;
  for (int64_t& d : dims) {
    if (d < 0) d += rank;
    kept[static_cast<size_t>(d)] = 1;
    count *= xs[static_cast<size_t>(d)];
  }
  const DType dt = out->meta().dtype;
  auto mean = [&](Value* v, bool keep, const std::vector<int64_t>& sizes) {
    return b.Emit("aten::mean.dim", {Arg::Of(v), L(Literal::IntList(dims)), L(Literal::Bool(keep)), L(Literal::None())},
                  sizes, dt);
  };
  AOT_ASSIGN_OR_RETURN(Value * m, mean(x, true, kept));
  AOT_ASSIGN_OR_RETURN(Value * d, b.Emit("aten::sub.Tensor", {Arg::Of(x), Arg::Of(m), L(Literal::Int(1))}, xs, dt));
  AOT_ASSIGN_OR_RETURN(Value * sq, b.Emit("aten::mul.Tensor", {Arg::Of(d), Arg::Of(d)}, xs, dt));
  AOT_ASSIGN_OR_RETURN(Value * v, mean(sq, keepdim, out->meta().sizes));
  const double factor = count - correction > 0 ? static_cast<double>(count) / static_cast<double>(count - correction)
                                               : std::numeric_limits<double>::infinity();
  AOT_ASSIGN_OR_RETURN(Value * scaled,
                       b.Emit("aten::mul.Scalar", {Arg::Of(v), L(Literal::Float(factor))}, out->meta().sizes, dt));
  if (!is_std) return scaled;
  return b.Emit("aten::sqrt", {Arg::Of(scaled)}, out->meta().sizes, dt);
}

const std::map<std::string, Rule>& Table() {
  static const std::map<std::string, Rule> table = {
      {"aten::stack", Stack},
      {"aten::baddbmm", Baddbmm},
      {"aten::mv", AsMatmul},
      {"aten::dot", AsMatmul},
      {"aten::var", [](Builder& b, const Node* n) { return VarStd(b, n, false); }},
      {"aten::var.dim", [](Builder& b, const Node* n) { return VarStd(b, n, false); }},
      {"aten::var.correction", [](Builder& b, const Node* n) { return VarStd(b, n, false); }},
      {"aten::std", [](Builder& b, const Node* n) { return VarStd(b, n, true); }},
      {"aten::std.dim", [](Builder& b, const Node* n) { return VarStd(b, n, true); }},
      {"aten::std.correction", [](Builder& b, const Node* n) { return VarStd(b, n, true); }},
      {"aten::einsum", DecomposeEinsum},
      {"aten::pad", DecomposeConstantPad},
      {"aten::constant_pad_nd", DecomposeConstantPad},
      {"aten::roll", DecomposeRoll},
      {"aten::repeat", DecomposeRepeat},
      {"aten::new_zeros", DecomposeNewFactory},
      {"aten::new_ones", DecomposeNewFactory},
      {"aten::new_full", DecomposeNewFactory},
      {"aten::norm.Scalar", DecomposeNorm},
      {"aten::norm.ScalarOpt_dim", DecomposeNorm},
      {"aten::linalg_vector_norm", DecomposeNorm},
      {"aten::frobenius_norm", DecomposeNorm},
      {"aten::frobenius_norm.dim", DecomposeNorm},
      {"aten::logsumexp", DecomposeLogsumexp},
      {"aten::flip", DecomposeFlip},
      {"aten::argsort", DecomposeArgsort},
      {"aten::argsort.stable", DecomposeArgsort},
  };
  return table;
}

const std::map<std::string, MultiRule>& MultiTable() {
  static const std::map<std::string, MultiRule> table = {
      {"aten::lstm.input", UnrollRnn},
      {"aten::gru.input", UnrollRnn},
      {"aten::rnn_tanh.input", UnrollRnn},
      {"aten::rnn_relu.input", UnrollRnn},
      {"aten::_native_multi_head_attention", DecomposeNativeMha},
      {"aten::_transformer_encoder_layer_fwd", DecomposeEncoderLayer},
  };
  return table;
}

}  // namespace

std::vector<std::string> DecomposedOps() {
  std::vector<std::string> names;
  for (const auto& [name, rule] : Table()) names.push_back(name);
  for (const auto& [name, rule] : MultiTable()) names.push_back(name);
  return names;
}

Status Decompose(Graph& g, const OpTable& ops) {
  for (Node* n : g.NodesSnapshot()) {
    auto multi = MultiTable().find(n->op().qualified_name);
    if (multi != MultiTable().end()) {
      Builder b(g, ops, n);
      StatusOr<std::vector<Value*>> r = multi->second(b, n);
      if (!r.ok()) return r.status().WithContext("decomposing " + n->op().qualified_name);
      for (size_t k = 0; k < r->size(); ++k) g.ReplaceAllUsesWith(n->output(static_cast<int>(k)), (*r)[k]);
      g.Destroy(n);
      continue;
    }
    auto it = Table().find(n->op().qualified_name);
    if (it == Table().end() || n->outputs().size() != 1) continue;
    Builder b(g, ops, n);
    StatusOr<Value*> r = it->second(b, n);
    if (!r.ok()) return r.status().WithContext("decomposing " + n->op().qualified_name);
    g.ReplaceAllUsesWith(n->output(), *r);
    g.Destroy(n);
  }
  SplitLinearPieces(g, ops);  // after the rules: attention's packed projections are pieces too
  return Status::Ok();
}

}  // namespace atenaot
