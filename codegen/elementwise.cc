#include "codegen/elementwise.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "codegen/c_types.h"
#include "ir/type_promotion.h"

namespace atenaot {
namespace {

using X = std::vector<std::string>;

bool IsFloat(const std::string& ct) { return ct == "float" || ct == "double"; }
// libm name for the compute type: expf for float, exp for double. Float
// transcendentals use atenaot's branch-free versions (kernels/aot_vecmath.h, error
// bounds there) so fused loops vectorise.
std::string M(const std::string& fn, const std::string& ct) {
  static const std::unordered_set<std::string> kOwn = {"exp", "log", "tanh", "erf", "pow"};
  if (ct == "float" && kOwn.count(fn)) return "aot__" + fn + "f";
  return ct == "float" ? fn + "f" : fn;
}

const Literal& Lit(const Node& n, int i) { return n.args()[static_cast<size_t>(i)].literal; }
bool IsNone(const Node& n, int i) {
  const Arg& a = n.args()[static_cast<size_t>(i)];
  return a.kind == Arg::Kind::kLiteral && a.literal.kind == Literal::Kind::kNone;
}
std::string L(const Node& n, int i, const std::string& ct) { return CLiteral(Lit(n, i), ct); }

// `a + alpha * b` with alpha omitted when it is 1.
std::string WithAlpha(const std::string& b, const Node& n, int alpha_arg, const std::string& ct) {
  const Literal& a = Lit(n, alpha_arg);
  bool one = (a.kind == Literal::Kind::kInt && a.i == 1) || (a.kind == Literal::Kind::kFloat && a.f == 1.0);
  return one ? b : "(" + L(n, alpha_arg, ct) + " * " + b + ")";
}

std::string Unary(const std::string& fn, const X& x, const std::string& ct) { return M(fn, ct) + "(" + x[0] + ")"; }

std::unordered_map<std::string, ElementwiseOp> BuildTable() {
  std::unordered_map<std::string, ElementwiseOp> t;
  auto add = [&](const std::string& name, std::vector<int> ops,
                 std::function<std::string(const X&, const Node&, const std::string&)> f, bool promoted = false) {
    t[name] = ElementwiseOp{std::move(ops), std::move(f), promoted};
  };
  for (const char* ov : {"Tensor", "Scalar"}) {
    std::string o = ov;
    add("add." + o, {0, 1}, [](const X& x, const Node& n, const std::string& ct) {
      return "(" + x[0] + " + " + WithAlpha(x[1], n, 2, ct) + ")";
    });
    add("sub." + o, {0, 1}, [](const X& x, const Node& n, const std::string& ct) {
      return "(" + x[0] + " - " + WithAlpha(x[1], n, 2, ct) + ")";
    });
    add("rsub." + o, {0, 1}, [](const X& x, const Node& n, const std::string& ct) {
      return "(" + x[1] + " - " + WithAlpha(x[0], n, 2, ct) + ")";
    });
    add("mul." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " * " + x[1] + ")"; });
    add("div." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " / " + x[1] + ")"; });
    add("div." + o + "_mode", {0, 1}, [](const X& x, const Node& n, const std::string& ct) {
      std::string mode = n.args()[2].literal.kind == Literal::Kind::kString ? n.args()[2].literal.s : "";
      if (mode == "floor")
        return IsFloat(ct) ? M("floor", ct) + "(" + x[0] + " / " + x[1] + ")"
                           : "aot__floordiv_i64(" + x[0] + ", " + x[1] + ")";
      if (mode == "trunc")
        return IsFloat(ct) ? M("trunc", ct) + "(" + x[0] + " / " + x[1] + ")"
                           : "(" + x[1] + " == 0 ? 0 : " + x[0] + " / " + x[1] + ")";
      return "(" + x[0] + " / " + x[1] + ")";
    });
    add("remainder." + o, {0, 1}, [](const X& x, const Node&, const std::string& ct) {
      return IsFloat(ct) ? "((" + ct + ")aot__mod_f(" + x[0] + ", " + x[1] + "))"
                         : "aot__mod_i64(" + x[0] + ", " + x[1] + ")";
    });
    add("fmod." + o, {0, 1}, [](const X& x, const Node&, const std::string& ct) {
      return IsFloat(ct) ? M("fmod", ct) + "(" + x[0] + ", " + x[1] + ")"
                         : "(" + x[1] + " == 0 ? 0 : " + x[0] + " % " + x[1] + ")";
    });
    for (const char* cmp : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      std::string c = cmp;
      std::string sym = c == "eq"   ? "=="
                        : c == "ne" ? "!="
                        : c == "lt" ? "<"
                        : c == "le" ? "<="
                        : c == "gt" ? ">"
                                    : ">=";
      add(
          c + "." + o, {0, 1},
          [sym](const X& x, const Node&, const std::string&) { return "(" + x[0] + " " + sym + " " + x[1] + ")"; },
          true);
    }
    add("bitwise_and." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " & " + x[1] + ")"; });
    add("bitwise_or." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " | " + x[1] + ")"; });
    add("bitwise_xor." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " ^ " + x[1] + ")"; });
    add("__and__." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " & " + x[1] + ")"; });
    add("__or__." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " | " + x[1] + ")"; });
    add("__xor__." + o, {0, 1},
        [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " ^ " + x[1] + ")"; });
    add("masked_fill." + o, {0, 1, 2},
        [](const X& x, const Node&, const std::string&) { return "(" + x[1] + " ? " + x[2] + " : " + x[0] + ")"; });
    add("fill." + o, {1}, [](const X& x, const Node&, const std::string&) { return x[0]; });
    add("maximum", {0, 1}, [](const X& x, const Node&, const std::string& ct) {
      return IsFloat(ct)
                 ? "(((" + x[0] + " != " + x[0] + ") | (" + x[0] + " > " + x[1] + ")) ? " + x[0] + " : " + x[1] + ")"
                 : "(" + x[0] + " > " + x[1] + " ? " + x[0] + " : " + x[1] + ")";
    });
    add("minimum", {0, 1}, [](const X& x, const Node&, const std::string& ct) {
      return IsFloat(ct)
                 ? "(((" + x[0] + " != " + x[0] + ") | (" + x[0] + " < " + x[1] + ")) ? " + x[0] + " : " + x[1] + ")"
                 : "(" + x[0] + " < " + x[1] + " ? " + x[0] + " : " + x[1] + ")";
    });
  }
  add("pow.Tensor_Scalar", {0, 1}, [](const X& x, const Node& n, const std::string& ct) {
    const Literal& e = Lit(n, 1);
    double v = e.kind == Literal::Kind::kInt ? static_cast<double>(e.i) : e.f;
    if (v == 2.0) return "(" + x[0] + " * " + x[0] + ")";
    if (v == 1.0) return x[0];
    if (v == 0.5 && IsFloat(ct)) return M("sqrt", ct) + "(" + x[0] + ")";
    return IsFloat(ct) ? M("pow", ct) + "(" + x[0] + ", " + x[1] + ")"
                       : "((" + ct + ")pow((double)" + x[0] + ", (double)" + x[1] + "))";
  });
  add("pow.Tensor_Tensor", {0, 1}, [](const X& x, const Node&, const std::string& ct) {
    return IsFloat(ct) ? M("pow", ct) + "(" + x[0] + ", " + x[1] + ")"
                       : "((" + ct + ")pow((double)" + x[0] + ", (double)" + x[1] + "))";
  });
  add("pow.Scalar", {0, 1},
      [](const X& x, const Node&, const std::string& ct) { return M("pow", ct) + "(" + x[0] + ", " + x[1] + ")"; });
  for (const char* fn : {"exp", "log",  "log2",  "log10", "log1p", "expm1", "sqrt", "sin",  "cos",  "tan", "tanh",
                         "erf", "erfc", "floor", "ceil",  "trunc", "asin",  "acos", "atan", "sinh", "cosh"}) {
    std::string f = fn;
    add(f, {0}, [f](const X& x, const Node&, const std::string& ct) {
      if (!IsFloat(ct) && (f == "floor" || f == "ceil" || f == "trunc")) return x[0];
      return Unary(f, x, IsFloat(ct) ? ct : "double");
    });
  }
  add("round", {0},
      [](const X& x, const Node&, const std::string& ct) { return IsFloat(ct) ? Unary("nearbyint", x, ct) : x[0]; });
  add("abs", {0}, [](const X& x, const Node&, const std::string& ct) {
    return IsFloat(ct) ? Unary("fabs", x, ct) : "(" + x[0] + " < 0 ? -" + x[0] + " : " + x[0] + ")";
  });
  add("neg", {0}, [](const X& x, const Node&, const std::string&) { return "(-" + x[0] + ")"; });
  add("reciprocal", {0},
      [](const X& x, const Node&, const std::string& ct) { return "((" + ct + ")1 / " + x[0] + ")"; });
  add("rsqrt", {0}, [](const X& x, const Node&, const std::string& ct) {
    return "((" + ct + ")1 / " + M("sqrt", ct) + "(" + x[0] + "))";
  });
  add("square", {0}, [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " * " + x[0] + ")"; });
  add("sign", {0}, [](const X& x, const Node&, const std::string& ct) {
    return "((" + ct + ")((" + x[0] + " > 0) - (" + x[0] + " < 0)))";
  });
  add("sigmoid", {0}, [](const X& x, const Node&, const std::string& ct) {
    if (ct == "float") return "aot__sigmoidf(" + x[0] + ")";
    return "((" + ct + ")1 / ((" + ct + ")1 + " + M("exp", ct) + "(-" + x[0] + ")))";
  });
  add("relu", {0}, [](const X& x, const Node&, const std::string& ct) {
    // `|`, not `||`: no short circuit, so the loop has no branch and vectorises.
    return IsFloat(ct) ? "(((" + x[0] + " > 0) | (" + x[0] + " != " + x[0] + ")) ? " + x[0] + " : (" + ct + ")0)"
                       : "(" + x[0] + " > 0 ? " + x[0] + " : 0)";
  });
  add("silu", {0}, [](const X& x, const Node&, const std::string& ct) {
    if (ct == "float") return "aot__siluf(" + x[0] + ")";
    return "(" + x[0] + " / ((" + ct + ")1 + " + M("exp", ct) + "(-" + x[0] + ")))";
  });
  add("gelu", {0}, [](const X& x, const Node& n, const std::string& ct) {
    const bool tanh_approx = GeluTanhForm(n);
    if (ct == "float") return std::string(tanh_approx ? "aot__gelu_tanhf(" : "aot__gelu_erff(") + x[0] + ")";
    if (tanh_approx)
      return "((" + ct + ")0.5 * " + x[0] + " * ((" + ct + ")1 + " + M("tanh", ct) + "((" + ct +
             ")0.7978845608028654 * (" + x[0] + " + (" + ct + ")0.044715 * " + x[0] + " * " + x[0] + " * " + x[0] +
             "))))";
    return "((" + ct + ")0.5 * " + x[0] + " * ((" + ct + ")1 + " + M("erf", ct) + "(" + x[0] + " * (" + ct +
           ")0.70710678118654752)))";
  });
  add("hardtanh", {0}, [](const X& x, const Node& n, const std::string& ct) {
    std::string lo = L(n, 1, ct), hi = L(n, 2, ct);
    return "(" + x[0] + " < " + lo + " ? " + lo + " : (" + x[0] + " > " + hi + " ? " + hi + " : " + x[0] + "))";
  });
  add("hardsigmoid", {0}, [](const X& x, const Node&, const std::string& ct) {
    return "(" + x[0] + " <= -3 ? (" + ct + ")0 : (" + x[0] + " >= 3 ? (" + ct + ")1 : " + x[0] + " / 6 + (" + ct +
           ")0.5))";
  });
  add("hardswish", {0}, [](const X& x, const Node&, const std::string& ct) {
    return "(" + x[0] + " <= -3 ? (" + ct + ")0 : (" + x[0] + " >= 3 ? " + x[0] + " : " + x[0] + " * (" + x[0] +
           " + 3) / 6))";
  });
  add("leaky_relu", {0}, [](const X& x, const Node& n, const std::string& ct) {
    return "(" + x[0] + " > 0 ? " + x[0] + " : " + x[0] + " * " + L(n, 1, ct) + ")";
  });
  add("elu", {0}, [](const X& x, const Node& n, const std::string& ct) {
    return "(" + x[0] + " > 0 ? " + x[0] + " * " + L(n, 2, ct) + " : " + L(n, 1, ct) + " * " + L(n, 2, ct) + " * (" +
           M("exp", ct) + "(" + x[0] + " * " + L(n, 3, ct) + ") - 1))";
  });
  add("softplus", {0}, [](const X& x, const Node& n, const std::string& ct) {
    std::string b = L(n, 1, ct), th = L(n, 2, ct);
    return "(" + x[0] + " * " + b + " > " + th + " ? " + x[0] + " : " + M("log1p", ct) + "(" + M("exp", ct) + "(" +
           x[0] + " * " + b + ")) / " + b + ")";
  });
  add("clamp", {0}, [](const X& x, const Node& n, const std::string& ct) {
    std::string e = x[0];
    if (!IsNone(n, 1)) e = "(" + e + " < " + L(n, 1, ct) + " ? " + L(n, 1, ct) + " : " + e + ")";
    if (!IsNone(n, 2)) e = "(" + e + " > " + L(n, 2, ct) + " ? " + L(n, 2, ct) + " : " + e + ")";
    return e;
  });
  // nan_to_num(x, nan=None, posinf=None, neginf=None): NaN to `nan` (0),
  // +-inf to posinf / neginf (the output dtype's largest finite values);
  // integers pass unchanged.
  add("nan_to_num", {0}, [](const X& x, const Node& n, const std::string& ct) {
    if (!IsFloat(ct)) return x[0];
    const DType dt = n.output()->meta().dtype;
    const std::string big = dt == DType::kFloat64    ? "1.7976931348623157e+308"
                            : dt == DType::kFloat16  ? "65504.0"
                            : dt == DType::kBFloat16 ? "3.3895313892515355e+38"
                                                     : "3.4028234663852886e+38";
    const std::string nan = IsNone(n, 1) ? "(" + ct + ")0" : L(n, 1, ct),
                      pos = IsNone(n, 2) ? "(" + ct + ")" + big : L(n, 2, ct),
                      neg = IsNone(n, 3) ? "(" + ct + ")-" + big : L(n, 3, ct);
    return "(" + x[0] + " != " + x[0] + " ? " + nan + " : " + x[0] + " == (" + ct + ")INFINITY ? " + pos + " : " +
           x[0] + " == -(" + ct + ")INFINITY ? " + neg + " : " + x[0] + ")";
  });
  add("clamp_min", {0}, [](const X& x, const Node& n, const std::string& ct) {
    return "(" + x[0] + " < " + L(n, 1, ct) + " ? " + L(n, 1, ct) + " : " + x[0] + ")";
  });
  add("clamp_max", {0}, [](const X& x, const Node& n, const std::string& ct) {
    return "(" + x[0] + " > " + L(n, 1, ct) + " ? " + L(n, 1, ct) + " : " + x[0] + ")";
  });
  add(
      "logical_not", {0}, [](const X& x, const Node&, const std::string&) { return "(!" + x[0] + ")"; }, true);
  add("bitwise_not", {0}, [](const X& x, const Node&, const std::string& ct) {
    return ct == "uint8_t" ? "(!" + x[0] + ")" : "(~" + x[0] + ")";
  });
  add(
      "logical_and", {0, 1},
      [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " && " + x[1] + ")"; }, true);
  add(
      "logical_or", {0, 1},
      [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " || " + x[1] + ")"; }, true);
  add(
      "logical_xor", {0, 1},
      [](const X& x, const Node&, const std::string&) { return "(!" + x[0] + " != !" + x[1] + ")"; }, true);
  add("where.self", {0, 1, 2},
      [](const X& x, const Node&, const std::string&) { return "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")"; });
  add("lerp.Scalar", {0, 1, 2}, [](const X& x, const Node&, const std::string&) {
    return "(" + x[0] + " + " + x[2] + " * (" + x[1] + " - " + x[0] + "))";
  });
  add("addcmul", {0, 1, 2, 3}, [](const X& x, const Node&, const std::string&) {
    return "(" + x[0] + " + " + x[3] + " * " + x[1] + " * " + x[2] + ")";
  });
  add("addcdiv", {0, 1, 2, 3}, [](const X& x, const Node&, const std::string&) {
    return "(" + x[0] + " + " + x[3] + " * " + x[1] + " / " + x[2] + ")";
  });
  // Copies and casts: the value converted to the result's dtype.
  for (const char* c : {"_to_copy", "clone", "contiguous", "to.dtype", "to.dtype_layout", "to.device", "alias_copy",
                        "detach_copy", "lift_fresh_copy", "type_as"})
    add(c, {0}, [](const X& x, const Node&, const std::string&) { return x[0]; });
  add("copy", {1}, [](const X& x, const Node&, const std::string&) { return x[0]; });
  add("zero", {}, [](const X&, const Node&, const std::string& ct) { return "((" + ct + ")0)"; });
  add("zeros_like", {}, [](const X&, const Node&, const std::string& ct) { return "((" + ct + ")0)"; });
  add("ones_like", {}, [](const X&, const Node&, const std::string& ct) { return "((" + ct + ")1)"; });
  add("full_like", {1}, [](const X& x, const Node&, const std::string&) { return x[0]; });
  add("zeros", {}, [](const X&, const Node&, const std::string& ct) { return "((" + ct + ")0)"; });
  add("ones", {}, [](const X&, const Node&, const std::string& ct) { return "((" + ct + ")1)"; });
  add("full", {1}, [](const X& x, const Node&, const std::string&) { return x[0]; });
  add("dropout", {0}, [](const X& x, const Node&, const std::string&) { return x[0]; });
  return t;
}

}  // namespace

