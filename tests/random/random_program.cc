#include "tests/random/random_program.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/TracerMode.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "capture/cpp_trace.h"
#include "capture/jit_import.h"
#include "interp/reference_interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {
namespace random_program {
namespace {

using T = at::Tensor;
using Ts = std::vector<at::Tensor>;
using Shape = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// Randomness: splitmix64 to spread the seed, mt19937_64 for the draws.

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(SplitMix(seed)) {}
  // Uniform in [0, n).
  int64_t Below(int64_t n) { return n <= 1 ? 0 : static_cast<int64_t>(g_() % static_cast<uint64_t>(n)); }
  // Uniform in [lo, hi].
  int64_t Range(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }
  bool Chance(double p) { return static_cast<double>(g_() >> 11) * 0x1.0p-53 < p; }
  template <typename V>
  const V& Pick(const std::vector<V>& v) {
    return v[static_cast<size_t>(Below(static_cast<int64_t>(v.size())))];
  }
  template <typename V>
  void Shuffle(std::vector<V>* v) {
    for (size_t i = v->size(); i > 1; --i)
      std::swap((*v)[i - 1], (*v)[static_cast<size_t>(Below(static_cast<int64_t>(i)))]);
  }
  // Index drawn with the given weights.
  size_t Weighted(const std::vector<int>& w) {
    int total = std::accumulate(w.begin(), w.end(), 0);
    int64_t r = Below(total);
    for (size_t i = 0; i < w.size(); ++i) {
      if (r < w[i]) return i;
      r -= w[i];
    }
    return w.size() - 1;
  }

 private:
  std::mt19937_64 g_;
};

const char* const kOpNames[] = {
    "add",
    "sub",
    "mul",
    "div",
    "add.Scalar",
    "sub.Scalar",
    "mul.Scalar",
    "div.Scalar",
    "neg",
    "relu",
    "sigmoid",
    "tanh",
    "exp",
    "abs",
    "clamp",
    "compare",
    "compare.Scalar",
    "where",
    "logical_not",
    "sum.dim",
    "mean.dim",
    "sum",
    "clone",
    "to",
    "zeros",
    "arange",
    "tensor_constant",
    "view",
    "reshape",
    "transpose",
    "permute",
    "select",
    "slice",
    "narrow",
    "diagonal",
    "unsqueeze",
    "squeeze",
    "expand",
    "as_strided",
    "t",
    "contiguous",
    "split",
    "split_with_sizes",
    "unbind",
    "chunk",
    "max.dim",
    "min.dim",
    "topk",
    "sort",
    "add_",
    "sub_",
    "mul_",
    "add_.Scalar",
    "mul_.Scalar",
    "div_.Scalar",
    "fill_",
    "fill_.Tensor",
    "zero_",
    "clamp_",
    "relu_",
    "neg_",
    "sigmoid_",
    "compare_.Scalar",
    "copy_",
    "index_put_",
    "masked_fill_",
    "masked_fill_.Tensor",
    "add.out",
    "mul.out",
    "t_",
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == static_cast<size_t>(Op::kNumOps), "op names");

const char* const kCmpNames[] = {"gt", "lt", "ge", "le", "eq", "ne"};

bool IsInPlace(Op op) { return op >= Op::kAdd_; }

at::Scalar Sc(const Step& s, double v) { return s.int_scalar ? at::Scalar(static_cast<int64_t>(v)) : at::Scalar(v); }

T Compare(int which, const T& a, const T& b) {
  switch (which) {
    case 0:
      return a.gt(b);
    case 1:
      return a.lt(b);
    case 2:
      return a.ge(b);
    case 3:
      return a.le(b);
    case 4:
      return a.eq(b);
    default:
      return a.ne(b);
  }
}

T CompareS(int which, const T& a, const at::Scalar& b) {
  switch (which) {
    case 0:
      return a.gt(b);
    case 1:
      return a.lt(b);
    case 2:
      return a.ge(b);
    case 3:
      return a.le(b);
    case 4:
      return a.eq(b);
    default:
      return a.ne(b);
  }
}

void CompareS_(int which, const T& a, const at::Scalar& b) {
  switch (which) {
    case 0:
      a.gt_(b);
      break;
    case 1:
      a.lt_(b);
      break;
    case 2:
      a.ge_(b);
      break;
    case 3:
      a.le_(b);
      break;
    case 4:
      a.eq_(b);
      break;
    default:
      a.ne_(b);
      break;
  }
}

// True when some values along `dim` are equal (sort/topk/max would then pick by position).
bool HasTies(const T& x, int64_t dim) {
  if (x.dim() == 0 || x.numel() == 0) return false;
  const int64_t n = x.size(dim);
  if (n < 2) return false;
  T s = std::get<0>(x.sort(dim));
  return (s.narrow(dim, 1, n - 1) == s.narrow(dim, 0, n - 1)).any().item<bool>();
}

// True when two index tuples of a non-accumulating index_put_ name the same element.
bool HasRepeatedIndices(const T& self, const c10::List<c10::optional<T>>& indices) {
  Ts defined;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < indices.size(); ++i) {
    c10::optional<T> t = indices.get(i);
    if (!t || !t->defined()) continue;
    if (t->scalar_type() == at::kBool || t->scalar_type() == at::kByte) return false;  // masks never repeat
    defined.push_back(*t);
    dims.push_back(static_cast<int64_t>(i));
  }
  if (defined.empty()) return false;
  Ts b = at::broadcast_tensors(defined);
  T key = at::zeros(b[0].sizes(), at::kLong);
  for (size_t k = 0; k < b.size(); ++k) {
    const int64_t size = self.size(dims[k]);
    T idx = b[k].remainder(size);  // normalises negative indices
    key = key * size + idx;
  }
  return std::get<0>(at::_unique(key.flatten())).numel() != key.numel();
}

c10::List<c10::optional<T>> IndexList(const Step& s, const Ts& env) {
  c10::List<c10::optional<T>> l;
  for (size_t k = 2; k < s.in.size(); ++k) {
    if (s.in[k] < 0)
      l.push_back(c10::nullopt);
    else
      l.push_back(env[static_cast<size_t>(s.in[k])]);
  }
  return l;
}

// Runs one step on `env`; returns its results (empty for in-place steps).
Ts Apply(const Step& s, const Ts& env, bool* ambiguous) {
  auto I = [&](size_t k) -> const T& { return env[static_cast<size_t>(s.in[k])]; };
  auto A = [&](size_t k) { return s.a[k]; };
  switch (s.op) {
    case Op::kAdd:
      return {I(0) + I(1)};
    case Op::kSub:
      return {I(0) - I(1)};
    case Op::kMul:
      return {I(0) * I(1)};
    case Op::kDiv:
      return {I(0) / (I(1).abs() + 1)};
    case Op::kAddS:
      return {I(0) + Sc(s, s.s0)};
    case Op::kSubS:
      return {I(0) - Sc(s, s.s0)};
    case Op::kMulS:
      return {I(0) * Sc(s, s.s0)};
    case Op::kDivS:
      return {I(0) / Sc(s, s.s0)};
    case Op::kNeg:
      return {I(0).neg()};
    case Op::kRelu:
      return {I(0).relu()};
    case Op::kSigmoid:
      return {I(0).sigmoid()};
    case Op::kTanh:
      return {I(0).tanh()};
    case Op::kExp:
      return {I(0).exp()};
    case Op::kAbs:
      return {I(0).abs()};
    case Op::kClamp:
      return {I(0).clamp(Sc(s, s.s0), Sc(s, s.s1))};
    case Op::kCmp:
      return {Compare(static_cast<int>(A(0)), I(0), I(1))};
    case Op::kCmpS:
      return {CompareS(static_cast<int>(A(0)), I(0), Sc(s, s.s0))};
    case Op::kWhere:
      return {at::where(I(0), I(1), I(2))};
    case Op::kLogicalNot:
      return {I(0).logical_not()};
    case Op::kSum:
      return {I(0).sum(at::IntArrayRef(s.a.data(), 1), s.flag)};
    case Op::kMean:
      return {I(0).mean(at::IntArrayRef(s.a.data(), 1), s.flag)};
    case Op::kSumAll:
      return {I(0).sum()};
    case Op::kClone:
      return {I(0).clone()};
    case Op::kTo:
      return {I(0).to(static_cast<at::ScalarType>(A(0)))};
    case Op::kZeros:
      return {at::zeros(s.a)};
    case Op::kArange:
      return {at::arange(A(0)).remainder(A(1))};
    case Op::kConstIdx: {
      // Not at::tensor: the tracer records that as aten::empty (its data is
      // copied in behind the dispatcher's back). Made untraced, the tensor is
      // a constant of the trace, as torch::tensor makes it.
      at::tracer::impl::NoTracerDispatchMode no_trace;
      return {at::tensor(s.a, at::kLong)};
    }
    case Op::kView:
      return {I(0).view(s.a)};
    case Op::kReshape:
      return {I(0).reshape(s.a)};
    case Op::kTranspose:
      return {I(0).transpose(A(0), A(1))};
    case Op::kPermute:
      return {I(0).permute(s.a)};
    case Op::kSelect:
      return {I(0).select(A(0), A(1))};
    case Op::kSlice:
      return {I(0).slice(A(0), s.b[0] ? c10::optional<int64_t>(A(1)) : c10::nullopt,
                         s.b[1] ? c10::optional<int64_t>(A(2)) : c10::nullopt, A(3))};
    case Op::kNarrow:
      return {I(0).narrow(A(0), A(1), A(2))};
    case Op::kDiagonal:
      return {I(0).diagonal(A(0), A(1), A(2))};
    case Op::kUnsqueeze:
      return {I(0).unsqueeze(A(0))};
    case Op::kSqueeze:
      return {s.a.empty() ? I(0).squeeze() : I(0).squeeze(A(0))};
    case Op::kExpand:
      return {I(0).expand(s.a)};
    case Op::kAsStrided:
      return {I(0).as_strided(s.a, s.b, s.c)};
    case Op::kT:
      return {I(0).t()};
    case Op::kContiguous:
      return {I(0).contiguous()};
    case Op::kSplit:
      return I(0).split(A(0), A(1));
    case Op::kSplitSizes:
      return I(0).split_with_sizes(s.a, s.b[0]);
    case Op::kUnbind:
      return I(0).unbind(A(0));
    case Op::kChunk:
      return I(0).chunk(A(0), A(1));
    case Op::kMaxDim:
    case Op::kMinDim: {
      if (ambiguous && HasTies(I(0), A(0))) *ambiguous = true;
      auto r = s.op == Op::kMaxDim ? I(0).max(A(0), s.flag) : I(0).min(A(0), s.flag);
      return {std::get<0>(r), std::get<1>(r)};
    }
    case Op::kTopk: {
      if (ambiguous && HasTies(I(0), A(1))) *ambiguous = true;
      auto r = I(0).topk(A(0), A(1), s.flag);
      return {std::get<0>(r), std::get<1>(r)};
    }
    case Op::kSort: {
      if (ambiguous && HasTies(I(0), A(0))) *ambiguous = true;
      auto r = I(0).sort(A(0), s.flag);
      return {std::get<0>(r), std::get<1>(r)};
    }
    case Op::kAdd_:
      I(0).add_(I(1));
      return {};
    case Op::kSub_:
      I(0).sub_(I(1));
      return {};
    case Op::kMul_:
      I(0).mul_(I(1));
      return {};
    case Op::kAddS_:
      I(0).add_(Sc(s, s.s0));
      return {};
    case Op::kMulS_:
      I(0).mul_(Sc(s, s.s0));
      return {};
    case Op::kDivS_:
      I(0).div_(Sc(s, s.s0));
      return {};
    case Op::kFill_:
      I(0).fill_(Sc(s, s.s0));
      return {};
    case Op::kFillT_:
      I(0).fill_(I(1));
      return {};
    case Op::kZero_:
      I(0).zero_();
      return {};
    case Op::kClamp_:
      I(0).clamp_(Sc(s, s.s0), Sc(s, s.s1));
      return {};
    case Op::kRelu_:
      I(0).relu_();
      return {};
    case Op::kNeg_:
      I(0).neg_();
      return {};
    case Op::kSigmoid_:
      I(0).sigmoid_();
      return {};
    case Op::kCmpS_:
      CompareS_(static_cast<int>(A(0)), I(0), Sc(s, s.s0));
      return {};
    case Op::kCopy_:
      I(0).copy_(I(1));
      return {};
    case Op::kIndexPut_: {
      c10::List<c10::optional<T>> idx = IndexList(s, env);
      if (ambiguous && !s.flag && HasRepeatedIndices(I(0), idx)) *ambiguous = true;
      I(0).index_put_(idx, I(1), s.flag);
      return {};
    }
    case Op::kMaskedFill_:
      I(0).masked_fill_(I(1), Sc(s, s.s0));
      return {};
    case Op::kMaskedFillT_:
      I(0).masked_fill_(I(1), I(2));
      return {};
    case Op::kAddOut: {
      T o = I(0);
      at::add_out(o, I(1), I(2));
      return {};
    }
    case Op::kMulOut: {
      T o = I(0);
      at::mul_out(o, I(1), I(2));
      return {};
    }
    case Op::kT_:
      I(0).t_();
      return {};
    case Op::kNumOps:
      break;
  }
  TORCH_CHECK(false, "unknown random op");
}

