#include "passes/reinplace.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/view_meta.h"
#include "passes/functionalize.h"

namespace atenaot {
namespace {

constexpr int64_t kReturnPos = std::numeric_limits<int64_t>::max();

struct UseRec {
  Node* node;  // nullptr: the graph's return
  int64_t pos;
  Value* value;  // the alias that is read
};

// One storage class: every value that may share memory with the others.
struct StorageClass {
  std::vector<UseRec> uses;  // reads other than by view ops
  std::vector<Value*> inputs;
  bool weight = false;
};

std::string LayoutKey(const TensorMeta& m) {
  std::string s;
  for (int64_t d : m.sizes) s += std::to_string(d) + ",";
  s += "|";
  for (size_t i = 0; i < m.strides.size(); ++i)
    if (m.sizes[i] != 1) s += std::to_string(m.strides[i]) + ",";
  return s + "|" + std::to_string(m.offset);
}

bool SameLayout(const TensorMeta& a, const TensorMeta& b) { return LayoutKey(a) == LayoutKey(b); }

class Reinplacer {
 public:
  Reinplacer(Graph& g, const OpTable& ops, const ReinplaceOptions& opts, ReinplaceStats* stats)
      : g_(g), ops_(ops), opts_(opts), stats_(stats) {}

  Status Run() {
    AOT_RETURN_IF_ERROR(CheckFunctional(g_, false).WithContext("reinplace expects a functional graph"));
    copy_ = ops_.Find("aten::copy_");
    clone_ = ops_.Find("aten::clone");
    if (!copy_ || !clone_) return Internal("op table lacks aten::copy_ or aten::clone");
    Index();
    for (Node* n : g_.NodesSnapshot()) {
      if (Deleted(n)) continue;
      Status s = Visit(n);
      if (!s.ok()) return s.WithContext(DescribeNode(n));  // described only on failure (cost on large graphs)
    }
    for (Node* n : doomed_) g_.Destroy(n);
    DeleteSelfRestores();
    // Values that now share memory get one storage id (the planner's buffers).
    for (Node* n : g_.nodes())
      for (Value* o : n->outputs()) o->mutable_meta().storage = Find(o->meta().storage);
    return Status::Ok();
  }

 private:
  // Union-find over storage ids (dense small ints), with path halving.
  int64_t Find(int64_t s) {
    Grow(s);
    while (parent_[static_cast<size_t>(s)] != s) {
      int64_t& p = parent_[static_cast<size_t>(s)];
      p = parent_[static_cast<size_t>(p)];
      s = p;
    }
    return s;
  }
  int64_t Find2(int64_t s) const {
    if (s < 0 || static_cast<size_t>(s) >= parent_.size()) return s;
    while (parent_[static_cast<size_t>(s)] != s) s = parent_[static_cast<size_t>(s)];
    return s;
  }
  void Grow(int64_t s) {
    while (parent_.size() <= static_cast<size_t>(s)) {
      parent_.push_back(static_cast<int64_t>(parent_.size()));
      classes_.emplace_back();
    }
  }
  StorageClass& Class(const Value* v) { return classes_[static_cast<size_t>(Find(v->meta().storage))]; }
  bool Deleted(const Node* n) const {
    return static_cast<size_t>(n->id()) < deleted_.size() && deleted_[static_cast<size_t>(n->id())];
  }

  // Merges b's class into a's (small into large).
  void Union(int64_t a, int64_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    StorageClass& ca = classes_[static_cast<size_t>(a)];
    StorageClass& cb = classes_[static_cast<size_t>(b)];
    if (ca.uses.size() < cb.uses.size()) {
      std::swap(ca, cb);  // keep the big containers, the root stays a
    }
    ca.uses.insert(ca.uses.end(), cb.uses.begin(), cb.uses.end());
    ca.inputs.insert(ca.inputs.end(), cb.inputs.begin(), cb.inputs.end());
    ca.weight |= cb.weight;
    cb = StorageClass();
    parent_[static_cast<size_t>(b)] = a;
  }

