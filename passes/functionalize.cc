#include "passes/functionalize.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "ir/type_promotion.h"

namespace atenaot {
namespace {

enum class ViewKind {
  kIdentity,   // alias, detach, contiguous/to/lift_fresh when they alias
  kReshape,    // view, reshape, flatten, squeeze, unsqueeze, ...: inverse is view back
  kTranspose,  // transpose, t, swapaxes, swapdims, mT: self-inverse
  kPermute,
  kSelect,  // select, and unbind's outputs
  kSlice,   // slice, narrow, and split/chunk's outputs
  kDiagonal,
  kAsStrided,
  kExpand,  // read-only: writing through it would hit overlapping memory
  kOther,   // anything else: handled as as_strided of the root
};

ViewKind ClassifyView(const OpInfo& op) {
  const std::string& n = op.schema.name;
  const std::string& ov = op.schema.overload;
  if (n == "alias" || n == "detach" || n == "contiguous" || n == "to" || n == "lift_fresh") return ViewKind::kIdentity;
  if ((n == "view" && ov.empty()) || n == "_reshape_alias" || n == "reshape" || n == "reshape_as" || n == "view_as" ||
      (n == "flatten" && ov == "using_ints") || (n == "unflatten" && ov == "int") || n == "squeeze" || n == "unsqueeze")
    return n == "squeeze" && ov == "dimname" ? ViewKind::kOther : ViewKind::kReshape;
  if ((n == "transpose" && ov == "int") || n == "t" || n == "swapaxes" || n == "swapdims" || n == "mT")
    return ViewKind::kTranspose;
  if (n == "permute") return ViewKind::kPermute;
  if ((n == "select" && ov == "int") || (n == "unbind" && ov == "int")) return ViewKind::kSelect;
  if ((n == "slice" && ov == "Tensor") || (n == "narrow" && ov.empty()) || n == "split" || n == "split_with_sizes" ||
      n == "chunk" || (n == "tensor_split" && ov != "tensor_indices_or_sections"))
    return ViewKind::kSlice;
  if (n == "diagonal" && ov.empty()) return ViewKind::kDiagonal;
  if (n == "as_strided") return ViewKind::kAsStrided;
  if (n == "expand" || n == "expand_as" || n == "broadcast_to") return ViewKind::kExpand;
  return ViewKind::kOther;
}

int64_t Normalize(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

// One view step: how `out` is made from its parent.
struct ViewStep {
  ViewKind kind = ViewKind::kOther;
  const OpInfo* op = nullptr;
  std::vector<Arg> args;  // the original arguments; arg 0 is replaced on replay
  int out_index = 0;
  bool single_output = true;
  // Normalised parameters where the kind needs them.
  int64_t dim = 0, start = 0, end = 0, index = 0;  // kSlice (step 1) / kSelect
  int64_t slice_step = 1;
  int64_t d0 = 0, d1 = 1;     // kTranspose
  std::vector<int64_t> perm;  // kPermute
};

struct AliasRec {
  Value* root = nullptr;
  Value* parent = nullptr;    // nullptr: the value is a root
  int step = -1;              // index into steps_
  Value* memo = nullptr;      // regenerated value...
  int64_t memo_version = -1;  // ...valid for this root version
};

struct RootState {
  Value* current = nullptr;
  int64_t version = 0;
  bool is_input = false;
  bool is_weight = false;
  bool mutated = false;
  bool has_views = false;       // some view was taken of it (resizing it would move their memory)
  std::string no_write_reason;  // set when writes cannot be expressed (aliasing inputs)
};

// Per-value state indexed by Value::id(); a deque so references stay valid
// while passes create values (which grows it).
template <typename T>
class ValueMap {
 public:
  T& operator[](const Value* v) {
    const size_t k = static_cast<size_t>(v->id());
    if (k >= items_.size()) {
      items_.resize(k + 1);
      present_.resize(k + 1, false);
    }
    present_[k] = true;
    return items_[k];
  }
  bool contains(const Value* v) const {
    const size_t k = static_cast<size_t>(v->id());
    return k < present_.size() && present_[k];
  }
  // nullptr when v has no entry (callers turn that into an internal error).
  const T* find(const Value* v) const { return contains(v) ? &items_[static_cast<size_t>(v->id())] : nullptr; }

 private:
  std::deque<T> items_;
  std::vector<bool> present_;
};

bool DenseNonOverlapping(const TensorMeta& m) {
  return !m.HasInternalOverlap() && m.SpanBytes() == m.numel() * DTypeSize(m.dtype);
}

// Dense strides that order the dimensions as m's strides do: the layout
// LibTorch 1.13 gives a copy of a tensor laid out like m (clone and
// empty_like keep the order, so do the *_copy ops and TensorIterator results).
std::vector<int64_t> DenseLike(const TensorMeta& m) {
  if (DenseNonOverlapping(m)) return m.strides;
  if (m.HasInternalOverlap()) return ContiguousStrides(m.sizes);
  std::vector<size_t> order(m.sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return std::abs(m.strides[a]) > std::abs(m.strides[b]); });
  std::vector<int64_t> st(m.sizes.size());
  int64_t s = 1;
  for (size_t i = order.size(); i-- > 0;) {
    st[order[i]] = s;
    s *= std::max<int64_t>(m.sizes[order[i]], 1);
  }
  return st;
}

class Functionalizer {
 public:
  Functionalizer(Graph& g, const OpTable& ops, const FunctionalizeOptions& opts) : g_(g), ops_(ops), opts_(opts) {}