// ---------------------------------------------------------------------------
// Printing.

std::string Join(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

std::string ScalarText(const Step& s, double v) {
  if (s.int_scalar) return std::to_string(static_cast<int64_t>(v));
  std::ostringstream os;
  os << v;
  std::string t = os.str();
  if (t.find_first_of(".e") == std::string::npos) t += ".0";
  return t;
}

std::string Id(int id) { return "t" + std::to_string(id); }

std::string DTypeText(int64_t code) {
  switch (static_cast<at::ScalarType>(code)) {
    case at::kFloat:
      return "at::kFloat";
    case at::kDouble:
      return "at::kDouble";
    case at::kLong:
      return "at::kLong";
    case at::kBool:
      return "at::kBool";
    case at::kInt:
      return "at::kInt";
    default:
      return "static_cast<at::ScalarType>(" + std::to_string(code) + ")";
  }
}

std::string StepCpp(const Step& s) {
  auto I = [&](size_t k) { return Id(s.in[k]); };
  auto A = [&](size_t k) { return std::to_string(s.a[k]); };
  auto S0 = [&] { return ScalarText(s, s.s0); };
  auto S1 = [&] { return ScalarText(s, s.s1); };
  auto B = [&] { return std::string(s.flag ? "true" : "false"); };
  std::string rhs;
  switch (s.op) {
    case Op::kAdd:
      rhs = I(0) + " + " + I(1);
      break;
    case Op::kSub:
      rhs = I(0) + " - " + I(1);
      break;
    case Op::kMul:
      rhs = I(0) + " * " + I(1);
      break;
    case Op::kDiv:
      rhs = I(0) + " / (" + I(1) + ".abs() + 1)";
      break;
    case Op::kAddS:
      rhs = I(0) + " + " + S0();
      break;
    case Op::kSubS:
      rhs = I(0) + " - " + S0();
      break;
    case Op::kMulS:
      rhs = I(0) + " * " + S0();
      break;
    case Op::kDivS:
      rhs = I(0) + " / " + S0();
      break;
    case Op::kNeg:
      rhs = I(0) + ".neg()";
      break;
    case Op::kRelu:
      rhs = I(0) + ".relu()";
      break;
    case Op::kSigmoid:
      rhs = I(0) + ".sigmoid()";
      break;
    case Op::kTanh:
      rhs = I(0) + ".tanh()";
      break;
    case Op::kExp:
      rhs = I(0) + ".exp()";
      break;
    case Op::kAbs:
      rhs = I(0) + ".abs()";
      break;
    case Op::kClamp:
      rhs = I(0) + ".clamp(" + S0() + ", " + S1() + ")";
      break;
    case Op::kCmp:
      rhs = I(0) + "." + kCmpNames[s.a[0]] + "(" + I(1) + ")";
      break;
    case Op::kCmpS:
      rhs = I(0) + "." + kCmpNames[s.a[0]] + "(" + S0() + ")";
      break;
    case Op::kWhere:
      rhs = "at::where(" + I(0) + ", " + I(1) + ", " + I(2) + ")";
      break;
    case Op::kLogicalNot:
      rhs = I(0) + ".logical_not()";
      break;
    case Op::kSum:
      rhs = I(0) + ".sum(" + A(0) + ", " + B() + ")";
      break;
    case Op::kMean:
      rhs = I(0) + ".mean(" + A(0) + ", " + B() + ")";
      break;
    case Op::kSumAll:
      rhs = I(0) + ".sum()";
      break;
    case Op::kClone:
      rhs = I(0) + ".clone()";
      break;
    case Op::kTo:
      rhs = I(0) + ".to(" + DTypeText(s.a[0]) + ")";
      break;
    case Op::kZeros:
      rhs = "at::zeros(" + Join(s.a) + ")";
      break;
    case Op::kArange:
      rhs = "at::arange(" + A(0) + ").remainder(" + A(1) + ")";
      break;
    case Op::kConstIdx:
      rhs = "torch::tensor(std::vector<int64_t>" + Join(s.a) + ")";
      break;
    case Op::kView:
      rhs = I(0) + ".view(" + Join(s.a) + ")";
      break;
    case Op::kReshape:
      rhs = I(0) + ".reshape(" + Join(s.a) + ")";
      break;
    case Op::kTranspose:
      rhs = I(0) + ".transpose(" + A(0) + ", " + A(1) + ")";
      break;
    case Op::kPermute:
      rhs = I(0) + ".permute(" + Join(s.a) + ")";
      break;
    case Op::kSelect:
      rhs = I(0) + ".select(" + A(0) + ", " + A(1) + ")";
      break;
    case Op::kSlice:
      rhs = I(0) + ".slice(" + A(0) + ", " + (s.b[0] ? A(1) : "c10::nullopt") + ", " +
            (s.b[1] ? A(2) : "c10::nullopt") + ", " + A(3) + ")";
      break;
    case Op::kNarrow:
      rhs = I(0) + ".narrow(" + A(0) + ", " + A(1) + ", " + A(2) + ")";
      break;
    case Op::kDiagonal:
      rhs = I(0) + ".diagonal(" + A(0) + ", " + A(1) + ", " + A(2) + ")";
      break;
    case Op::kUnsqueeze:
      rhs = I(0) + ".unsqueeze(" + A(0) + ")";
      break;
    case Op::kSqueeze:
      rhs = I(0) + ".squeeze(" + (s.a.empty() ? "" : A(0)) + ")";
      break;
    case Op::kExpand:
      rhs = I(0) + ".expand(" + Join(s.a) + ")";
      break;
    case Op::kAsStrided:
      rhs = I(0) + ".as_strided(" + Join(s.a) + ", " + Join(s.b) + ", " + std::to_string(s.c) + ")";
      break;
    case Op::kT:
      rhs = I(0) + ".t()";
      break;
    case Op::kContiguous:
      rhs = I(0) + ".contiguous()";
      break;
    case Op::kSplit:
      rhs = I(0) + ".split(" + A(0) + ", " + A(1) + ")";
      break;
    case Op::kSplitSizes:
      rhs = I(0) + ".split_with_sizes(" + Join(s.a) + ", " + std::to_string(s.b[0]) + ")";
      break;
    case Op::kUnbind:
      rhs = I(0) + ".unbind(" + A(0) + ")";
      break;
    case Op::kChunk:
      rhs = I(0) + ".chunk(" + A(0) + ", " + A(1) + ")";
      break;
    case Op::kMaxDim:
      rhs = I(0) + ".max(" + A(0) + ", " + B() + ")";
      break;
    case Op::kMinDim:
      rhs = I(0) + ".min(" + A(0) + ", " + B() + ")";
      break;
    case Op::kTopk:
      rhs = I(0) + ".topk(" + A(0) + ", " + A(1) + ", " + B() + ")";
      break;
    case Op::kSort:
      rhs = I(0) + ".sort(" + A(0) + ", " + B() + ")";
      break;
    case Op::kAdd_:
      return I(0) + ".add_(" + I(1) + ");";
    case Op::kSub_:
      return I(0) + ".sub_(" + I(1) + ");";
    case Op::kMul_:
      return I(0) + ".mul_(" + I(1) + ");";
    case Op::kAddS_:
      return I(0) + ".add_(" + S0() + ");";
    case Op::kMulS_:
      return I(0) + ".mul_(" + S0() + ");";
    case Op::kDivS_:
      return I(0) + ".div_(" + S0() + ");";
    case Op::kFill_:
      return I(0) + ".fill_(" + S0() + ");";
    case Op::kFillT_:
      return I(0) + ".fill_(" + I(1) + ");";
    case Op::kZero_:
      return I(0) + ".zero_();";
    case Op::kClamp_:
      return I(0) + ".clamp_(" + S0() + ", " + S1() + ");";
    case Op::kRelu_:
      return I(0) + ".relu_();";
    case Op::kNeg_:
      return I(0) + ".neg_();";
    case Op::kSigmoid_:
      return I(0) + ".sigmoid_();";
    case Op::kCmpS_:
      return I(0) + "." + kCmpNames[s.a[0]] + "_(" + S0() + ");";
    case Op::kCopy_:
      return I(0) + ".copy_(" + I(1) + ");";
    case Op::kIndexPut_: {
      std::string idx = "Idx({";
      for (size_t k = 2; k < s.in.size(); ++k) idx += (k > 2 ? ", " : "") + (s.in[k] < 0 ? "c10::nullopt" : I(k));
      return I(0) + ".index_put_(" + idx + "}), " + I(1) + ", /*accumulate=*/" + B() + ");";
    }
    case Op::kMaskedFill_:
      return I(0) + ".masked_fill_(" + I(1) + ", " + S0() + ");";
    case Op::kMaskedFillT_:
      return I(0) + ".masked_fill_(" + I(1) + ", " + I(2) + ");";
    case Op::kAddOut:
      return "at::add_out(" + I(0) + ", " + I(1) + ", " + I(2) + ");";
    case Op::kMulOut:
      return "at::mul_out(" + I(0) + ", " + I(1) + ", " + I(2) + ");";
    case Op::kT_:
      return I(0) + ".t_();";
    case Op::kNumOps:
      break;
  }
  if (s.out.empty()) return "(void)" + rhs + ";  // no results (unbind of an empty dim)";
  if (s.out.size() == 1) return "T " + Id(s.out[0]) + " = " + rhs + ";";
  if (s.op == Op::kMaxDim || s.op == Op::kMinDim || s.op == Op::kTopk || s.op == Op::kSort)
    return "auto [" + Id(s.out[0]) + ", " + Id(s.out[1]) + "] = " + rhs + ";";
  std::string names;
  for (size_t k = 0; k < s.out.size(); ++k) names += (k ? ", " : "") + Id(s.out[k]);
  return "Ts p" + std::to_string(s.out[0]) + " = " + rhs + ";  // " + names + "\n    " + [&] {
    std::string d;
    for (size_t k = 0; k < s.out.size(); ++k)
      d += "T " + Id(s.out[k]) + " = p" + std::to_string(s.out[0]) + "[" + std::to_string(k) + "]; ";
    return d;
  }();
}

std::string InputText(const InputSpec& in) {
  std::string shape = Join(in.shape);
  switch (in.kind) {
    case InputSpec::Kind::kIndex:
      return "randint(" + std::to_string(in.lo) + ", " + std::to_string(in.hi) + ", " + shape + ", at::kLong)";
    case InputSpec::Kind::kMask:
      return "randn(" + shape + ") > 0";
    case InputSpec::Kind::kDouble:
      return "randn(" + shape + ", at::kDouble)";
    case InputSpec::Kind::kFloat:
      break;
  }
  switch (in.layout) {
    case InputSpec::Layout::kContiguous:
      return "randn(" + shape + ")";
    case InputSpec::Layout::kTransposed: {
      Shape base = in.shape;
      std::swap(base[base.size() - 1], base[base.size() - 2]);
      return "randn(" + Join(base) + ").transpose(-1, -2)";
    }
    case InputSpec::Layout::kOffset: {
      Shape base = in.shape;
      base[0] += 1;
      return "randn(" + Join(base) + ").narrow(0, 1, " + std::to_string(in.shape[0]) + ")";
    }
    case InputSpec::Layout::kViewOf: {
      std::string b = "in[" + std::to_string(in.of) + "]";
      switch (in.view) {
        case 0:
          return b + "  (the same tensor)";
        case 1:
          return b + ".select(0, 1)";
        case 2:
          return b + ".t()";
        case 3:
          return b + ".view({-1})";
        default:
          return b + ".narrow(0, 0, " + std::to_string(in.shape[0]) + ")";
      }
    }
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Shapes.

int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

bool Broadcast(const Shape& a, const Shape& b, Shape* out) {
  const size_t r = std::max(a.size(), b.size());
  Shape o(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    o[i] = x == 1 ? y : x;
  }
  *out = o;
  return true;
}

// `from` broadcasts to exactly `to`.
bool BroadcastsTo(const Shape& from, const Shape& to) {
  Shape o;
  return Broadcast(from, to, &o) && o == to;
}

// atenaot's (conservative) overlap test: TensorMeta::HasInternalOverlap.
bool MayOverlap(const T& t) {
  if (t.numel() <= 1) return false;
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (int64_t i = 0; i < t.dim(); ++i)
    if (t.size(i) > 1) dims.push_back({std::abs(t.stride(i)), t.size(i)});
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  for (auto [stride, size] : dims) {
    if (stride == 0 || stride <= span) return true;
    span += stride * (size - 1);
  }
  return false;
}

// The storage elements `t` covers.
std::set<int64_t> Elements(const T& t) {
  std::set<int64_t> out;
  if (t.numel() == 0) return out;
  std::vector<int64_t> idx(static_cast<size_t>(t.dim()), 0);
  while (true) {
    int64_t off = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) off += idx[static_cast<size_t>(d)] * t.stride(d);
    out.insert(off);
    int64_t d = t.dim() - 1;
    while (d >= 0 && ++idx[static_cast<size_t>(d)] == t.size(d)) idx[static_cast<size_t>(d--)] = 0;
    if (d < 0) break;
  }
  return out;
}

bool SameLayout(const T& a, const T& b) {
  return a.sizes() == b.sizes() && a.strides() == b.strides() && a.storage_offset() == b.storage_offset() &&
         a.scalar_type() == b.scalar_type();
}

// `other` may be read by an op that writes `target`: it does not share
// memory with it, or (when `same_ok`) it is exactly the same view.
bool SafeOperand(const T& target, const T& other, bool same_ok) {
  if (!target.storage().is_alias_of(other.storage())) return true;
  if (same_ok && SameLayout(target, other)) return true;
  std::set<int64_t> a = Elements(target), b = Elements(other);
  for (int64_t x : b)
    if (a.count(x)) return false;
  return true;
}

// ---------------------------------------------------------------------------
// The generator.

struct Info {
  int root = -1;  // the id that allocated this storage
  bool via_expand = false;
  bool via_as_strided = false;
  bool is_const = false;  // a traced tensor constant (a weight): never written
};

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& o) : rng_(seed), opts_(o) { p_.seed = seed; }

  Program Run() {
    MakeInputSpecs();
    env_ = MakeInputs(p_);
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      Info inf;
      const InputSpec& s = p_.inputs[i];
      inf.root = s.layout == InputSpec::Layout::kViewOf ? s.of : static_cast<int>(i);
      info_.push_back(inf);
    }
    p_.num_ids = static_cast<int>(p_.inputs.size());
    const int64_t want = rng_.Range(1, opts_.max_steps);
    for (int attempts = 0; static_cast<int64_t>(p_.steps.size()) < want && attempts < 30 * want; ++attempts) {
      Step s;
      std::string refusal;
      if (!Propose(&s, &refusal)) continue;
      if (!Accept(s)) continue;
      if (!refusal.empty()) p_.may_refuse.push_back(refusal);
    }
    ChooseOutputs();
    return p_;
  }

 private:
  // --- inputs ---------------------------------------------------------------
  Shape RandomShape(int max_rank = 3) {
    int rank = static_cast<int>(rng_.Weighted({1, 5, 9, 5}));
    rank = std::min(rank, max_rank);
    Shape s;
    for (int i = 0; i < rank; ++i) s.push_back(rng_.Chance(0.15) ? 1 : rng_.Range(2, 4));
    return s;
  }

  void MakeInputSpecs() {
    const int n = static_cast<int>(rng_.Range(1, 3));
    for (int i = 0; i < n; ++i) {
      InputSpec in;
      size_t kind = rng_.Weighted({70, 5, 15, 10});
      in.kind = static_cast<InputSpec::Kind>(kind);
      if (in.kind == InputSpec::Kind::kIndex) {
        in.shape = {rng_.Range(1, 4)};
        if (rng_.Chance(0.5)) {
          in.lo = 0;
          in.hi = 2;
        } else {
          in.lo = -2;
          in.hi = 2;
        }
      } else if (in.kind == InputSpec::Kind::kMask) {
        in.shape = RandomShape(2);
      } else {
        in.shape = RandomShape();
        if (in.kind == InputSpec::Kind::kFloat) {
          // Aliasing inputs: a view of an earlier contiguous float input.
          std::vector<int> bases;
          for (int j = 0; j < i; ++j)
            if (p_.inputs[static_cast<size_t>(j)].kind == InputSpec::Kind::kFloat &&
                p_.inputs[static_cast<size_t>(j)].layout == InputSpec::Layout::kContiguous)
              bases.push_back(j);
          size_t layout = rng_.Weighted({80, 7, 7, bases.empty() ? 0 : 6});
          in.layout = static_cast<InputSpec::Layout>(layout);
          if (in.layout == InputSpec::Layout::kTransposed && in.shape.size() < 2)
            in.layout = InputSpec::Layout::kContiguous;
          if (in.layout == InputSpec::Layout::kOffset && in.shape.empty()) in.layout = InputSpec::Layout::kContiguous;
          if (in.layout == InputSpec::Layout::kViewOf) {
            in.of = rng_.Pick(bases);
            const Shape& bs = p_.inputs[static_cast<size_t>(in.of)].shape;
            std::vector<int> views = {0, 3};
            if (!bs.empty() && bs[0] >= 2) views.push_back(1), views.push_back(4);
            if (bs.size() == 2) views.push_back(2);
            in.view = rng_.Pick(views);
            switch (in.view) {
              case 0:
                in.shape = bs;
                break;
              case 1:
                in.shape = Shape(bs.begin() + 1, bs.end());
                break;
              case 2:
                in.shape = {bs[1], bs[0]};
                break;
              case 3:
                in.shape = {Numel(bs)};
                break;
              default:
                in.shape = bs;
                in.shape[0] -= 1;
                break;
            }
          }
        }
      }
      p_.inputs.push_back(in);
    }
  }

  // --- choosing operands ------------------------------------------------------
  const T& Tn(int id) const { return env_[static_cast<size_t>(id)]; }
  Shape Sz(int id) const { return Tn(id).sizes().vec(); }
  bool IsFloat(int id) const { return Tn(id).is_floating_point(); }

  // An id satisfying `ok`, biased towards recent ones; -1 if none.
  int PickId(const std::function<bool(int)>& ok) {
    std::vector<int> c;
    for (int id = 0; id < p_.num_ids; ++id)
      if (ok(id)) c.push_back(id);
    if (c.empty()) return -1;
    if (c.size() > 3 && rng_.Chance(0.5)) return c[c.size() - 1 - static_cast<size_t>(rng_.Below(3))];
    return rng_.Pick(c);
  }

  double FloatScalar() { return rng_.Pick(std::vector<double>{0.5, 1.5, -2.0, 3.0, 0.25, -0.75, 2.0, -1.0}); }

  // Sets s->s0 to a scalar suited to the dtype of `id`.
  void ScalarFor(int id, Step* s, bool nonzero = false) {
    if (!IsFloat(id) && !rng_.Chance(0.1)) {
      s->int_scalar = true;
      s->s0 = static_cast<double>(rng_.Pick(std::vector<int64_t>{1, 2, -1, 3, -2}));
      if (!nonzero && rng_.Chance(0.1)) s->s0 = 0;
    } else {
      s->s0 = FloatScalar();
    }
  }

  // 0: not writable; 1: writable; 2: writable but atenaot refuses by design (*why set).
  int Writable(int id, std::string* why) const {
    const Info& inf = info_[static_cast<size_t>(id)];
    const T& t = Tn(id);
    if (info_[static_cast<size_t>(inf.root)].is_const || inf.is_const) return 0;
    if (MayOverlap(t)) {
      *why = "overlapping memory";
      return 2;
    }
    if (inf.via_expand) {
      *why = "a write reaches memory through an expand";
      return 2;
    }
    if (inf.via_as_strided) {
      const T& root = Tn(inf.root);
      if (!root.is_contiguous() || root.storage_offset() != 0) {
        *why = "to be contiguous from offset 0";
        return 2;
      }
    }
    return 1;
  }

  // A write target: writable, or (rarely, on purpose) one atenaot refuses.
  int PickTarget(std::string* refusal, const std::function<bool(int)>& extra) {
    const bool allow_refusal = rng_.Chance(opts_.refusal_probability);
    int id = PickId([&](int id) {
      std::string why;
      int w = Writable(id, &why);
      return (w == 1 || (w == 2 && allow_refusal && why != "overlapping memory")) && extra(id);
    });
    if (id >= 0) {
      std::string why;
      if (Writable(id, &why) == 2) *refusal = why;
    }
    return id;
  }

  // An operand for a binary op with `a` whose broadcast result stays small.
  int PickBroadcastPartner(int a, bool want_same_kind) {
    return PickId([&](int id) {
      Shape o;
      if (!Broadcast(Sz(a), Sz(id), &o) || Numel(o) > opts_.max_numel) return false;
      if (want_same_kind && IsFloat(id) != IsFloat(a) && !rng_.Chance(0.3)) return false;
      return Tn(id).scalar_type() != at::kBool;
    });
  }

  Shape RandomFactorization(int64_t numel) {
    Shape s;
    if (numel == 0) return {0};
    int rank = static_cast<int>(rng_.Range(1, 3));
    int64_t rem = numel;
    for (int i = 0; i + 1 < rank; ++i) {
      std::vector<int64_t> divs;
      for (int64_t d = 1; d <= rem; ++d)
        if (rem % d == 0) divs.push_back(d);
      int64_t d = rng_.Pick(divs);
      s.push_back(d);
      rem /= d;
    }
    s.push_back(rem);
    rng_.Shuffle(&s);
    if (rng_.Chance(0.3)) s[static_cast<size_t>(rng_.Below(static_cast<int64_t>(s.size())))] = -1;
    return s;
  }

  // A dim argument; a 0-dim tensor's are 0 and -1 (ATen's row of one).
  int64_t RandomDim(int64_t rank) {
    if (rank == 0) return rng_.Chance(0.5) ? 0 : -1;
    int64_t d = rng_.Below(rank);
    return rng_.Chance(0.2) ? d - rank : d;
  }

  // --- proposing a step -------------------------------------------------------
  bool Propose(Step* s, std::string* refusal) {
    enum Cat { kBinary, kScalarOp, kUnary, kCompare, kReduce, kMake, kViewOp, kMulti, kInplace, kIndexing };
    const Cat cat = static_cast<Cat>(rng_.Weighted({10, 6, 6, 5, 5, 4, 24, 5, 24, 11}));
    auto any = [](int) { return true; };
    auto nonbool = [&](int id) { return Tn(id).scalar_type() != at::kBool; };
    auto flt = [&](int id) { return IsFloat(id); };
    switch (cat) {
      case kBinary: {
        int a = PickId(nonbool);
        if (a < 0) return false;
        int b = PickBroadcastPartner(a, true);
        if (b < 0) return false;
        s->op = rng_.Pick(std::vector<Op>{Op::kAdd, Op::kSub, Op::kMul, Op::kDiv});
        if (s->op == Op::kDiv && !IsFloat(a)) s->op = Op::kMul;
        s->in = {a, b};
        return true;
      }
      case kScalarOp: {
        int a = PickId(nonbool);
        if (a < 0) return false;
        s->op = rng_.Pick(std::vector<Op>{Op::kAddS, Op::kSubS, Op::kMulS, Op::kDivS});
        s->in = {a};
        ScalarFor(a, s, /*nonzero=*/true);
        return true;
      }
      case kUnary: {
        int a = PickId(flt);
        if (a < 0) return false;
        s->op = rng_.Pick(
            std::vector<Op>{Op::kNeg, Op::kRelu, Op::kSigmoid, Op::kTanh, Op::kExp, Op::kAbs, Op::kClamp, Op::kClone});
        s->in = {a};
        if (s->op == Op::kClamp) {
          s->s0 = rng_.Pick(std::vector<double>{-1.0, -0.5, 0.0});
          s->s1 = rng_.Pick(std::vector<double>{0.25, 0.5, 1.0});
        }
        return true;
      }
      case kCompare: {
        const size_t which = rng_.Weighted({4, 3, 3});
        if (which == 0) {  // compare with a tensor or a scalar
          int a = PickId(nonbool);
          if (a < 0) return false;
          s->a = {rng_.Below(6)};
          if (rng_.Chance(0.5)) {
            int b = PickBroadcastPartner(a, true);
            if (b < 0) return false;
            s->op = Op::kCmp;
            s->in = {a, b};
          } else {
            s->op = Op::kCmpS;
            s->in = {a};
            ScalarFor(a, s);
            if (s->a[0] >= 4 && !s->int_scalar) s->s0 = 0;  // eq/ne: something that can be equal (relu, zero_)
          }
          return true;
        }
        if (which == 1) {  // where(mask, a, b)
          int m = PickId([&](int id) { return Tn(id).scalar_type() == at::kBool; });
          if (m < 0) return false;
          int a = PickBroadcastPartner(m, false);
          if (a < 0) return false;
          Shape ma;
          Broadcast(Sz(m), Sz(a), &ma);
          int b = PickId([&](int id) {
            Shape o;
            return Tn(id).scalar_type() == Tn(a).scalar_type() && Broadcast(ma, Sz(id), &o) &&
                   Numel(o) <= opts_.max_numel;
          });
          if (b < 0) return false;
          s->op = Op::kWhere;
          s->in = {m, a, b};
          return true;
        }
        int m = PickId([&](int id) { return Tn(id).scalar_type() == at::kBool; });
        if (m < 0) return false;
        s->op = Op::kLogicalNot;
        s->in = {m};
        return true;
      }
      case kReduce: {
        // Half the time of a 0-dim tensor where there is one (over dim 0 or
        // -1: the emitters crashed there until 2026-12-07).
        int a = rng_.Chance(0.5) ? PickId([&](int id) { return nonbool(id) && Tn(id).dim() == 0; }) : -1;
        if (a < 0) a = PickId([&](int id) { return nonbool(id) && Tn(id).dim() >= 1; });
        if (a < 0) return false;
        s->in = {a};
        const size_t which = rng_.Weighted({4, 3, 1});
        if (which == 2) {
          s->op = Op::kSumAll;
          return true;
        }
        s->op = which == 0 || !IsFloat(a) ? Op::kSum : Op::kMean;
        s->a = {RandomDim(Tn(a).dim())};
        s->flag = rng_.Chance(0.3);
        return true;
      }
      case kMake: {
        const size_t which = rng_.Weighted({3, 3, 2, 2});
        if (which == 0) {  // zeros: a fresh accumulator
          s->op = Op::kZeros;
          // Often shaped like an existing tensor, so it can take writes from it.
          const int like = rng_.Chance(0.6) ? PickId([&](int id) { return Tn(id).dim() >= 1; }) : -1;
          s->a = like >= 0 ? Sz(like) : RandomShape();
          return true;
        }
        if (which == 1) {  // dtype conversion
          int a = PickId(any);
          if (a < 0) return false;
          std::vector<at::ScalarType> to;
          for (at::ScalarType d : {at::kFloat, at::kLong, at::kDouble})
            if (d != Tn(a).scalar_type()) to.push_back(d);
          s->op = Op::kTo;
          s->in = {a};
          s->a = {static_cast<int64_t>(rng_.Pick(to))};
          return true;
        }
        // Index tensors: a traced arange or a constant (a weight in the IR).
        int target = PickId([&](int id) { return Tn(id).dim() >= 1 && Tn(id).size(0) >= 1; });
        const int64_t size = target < 0 ? 3 : Tn(target).size(0);
        const int64_t n = rng_.Range(1, 4);
        if (which == 2) {
          s->op = Op::kArange;
          s->a = {n, size};
          return true;
        }
        s->op = Op::kConstIdx;
        for (int64_t i = 0; i < n; ++i) s->a.push_back(rng_.Range(-size, size - 1));
        return true;
      }
      case kViewOp:
        return ProposeView(s);
      case kMulti: {
        // Half the time max.dim/min.dim of a 0-dim tensor where there is one (topk/sort: refused).
        int a = rng_.Chance(0.5) ? PickId([&](int id) { return nonbool(id) && Tn(id).dim() == 0; }) : -1;
        const bool scalar = a >= 0;
        if (!scalar) a = PickId([&](int id) { return nonbool(id) && Tn(id).dim() >= 1 && Tn(id).numel() > 0; });
        if (a < 0) return false;
        const T& t = Tn(a);
        s->in = {a};
        s->op = scalar ? rng_.Pick(std::vector<Op>{Op::kMaxDim, Op::kMinDim})
                       : rng_.Pick(std::vector<Op>{Op::kMaxDim, Op::kMinDim, Op::kTopk, Op::kSort});
        const int64_t dim = RandomDim(t.dim());
        if (s->op == Op::kTopk) {
          s->a = {rng_.Range(1, t.size(dim)), dim};
        } else {
          s->a = {dim};
        }
        s->flag = rng_.Chance(0.5);
        return true;
      }
      case kInplace:
        if (rng_.Chance(opts_.refusal_probability / 4)) {  // t_: a view (a graph input's caller keeps its layout)
          int a = PickId([&](int id) { return Tn(id).dim() == 2 && !info_[static_cast<size_t>(id)].is_const; });
          if (a < 0) return false;
          s->op = Op::kT_;
          s->in = {a};
          return true;
        }
        return ProposeInplace(s, refusal);
      case kIndexing:
        return ProposeIndexing(s, refusal);
    }
    return false;
  }

  bool ProposeView(Step* s) {
    int a = PickId([](int) { return true; });
    if (a < 0) return false;
    const T& t = Tn(a);
    const int64_t r = t.dim();
    s->in = {a};
    std::vector<Op> ops = {Op::kView,   Op::kReshape,   Op::kUnsqueeze, Op::kSqueeze,
                           Op::kExpand, Op::kAsStrided, Op::kContiguous};
    if (r >= 1) {
      for (Op o : {Op::kSelect, Op::kSlice, Op::kSlice, Op::kNarrow, Op::kSplit, Op::kSplitSizes, Op::kUnbind,
                   Op::kChunk, Op::kSelect, Op::kNarrow})
        ops.push_back(o);
    }
    if (r >= 2) {
      for (Op o : {Op::kTranspose, Op::kPermute, Op::kDiagonal, Op::kDiagonal, Op::kTranspose}) ops.push_back(o);
    }
    if (r <= 2) ops.push_back(Op::kT);
    s->op = rng_.Pick(ops);
    switch (s->op) {
      case Op::kView:
      case Op::kReshape:
        s->a = RandomFactorization(t.numel());
        return true;
      case Op::kUnsqueeze:
        s->a = {rng_.Range(-(r + 1), r)};
        return true;
      case Op::kSqueeze:
        if (r >= 1 && rng_.Chance(0.6)) s->a = {RandomDim(r)};
        return true;
      case Op::kExpand: {
        Shape sz = Sz(a);
        for (int64_t& d : sz)
          if (d == 1)
            d = rng_.Range(1, 3);
          else if (rng_.Chance(0.3))
            d = -1;
        if (rng_.Chance(0.4)) sz.insert(sz.begin(), rng_.Range(1, 3));
        Shape real = sz;
        for (size_t i = 0; i < real.size(); ++i)
          if (real[i] == -1) real[i] = t.size(static_cast<int64_t>(i) - static_cast<int64_t>(real.size()) + r);
        if (Numel(real) > opts_.max_numel || sz.size() > 4) return false;
        s->a = sz;
        return true;
      }
      case Op::kAsStrided: {
        const int64_t storage = static_cast<int64_t>(t.storage().nbytes()) / static_cast<int64_t>(t.element_size());
        if (storage == 0) return false;
        // By design atenaot rebuilds an as_strided view (its offset is absolute in
        // the storage) only inside a contiguous base: stay within the root's elements.
        const T& root = Tn(info_[static_cast<size_t>(a)].root);
        if (!root.is_contiguous()) return false;
        const int rank = static_cast<int>(rng_.Range(1, 3));
        Shape sizes, strides(static_cast<size_t>(rank));
        for (int i = 0; i < rank; ++i) sizes.push_back(rng_.Range(1, 3));
        std::vector<int> order(static_cast<size_t>(rank));
        std::iota(order.begin(), order.end(), 0);
        rng_.Shuffle(&order);
        int64_t st = rng_.Range(1, 2);
        for (int d : order) {  // nested strides: never overlapping
          strides[static_cast<size_t>(d)] = st;
          st = st * sizes[static_cast<size_t>(d)] + (rng_.Chance(0.3) ? 1 : 0);
        }
        int64_t span = 1;
        for (int i = 0; i < rank; ++i) span += (sizes[static_cast<size_t>(i)] - 1) * strides[static_cast<size_t>(i)];
        if (span > root.numel()) return false;
        s->a = sizes;
        s->b = strides;
        s->c = root.storage_offset() + rng_.Range(0, root.numel() - span);
        return true;
      }
      case Op::kContiguous:
      case Op::kT:
        return true;
      case Op::kSelect: {
        const int64_t d = RandomDim(r);
        const int64_t n = t.size(d);
        if (n == 0) return false;
        s->a = {d, rng_.Range(-n, n - 1)};
        return true;
      }
      case Op::kSlice: {
        const int64_t d = RandomDim(r);
        const int64_t n = t.size(d);
        s->a = {d, rng_.Range(-n - 1, n), rng_.Range(-n, n + 1), rng_.Pick(std::vector<int64_t>{1, 1, 2, 3})};
        s->b = {rng_.Chance(0.8) ? 1 : 0, rng_.Chance(0.7) ? 1 : 0};
        return true;
      }
      case Op::kNarrow: {
        const int64_t d = RandomDim(r);
        const int64_t n = t.size(d);
        const int64_t start = rng_.Range(0, n);
        s->a = {d, rng_.Chance(0.2) && start > 0 ? start - n : start, rng_.Range(0, n - start)};
        return true;
      }
      case Op::kSplit: {
        const int64_t d = RandomDim(r);
        const int64_t n = t.size(d);
        const int64_t size = rng_.Range(1, std::max<int64_t>(1, n));
        if (n / size > 4) return false;
        s->a = {size, d};
        return true;
      }
      case Op::kSplitSizes: {
        const int64_t d = RandomDim(r);
        int64_t rem = t.size(d);
        const int parts = static_cast<int>(rng_.Range(1, 3));
        for (int i = 0; i + 1 < parts; ++i) {
          int64_t k = rng_.Range(0, rem);
          s->a.push_back(k);
          rem -= k;
        }
        s->a.push_back(rem);
        s->b = {d};
        return true;
      }
      case Op::kUnbind: {
        const int64_t d = RandomDim(r);
        if (t.size(d) > 4) return false;
        s->a = {d};
        return true;
      }
      case Op::kChunk:
        s->a = {rng_.Range(1, 3), RandomDim(r)};
        return true;
      case Op::kTranspose: {
        int64_t d0 = RandomDim(r), d1 = RandomDim(r);
        s->a = {d0, d1};
        return true;
      }
      case Op::kPermute: {
        Shape perm(static_cast<size_t>(r));
        std::iota(perm.begin(), perm.end(), 0);
        rng_.Shuffle(&perm);
        if (rng_.Chance(0.2)) perm[0] -= r;
        s->a = perm;
        return true;
      }
      case Op::kDiagonal: {
        int64_t d1 = rng_.Below(r), d2 = rng_.Below(r);
        if (d1 == d2) d2 = (d1 + 1) % r;
        s->a = {rng_.Range(-t.size(d1), t.size(d2)), d1, d2};
        return true;
      }
      default:
        return false;
    }
  }

  bool ProposeInplace(Step* s, std::string* refusal) {
    const Op op = rng_.Pick(std::vector<Op>{Op::kAdd_,  Op::kSub_,   Op::kMul_,     Op::kAddS_, Op::kMulS_,
                                            Op::kDivS_, Op::kFill_,  Op::kFillT_,   Op::kZero_, Op::kClamp_,
                                            Op::kRelu_, Op::kNeg_,   Op::kSigmoid_, Op::kCmpS_, Op::kCopy_,
                                            Op::kCopy_, Op::kAddOut, Op::kMulOut,   Op::kAdd_,  Op::kMulS_});
    const bool needs_float = op == Op::kSigmoid_ || op == Op::kDivS_ || op == Op::kCmpS_;
    int target = PickTarget(refusal, [&](int id) {
      if (needs_float && !IsFloat(id)) return false;
      return Tn(id).scalar_type() != at::kBool || op == Op::kFill_ || op == Op::kZero_ || op == Op::kCopy_;
    });
    if (target < 0) return false;
    s->op = op;
    s->in = {target};
    const T& t = Tn(target);
    auto partner = [&](bool same_ok, const std::function<bool(int)>& extra) {
      return PickId(
          [&](int id) { return BroadcastsTo(Sz(id), Sz(target)) && SafeOperand(t, Tn(id), same_ok) && extra(id); });
    };
    switch (op) {
      case Op::kAdd_:
      case Op::kSub_:
      case Op::kMul_: {
        int b = partner(true, [&](int id) { return Tn(id).scalar_type() != at::kBool; });
        if (b < 0) return false;
        s->in.push_back(b);
        return true;
      }
      case Op::kAddS_:
      case Op::kMulS_:
      case Op::kDivS_:
      case Op::kFill_:
        ScalarFor(target, s, op == Op::kDivS_);
        if (t.scalar_type() == at::kBool) {
          s->int_scalar = false;
          s->s0 = 1.0;
        }
        return true;
      case Op::kFillT_: {
        int v = PickId([&](int id) { return Tn(id).dim() == 0 && SafeOperand(t, Tn(id), false); });
        if (v < 0) return false;
        s->in.push_back(v);
        return true;
      }
      case Op::kClamp_:
        if (!IsFloat(target)) {
          s->int_scalar = true;
          s->s0 = -1;
          s->s1 = 1;
        } else {
          s->s0 = rng_.Pick(std::vector<double>{-1.0, -0.5, 0.0});
          s->s1 = rng_.Pick(std::vector<double>{0.25, 0.5, 1.0});
        }
        return true;
      case Op::kCmpS_:
        s->a = {rng_.Below(6)};
        s->s0 = rng_.Chance(0.3) ? 0.0 : FloatScalar();
        return true;
      case Op::kCopy_: {
        int b = partner(true, [](int) { return true; });
        if (b < 0) return false;
        s->in.push_back(b);
        return true;
      }
      case Op::kAddOut:
      case Op::kMulOut: {
        int a = PickId([&](int id) {
          return Tn(id).scalar_type() != at::kBool && BroadcastsTo(Sz(id), Sz(target)) && SafeOperand(t, Tn(id), true);
        });
        if (a < 0) return false;
        int b = PickId([&](int id) {
          Shape o;
          return Tn(id).scalar_type() != at::kBool && Broadcast(Sz(a), Sz(id), &o) && o == Sz(target) &&
                 SafeOperand(t, Tn(id), true);
        });
        if (b < 0) return false;
        s->in = {target, a, b};
        return true;
      }
      default:
        return true;
    }
  }

  bool ProposeIndexing(Step* s, std::string* refusal) {
    const size_t which = rng_.Weighted({6, 3});
    auto is_bool = [&](int id) { return Tn(id).scalar_type() == at::kBool; };
    if (which == 1) {  // masked_fill_
      int target = PickTarget(refusal, [&](int id) { return Tn(id).scalar_type() != at::kBool; });
      if (target < 0) return false;
      int m = PickId([&](int id) { return is_bool(id) && BroadcastsTo(Sz(id), Sz(target)); });
      if (m < 0) return false;
      s->in = {target, m};
      if (rng_.Chance(0.3)) {
        int v = PickId([&](int id) {
          return Tn(id).dim() == 0 && Tn(id).scalar_type() != at::kBool && SafeOperand(Tn(target), Tn(id), false);
        });
        if (v < 0) return false;
        s->op = Op::kMaskedFillT_;
        s->in.push_back(v);
      } else {
        s->op = Op::kMaskedFill_;
        ScalarFor(target, s);
      }
      return true;
    }
    // index_put_
    int target = PickTarget(refusal, [&](int id) { return Tn(id).dim() >= 1 && Tn(id).scalar_type() != at::kBool; });
    if (target < 0) return false;
    const T& t = Tn(target);
    const Shape ts = Sz(target);
    s->op = Op::kIndexPut_;
    s->flag = rng_.Chance(0.4);
    // Indices must not share memory with the target: eager reads them while it
    // writes, so the result would depend on the order of its writes.
    auto is_index = [&](int id) {
      return Tn(id).scalar_type() == at::kLong && Tn(id).dim() == 1 && SafeOperand(t, Tn(id), false);
    };
    Shape result;  // the shape index_put_'s values broadcast to
    const size_t mode = rng_.Weighted({5, ts.size() >= 2 ? 2 : 0, ts.size() >= 2 ? 2 : 0, 3});
    std::vector<int> idx;
    if (mode == 0) {  // one index tensor on dim 0
      int i0 = PickId(is_index);
      if (i0 < 0) return false;
      idx = {i0};
      result = {Tn(i0).size(0)};
      result.insert(result.end(), ts.begin() + 1, ts.end());
    } else if (mode == 1) {  // none, then an index on dim 1
      int i1 = PickId(is_index);
      if (i1 < 0) return false;
      idx = {-1, i1};
      result = {ts[0], Tn(i1).size(0)};
      result.insert(result.end(), ts.begin() + 2, ts.end());
    } else if (mode == 2) {  // two index tensors
      int i0 = PickId(is_index);
      if (i0 < 0) return false;
      int i1 = PickId([&](int id) {
        Shape o;
        return is_index(id) && Broadcast(Sz(i0), Sz(id), &o);
      });
      if (i1 < 0) return false;
      idx = {i0, i1};
      Broadcast(Sz(i0), Sz(i1), &result);
      result.insert(result.end(), ts.begin() + 2, ts.end());
    } else {  // a bool mask over leading dims: values broadcast over the selected rows
      int m = PickId([&](int id) {
        if (!is_bool(id) || Tn(id).dim() == 0 || Tn(id).dim() > t.dim()) return false;
        if (!SafeOperand(t, Tn(id), false)) return false;
        return Sz(id) == Shape(ts.begin(), ts.begin() + Tn(id).dim());
      });
      if (m < 0) return false;
      idx = {m};
      result = Shape(ts.begin() + Tn(m).dim(), ts.end());
    }
    int v = PickId([&](int id) {
      if (Tn(id).scalar_type() != t.scalar_type()) return false;
      if (!SafeOperand(t, Tn(id), false)) return false;
      return BroadcastsTo(Sz(id), result);
    });
    if (v < 0) return false;
    s->in = {target, v};
    s->in.insert(s->in.end(), idx.begin(), idx.end());
    return true;
  }

  // --- executing a proposal ---------------------------------------------------
  void Replay() {
    env_ = MakeInputs(p_);
    env_.resize(static_cast<size_t>(p_.num_ids));
    for (const Step& s : p_.steps) {
      Ts r = Apply(s, env_, nullptr);
      for (size_t k = 0; k < r.size(); ++k) env_[static_cast<size_t>(s.out[k])] = r[k];
    }
  }

  static bool Moderate(const T& t) {
    if (!t.is_floating_point() || t.numel() == 0) return true;
    return t.isfinite().all().item<bool>() && t.abs().max().item<double>() <= 1e4;
  }

  bool Accept(Step s) {
    Ts r;
    bool ambiguous = false;
    try {
      r = Apply(s, env_, &ambiguous);
    } catch (const std::exception&) {
      Replay();  // the failed step may have written before it threw
      return false;
    }
    bool ok = !ambiguous;
    for (const T& t : r) ok = ok && t.numel() <= opts_.max_numel && Moderate(t);
    if (r.size() > 5) ok = false;
    if (IsInPlace(s.op)) ok = ok && Moderate(Tn(s.in[0]));
    if (!ok) {
      Replay();
      return false;
    }
    for (size_t k = 0; k < r.size(); ++k) {
      const int id = p_.num_ids++;
      s.out.push_back(id);
      env_.push_back(r[k]);
      Info inf;
      inf.root = id;
      // A result that shares memory with the step's first tensor operand is a view of it.
      if (!s.in.empty() && r[k].storage().is_alias_of(Tn(s.in[0]).storage())) {
        const Info& parent = info_[static_cast<size_t>(s.in[0])];
        inf = parent;
        if (s.op == Op::kExpand) inf.via_expand = true;
        if (s.op == Op::kAsStrided) inf.via_as_strided = true;
      }
      if (s.op == Op::kConstIdx) inf.is_const = true;
      info_.push_back(inf);
    }
    p_.steps.push_back(std::move(s));
    return true;
  }

  void ChooseOutputs() {
    // Prefer what the program computed last and the storages it wrote.
    std::vector<int> recent, written;
    for (const Step& s : p_.steps) {
      if (IsInPlace(s.op)) {
        written.push_back(s.in[0]);
        written.push_back(info_[static_cast<size_t>(s.in[0])].root);
      }
    }
    for (int id = std::max(0, p_.num_ids - 4); id < p_.num_ids; ++id) recent.push_back(id);
    const int n = static_cast<int>(rng_.Weighted({0, 5, 4, 2, 1}));
    for (int k = 0; (k < n || p_.outputs.empty()) && k < 100; ++k) {
      const size_t from = rng_.Weighted({4, written.empty() ? 0 : 4, 1, 2, p_.outputs.empty() ? 0 : 1});
      int id;
      if (from == 0)
        id = rng_.Pick(recent);
      else if (from == 1)
        id = rng_.Pick(written);
      else if (from == 2)
        id = static_cast<int>(rng_.Below(static_cast<int64_t>(p_.inputs.size())));
      else if (from == 3)
        id = static_cast<int>(rng_.Below(p_.num_ids));
      else
        id = p_.outputs.back();  // the same tensor twice
      // The tracer cannot return a constant it never saw an op make.
      if (info_[static_cast<size_t>(id)].is_const) continue;
      p_.outputs.push_back(id);
    }
  }

  Rng rng_;
  GeneratorOptions opts_;
  Program p_;
  Ts env_;
  std::vector<Info> info_;
};

