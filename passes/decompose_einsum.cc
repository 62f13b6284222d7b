#include "passes/decompose_einsum.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

namespace atenaot {
namespace {

using Sizes = std::vector<int64_t>;
using Labels = std::vector<int>;  // letters as chars; ellipsis dims as 256 + k

struct Term {
  Value* v;
  Labels labels;
};

bool Has(const Labels& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); }

struct Einsum {
  DecomposeBuilder& b;
  const Node* n;  // the einsum, for error messages
  DType dt;
  std::map<int, int64_t> size;  // per label, broadcast over the operands
  bool fresh = false;           // whether the current value has its own memory

  StatusOr<Value*> Op(const std::string& op, std::vector<Arg> args, Sizes s) {
    return b.Emit(op, std::move(args), std::move(s), dt);
  }

  // t without the labels `drop` (summed over).
  StatusOr<Term> Sum(Term t, const Labels& drop) {
    std::vector<int64_t> dims;
    Term r{nullptr, {}};
    Sizes s;
    for (size_t d = 0; d < t.labels.size(); ++d) {
      if (Has(drop, t.labels[d])) {
        dims.push_back(static_cast<int64_t>(d));
      } else {
        r.labels.push_back(t.labels[d]);
        s.push_back(t.v->meta().sizes[d]);
      }
    }
    if (dims.empty()) return t;
    AOT_ASSIGN_OR_RETURN(r.v,
                         Op("aten::sum.dim_IntList",
                            {Arg::Of(t.v), L(Literal::IntList(dims)), L(Literal::Bool(false)), L(Literal::None())}, s));
    fresh = true;
    return r;
  }

  // t's dims in the order `want` (a permutation of its labels).
  StatusOr<Term> Permute(Term t, const Labels& want) {
    if (want == t.labels) return t;
    std::vector<int64_t> perm;
    Sizes s;
    for (int l : want) {
      const size_t d = static_cast<size_t>(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin());
      perm.push_back(static_cast<int64_t>(d));
      s.push_back(t.v->meta().sizes[d]);
    }
    AOT_ASSIGN_OR_RETURN(Value * p, Op("aten::permute", {Arg::Of(t.v), L(Literal::IntList(perm))}, s));
    return Term{p, want};
  }

  // t permuted to `order` and reshaped to 3-D [prod(a), prod(b), prod(c)].
  StatusOr<Value*> As3d(Term t, const Labels& a, const Labels& b2, const Labels& c) {
    Labels order = a;
    order.insert(order.end(), b2.begin(), b2.end());
    order.insert(order.end(), c.begin(), c.end());
    AOT_ASSIGN_OR_RETURN(t, Permute(t, order));
    AOT_ASSIGN_OR_RETURN(Value * cont, Op("aten::contiguous", {Arg::Of(t.v), L(Literal::Int(0))}, t.v->meta().sizes));
    Sizes s3(3);
    AOT_ASSIGN_OR_RETURN(s3[0], Prod(a));
    AOT_ASSIGN_OR_RETURN(s3[1], Prod(b2));
    AOT_ASSIGN_OR_RETURN(s3[2], Prod(c));
    return Op("aten::view", {Arg::Of(cont), L(Literal::IntList(s3))}, s3);
  }
  // Every label comes from an operand, and DecomposeEinsum sized them all.
  StatusOr<int64_t> Size(int l) const {
    auto it = size.find(l);
    AOT_INTERNAL_CHECK(it != size.end(), DescribeNode(n) + ": einsum label " +
                                             (l < 256 ? "'" + std::string(1, static_cast<char>(l)) + "'"
                                                      : "of ellipsis dim " + std::to_string(l - 256)) +
                                             " has no size");
    return it->second;
  }
  StatusOr<int64_t> Prod(const Labels& ls) const {
    int64_t p = 1;
    for (int l : ls) {
      AOT_ASSIGN_OR_RETURN(const int64_t s, Size(l));
      p *= s;
    }
    return p;
  }