  Status Run() {
    AOT_RETURN_IF_ERROR(LookUpOps());
    AOT_RETURN_IF_ERROR(RegisterInputs());
    for (Value* w : g_.weight_values()) {
      NewRoot(w);
      roots_[w].is_weight = true;
    }
    for (Node* n : g_.NodesSnapshot()) {
      insert_before_ = n;
      Status s = CheckNotRetired(n->InputValues());
      if (s.ok()) s = n->op().Writes() ? HandleWrite(n) : AliasedArg(n) >= 0 ? HandleView(n) : HandleFunctional(n);
      if (!s.ok()) return s.WithContext(DescribeNode(n));  // described only on failure (cost on large graphs)
    }
    // Outputs read the final versions; then inputs are restored.
    insert_before_ = nullptr;
    AOT_RETURN_IF_ERROR(CheckNotRetired(g_.outputs()).WithContext("the graph's outputs"));
    for (size_t k = 0; k < g_.outputs().size(); ++k) {
      AOT_ASSIGN_OR_RETURN(Value * v, Current(g_.outputs()[k]));
      g_.SetOutput(static_cast<int>(k), v);
    }
    for (Value* in : g_.inputs()) {
      if (!roots_.contains(in) || !roots_[in].mutated) continue;
      Node* c = g_.CreateNode(copy_, {Arg::Of(in), Arg::Of(roots_[in].current), Arg::Of(Literal::Bool(false))}, 1);
      c->output()->mutable_meta() = in->meta();
    }
    for (auto [view, parent] : relabel_) view->mutable_meta().storage = parent->meta().storage;
    // The original mutating (and replaced) nodes are dead now; remove them last-first.
    for (auto it = doomed_.rbegin(); it != doomed_.rend(); ++it) {
      for (Value* o : (*it)->outputs())
        if (!o->uses().empty()) return Internal(DescribeNode(*it) + ": replaced node still has uses of %" + o->name());
      g_.Destroy(*it);
    }
    return Status::Ok();
  }

 private:
  Status LookUpOps() {
    struct Want {
      const OpInfo** slot;
      const char* name;
    };
    const Want wants[] = {
        {&to_copy_, "aten::_to_copy"},
        {&view_, "aten::view"},
        {&view_copy_, "aten::view_copy"},
        {&slice_, "aten::slice.Tensor"},
        {&slice_copy_, "aten::slice_copy.Tensor"},
        {&slice_scatter_, "aten::slice_scatter"},
        {&select_, "aten::select.int"},
        {&select_copy_, "aten::select_copy.int"},
        {&select_scatter_, "aten::select_scatter"},
        {&as_strided_, "aten::as_strided"},
        {&as_strided_copy_, "aten::as_strided_copy"},
        {&as_strided_scatter_, "aten::as_strided_scatter"},
        {&transpose_, "aten::transpose.int"},
        {&transpose_copy_, "aten::transpose_copy.int"},
        {&permute_, "aten::permute"},
        {&permute_copy_, "aten::permute_copy"},
        {&expand_copy_, "aten::expand_copy"},
        {&copy_, "aten::copy_"},
        {&clone_, "aten::clone"},
        {&copy_twin_, "aten::copy"},
        {&zeros_, "aten::zeros"},
        {&cat_, "aten::cat"},
    };
    for (const Want& w : wants) {
      *w.slot = ops_.Find(w.name);
      if (!*w.slot) return Internal(std::string("op table lacks ") + w.name);
    }
    return Status::Ok();
  }

  void NewRoot(Value* v) {
    AliasRec& r = recs_[v];
    r.root = v;
    r.parent = nullptr;
    RootState& s = roots_[v];
    s.current = v;
  }

  // Inputs that share a storage: the one that contiguously spans the others
  // (offset 0) is their root and the others are as_strided views of it.
  Status RegisterInputs() {
    std::unordered_map<int64_t, std::vector<Value*>> by_storage;
    for (Value* in : g_.inputs()) by_storage[in->meta().storage].push_back(in);
    for (Value* in : g_.inputs()) {
      auto& group = by_storage[in->meta().storage];
      if (recs_.contains(in)) continue;
      if (group.size() == 1) {
        NewRoot(in);
        roots_[in].is_input = true;
        continue;
      }
      Value* base = nullptr;
      for (Value* c : group) {
        const TensorMeta& m = c->meta();
        if (m.offset != 0 || !m.IsContiguous()) continue;
        bool covers = true;
        for (Value* o : group) {
          const TensorMeta& om = o->meta();
          if (om.offset * DTypeSize(om.dtype) + om.SpanBytes() > m.SpanBytes() || om.dtype != m.dtype) covers = false;
        }
        if (covers) {
          base = c;
          break;
        }
      }
      for (Value* c : group) {
        if (base && c != base) {
          ViewStep st;
          st.kind = ViewKind::kOther;  // as_strided of the base
          steps_.push_back(st);
          AliasRec& r = recs_[c];
          r.root = base;
          r.parent = base;
          r.step = static_cast<int>(steps_.size()) - 1;
          r.memo = c;  // until the base is written, the input itself is current
          r.memo_version = 0;
        } else {
          NewRoot(c);
          roots_[c].is_input = true;
          if (!base)
            roots_[c].no_write_reason =
                "input %" + c->name() + " shares memory with another input, and neither contains the other";
        }
      }
    }
    return Status::Ok();
  }

  Status CheckNotRetired(const std::vector<Value*>& vs) {
    for (Value* v : vs) {
      Value* c = v ? Canonical(v) : nullptr;
      if (const std::string* why = c ? retired_.find(c) : nullptr)
        return Unsupported("%" + v->name() + " is read after " + *why);
    }
    return Status::Ok();
  }

  // In-place results alias their target exactly: reads and writes go to it.
  Value* Canonical(Value* v) {
    for (Value* const* to = alias_of_.find(v); to; to = alias_of_.find(v)) v = *to;
    return v;
  }

  Value* NewValue(Node* n, int k, const TensorMeta& m) {
    Value* v = n->output(k);
    v->mutable_meta() = m;
    return v;
  }

  Node* Emit(const OpInfo* op, std::vector<Arg> args, int n_out = 1) {
    return g_.CreateNode(op, std::move(args), n_out, insert_before_);
  }

  // The value `v` holds now, regenerating views of updated roots.
  StatusOr<Value*> Current(Value* v) {
    v = Canonical(v);
    if (!recs_.contains(v)) return Internal("no alias record for %" + v->name());
    AliasRec& r = recs_[v];
    RootState& root = roots_[r.root];
    if (!r.parent) return root.current;
    if (r.memo && r.memo_version == root.version) return r.memo;
    AOT_ASSIGN_OR_RETURN(Value * p, Current(r.parent));
    AOT_ASSIGN_OR_RETURN(Value * out, Replay(p, steps_[static_cast<size_t>(r.step)], v->meta(), r.root));
    AliasRec& again = recs_[v];  // Replay may have grown recs_
    again.memo = out;
    again.memo_version = roots_[again.root].version;
    return out;
  }

