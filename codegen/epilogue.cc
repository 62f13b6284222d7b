#include "codegen/epilogue.h"

#include "codegen/elementwise.h"
#include "codegen/kernels/aot_kernels.h"

namespace atenaot {
namespace {

bool Number(const Literal& l, double* v) {
  if (l.kind == Literal::Kind::kFloat)
    *v = l.f;
  else if (l.kind == Literal::Kind::kInt)
    *v = static_cast<double>(l.i);
  else
    return false;
  return true;
}

// The activation an in-place node applies, or -1.
int Activation(const Node* n, double* lo, double* hi) {
  const std::string& op = n->op().schema.name;
  if (op == "relu_") return AOT_ACT_RELU;
  if (op == "hardswish_") return AOT_ACT_HARDSWISH;
  if (op == "sigmoid_") return AOT_ACT_SIGMOID;
  if (op == "silu_") return AOT_ACT_SILU;
  if (op == "gelu_") return GeluTanhForm(*n) ? AOT_ACT_GELU_TANH : AOT_ACT_GELU;  // as its lowering reads it
  if ((op == "hardtanh_" || op == "clamp_") && n->args().size() >= 3 && Number(n->args()[1].literal, lo) &&
      Number(n->args()[2].literal, hi) && *lo <= *hi)
    return AOT_ACT_CLAMP;
  return -1;
}

}  // namespace

EpilogueMatch MatchEpilogue(const Value* result, const std::vector<const Node*>& group,
                            const std::unordered_set<const Value*>& fused) {
  EpilogueMatch m;
  const TensorMeta& rm = result->meta();
  for (const Node* n : group) {
    if (n->op().kind != OpKind::kInplace || n->input(0) != result || n->outputs().size() != 1) break;
    if (n->output()->meta().dtype != DType::kFloat32) break;
    if (n->op().schema.name == "add_" && !m.residual && m.act == 0 && n->args().size() >= 3) {
      const Value* o = n->input(1);
      double alpha = 0;
      if (!o || fused.count(o) || o->meta().dtype != DType::kFloat32 || o->meta().sizes != rm.sizes ||
          o->meta().strides != rm.strides || o->meta().storage == rm.storage || !Number(n->args()[2].literal, &alpha) ||
          alpha != 1)
        break;
      m.residual = o;
      ++m.nodes;
      continue;
    }
    double lo = 0, hi = 0;
    const int act = m.act == 0 ? Activation(n, &lo, &hi) : -1;
    if (act < 0) break;
    m.act = act;
    m.lo = lo;
    m.hi = hi;
    ++m.nodes;
  }
  return m;
}

}  // namespace atenaot