bool GeluTanhForm(const Node& n) {
  return n.args().size() > 1 && n.args()[1].literal.kind == Literal::Kind::kString && n.args()[1].literal.s == "tanh";
}

const ElementwiseOp* FindElementwise(const Node& n) {
  static const std::unordered_map<std::string, ElementwiseOp> table = BuildTable();
  const OpSchema& s = n.op().schema;
  std::string name = s.name;
  // In-place forms (add_, relu_) share the functional row.
  if (n.op().kind == OpKind::kInplace && name.size() > 1 && name.back() == '_') name.pop_back();
  if (name == "copy_") name = "copy";
  if (name == "fill_") name = "fill";
  if (name == "zero_") name = "zero";
  auto it = table.find(s.overload.empty() ? name : name + "." + s.overload);
  if (it == table.end()) it = table.find(name);
  if (it == table.end()) return nullptr;
  if (name == "dropout" && n.args().size() > 2 && n.args()[2].literal.kind == Literal::Kind::kBool &&
      n.args()[2].literal.b)
    return nullptr;  // training-mode dropout is random
  return &it->second;
}

namespace {

// Comparisons and logical ops compute in their operands' promoted type.
DType ComputeDType(const Node* n, const ElementwiseOp& ew) {
  DType out = n->output()->meta().dtype;
  if (!ew.compute_in_promoted) return out;
  std::vector<PromotionOperand> ops;
  for (int a : ew.operands) {
    const Arg& arg = n->args()[static_cast<size_t>(a)];
    if (arg.kind == Arg::Kind::kValue)
      ops.push_back({arg.value->meta().dtype, false, static_cast<int64_t>(arg.value->meta().sizes.size())});
    else if (arg.kind == Arg::Kind::kLiteral && arg.literal.kind != Literal::Kind::kNone)
      ops.push_back({WrappedScalarDType(arg.literal), true, 0});
  }
  return ops.empty() ? out : ResultType(ops);
}

}  // namespace