// ---------------------------------------------------------------------------
// Renumbering after removals.

// Keeps the inputs in `keep_inputs` and the steps in `keep_steps`, renumbering ids densely.
Program Rebuild(const Program& p, const std::vector<bool>& keep_inputs, const std::vector<bool>& keep_steps,
                const std::vector<int>& outputs) {
  Program q;
  q.seed = p.seed;
  q.may_refuse = p.may_refuse;
  std::vector<int> map(static_cast<size_t>(p.num_ids), -1);
  std::vector<int> input_map(p.inputs.size(), -1);
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (!keep_inputs[i]) continue;
    InputSpec in = p.inputs[i];
    if (in.layout == InputSpec::Layout::kViewOf) in.of = input_map[static_cast<size_t>(in.of)];
    input_map[i] = static_cast<int>(q.inputs.size());
    map[i] = static_cast<int>(q.inputs.size());
    q.inputs.push_back(in);
  }
  q.num_ids = static_cast<int>(q.inputs.size());
  for (size_t k = 0; k < p.steps.size(); ++k) {
    if (!keep_steps[k]) continue;
    Step s = p.steps[k];
    for (int& id : s.in)
      if (id >= 0) id = map[static_cast<size_t>(id)];
    for (int& id : s.out) {
      map[static_cast<size_t>(id)] = q.num_ids;
      id = q.num_ids++;
    }
    q.steps.push_back(std::move(s));
  }
  for (int id : outputs) q.outputs.push_back(map[static_cast<size_t>(id)]);
  return q;
}