  static bool IsViewOf(const Node* u, const Value* v) {
    if (!u->op().IsView()) return false;
    for (const Value* o : u->outputs())
      if (o->meta().storage == v->meta().storage) return true;
    return false;
  }

  bool IsRestore(const Node* n) const {
    return n->op().qualified_name == "aten::copy_" && n->input(0) && n->input(0)->kind() == ValueKind::kInput;
  }

  void Index() {
    g_.Renumber();
    for (Value* in : g_.inputs()) Class(in).inputs.push_back(in);
    for (Value* w : g_.weight_values()) Class(w).weight = true;
    for (Node* u : g_.nodes()) {
      for (Value* v : u->InputValues())
        if (!IsViewOf(u, v)) Class(v).uses.push_back({u, u->order(), v});
    }
    for (Value* v : g_.outputs()) Class(v).uses.push_back({nullptr, kReturnPos, v});
  }

  // Reads of class `c` after position `pos` by nodes still alive, in order;
  // entries at or before `pos` are dropped for good (positions only grow).
  std::vector<UseRec> LaterUses(StorageClass& c, int64_t pos) {
    std::vector<UseRec> later;
    auto& uses = c.uses;
    size_t keep = 0;
    for (size_t i = 0; i < uses.size(); ++i) {
      const UseRec& u = uses[i];
      if (u.pos < pos || (u.node && Deleted(u.node))) continue;
      uses[keep++] = u;
      if (u.pos > pos) later.push_back(u);
    }
    uses.resize(keep);
    std::sort(later.begin(), later.end(), [](const UseRec& a, const UseRec& b) { return a.pos < b.pos; });
    return later;
  }

  // `cast` is the single use of n's result when it is a plain
  // _to_copy back to `dtype`, else nullptr.
  static Node* CastBack(const Node* n, DType dtype) {
    const Value* r = n->output();
    if (r->uses().size() != 1 || !r->uses()[0].user) return nullptr;
    Node* c = r->uses()[0].user;
    if (c->op().qualified_name != "aten::_to_copy" || c->args().size() != 7) return nullptr;
    const auto& a = c->args();
    auto none = [&](int i) {
      return a[static_cast<size_t>(i)].kind == Arg::Kind::kLiteral &&
             a[static_cast<size_t>(i)].literal.kind == Literal::Kind::kNone;
    };
    bool plain = a[1].kind == Arg::Kind::kLiteral && a[1].literal.kind == Literal::Kind::kInt &&
                 a[1].literal.i == AtenScalarTypeCode(dtype) && none(2) && none(3) && none(4) &&
                 a[5].kind == Arg::Kind::kLiteral && a[5].literal == Literal::Bool(false) && none(6);
    return plain ? c : nullptr;
  }