  // The view with metadata `m` (offset and strides absolute in the root's
  // storage) taken from the root's current value.
  StatusOr<Value*> AsStridedOfRoot(Value* root, const TensorMeta& m, bool copy) {
    AOT_ASSIGN_OR_RETURN(Value * cur, Current(root));
    int64_t offset = m.offset;
    if (cur != root) {
      // A new value holds the root's elements from offset 0, laid out like
      // the root: only views inside a contiguous root can be rebuilt on it.
      AOT_RETURN_IF_ERROR(CheckRootLayout(root, /*for_write=*/false));
      AOT_RETURN_IF_ERROR(CheckInsideRoot(root, m));
      offset -= root->meta().offset;
      if (!cur->meta().IsContiguous()) {  // not laid out like the root: make it so
        TensorMeta cm = cur->meta();
        cm.strides = ContiguousStrides(cm.sizes);
        cm.offset = 0;
        cm.storage = g_.NewStorageId();
        cur = NewValue(Emit(clone_, {Arg::Of(cur), Arg::Of(Literal::Int(0))}), 0, cm);  // 0: contiguous_format
      }
    }
    Node* n = Emit(copy ? as_strided_copy_ : as_strided_,
                   {Arg::Of(cur), Arg::Of(Literal::IntList(m.sizes)), Arg::Of(Literal::IntList(m.strides)),
                    Arg::Of(Literal::Int(offset))});
    TensorMeta om = m;
    om.storage = copy ? g_.NewStorageId() : cur->meta().storage;
    om.offset = offset;
    if (copy) {
      om.strides = DenseLike(m);
      om.offset = 0;
    }
    return NewValue(n, 0, om);
  }

  // Writes scatter into a clone of the root (offset 0), so they need the root
  // contiguous from offset 0; reads need it contiguous.
  Status CheckRootLayout(Value* root, bool for_write) {
    const TensorMeta& m = root->meta();
    if ((for_write && m.offset != 0) || !m.IsContiguous())
      return Unsupported("a view atenaot has no inverse for needs its base %" + root->name() + " to be contiguous" +
                         (for_write ? " from offset 0" : ""));
    return Status::Ok();
  }

  // Every element of the view `m` lies among the root's elements (a contiguous root).
  Status CheckInsideRoot(Value* root, const TensorMeta& m) {
    if (m.numel() == 0) return Status::Ok();
    int64_t lo = m.offset, hi = m.offset;
    for (size_t i = 0; i < m.sizes.size(); ++i) {
      const int64_t d = (m.sizes[i] - 1) * m.strides[i];
      (d < 0 ? lo : hi) += d;
    }
    const TensorMeta& rm = root->meta();
    if (lo < rm.offset || hi >= rm.offset + rm.numel())
      return Unsupported("an as_strided view reaches memory outside its base %" + root->name() + " (" + m.ToString() +
                         " of " + rm.ToString() + ")");
    return Status::Ok();
  }

  // Rebuilds the view `step` on `p` (the current parent).
  StatusOr<Value*> Replay(Value* p, const ViewStep& st, const TensorMeta& want, Value* root) {
    bool copy = opts_.remove_views;
    TensorMeta m = want;
    m.storage = p->meta().storage;
    if (copy) {
      m.storage = g_.NewStorageId();
      m.strides = DenseLike(want);
      m.offset = 0;
    }
    auto emit1 = [&](const OpInfo* op, std::vector<Arg> args) { return NewValue(Emit(op, std::move(args)), 0, m); };
    switch (st.kind) {
      case ViewKind::kIdentity:
        if (copy) return p;
        break;
      case ViewKind::kSelect:
        if (!st.single_output || copy)
          return emit1(copy ? select_copy_ : select_,
                       {Arg::Of(p), Arg::Of(Literal::Int(st.dim)), Arg::Of(Literal::Int(st.index))});
        break;
      case ViewKind::kSlice:
        if (!st.single_output || copy)
          return emit1(copy ? slice_copy_ : slice_,
                       {Arg::Of(p), Arg::Of(Literal::Int(st.dim)), Arg::Of(Literal::Int(st.start)),
                        Arg::Of(Literal::Int(st.end)), Arg::Of(Literal::Int(st.slice_step))});
        break;
      case ViewKind::kOther:
        if (!st.op || copy) return AsStridedOfRoot(root, want, copy);
        break;
      case ViewKind::kAsStrided:  // its offset is absolute: a view of the root
        return AsStridedOfRoot(root, want, copy);
      default:
        if (copy) {
          if (st.op->view_copy && st.single_output) {
            std::vector<Arg> args = st.args;
            args[0] = Arg::Of(p);
            return emit1(st.op->view_copy, std::move(args));
          }
          if (st.kind == ViewKind::kReshape)
            return emit1(view_copy_, {Arg::Of(p), Arg::Of(Literal::IntList(want.sizes))});
          if (st.kind == ViewKind::kTranspose)
            return emit1(transpose_copy_, {Arg::Of(p), Arg::Of(Literal::Int(st.d0)), Arg::Of(Literal::Int(st.d1))});
          if (st.kind == ViewKind::kExpand)
            return emit1(expand_copy_,
                         {Arg::Of(p), Arg::Of(Literal::IntList(want.sizes)), Arg::Of(Literal::Bool(false))});
          return AsStridedOfRoot(root, want, true);
        }
        break;
    }
    // Mutations mode: the same view op, on the current parent.
    std::vector<Arg> args = st.args;
    args[0] = Arg::Of(p);
    for (size_t i = 1; i < args.size(); ++i) AOT_RETURN_IF_ERROR(RewireArg(&args[i]));
    return emit1(st.op, std::move(args));
  }

  Status RewireArg(Arg* a) {
    if (a->kind == Arg::Kind::kValue) {
      AOT_ASSIGN_OR_RETURN(a->value, Current(a->value));
    } else if (a->kind == Arg::Kind::kValueList) {
      for (Value*& v : a->list)
        if (v) {
          AOT_ASSIGN_OR_RETURN(v, Current(v));
        }
    }
    return Status::Ok();
  }

  // Points argument i of n at current values; touches use lists only when
  // something changed (inputs read by every node must stay O(1) per node).
  Status RewireNodeArg(Node* n, int i) {
    const Arg& old = n->args()[static_cast<size_t>(i)];
    if (old.kind == Arg::Kind::kLiteral) return Status::Ok();
    Arg a = old;
    AOT_RETURN_IF_ERROR(RewireArg(&a));
    if (a.value != old.value || a.list != old.list) g_.SetArg(n, i, std::move(a));
    return Status::Ok();
  }