void FusedLoads(const Node* n, int skip_arg, const std::unordered_set<const Value*>& fused,
                std::vector<const Value*>* loads) {
  const ElementwiseOp* ew = FindElementwise(*n);
  for (int a : ew->operands) {
    if (a == skip_arg) continue;
    const Arg& arg = n->args()[static_cast<size_t>(a)];
    if (arg.kind != Arg::Kind::kValue) continue;
    if (fused.count(arg.value))
      FusedLoads(arg.value->producer(), -1, fused, loads);
    else if (std::find(loads->begin(), loads->end(), arg.value) == loads->end())
      loads->push_back(arg.value);
  }
}

StatusOr<std::string> PreparedLoad(const LoadExprs& loads, const Node* n, const Value* v) {
  auto it = loads.find(v);
  AOT_INTERNAL_CHECK(it != loads.end(), NodeText(n) + ": no load prepared for %" + v->name());
  return it->second;
}

StatusOr<std::string> FusedExpr(const Node* n, const std::string& self_expr,
                                const std::unordered_set<const Value*>& fused, const LoadExprs& loads) {
  const ElementwiseOp* ew = FindElementwise(*n);
  DType cdt = ComputeDType(n, *ew);
  AOT_ASSIGN_OR_RETURN(std::string ct, CType(cdt));
  std::vector<std::string> xs;
  for (int a : ew->operands) {
    const Arg& arg = n->args()[static_cast<size_t>(a)];
    if (a == 0 && !self_expr.empty()) {
      xs.push_back(CCast(self_expr, cdt));
      continue;
    }
    if (arg.kind == Arg::Kind::kValue) {
      if (fused.count(arg.value)) {
        AOT_ASSIGN_OR_RETURN(std::string inner, FusedExpr(arg.value->producer(), "", fused, loads));
        xs.push_back(CCast(inner, cdt));
      } else {
        AOT_ASSIGN_OR_RETURN(std::string load, PreparedLoad(loads, n, arg.value));
        xs.push_back(CCast(load, cdt));
      }
    } else if (arg.kind == Arg::Kind::kLiteral && arg.literal.kind != Literal::Kind::kNone) {
      xs.push_back(CLiteral(arg.literal, ct));
    } else {
      return Unsupported("operand " + std::to_string(a) + " is not a tensor or number");
    }
  }
  return CCast(ew->formula(xs, *n, ct), n->output()->meta().dtype);
}

}  // namespace atenaot