  // The product of x and y over their shared labels that `keep` lacks.
  StatusOr<Term> Contract(Term x, Term y, const Labels& keep) {
    Labels batch, contracted, left, right, drop_x, drop_y;
    for (int l : x.labels) {
      if (Has(y.labels, l))
        (Has(keep, l) ? batch : contracted).push_back(l);
      else
        (Has(keep, l) ? left : drop_x).push_back(l);
    }
    for (int l : y.labels)
      if (!Has(x.labels, l)) (Has(keep, l) ? right : drop_y).push_back(l);
    AOT_ASSIGN_OR_RETURN(x, Sum(x, drop_x));
    AOT_ASSIGN_OR_RETURN(y, Sum(y, drop_y));
    AOT_ASSIGN_OR_RETURN(Value * a, As3d(x, batch, left, contracted));
    AOT_ASSIGN_OR_RETURN(Value * c, As3d(y, batch, contracted, right));
    Sizes s3(3);
    AOT_ASSIGN_OR_RETURN(s3[0], Prod(batch));
    AOT_ASSIGN_OR_RETURN(s3[1], Prod(left));
    AOT_ASSIGN_OR_RETURN(s3[2], Prod(right));
    AOT_ASSIGN_OR_RETURN(Value * m, Op("aten::bmm", {Arg::Of(a), Arg::Of(c)}, s3));
    fresh = true;
    Term r{nullptr, batch};
    r.labels.insert(r.labels.end(), left.begin(), left.end());
    r.labels.insert(r.labels.end(), right.begin(), right.end());
    Sizes s;
    for (int l : r.labels) {
      AOT_ASSIGN_OR_RETURN(const int64_t sl, Size(l));
      s.push_back(sl);
    }
    AOT_ASSIGN_OR_RETURN(r.v, Op("aten::view", {Arg::Of(m), L(Literal::IntList(s))}, s));
    return r;
  }
};

// Splits "ab,bc->ac" into operand label lists and the output's; ellipses
// become labels 256 + k, right-aligned across operands.
Status ParseEquation(const std::string& eq_in, const std::vector<Value*>& ts, std::vector<Labels>* ins, Labels* out,
                     bool* explicit_out) {
  std::string eq;
  for (char c : eq_in)
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  *explicit_out = arrow != std::string::npos;
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  if (terms.size() != ts.size())
    return InvalidArgument("einsum equation '" + eq_in + "' names " + std::to_string(terms.size()) +
                           " operands but has " + std::to_string(ts.size()));
  auto parse = [](const std::string& t, Labels* ls, int64_t* ell_at) -> Status {
    *ell_at = -1;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.compare(i, 3, "...") == 0) {
        *ell_at = static_cast<int64_t>(ls->size());
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(t[i]))) {
        ls->push_back(t[i]);
      } else {
        return InvalidArgument("einsum equation has '" + std::string(1, t[i]) + "'");
      }
    }
    return Status::Ok();
  };
  std::vector<int64_t> ell_at(terms.size()), ell(terms.size());
  int64_t max_ell = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    Labels ls;
    AOT_RETURN_IF_ERROR(parse(terms[k], &ls, &ell_at[k]));
    const int64_t rank = static_cast<int64_t>(ts[k]->meta().sizes.size());
    ell[k] = rank - static_cast<int64_t>(ls.size());
    if (ell[k] < 0 || (ell_at[k] < 0 && ell[k] != 0))
      return InvalidArgument("einsum operand " + std::to_string(k) + " has rank " + std::to_string(rank));
    max_ell = std::max(max_ell, ell[k]);
    ins->push_back(ls);
  }
  // Ellipsis dims right-aligned: an operand's last one is 256 + max_ell - 1.
  for (size_t k = 0; k < terms.size(); ++k) {
    if (ell_at[k] < 0) continue;
    Labels e;
    for (int64_t j = max_ell - ell[k]; j < max_ell; ++j) e.push_back(static_cast<int>(256 + j));
    (*ins)[k].insert((*ins)[k].begin() + ell_at[k], e.begin(), e.end());
  }
  if (*explicit_out) {
    int64_t at;
    AOT_RETURN_IF_ERROR(parse(eq.substr(arrow + 2), out, &at));
    if (at >= 0) {
      Labels e;
      for (int64_t j = 0; j < max_ell; ++j) e.push_back(static_cast<int>(256 + j));
      out->insert(out->begin() + at, e.begin(), e.end());
    }
  } else {  // ellipsis dims, then the labels used once, in alphabetical order
    std::map<int, int> count;
    for (const Labels& ls : *ins)
      for (int l : ls) ++count[l];
    for (int64_t j = 0; j < max_ell; ++j) out->push_back(static_cast<int>(256 + j));
    for (const auto& [l, c] : count)
      if (l < 256 && c == 1) out->push_back(l);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Value*> DecomposeEinsum(DecomposeBuilder& b, const Node* n) {
  const Value* y = n->output();
  const Literal& eq = n->args()[0].literal;
  if (eq.kind != Literal::Kind::kString) return InvalidArgument("einsum's equation is not a string");
  const std::vector<Value*>& ts = n->args()[1].list;
  if (ts.empty()) return InvalidArgument("einsum without operands");
  std::vector<Labels> ins;
  Labels out;
  bool explicit_out = false;
  AOT_RETURN_IF_ERROR(ParseEquation(eq.s, ts, &ins, &out, &explicit_out));
  Einsum e{b, n, y->meta().dtype, {}};
  for (size_t k = 0; k < ts.size(); ++k) {
    if (!ts[k]) return InvalidArgument("einsum operand is none");
    for (size_t d = 0; d < ins[k].size(); ++d) {
      if (std::count(ins[k].begin(), ins[k].end(), ins[k][d]) > 1)
        return Unsupported("einsum with a label repeated in one operand (a diagonal)");
      int64_t& s = e.size[ins[k][d]];
      s = std::max(s, ts[k]->meta().sizes[d]);
    }
  }
  std::vector<Term> terms;
  for (size_t k = 0; k < ts.size(); ++k) {
    // A size-1 dim broadcast against a larger one: drop it (the operand is
    // constant along that label).
    Term t{ts[k], ins[k]};
    Labels ones;
    for (size_t d = 0; d < t.labels.size(); ++d)
      if (ts[k]->meta().sizes[d] == 1 && e.size[t.labels[d]] > 1) ones.push_back(t.labels[d]);
    if (!ones.empty()) {
      Labels kept;
      Sizes s;
      for (size_t d = 0; d < t.labels.size(); ++d)
        if (!Has(ones, t.labels[d])) {
          kept.push_back(t.labels[d]);
          s.push_back(ts[k]->meta().sizes[d]);
        }
      AOT_ASSIGN_OR_RETURN(Value * c, e.Op("aten::contiguous", {Arg::Of(t.v), L(Literal::Int(0))}, t.v->meta().sizes));
      AOT_ASSIGN_OR_RETURN(t.v, e.Op("aten::view", {Arg::Of(c), L(Literal::IntList(s))}, s));
      t.labels = kept;
    }
    terms.push_back(t);
  }
  Term cur = terms[0];
  for (size_t k = 1; k < terms.size(); ++k) {
    Labels keep = out;  // what the output and the operands after k need
    for (size_t j = k + 1; j < terms.size(); ++j)
      keep.insert(keep.end(), terms[j].labels.begin(), terms[j].labels.end());
    AOT_ASSIGN_OR_RETURN(cur, e.Contract(cur, terms[k], keep));
  }
  Labels drop;
  for (int l : cur.labels)
    if (!Has(out, l)) drop.push_back(l);
  AOT_ASSIGN_OR_RETURN(cur, e.Sum(cur, drop));
  // Output labels no operand kept (size-1 broadcast dims dropped above).
  Labels present;
  for (int l : out)
    if (Has(cur.labels, l)) present.push_back(l);
  AOT_ASSIGN_OR_RETURN(cur, e.Permute(cur, present));
  Value* r = cur.v;
  if (r->meta().sizes != y->meta().sizes) {
    AOT_ASSIGN_OR_RETURN(Value * c, e.Op("aten::contiguous", {Arg::Of(r), L(Literal::Int(0))}, r->meta().sizes));
    AOT_ASSIGN_OR_RETURN(r, e.Op("aten::view", {Arg::Of(c), L(Literal::IntList(y->meta().sizes))}, y->meta().sizes));
  }
  if (e.fresh) return r;
  return e.Op("aten::clone", {Arg::Of(r), L(Literal::None())}, r->meta().sizes);
}

}  // namespace atenaot