  // The inverse of `step`: `val` is the new content of the view, `parent` the
  // parent's current value; returns the parent's new value.
  StatusOr<Value*> Inverse(Value* parent, Value* val, const ViewStep& st, const TensorMeta& parent_meta, Value* root) {
    bool copy = opts_.remove_views;
    TensorMeta m = parent->meta();
    m.dtype = parent_meta.dtype;
    auto scattered = [&](const OpInfo* op, std::vector<Arg> args) {
      TensorMeta sm = m;
      sm.strides = DenseLike(sm);
      sm.offset = 0;
      sm.storage = g_.NewStorageId();
      return NewValue(Emit(op, std::move(args)), 0, sm);
    };
    auto reshaped = [&](const OpInfo* op, std::vector<Arg> args) {
      TensorMeta rm = m;
      rm.storage = val->meta().storage;
      // val is laid out like the view, so viewing it back (or a *_copy of
      // that) gives the parent's layout.
      rm.strides = DenseLike(parent_meta);
      rm.offset = 0;
      if (copy) rm.storage = g_.NewStorageId();
      return NewValue(Emit(op, std::move(args)), 0, rm);
    };
    switch (st.kind) {
      case ViewKind::kIdentity:
        return val;
      case ViewKind::kReshape:
        return reshaped(copy ? view_copy_ : view_, {Arg::Of(val), Arg::Of(Literal::IntList(parent_meta.sizes))});
      case ViewKind::kTranspose:
        return reshaped(copy ? transpose_copy_ : transpose_,
                        {Arg::Of(val), Arg::Of(Literal::Int(st.d0)), Arg::Of(Literal::Int(st.d1))});
      case ViewKind::kPermute: {
        std::vector<int64_t> inv(st.perm.size());
        for (size_t i = 0; i < st.perm.size(); ++i) inv[static_cast<size_t>(st.perm[i])] = static_cast<int64_t>(i);
        return reshaped(copy ? permute_copy_ : permute_, {Arg::Of(val), Arg::Of(Literal::IntList(inv))});
      }
      case ViewKind::kSelect:
        return scattered(select_scatter_, {Arg::Of(parent), Arg::Of(val), Arg::Of(Literal::Int(st.dim)),
                                           Arg::Of(Literal::Int(st.index))});
      case ViewKind::kSlice:
        return scattered(slice_scatter_,
                         {Arg::Of(parent), Arg::Of(val), Arg::Of(Literal::Int(st.dim)), Arg::Of(Literal::Int(st.start)),
                          Arg::Of(Literal::Int(st.end)), Arg::Of(Literal::Int(st.slice_step))});
      case ViewKind::kDiagonal: {
        std::vector<Arg> args = {Arg::Of(parent), Arg::Of(val)};
        for (size_t i = 1; i < st.args.size(); ++i) args.push_back(st.args[i]);
        return scattered(st.op->scatter, std::move(args));
      }
      case ViewKind::kExpand:
        return Unsupported("a write reaches memory through an expand: the written elements overlap");
      case ViewKind::kAsStrided:  // WriteBack scatters into the root
      case ViewKind::kOther:
        break;
    }
    return Internal("unreachable view kind");
  }

  // Makes `val` the new content of `a` and updates a's root.
  // Every value gets an alias record when defined (step 1): a missing one is
  // an atenaot bug, reported with the value's name.
  StatusOr<AliasRec> RecordOf(const Value* v) const {
    const AliasRec* rec = recs_.find(v);
    AOT_INTERNAL_CHECK(rec, "functionalize: no alias record for %" + v->name());
    return *rec;
  }

  Status WriteBack(Value* a, Value* val) {
    a = Canonical(a);
    AOT_ASSIGN_OR_RETURN(AliasRec rec, RecordOf(a));
    RootState& rs = roots_[rec.root];
    if (rs.is_weight)
      return Unsupported("the program writes to weight %" + rec.root->name() +
                         " (module state); atenaot compiles programs that leave weights unchanged");
    if (!rs.no_write_reason.empty()) return Unsupported(rs.no_write_reason);
    if (a->meta().HasInternalOverlap())
      return Unsupported("the op writes into overlapping memory (%" + a->name() + " is " + a->meta().ToString() +
                         ", e.g. an expanded tensor); the result would depend on write order");
    Value* cur = a;
    for (;;) {
      AOT_ASSIGN_OR_RETURN(AliasRec r, RecordOf(cur));
      if (!r.parent) break;
      const ViewStep& st = steps_[static_cast<size_t>(r.step)];
      if (st.kind == ViewKind::kOther || st.kind == ViewKind::kAsStrided) {
        // No inverse known, or as_strided (absolute offsets): scatter straight into the root.
        AOT_RETURN_IF_ERROR(CheckRootLayout(r.root, /*for_write=*/true));
        const TensorMeta& m = cur->meta();
        AOT_RETURN_IF_ERROR(CheckInsideRoot(r.root, m));
        AOT_ASSIGN_OR_RETURN(Value * rootcur, Current(r.root));
        TensorMeta sm = r.root->meta();
        sm.storage = g_.NewStorageId();
        Node* n = Emit(as_strided_scatter_, {Arg::Of(rootcur), Arg::Of(val), Arg::Of(Literal::IntList(m.sizes)),
                                             Arg::Of(Literal::IntList(m.strides)), Arg::Of(Literal::Int(m.offset))});
        val = NewValue(n, 0, sm);
        cur = r.root;
        break;
      }
      AOT_ASSIGN_OR_RETURN(Value * pcur, Current(r.parent));
      AOT_ASSIGN_OR_RETURN(val, Inverse(pcur, val, st, r.parent->meta(), r.root));
      cur = r.parent;
    }
    AOT_ASSIGN_OR_RETURN(AliasRec top, RecordOf(cur));
    RootState& root = roots_[top.root];
    root.current = val;
    ++root.version;
    root.mutated = true;
    return Status::Ok();
  }

