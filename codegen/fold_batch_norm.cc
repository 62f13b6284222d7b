#include "codegen/fold_batch_norm.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "codegen/kernel_util.h"
#include "ir/op_table.h"

namespace atenaot {
namespace {

// The float32 contents of a contiguous weight value, or nullptr.
const WeightData* F32Weight(const Graph& g, const Value* v, int64_t numel) {
  if (!v || v->kind() != ValueKind::kWeight || v->meta().dtype != DType::kFloat32 || v->meta().offset != 0 ||
      !v->meta().IsContiguous() || v->meta().numel() != numel)
    return nullptr;
  auto it = g.weights().find(v->weight_key());
  if (it == g.weights().end() || it->second.bytes.size() != static_cast<size_t>(numel) * 4) return nullptr;
  return &it->second;
}

std::vector<double> Floats(const WeightData* d, int64_t n, double absent) {
  std::vector<double> out(static_cast<size_t>(n), absent);
  if (!d) return out;
  for (int64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, &d->bytes[static_cast<size_t>(i) * 4], 4);
    out[static_cast<size_t>(i)] = f;
  }
  return out;
}

Value* NewF32Weight(Graph& g, const std::string& name, const std::vector<int64_t>& sizes,
                    const std::vector<double>& v) {
  std::vector<uint8_t> bytes(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    const float f = static_cast<float>(v[i]);
    std::memcpy(&bytes[i * 4], &f, 4);
  }
  return AddFoldedWeight(g, name, DType::kFloat32, sizes, std::move(bytes));
}

// An eval-mode batch_norm (training false, a float eps) with one output.
bool IsEvalBatchNorm(const Node* bn) {
  if (bn->op().schema.name != "batch_norm" || bn->outputs().size() != 1 || bn->args().size() < 8) return false;
  const Literal& training = bn->args()[5].literal;
  return training.kind == Literal::Kind::kBool && !training.b && bn->args()[7].literal.kind == Literal::Kind::kFloat;
}

// Its per-channel constants as doubles (no weight: gamma 1; no bias: beta 0)
// and eps; false unless mean, var and any weight and bias are float32 weights
// of `channels` elements.
struct BatchNormConstants {
  std::vector<double> gamma, beta, mean, var;
  double eps = 0;
};
bool ReadBatchNormConstants(const Graph& g, const Node* bn, int64_t channels, BatchNormConstants* k) {
  const WeightData* gd = F32Weight(g, bn->input(1), channels);
  const WeightData* bd = F32Weight(g, bn->input(2), channels);
  const WeightData* md = F32Weight(g, bn->input(3), channels);
  const WeightData* vd = F32Weight(g, bn->input(4), channels);
  if (!md || !vd || (bn->input(1) && !gd) || (bn->input(2) && !bd)) return false;
  k->gamma = Floats(gd, channels, 1);
  k->beta = Floats(bd, channels, 0);
  k->mean = Floats(md, channels, 0);
  k->var = Floats(vd, channels, 1);
  k->eps = bn->args()[7].literal.f;
  return true;
}

bool FoldOne(Graph& g, Node* bn) {
  if (!IsEvalBatchNorm(bn)) return false;
  Value* c = bn->input(0);
  Node* conv = c ? c->producer() : nullptr;
  if (!conv || ClassifyKernel(conv) != KernelKind::kConv2d || conv->outputs().size() != 1 || c->uses().size() != 1)
    return false;
  if (!Conv2dArguments(conv).ok()) return false;
  Value* y = bn->output();
  const TensorMeta &cm = c->meta(), &ym = y->meta();
  if (cm.dtype != DType::kFloat32 || ym.dtype != DType::kFloat32 || cm.sizes != ym.sizes || cm.strides != ym.strides ||
      cm.offset != 0 || ym.offset != 0 || cm.sizes.size() != 4)
    return false;
  for (const Value* o : g.outputs())
    if (o == c) return false;
  const Value* w = conv->input(1);
  if (!w || w->meta().sizes.size() != 4) return false;
  const int64_t cout = w->meta().sizes[0], per = w->meta().numel() / std::max<int64_t>(cout, 1);
  const WeightData* wd = F32Weight(g, w, w->meta().numel());
  const WeightData* bd = F32Weight(g, conv->input(2), cout);
  BatchNormConstants k;
  if (!wd || (conv->input(2) && !bd) || !ReadBatchNormConstants(g, bn, cout, &k)) return false;
  const std::vector<double> wv = Floats(wd, w->meta().numel(), 0), bv = Floats(bd, cout, 0);
  std::vector<double> nw(wv.size()), nb(static_cast<size_t>(cout));
  for (int64_t o = 0; o < cout; ++o) {
    const size_t u = static_cast<size_t>(o);
    const double s = k.gamma[u] / std::sqrt(k.var[u] + k.eps);
    for (int64_t i = 0; i < per; ++i) nw[static_cast<size_t>(o * per + i)] = wv[static_cast<size_t>(o * per + i)] * s;
    nb[u] = (bv[u] - k.mean[u]) * s + k.beta[u];
  }
  Value* w2 = NewF32Weight(g, w->name() + ".bn_folded", w->meta().sizes, nw);
  Value* b2 = NewF32Weight(g, w->name() + ".bn_folded_bias", {cout}, nb);
  g.SetArg(conv, 1, Arg::Of(w2));
  g.SetArg(conv, 2, Arg::Of(b2));
  // y's users (and its in-place updates, which share y's storage) now work on c.
  const int64_t ys = ym.storage, cs = cm.storage;
  g.ReplaceAllUsesWith(y, c);
  g.Destroy(bn);
  for (Node* n : g.nodes())
    for (Value* o : n->outputs())
      if (o->meta().storage == ys) o->mutable_meta().storage = cs;
  return true;
}

// An eval-mode batch_norm with constant parameters that no conv absorbs (it
// follows a cat or a pool) becomes addcmul(beta, x, alpha) with per-channel
// alpha = gamma / sqrt(var + eps) and beta = bias - mean * alpha, as eager's
// CPU kernel computes it: one multiply-add per element that fuses with the
// relu after it, instead of a division and a square root.
bool ToScaleShift(Graph& g, const OpTable& ops, Node* bn) {
  if (!IsEvalBatchNorm(bn)) return false;
  const OpInfo* addcmul = ops.Find("aten::addcmul");
  Value* x = bn->input(0);
  Value* y = bn->output();
  if (!addcmul || !x || x->meta().dtype != DType::kFloat32 || y->meta().dtype != DType::kFloat32 ||
      x->meta().sizes.size() < 2 || x->meta().sizes != y->meta().sizes)
    return false;
  const int64_t cn = x->meta().sizes[1];
  BatchNormConstants k;
  if (!ReadBatchNormConstants(g, bn, cn, &k)) return false;
  std::vector<double> alpha(static_cast<size_t>(cn)), beta(static_cast<size_t>(cn));
  for (size_t c = 0; c < alpha.size(); ++c) {
    alpha[c] = static_cast<float>(k.gamma[c] / std::sqrt(k.var[c] + k.eps));
    beta[c] = k.beta[c] - k.mean[c] * alpha[c];
  }
  std::vector<int64_t> shape(x->meta().sizes.size() - 1, 1);  // [C, 1, ...]: broadcasts along dim 1
  shape[0] = cn;
  const std::string base = bn->input(3)->name();
  Value* a = NewF32Weight(g, base + ".bn_scale", shape, alpha);
  Value* b = NewF32Weight(g, base + ".bn_shift", shape, beta);
  Node* n = g.CreateNode(addcmul, {Arg::Of(b), Arg::Of(x), Arg::Of(a), Arg::Of(Literal::Int(1))}, 1, bn);
  n->output()->mutable_meta() = y->meta();  // same layout and storage: in-place users of y stay right
  g.ReplaceAllUsesWith(y, n->output());     // graph outputs included
  g.Destroy(bn);
  return true;
}

}  // namespace

int FoldBatchNormIntoConv(Graph& g, const OpTable& ops) {
  std::vector<Node*> bns;
  for (Node* n : g.nodes())
    if (n->op().schema.name == "batch_norm") bns.push_back(n);
  int folded = 0;
  for (Node* bn : bns) folded += FoldOne(g, bn) || ToScaleShift(g, ops, bn) ? 1 : 0;
  return folded;
}

}  // namespace atenaot