// Marks every step that (transitively) reads an id defined by a dropped step.
bool Prune(const Program& p, std::vector<bool>* keep_steps, std::vector<int>* outputs) {
  std::vector<bool> dead(static_cast<size_t>(p.num_ids), false);
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const Step& s = p.steps[k];
    bool uses_dead = false;
    for (int id : s.in)
      if (id >= 0 && dead[static_cast<size_t>(id)]) uses_dead = true;
    if (!(*keep_steps)[k] || uses_dead) {
      (*keep_steps)[k] = false;
      for (int id : s.out) dead[static_cast<size_t>(id)] = true;
    }
  }
  std::vector<int> kept;
  for (int id : *outputs)
    if (!dead[static_cast<size_t>(id)]) kept.push_back(id);
  *outputs = kept;
  return !outputs->empty();
}

// ---------------------------------------------------------------------------
// The check.

volatile sig_atomic_t g_have_seed = 0;
volatile uint64_t g_current_seed = 0;

void OnCrash(int sig) {
  if (g_have_seed) {
    char buf[256];
    int n = std::snprintf(buf, sizeof buf,
                          "\n*** random program crashed (signal %d) while checking seed %llu; reproduce with:\n"
                          "***   bazel run //tests/random:random_tester -- --seed %llu --count 1\n",
                          sig, static_cast<unsigned long long>(g_current_seed),
                          static_cast<unsigned long long>(g_current_seed));
    if (n > 0) (void)!write(2, buf, static_cast<size_t>(n));
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

const Stage kStages[] = {Stage::kImport, Stage::kFunctional, Stage::kFunctionalNoViews, Stage::kReinplaced};

// Whether outputs and/or inputs-after differ (positions move when parts are
// dropped, so the signature keeps only which kind of result is wrong).
std::string DiffSignature(const Ts& eo, const Ts& ao, const Ts& ei, const Ts& ai) {
  std::string sig;
  if (eo.size() != ao.size()) sig += "o";
  for (size_t i = 0; i < eo.size() && i < ao.size(); ++i)
    if (!CompareTensors(eo[i], ao[i]).empty()) sig += "o";
  if (ei.size() != ai.size()) sig += "i";
  for (size_t i = 0; i < ei.size() && i < ai.size(); ++i)
    if (!CompareTensors(ei[i], ai[i]).empty()) sig += "i";
  std::string s;
  if (sig.find('o') != std::string::npos) s += "outputs";
  if (sig.find('i') != std::string::npos) s += s.empty() ? "inputs" : "+inputs";
  return s;
}

// RunPipeline, or for the reinplaced stage without input reuse the same
// registered passes (and the checks RunPasses makes after each) with that
// option off.
Status RunStage(Graph& g, Stage stage, const CheckOptions& opts) {
  if (stage != Stage::kReinplaced || opts.reinplace_reuse_restored_inputs)
    return RunPipeline(g, stage, LiveOpTable(), {});
  AOT_ASSIGN_OR_RETURN(std::vector<PassSpec> passes,
                       ParsePassList("functionalize,dce,reinplace{reuse-restored-inputs=false},dce"));
  return RunPasses(g, passes, LiveOpTable(), {});
}

}  // namespace

const char* OpName(Op op) { return kOpNames[static_cast<size_t>(op)]; }

const char* KindName(CheckResult::Kind k) {
  switch (k) {
    case CheckResult::Kind::kOk:
      return "ok";
    case CheckResult::Kind::kRefused:
      return "refused (expected)";
    case CheckResult::Kind::kInvalid:
      return "invalid";
    case CheckResult::Kind::kMismatch:
      return "mismatch";
    case CheckResult::Kind::kError:
      return "error";
  }
  return "?";
}

bool IsFailure(const CheckResult& r) {
  return r.kind == CheckResult::Kind::kMismatch || r.kind == CheckResult::Kind::kError;
}

Program Generate(uint64_t seed, const GeneratorOptions& opts) {
  at::NoGradGuard no_grad;
  return Generator(seed, opts).Run();
}

std::vector<at::Tensor> MakeInputs(const Program& p) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(SplitMix(p.seed ^ 0x5eedull));
  Ts out;
  for (const InputSpec& in : p.inputs) {
    switch (in.kind) {
      case InputSpec::Kind::kIndex:
        out.push_back(at::randint(in.lo, in.hi, in.shape, gen, at::kLong));
        continue;
      case InputSpec::Kind::kMask:
        out.push_back(at::randn(in.shape, gen) > 0);
        continue;
      case InputSpec::Kind::kDouble:
        out.push_back(at::randn(in.shape, gen, at::kDouble));
        continue;
      case InputSpec::Kind::kFloat:
        break;
    }
    switch (in.layout) {
      case InputSpec::Layout::kContiguous:
        out.push_back(at::randn(in.shape, gen));
        break;
      case InputSpec::Layout::kTransposed: {
        Shape base = in.shape;
        std::swap(base[base.size() - 1], base[base.size() - 2]);
        out.push_back(at::randn(base, gen).transpose(-1, -2));
        break;
      }
      case InputSpec::Layout::kOffset: {
        Shape base = in.shape;
        base[0] += 1;
        out.push_back(at::randn(base, gen).narrow(0, 1, in.shape[0]));
        break;
      }
      case InputSpec::Layout::kViewOf: {
        const T& b = out[static_cast<size_t>(in.of)];
        switch (in.view) {
          case 0:
            out.push_back(b);
            break;
          case 1:
            out.push_back(b.select(0, 1));
            break;
          case 2:
            out.push_back(b.t());
            break;
          case 3:
            out.push_back(b.view({-1}));
            break;
          default:
            out.push_back(b.narrow(0, 0, in.shape[0]));
            break;
        }
        break;
      }
    }
  }
  return out;
}