  // The argument whose memory the node's outputs share at capture, or -1.
  // Declared views (Tensor(a)) that copied (reshape of a non-contiguous
  // tensor) give -1; ops that return their input without saying so in the
  // schema (type_as with the same dtype) are found from the storage ids.
  static int AliasedArg(const Node* n) {
    if (n->outputs().empty()) return -1;
    const OpInfo& op = n->op();
    auto shares = [&](int j) {
      if (j < 0 || !n->input(j)) return false;
      for (const Value* o : n->outputs())
        if (o->meta().storage != n->input(j)->meta().storage) return false;
      return true;
    };
    if (op.IsView())
      return shares(op.return_alias_arg.empty() ? -1 : op.return_alias_arg[0]) ? op.return_alias_arg[0] : -1;
    for (int j = 0; j < static_cast<int>(n->args().size()); ++j)
      if (shares(j)) return j;
    return -1;
  }

  StatusOr<ViewStep> MakeStep(const Node* n, int k, const Value* parent) {
    ViewStep st;
    st.op = &n->op();
    st.kind = ClassifyView(n->op());
    if (!n->op().IsView())  // an undeclared alias: the identity if nothing moved
      st.kind = n->output(k)->meta() == parent->meta() ? ViewKind::kIdentity : ViewKind::kOther;
    st.args = n->args();
    st.out_index = k;
    st.single_output = n->outputs().size() == 1 && !n->list_output();
    const TensorMeta& pm = parent->meta();
    const int64_t rank = static_cast<int64_t>(pm.sizes.size());
    auto lit = [&](int i) -> const Literal& { return n->args()[static_cast<size_t>(i)].literal; };
    const std::string& name = n->op().schema.name;
    switch (st.kind) {
      case ViewKind::kTranspose:
        if (name == "t") {
          st.d0 = 0;
          st.d1 = rank < 2 ? 0 : 1;
        } else if (name == "mT") {
          st.d0 = rank - 2;
          st.d1 = rank - 1;
        } else {
          st.d0 = Normalize(lit(1).i, rank);
          st.d1 = Normalize(lit(2).i, rank);
        }
        if (rank < 2) st.kind = ViewKind::kIdentity;  // t() of a 0-d/1-d tensor
        break;
      case ViewKind::kPermute:
        for (int64_t d : lit(1).ints) st.perm.push_back(Normalize(d, rank));
        break;
      case ViewKind::kSelect:
        if (name == "select") {
          st.dim = Normalize(lit(1).i, rank);
          st.index = lit(2).i < 0 ? lit(2).i + pm.sizes[static_cast<size_t>(st.dim)] : lit(2).i;
        } else {  // unbind output k
          st.dim = Normalize(lit(1).i, rank);
          st.index = k;
        }
        break;
      case ViewKind::kSlice: {
        const TensorMeta& om = n->output(k)->meta();
        if (name == "slice") {
          st.dim = Normalize(lit(1).i, rank);
          const int64_t size = pm.sizes[static_cast<size_t>(st.dim)];
          st.slice_step = lit(4).i;
          auto clampi = [&](const Literal& l, int64_t dflt) {
            int64_t v = l.kind == Literal::Kind::kNone ? dflt : l.i;
            if (v < 0) v += size;
            return std::clamp<int64_t>(v, 0, size);
          };
          st.start = clampi(lit(2), 0);
          st.end = std::max(st.start, clampi(lit(3), size));
        } else if (name == "narrow") {
          st.dim = Normalize(lit(1).i, rank);
          st.start = lit(2).i < 0 ? lit(2).i + pm.sizes[static_cast<size_t>(st.dim)] : lit(2).i;
          st.end = st.start + lit(3).i;
        } else {  // split / split_with_sizes / chunk / tensor_split: output k's range
          st.dim = Normalize(lit(2).i, rank);
          int64_t start = 0;
          for (int q = 0; q < k; ++q) start += n->output(q)->meta().sizes[static_cast<size_t>(st.dim)];
          st.start = start;
          st.end = start + om.sizes[static_cast<size_t>(st.dim)];
        }
        break;
      }
      default:
        break;
    }
    return st;
  }

  Status HandleView(Node* n) {
    const int j = AliasedArg(n);
    Value* in = Canonical(n->input(j));
    AOT_ASSIGN_OR_RETURN(Value * p, Current(in));
    AOT_ASSIGN_OR_RETURN(const AliasRec parent_rec, RecordOf(in));
    std::vector<int> step_ids;
    for (int k = 0; k < static_cast<int>(n->outputs().size()); ++k) {
      AOT_ASSIGN_OR_RETURN(ViewStep st, MakeStep(n, k, in));
      steps_.push_back(std::move(st));
      step_ids.push_back(static_cast<int>(steps_.size()) - 1);
      AliasRec& r = recs_[n->output(k)];
      r.root = parent_rec.root;
      // as_strided's offset and strides are absolute in the storage: whatever
      // its argument, it is a view of the root.
      r.parent = steps_.back().kind == ViewKind::kAsStrided ? parent_rec.root : in;
      r.step = step_ids.back();
    }
    roots_[parent_rec.root].has_views = true;
    const int64_t version = roots_[parent_rec.root].version;
    AOT_ASSIGN_OR_RETURN(Value * root_now, Current(parent_rec.root));
    const bool rebuild_as_strided = steps_.back().kind == ViewKind::kAsStrided && root_now != parent_rec.root;
    if (!opts_.remove_views && !rebuild_as_strided) {
      // Keep the node, reading the current parent.
      if (p != n->input(j)) g_.SetArg(n, j, Arg::Of(p));
      for (int i = 0; i < static_cast<int>(n->args().size()); ++i) {
        if (i == j) continue;
        AOT_RETURN_IF_ERROR(RewireNodeArg(n, i));
      }
      for (Value* o : n->outputs()) {
        // Capture storage ids still decide aliasing for later nodes; relabel at the end.
        relabel_.push_back({o, p});
        recs_[o].memo = o;
        recs_[o].memo_version = version;
      }
      return Status::Ok();
    }
    for (int k = 0; k < static_cast<int>(n->outputs().size()); ++k) {
      Value* o = n->output(k);
      AOT_ASSIGN_OR_RETURN(Value * v, Replay(p, steps_[static_cast<size_t>(step_ids[static_cast<size_t>(k)])],
                                             o->meta(), parent_rec.root));
      AliasRec& r = recs_[o];
      r.memo = v;
      r.memo_version = version;
    }
    doomed_.push_back(n);
    return Status::Ok();
  }