  Status Visit(Node* n) {
    if (IsRestore(n) || n->outputs().size() != 1 || n->list_output()) return Status::Ok();
    const OpInfo& op = n->op();
    const bool scatter = op.scatter_view != nullptr;
    const OpInfo* inplace = op.inplace;
    if (!scatter && (op.kind != OpKind::kFunctional || !inplace || inplace->kind != OpKind::kInplace))
      return Status::Ok();
    Value* a = n->input(0);
    if (!a) return Status::Ok();
    Value* result = n->output();
    Node* cast = nullptr;
    // (1a) dtype, size, overlap.
    if (result->meta().dtype != a->meta().dtype && !scatter && opts_.fuse_cast_back) {
      cast = CastBack(n, a->meta().dtype);
      if (cast) result = cast->output();
    }
    if (result->meta().dtype != a->meta().dtype || result->meta().sizes != a->meta().sizes) return Status::Ok();
    if (a->meta().HasInternalOverlap()) return Status::Ok();
    StorageClass& c = Class(a);
    const int64_t cls = Find(a->meta().storage);
    // (1c) and (2b): a, or an alias of it, read again by this node.
    std::vector<Value*> ins = n->InputValues();
    for (size_t k = 1; k < ins.size(); ++k)
      if (ins[k] == a || (Find(ins[k]->meta().storage) == cls && (scatter || !SameElements(op, ins[k], a))))
        return Status::Ok();
    // (1b) weights never; inputs only when restored at the end anyway.
    if (c.weight) return Status::Ok();
    bool into_input = !c.inputs.empty();
    if (into_input) {
      if (!opts_.reuse_restored_inputs) return Status::Ok();
      for (Value* in : c.inputs)
        if (!restored_inputs_.count(in) && !HasRestore(in)) return Status::Ok();
    }
    // Later readers see a's new content in place of b: a view op on a layout
    // other than b's could fail or read other memory.
    if (!ViewsStillValid(result, a)) return Status::Ok();
    // (2) with its refinements.
    std::vector<Node*> scatters;
    std::unordered_set<const Value*> chain = {result};
    TensorMeta written = a->meta();  // the region that now holds the chain's value
    for (const UseRec& u : LaterUses(c, n->order())) {
      if (!u.node) return Status::Ok();  // returned: the caller would see the write
      if (u.node == cast) continue;
      if (IsRestore(u.node) && u.value == u.node->input(0)) continue;  // overwritten at the end anyway
      if (!MatchesScatter(u.node, written, cls, chain)) return Status::Ok();
      // ... the same for the scatter's result, replaced by its base.
      if (!ViewsStillValid(u.node->output(), u.node->input(0))) return Status::Ok();
      scatters.push_back(u.node);
      chain.insert(u.node->output());
      written = u.node->input(0)->meta();
    }
    if (into_input && !RestoresStayValid(n, a, cast, scatters, c)) return Status::Ok();
    // (3) rewrite.
    if (scatter) {
      std::vector<Arg> vargs = ViewArgs(n);
      TensorMeta vm = ScatterViewMeta(*op.scatter_view, vargs, a->meta());
      Node* v = g_.CreateNode(op.scatter_view, std::move(vargs), 1, n);
      v->output()->mutable_meta() = vm;
      Node* cp =
          g_.CreateNode(copy_, {Arg::Of(v->output()), Arg::Of(n->input(1)), Arg::Of(Literal::Bool(false))}, 1, n);
      cp->output()->mutable_meta() = v->output()->meta();
      Union(cls, n->output()->meta().storage);
      Retire(n, a);
      if (stats_) ++stats_->scatters_replaced;
    } else {
      g_.SetOp(n, inplace);
      Value* out = n->output();
      int64_t old_storage = out->meta().storage;
      out->mutable_meta() = a->meta();
      if (cast) {
        g_.ReplaceAllUsesWith(cast->output(), a);
        Union(cls, cast->output()->meta().storage);
        Doom(cast);
        if (stats_) ++stats_->casts_fused;
      }
      g_.ReplaceAllUsesWith(out, a);
      Union(cls, old_storage);
      if (stats_) ++stats_->inplaced;
    }
    if (into_input && stats_) ++stats_->into_inputs;
    for (Node* s : scatters) {
      Union(cls, s->output()->meta().storage);
      Retire(s, s->input(0));
      if (stats_) ++stats_->scatters_deleted;
    }
    return Status::Ok();
  }

  // `s = view_scatter(base, x, args)` undoes the write just made: the view
  // its arguments select from `base` (in the same storage class) is laid out
  // exactly like the written region, so it is the same memory; and x is the
  // value being written (or the previous scatter's result). Layouts, not
  // literal arguments, are compared: functionalize normalises indices and
  // turns narrow/split/chunk into slices.
  bool MatchesScatter(const Node* s, const TensorMeta& written, int64_t cls,
                      const std::unordered_set<const Value*>& chain) const {
    const OpInfo& op = s->op();
    if (!op.scatter_view || !s->input(0) || !s->input(1)) return false;
    if (Find2(s->input(0)->meta().storage) != cls) return false;
    if (!chain.count(s->input(1)) && !IsReshapeOfChain(s->input(1), chain)) return false;
    TensorMeta view = ScatterViewMeta(*op.scatter_view, ViewArgs(s), s->input(0)->meta());
    return view.dtype == written.dtype && SameWalk(view, written);
  }