std::vector<at::Tensor> Execute(const Program& p, const std::vector<at::Tensor>& inputs, bool* ambiguous) {
  Ts env(static_cast<size_t>(p.num_ids));
  for (size_t i = 0; i < inputs.size(); ++i) env[i] = inputs[i];
  for (const Step& s : p.steps) {
    Ts r = Apply(s, env, ambiguous);
    TORCH_CHECK(r.size() == s.out.size(), "step ", OpName(s.op), " made ", r.size(), " results, expected ",
                s.out.size());
    for (size_t k = 0; k < r.size(); ++k) env[static_cast<size_t>(s.out[k])] = r[k];
  }
  Ts out;
  for (int id : p.outputs) out.push_back(env[static_cast<size_t>(id)]);
  return out;
}

std::string ToCpp(const Program& p) {
  std::ostringstream os;
  os << "// seed " << p.seed << "; inputs:\n";
  for (size_t i = 0; i < p.inputs.size(); ++i) os << "//   in[" << i << "] = " << InputText(p.inputs[i]) << "\n";
  os << "[](const Ts& in) -> Ts {\n";
  for (size_t i = 0; i < p.inputs.size(); ++i)
    os << "    const T& " << Id(static_cast<int>(i)) << " = in[" << i << "];\n";
  for (const Step& s : p.steps) os << "    " << StepCpp(s) << "\n";
  os << "    return {";
  for (size_t k = 0; k < p.outputs.size(); ++k) os << (k ? ", " : "") << Id(p.outputs[k]);
  os << "};\n}";
  return os.str();
}