  // Functional twins that return a contiguous tensor whatever self's layout
  // (the others lay their result out like self, as TensorIterator does).
  static bool ContiguousResult(const OpInfo& twin) { return twin.schema.name == "masked_fill"; }

  // The dtype ATen gives result k of the functional twin of in-place/out= node n.
  DType TwinDType(const Node* n, const OpInfo& twin, DType target) {
    static const std::unordered_set<std::string> kBoolResult = {
        "eq",         "ne",          "lt",          "le",    "gt",    "ge",      "logical_and",
        "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "signbit", "isfinite"};
    static const std::unordered_set<std::string> kOperandNames = {"self",    "other",    "tensor1",
                                                                  "tensor2", "exponent", "end"};
    if (kBoolResult.count(twin.schema.name)) return DType::kBool;
    if (twin.schema.returns.size() != 1) return target;
    std::vector<PromotionOperand> operands;
    bool has_other = false;
    for (size_t i = 0; i < twin.schema.args.size() && i < n->args().size(); ++i) {
      const SchemaArg& sa = twin.schema.args[i];
      if (!kOperandNames.count(sa.name)) continue;
      const Arg& a = n->args()[i];
      if (a.kind == Arg::Kind::kValue) {
        operands.push_back({a.value->meta().dtype, false, static_cast<int64_t>(a.value->meta().sizes.size())});
      } else if (a.kind == Arg::Kind::kLiteral && sa.type.base == BaseType::kScalar) {
        operands.push_back({WrappedScalarDType(a.literal), true, 0});
      } else {
        continue;
      }
      if (sa.name != "self") has_other = true;
    }
    if (!has_other) return target;  // unary and non-elementwise ops keep self's dtype
    DType t = ResultType(operands);
    if (twin.schema.name == "div" && !IsFloatingPoint(t)) {
      // True division of integers gives the default float dtype unless a rounding mode is given.
      bool rounding = false;
      for (size_t i = 0; i < twin.schema.args.size(); ++i)
        if (twin.schema.args[i].name == "rounding_mode" && n->args()[i].kind == Arg::Kind::kLiteral &&
            n->args()[i].literal.kind == Literal::Kind::kString)
          rounding = true;
      if (!rounding) t = DType::kFloat32;
    }
    return t;
  }

  Status HandleWrite(Node* n) {
    const OpInfo& op = n->op();
    if (op.kind == OpKind::kOtherMutable || op.kind == OpKind::kOther)
      return Unsupported("op " + op.qualified_name + " mutates its arguments in a way atenaot does not model");
    const OpInfo* twin = op.functional;
    if (op.qualified_name == "aten::resize_") return HandleResize(n);
    if (twin && twin->kind == OpKind::kView && op.kind == OpKind::kInplace) return HandleMetadataWrite(n, twin);
    if (!twin)
      return Unsupported("op " + op.qualified_name + " has no functional (out-of-place) twin to replace it with");
    // Arguments of the twin: every non-out argument, read at its current version.
    std::vector<Arg> args;
    std::vector<int> out_args;  // written argument for each twin result
    for (size_t i = 0; i < n->args().size(); ++i) {
      const SchemaArg& sa = op.schema.args[i];
      if (op.kind == OpKind::kOut && sa.kwarg_only && sa.alias.write) {
        out_args.push_back(static_cast<int>(i));
        continue;
      }
      Arg a = n->args()[i];
      if (a.kind == Arg::Kind::kValue) a.value = Canonical(a.value);
      if (a.kind == Arg::Kind::kValueList)
        for (Value*& v : a.list)
          if (v) v = Canonical(v);
      AOT_RETURN_IF_ERROR(RewireArg(&a));
      args.push_back(std::move(a));
    }
    if (op.kind == OpKind::kInplace) {
      out_args = {0};
      if (n->input(0) && n->output()->meta().sizes != n->input(0)->meta().sizes)
        return Unsupported("op " + op.qualified_name + " changes its argument's shape in place (" +
                           n->input(0)->meta().ToString() + " -> " + n->output()->meta().ToString() +
                           "); atenaot supports only shape-preserving in-place ops");
    }
    if (out_args.size() != twin->schema.returns.size())
      return Internal("twin " + twin->qualified_name + " returns " + std::to_string(twin->schema.returns.size()) +
                      " values for " + std::to_string(out_args.size()) + " written arguments");
    // out= results are matched to the out arguments by alias set.
    if (op.kind == OpKind::kOut) {
      std::vector<int> ordered;
      for (size_t k = 0; k < op.return_alias_arg.size(); ++k) ordered.push_back(op.return_alias_arg[k]);
      out_args = ordered;
    }
    Node* f = Emit(twin, args, static_cast<int>(twin->schema.returns.size()));
    for (size_t k = 0; k < out_args.size(); ++k) {
      Value* target = Canonical(n->input(out_args[k]));
      if (!target) return Unsupported("a written argument is not a tensor value");
      const TensorMeta& tm = target->meta();
      DType twin_dtype = TwinDType(n, *twin, tm.dtype);
      // The new value must be laid out like the target's current value: the
      // inverse views and the views rebuilt from the base rely on it.
      AOT_ASSIGN_OR_RETURN(Value * target_now, Current(target));
      const TensorMeta& now = target_now->meta();
      TensorMeta fm = tm;
      fm.dtype = twin_dtype;
      fm.offset = 0;
      fm.strides = DenseLike(now);
      fm.storage = g_.NewStorageId();
      if (op.kind == OpKind::kOut) {
        // The twin computes in the promoted dtype and lays its result out
        // like its operands; out= then writes it into the out tensor, casting:
        // copy(out, result) does both.
        Value* out = n->output(static_cast<int>(k));
        if (out->meta().sizes != tm.sizes) {
          // out= resizes its out tensor (contiguous, new memory) and writes the
          // result there: the result is a new tensor that replaces it.
          const std::string what = "op " + op.qualified_name + " resized its out argument";
          AOT_RETURN_IF_ERROR(CheckResizable(target, what));
          // The resized out tensor is laid out as the twin lays out its result.
          TensorMeta rm = out->meta();
          rm.dtype = ListResultDType(args, twin_dtype);
          rm.storage = g_.NewStorageId();
          Value* r = NewValue(f, static_cast<int>(k), rm);
          if (rm.dtype != tm.dtype) r = ToCopy(r, tm.dtype);
          Replace(target, out, r, what);
          continue;
        }
        TensorMeta rm = fm;
        rm.strides = ContiguousStrides(rm.sizes);
        Value* r = NewValue(f, static_cast<int>(k), rm);
        Node* c = Emit(copy_twin_, {Arg::Of(target_now), Arg::Of(r), Arg::Of(Literal::Bool(false))});
        TensorMeta cm = fm;
        cm.dtype = tm.dtype;
        cm.storage = g_.NewStorageId();
        AOT_RETURN_IF_ERROR(WriteBack(target, NewValue(c, 0, cm)));
        alias_of_[n->output(static_cast<int>(k))] = target;
        continue;
      }
      Value* val = NewValue(f, static_cast<int>(k), fm);
      if (ContiguousResult(*twin) && !fm.IsContiguous()) {
        // masked_fill returns a contiguous tensor whatever self's layout:
        // copy it into the target's layout.
        val->mutable_meta().strides = ContiguousStrides(tm.sizes);
        Node* c = Emit(copy_twin_, {Arg::Of(target_now), Arg::Of(val), Arg::Of(Literal::Bool(false))});
        TensorMeta cm = fm;
        cm.storage = g_.NewStorageId();
        val = NewValue(c, 0, cm);
      }
      if (twin_dtype != tm.dtype) val = ToCopy(val, tm.dtype);
      AOT_RETURN_IF_ERROR(WriteBack(target, val));
      alias_of_[n->output(static_cast<int>(k))] = target;
    }
    doomed_.push_back(n);
    return Status::Ok();
  }

  // cat/stack compute in the promoted dtype of their tensor list, whatever
  // their out tensor's (TwinDType's fallback); other twins: `dflt`.
  static DType ListResultDType(const std::vector<Arg>& args, DType dflt) {
    for (const Arg& a : args) {
      if (a.kind != Arg::Kind::kValueList) continue;
      std::vector<PromotionOperand> operands;
      for (const Value* v : a.list)
        if (v) operands.push_back({v->meta().dtype, false, static_cast<int64_t>(v->meta().sizes.size())});
      if (!operands.empty()) return ResultType(operands);
    }
    return dflt;
  }

  // _to_copy(v, dtype): a cast, laid out like v.
  Value* ToCopy(Value* v, DType dtype) {
    Node* c = Emit(to_copy_, {Arg::Of(v), Arg::Of(Literal::Int(AtenScalarTypeCode(dtype))), Arg::Of(Literal::None()),
                              Arg::Of(Literal::None()), Arg::Of(Literal::None()), Arg::Of(Literal::Bool(false)),
                              Arg::Of(Literal::None())});
    TensorMeta cm = v->meta();
    cm.dtype = dtype;
    cm.storage = g_.NewStorageId();
    return NewValue(c, 0, cm);
  }

  // Growing resize_ and resized out= arguments, as PyTorch's functionalize
  // allows them: on a tensor the program made (an input's or weight's memory
  // belongs to the caller), not on a view; growing reallocates, so no view of
  // it may exist either.
  Status CheckResizable(Value* target, const std::string& what) {
    AOT_ASSIGN_OR_RETURN(const AliasRec rec, RecordOf(target));
    const RootState& rs = roots_[rec.root];
    if (target->kind() == ValueKind::kInput || rs.is_weight)
      return Unsupported(what + " %" + target->name() + ", which belongs to the caller (a " +
                         (rs.is_weight ? "weight" : "graph input") + "); a compiled program cannot resize it");
    if (rec.parent)
      return Unsupported(what + " %" + target->name() + ", a view of %" + rec.root->name() +
                         " (PyTorch's functionalize resizes only non-views too)");
    if (rs.has_views)
      return Unsupported(what + " %" + target->name() + ", which has views: growing moves its memory under them");
    return Status::Ok();
  }

  // From now on `out` names a new tensor whose value is `val`; `old`, the
  // tensor it replaced, may no longer be read.
  void Replace(Value* old, Value* out, Value* val, const std::string& why) {
    NewRoot(out);
    roots_[out].current = val;
    retired_[old] = why;
  }

  // t_, transpose_, swapdims_, unsqueeze_, squeeze_, as_strided_ change only
  // sizes and strides: the result is the view their out-of-place twin makes
  // (the importer points later reads of the tensor at the result). On a graph
  // input, as in PyTorch's functionalize, the caller's tensor keeps its sizes
  // and strides; writes through the result still reach its memory.
  Status HandleMetadataWrite(Node* n, const OpInfo* twin) {
    Value* target = Canonical(n->input(0));
    const std::string what = "op " + n->op().qualified_name + " changed the shape or strides of %" + target->name();
    g_.SetOp(n, twin);
    AOT_RETURN_IF_ERROR(HandleView(n));
    retired_[target] = what;
    return Status::Ok();
  }

  // resize_: shrinking keeps the memory (a contiguous view of its first
  // elements); growing makes a new tensor holding the old elements first and
  // zeros after (uninitialised in eager: programs must write them first).
  Status HandleResize(Node* n) {
    Value* target = Canonical(n->input(0));
    Value* out = n->output();
    const TensorMeta& tm = target->meta();
    const TensorMeta& om = out->meta();
    const std::string what = "op aten::resize_ resized";
    if (om.numel() <= tm.numel()) {
      // The same memory from the same offset, contiguous: a view, on a view
      // or an input too (whose caller keeps its own sizes, as with t_).
      AOT_ASSIGN_OR_RETURN(const AliasRec rec, RecordOf(target));
      if (roots_[rec.root].is_weight) return Unsupported(what + " %" + target->name() + ", a weight (module state)");
      Node* v = Emit(as_strided_, {Arg::Of(n->input(0)), Arg::Of(Literal::IntList(om.sizes)),
                                   Arg::Of(Literal::IntList(om.strides)), Arg::Of(Literal::Int(om.offset))});
      NewValue(v, 0, om);
      g_.ReplaceAllUsesWith(out, v->output());
      AOT_RETURN_IF_ERROR(HandleView(v));
    } else {
      AOT_RETURN_IF_ERROR(CheckResizable(target, what));
      if (!tm.IsContiguous() || tm.offset != 0)
        return Unsupported(what + " %" + target->name() + ", which is not contiguous from offset 0 (" + tm.ToString() +
                           ")");
      AOT_ASSIGN_OR_RETURN(Value * cur, Current(target));
      // view in mutations mode (the C backend lowers views, not view_copy).
      const OpInfo* reshape = opts_.remove_views ? view_copy_ : view_;
      TensorMeta flat = tm;
      flat.sizes = {tm.numel()};
      flat.strides = {1};
      flat.storage = opts_.remove_views ? g_.NewStorageId() : cur->meta().storage;
      Value* f = NewValue(Emit(reshape, {Arg::Of(cur), Arg::Of(Literal::IntList(flat.sizes))}), 0, flat);
      TensorMeta zm = flat;
      zm.sizes = {om.numel() - tm.numel()};
      zm.storage = g_.NewStorageId();
      Value* z = NewValue(
          Emit(zeros_, {Arg::Of(Literal::IntList(zm.sizes)), Arg::Of(Literal::Int(AtenScalarTypeCode(tm.dtype))),
                        Arg::Of(Literal::None()), Arg::Of(Literal::None()), Arg::Of(Literal::None())}),
          0, zm);
      TensorMeta cm = flat;
      cm.sizes = {om.numel()};
      cm.storage = g_.NewStorageId();
      Value* c = NewValue(Emit(cat_, {Arg::List({f, z}), Arg::Of(Literal::Int(0))}), 0, cm);
      Value* r = c;
      if (om.sizes != cm.sizes) {
        TensorMeta rm = om;
        rm.storage = opts_.remove_views ? g_.NewStorageId() : cm.storage;
        r = NewValue(Emit(reshape, {Arg::Of(c), Arg::Of(Literal::IntList(om.sizes))}), 0, rm);
      }
      Replace(target, out, r, what + " it");
    }
    retired_[target] = what + " it";
    doomed_.push_back(n);
    return Status::Ok();
  }

  Status HandleFunctional(Node* n) {
    for (int i = 0; i < static_cast<int>(n->args().size()); ++i) AOT_RETURN_IF_ERROR(RewireNodeArg(n, i));
    for (Value* o : n->outputs()) NewRoot(o);
    if (opts_.remove_views && n->op().IsView()) return ReplaceCopyingView(n);
    return Status::Ok();
  }

  // A may-alias op (reshape, contiguous, to) that copied at capture: with
  // views removed it becomes an explicit copy, so nothing returns an alias.
  Status ReplaceCopyingView(Node* n) {
    const std::string& name = n->op().schema.name;
    Value* in = n->input(0);
    Value* out = n->output();
    TensorMeta m = out->meta();
    m.storage = g_.NewStorageId();
    Value* v = nullptr;
    if (name == "to") {
      v = NewValue(Emit(to_copy_, {Arg::Of(in), Arg::Of(Literal::Int(AtenScalarTypeCode(m.dtype))),
                                   Arg::Of(Literal::None()), Arg::Of(Literal::None()), Arg::Of(Literal::None()),
                                   Arg::Of(Literal::Bool(false)), Arg::Of(Literal::None())}),
                   0, m);
    } else {
      TensorMeta cm = in->meta();
      cm.strides = ContiguousStrides(cm.sizes);
      cm.offset = 0;
      cm.storage = g_.NewStorageId();
      v = NewValue(Emit(clone_, {Arg::Of(in), Arg::Of(Literal::Int(0))}), 0, cm);  // 0: contiguous_format
      if (v->meta().sizes != m.sizes)
        v = NewValue(Emit(view_copy_, {Arg::Of(v), Arg::Of(Literal::IntList(m.sizes))}), 0, m);
      else if (name != "contiguous" && name != "reshape" && name != "reshape_as" && name != "flatten" &&
               name != "lift_fresh")
        return Unsupported("op " + n->op().qualified_name + " may return an alias; atenaot cannot remove it");
    }
    roots_[out].current = v;
    doomed_.push_back(n);
    return Status::Ok();
  }

  Graph& g_;
  const OpTable& ops_;
  FunctionalizeOptions opts_;
  Node* insert_before_ = nullptr;
  ValueMap<AliasRec> recs_;
  ValueMap<RootState> roots_;
  ValueMap<Value*> alias_of_;
  std::vector<ViewStep> steps_;
  std::vector<Node*> doomed_;
  std::vector<std::pair<Value*, Value*>> relabel_;  // kept view -> the parent it now reads
  const OpInfo *to_copy_ = nullptr, *view_ = nullptr, *view_copy_ = nullptr, *slice_ = nullptr, *slice_copy_ = nullptr,
               *slice_scatter_ = nullptr, *select_ = nullptr, *select_copy_ = nullptr, *select_scatter_ = nullptr,
               *as_strided_ = nullptr, *as_strided_copy_ = nullptr, *as_strided_scatter_ = nullptr,
               *transpose_ = nullptr, *transpose_copy_ = nullptr, *permute_ = nullptr, *permute_copy_ = nullptr,
               *expand_copy_ = nullptr, *copy_ = nullptr, *clone_ = nullptr, *copy_twin_ = nullptr, *zeros_ = nullptr,
               *cat_ = nullptr;
  ValueMap<std::string> retired_;  // values whose tensor a resize replaced: why reading them is refused
};

}  // namespace

Status Functionalize(Graph& g, const OpTable& ops, const FunctionalizeOptions& opts) {
  return Functionalizer(g, ops, opts).Run();
}

Status CheckFunctional(const Graph& g, bool no_views) {
  std::unordered_set<const Value*> restored;
  bool in_epilogue = false;
  for (const Node* n : g.nodes()) {
    const OpInfo& op = n->op();
    bool is_restore = op.qualified_name == "aten::copy_" && n->input(0) && n->input(0)->kind() == ValueKind::kInput;
    if (op.Writes() && !is_restore)
      return InvalidArgument("not functional: " + DescribeNode(n) + " writes to its arguments");
    if (is_restore) {
      in_epilogue = true;
      if (!restored.insert(n->input(0)).second)
        return InvalidArgument("not functional: input %" + n->input(0)->name() + " is restored twice");
      continue;
    }
    if (in_epilogue) return InvalidArgument("not functional: " + DescribeNode(n) + " comes after the input restores");
    if (no_views && op.IsView()) return InvalidArgument("views remain: " + DescribeNode(n) + " returns an alias");
  }
  return Status::Ok();
}

}  // namespace atenaot