  // v = view(x, sizes) (or another reshaping view) of a chain value x: the
  // same elements in the same row-major order (functionalize writes a 0-dim
  // select back through view(add, [])).
  static bool IsReshapeOfChain(const Value* v, const std::unordered_set<const Value*>& chain) {
    static const std::unordered_set<std::string> kReshapes = {"view",    "_unsafe_view", "reshape",
                                                              "squeeze", "unsqueeze",    "flatten"};
    const Node* p = v->producer();
    return p && p->input(0) && chain.count(p->input(0)) && kReshapes.count(p->op().schema.name) &&
           p->outputs().size() == 1 && v->meta().storage == p->input(0)->meta().storage &&
           v->meta().numel() == p->input(0)->meta().numel();
  }

  // Whether two layouts visit the same memory in the same row-major order:
  // size-1 dimensions dropped and dimensions that continue each other merged.
  static bool SameWalk(const TensorMeta& a, const TensorMeta& b) {
    if (a.numel() != b.numel()) return false;
    if (a.numel() == 0) return true;
    auto walk = [](const TensorMeta& m) {
      std::vector<std::pair<int64_t, int64_t>> d;  // (size, stride)
      for (size_t i = 0; i < m.sizes.size(); ++i) {
        if (m.sizes[i] == 1) continue;
        if (!d.empty() && d.back().second == m.sizes[i] * m.strides[i]) {
          d.back().first *= m.sizes[i];
          d.back().second = m.strides[i];
        } else {
          d.push_back({m.sizes[i], m.strides[i]});
        }
      }
      return d;
    };
    return a.offset == b.offset && walk(a) == walk(b);
  }

  std::vector<Arg> ViewArgs(const Node* scatter) const {
    std::vector<Arg> args = {Arg::Of(scatter->input(0))};
    for (size_t i = 2; i < scatter->args().size(); ++i) args.push_back(scatter->args()[i]);
    return args;
  }

  // An elementwise op reading `other`, an alias of `a` with the same sizes,
  // strides and offset (the same view of the same memory, as torch.fx allows): each element
  // is read at the index it is then written, so writing `a` in place is
  // safe. Any other overlap is not (rule 1c).
  static bool SameElements(const OpInfo& op, const Value* other, const Value* a) {
    static const std::unordered_set<std::string> kElementwise = {
        "add",        "sub",         "mul",         "div",        "true_divide", "floor_divide",
        "pow",        "float_power", "atan2",       "remainder",  "fmod",        "hypot",
        "copysign",   "xlogy",       "nextafter",   "heaviside",  "ldexp",       "lerp",
        "addcmul",    "addcdiv",     "clamp",       "clamp_min",  "clamp_max",   "bitwise_and",
        "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor", "masked_fill"};
    // Strides compared exactly, size-1 dimensions too: LibTorch refuses an
    // in-place op whose operand overlaps its output in any other way.
    const TensorMeta &o = other->meta(), &m = a->meta();
    return kElementwise.count(op.schema.name) && o.dtype == m.dtype && o.sizes == m.sizes && o.strides == m.strides &&
           o.offset == m.offset;
  }

  // Whether `from`'s readers may read `to` instead: the same layout, or no
  // reader that depends on it (views; as_strided's offset is absolute). The
  // caller reads a returned value's elements, whatever its layout.
  static bool ViewsStillValid(const Value* from, const Value* to) {
    if (SameLayout(to->meta(), from->meta())) return true;
    for (const Use& u : from->uses())
      if (u.user && (u.user->op().IsView() || u.user->op().schema.name.find("as_strided") != std::string::npos))
        return false;
    return true;
  }

  static Node* RestoreOf(const Value* in) {
    for (const Use& u : in->uses())
      if (u.user && u.arg == 0 && u.user->op().qualified_name == "aten::copy_") return u.user;
    return nullptr;
  }