bool DropStep(const Program& p, size_t k, Program* out) {
  std::vector<bool> keep(p.steps.size(), true);
  keep[k] = false;
  std::vector<int> outputs = p.outputs;
  if (!Prune(p, &keep, &outputs)) return false;
  *out = Rebuild(p, std::vector<bool>(p.inputs.size(), true), keep, outputs);
  return true;
}

bool DropOutput(const Program& p, size_t k, Program* out) {
  if (p.outputs.size() <= 1) return false;
  std::vector<int> outputs = p.outputs;
  outputs.erase(outputs.begin() + static_cast<long>(k));
  *out = Rebuild(p, std::vector<bool>(p.inputs.size(), true), std::vector<bool>(p.steps.size(), true), outputs);
  return true;
}

bool DropUnusedInputs(const Program& p, Program* out) {
  std::vector<bool> used(p.inputs.size(), false);
  auto mark = [&](int id) {
    if (id >= 0 && static_cast<size_t>(id) < p.inputs.size()) used[static_cast<size_t>(id)] = true;
  };
  for (const Step& s : p.steps)
    for (int id : s.in) mark(id);
  for (int id : p.outputs) mark(id);
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].layout == InputSpec::Layout::kViewOf && used[i]) used[static_cast<size_t>(p.inputs[i].of)] = true;
  if (std::all_of(used.begin(), used.end(), [](bool b) { return b; })) return false;
  *out = Rebuild(p, used, std::vector<bool>(p.steps.size(), true), p.outputs);
  return true;
}

std::vector<Stage> AllStages() { return std::vector<Stage>(std::begin(kStages), std::end(kStages)); }

bool ParseStages(const std::string& list, std::vector<Stage>* out) {
  out->clear();
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    auto st = ParseStage(list.substr(start, end - start));
    if (!st.ok()) return false;
    out->push_back(*st);
    start = end + 1;
  }
  return !out->empty();
}

CheckResult CheckProgram(const Program& p, const CheckOptions& opts) {
  at::NoGradGuard no_grad;
  CheckResult r;
  g_current_seed = p.seed;
  g_have_seed = 1;
  auto fail = [&](CheckResult::Kind kind, Stage stage, std::string msg, std::string detail) {
    r.kind = kind;
    r.stage = stage;
    if (stage == Stage::kReinplaced && !opts.reinplace_reuse_restored_inputs) r.variant = "reuse_restored_inputs off";
    r.message = std::move(msg);
    r.signature = std::string(StageName(stage)) + "/" + KindName(kind) + "/" + detail;
    return r;
  };
  const Ts inputs = MakeInputs(p);
  Ts eager_in = CloneKeepingAliasing(inputs), eager_out;
  try {
    bool ambiguous = false;
    eager_out = Execute(p, eager_in, &ambiguous);
    if (ambiguous) return fail(CheckResult::Kind::kInvalid, Stage::kImport, "a result depends on ties", "");
  } catch (const std::exception& e) {
    std::string what = e.what();
    return fail(CheckResult::Kind::kInvalid, Stage::kImport, "eager refused: " + what.substr(0, what.find('\n')), "");
  }
  CppProgram fn = [&p](const Ts& in) { return Execute(p, in); };
  for (Stage stage : opts.stages) {
    try {
      auto g = TraceCpp(fn, inputs, LiveOpTable());
      if (!g.ok()) return fail(CheckResult::Kind::kError, stage, "import failed: " + g.status().ToString(), "import");
      Status s = RunStage(**g, stage, opts);
      if (!s.ok()) {
        if (stage != Stage::kImport && s.code() == StatusCode::kUnsupported) {
          bool expected = false;
          for (const std::string& m : p.may_refuse) expected = expected || s.message().find(m) != std::string::npos;
          if (expected) {
            r.kind = CheckResult::Kind::kRefused;
            r.stage = stage;
            r.message = s.ToString();
            continue;  // later stages must refuse (or pass) too
          }
        }
        r.ir.clear();
        return fail(CheckResult::Kind::kError, stage, std::string("stage failed: ") + s.ToString(),
                    StatusCodeName(s.code()));
      }
      Ts ref_in = CloneKeepingAliasing(inputs);
      auto ref_out = RunReference(**g, ref_in);
      if (!ref_out.ok()) {
        fail(CheckResult::Kind::kError, stage, "run failed: " + ref_out.status().ToString(), "run");
        r.ir = PrintGraph(**g);
        return r;
      }
      std::string diff = CompareTensorLists(eager_out, *ref_out, "output") + CompareInputsAfter(eager_in, ref_in);
      if (!diff.empty()) {
        fail(CheckResult::Kind::kMismatch, stage, diff, DiffSignature(eager_out, *ref_out, eager_in, ref_in));
        r.ir = PrintGraph(**g);
        return r;
      }
    } catch (const std::exception& e) {
      std::string what = e.what();
      return fail(CheckResult::Kind::kError, stage, "exception: " + what.substr(0, what.find('\n')), "exception");
    }
  }
  if (r.kind != CheckResult::Kind::kRefused) r.kind = CheckResult::Kind::kOk;
  return r;
}