  // Writing n's result into a restored input: the values that move into the
  // input's memory (n's result, the cast, the matched scatters, their views)
  // may be read after a restore only if that restore then copies the memory
  // onto itself (and is deleted); any other restore overwrites them (bug R1:
  // the result was returned after the restore of the input it lived in).
  bool RestoresStayValid(Node* n, Value* a, Node* cast, const std::vector<Node*>& scatters, StorageClass& c) {
    std::vector<std::pair<Value*, const Value*>> moved = {{n->output(), a}};  // value, where it lands
    if (cast) moved.push_back({cast->output(), a});
    for (Node* s : scatters) moved.push_back({s->output(), s->input(0)});
    std::unordered_set<int64_t> classes;
    for (const auto& m : moved) classes.insert(Find(m.first->meta().storage));
    int64_t restore_pos = kReturnPos;
    bool all_self = true;
    for (Value* in : c.inputs) {
      Node* r = RestoreOf(in);
      if (!r || !r->input(1)) return false;
      restore_pos = std::min(restore_pos, r->order());
      const Value* src = r->input(1);
      const TensorMeta* lands = nullptr;
      for (const auto& m : moved)
        if (m.first == src) lands = &m.second->meta();
      if (!lands && (classes.count(Find(src->meta().storage)) || Find(src->meta().storage) == Find(in->meta().storage)))
        lands = &src->meta();
      all_self = all_self && lands && SameLayout(*lands, in->meta()) && lands->dtype == in->meta().dtype;
    }
    if (all_self) return true;
    for (int64_t cls : classes)
      for (const UseRec& u : LaterUses(classes_[static_cast<size_t>(cls)], n->order()))
        if (u.pos > restore_pos) return false;
    return true;
  }

  bool HasRestore(Value* in) {
    for (const Use& u : in->uses())
      if (u.user && IsRestore(u.user) && u.arg == 0) {
        restored_inputs_.insert(in);
        return true;
      }
    return false;
  }

  void Retire(Node* n, Value* replacement) {
    g_.ReplaceAllUsesWith(n->output(), replacement);
    Doom(n);
  }
  void Doom(Node* n) {
    if (deleted_.size() <= static_cast<size_t>(n->id())) deleted_.resize(static_cast<size_t>(n->id()) + 1, false);
    deleted_[static_cast<size_t>(n->id())] = true;
    doomed_.push_back(n);
  }

  // Restores whose source now lives in the input's own memory: copy_(x, x)
  // goes; a source laid out otherwise (LibTorch refuses overlapping copy_,
  // and a plain copy would read elements it already overwrote, bug R3) is
  // cloned before the first restore.
  void DeleteSelfRestores() {
    Node* first_restore = nullptr;
    for (Node* n : g_.NodesSnapshot()) {
      if (!IsRestore(n) || !n->input(1)) continue;
      if (!first_restore) first_restore = n;
      const Value* dst = n->input(0);
      Value* src = n->input(1);
      if (Find(src->meta().storage) != Find(dst->meta().storage)) continue;
      if (SameLayout(src->meta(), dst->meta()) && src->meta().dtype == dst->meta().dtype) {
        if (!n->output()->uses().empty()) continue;
        if (first_restore == n) first_restore = nullptr;
        g_.Destroy(n);
        if (stats_) ++stats_->restores_deleted;
        continue;
      }
      Node* c = g_.CreateNode(clone_, {Arg::Of(src), Arg::Of(Literal::None())}, 1, first_restore);
      TensorMeta m = src->meta();
      if (m.HasInternalOverlap() || m.SpanBytes() != m.numel() * DTypeSize(m.dtype))
        m.strides = ContiguousStrides(m.sizes);
      m.offset = 0;
      m.storage = g_.NewStorageId();
      c->output()->mutable_meta() = m;
      g_.SetArg(n, 1, Arg::Of(c->output()));
    }
  }

  Graph& g_;
  const OpTable& ops_;
  ReinplaceOptions opts_;
  ReinplaceStats* stats_;
  const OpInfo* copy_ = nullptr;
  const OpInfo* clone_ = nullptr;
  std::vector<int64_t> parent_;
  std::deque<StorageClass> classes_;  // deque: references survive growth
  std::vector<bool> deleted_;         // by node id
  std::vector<Node*> doomed_;
  std::unordered_set<const Value*> restored_inputs_;
};

}  // namespace

Status Reinplace(Graph& g, const OpTable& ops, const ReinplaceOptions& opts, ReinplaceStats* stats) {
  return Reinplacer(g, ops, opts, stats).Run();
}

}  // namespace atenaot