Program Minimize(const Program& p, const CheckResult& failure, const CheckOptions& opts, int* checks_run) {
  Program cur = p;
  int checks = 0;
  auto still_fails = [&](const Program& q) {
    ++checks;
    CheckResult r = CheckProgram(q, opts);
    return IsFailure(r) && r.signature == failure.signature;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = cur.steps.size(); k-- > 0;) {
      if (k >= cur.steps.size()) continue;
      Program q;
      if (DropStep(cur, k, &q) && still_fails(q)) {
        cur = q;
        changed = true;
      }
    }
    for (size_t k = cur.outputs.size(); k-- > 0;) {
      Program q;
      if (DropOutput(cur, k, &q) && still_fails(q)) {
        cur = q;
        changed = true;
      }
    }
    Program q;
    if (DropUnusedInputs(cur, &q) && still_fails(q)) {
      cur = q;
      changed = true;
    }
  }
  if (checks_run) *checks_run = checks;
  return cur;
}

std::string FailureReport(const Program& m, const CheckResult& r) {
  std::ostringstream os;
  os << "=== random program failure: seed " << m.seed << "\n";
  os << "stage:   " << StageName(r.stage) << (r.variant.empty() ? "" : " (" + r.variant + ")") << "\n";
  os << "kind:    " << KindName(r.kind) << "\n";
  os << "message: " << r.message << "\n";
  os << "reproduce: bazel run //tests/random:random_tester -- --seed " << m.seed << " --count 1\n";
  auto print_at = [&](Stage stage) {
    os << "--- minimised program, IR at stage " << StageName(stage) << ":\n";
    try {
      CppProgram fn = [&m](const Ts& in) { return Execute(m, in); };
      auto g = TraceCpp(fn, MakeInputs(m), LiveOpTable());
      if (!g.ok()) {
        os << "(import failed: " << g.status().ToString() << ")\n";
        return;
      }
      Status s = RunPipeline(**g, stage, LiveOpTable(), {});
      os << (s.ok() ? PrintGraph(**g) : "(" + s.ToString() + ")\n");
    } catch (const std::exception& e) {
      os << "(exception: " << e.what() << ")\n";
    }
  };
  print_at(Stage::kImport);
  if (r.stage == Stage::kReinplaced) print_at(Stage::kFunctional);
  if (!r.ir.empty()) os << "--- IR at stage " << StageName(r.stage) << ":\n" << r.ir;
  os << "--- minimised program as C++:\n" << ToCpp(m) << "\n";
  return os.str();
}

RunSummary RunPrograms(uint64_t first_seed, int64_t count, const GeneratorOptions& gen, const RunOptions& run) {
  RunSummary sum;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(i);
    g_current_seed = seed;
    g_have_seed = 1;
    Program p = Generate(seed, gen);
    ++sum.programs;
    sum.steps += static_cast<int64_t>(p.steps.size());
    for (const Step& s : p.steps) ++sum.op_counts[OpName(s.op)];
    CheckResult r = CheckProgram(p, run.check);
    switch (r.kind) {
      case CheckResult::Kind::kOk:
        ++sum.ok;
        break;
      case CheckResult::Kind::kRefused:
        ++sum.refused;
        break;
      case CheckResult::Kind::kInvalid:
        ++sum.invalid;
        break;
      case CheckResult::Kind::kMismatch:
      case CheckResult::Kind::kError: {
        ++sum.failures;
        sum.failing_seeds.push_back(seed);
        if (static_cast<int>(sum.reports.size()) < run.max_minimized) {
          Program m = Minimize(p, r, run.check);
          CheckResult mr = CheckProgram(m, run.check);
          std::string report = FailureReport(m, IsFailure(mr) ? mr : r);
          if (run.log) *run.log << report << std::flush;
          sum.reports.push_back(report);
        } else if (run.log) {
          *run.log << "=== random program failure: seed " << seed << " (" << StageName(r.stage) << ", "
                   << KindName(r.kind) << "): " << r.message.substr(0, 300) << "\n"
                   << std::flush;
        }
        break;
      }
    }
    if (run.log && run.progress_every > 0 && (i + 1) % run.progress_every == 0)
      *run.log << "progress: " << (i + 1) << " programs, " << sum.failures << " failures, " << sum.refused
               << " refused as expected, " << sum.invalid << " invalid\n"
               << std::flush;
  }
  g_have_seed = 0;
  return sum;
}

void InstallCrashHandler() {
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) std::signal(sig, OnCrash);
}

}  // namespace random_program
}  // namespace atenaot
