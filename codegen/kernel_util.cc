#include "codegen/kernel_util.h"

#include <algorithm>
#include <cstddef>
#include <string>

namespace atenaot {

const WeightData* WeightDataOf(const Graph& g, const Value* v) {
  if (!v || v->kind() != ValueKind::kWeight || v->meta().offset != 0 || !v->meta().IsContiguous()) return nullptr;
  auto it = g.weights().find(v->weight_key());
  if (it == g.weights().end() ||
      it->second.bytes.size() != static_cast<size_t>(v->meta().numel() * DTypeSize(v->meta().dtype)))
    return nullptr;
  return &it->second;
}

Value* AddFoldedWeight(Graph& g, const std::string& name, DType dtype, const std::vector<int64_t>& sizes,
                       std::vector<uint8_t> bytes) {
  TensorMeta m;
  m.dtype = dtype;
  m.sizes = sizes;
  m.strides = ContiguousStrides(sizes);
  m.storage = g.NewStorageId();
  std::string key = "atenaot.folded." + name;
  while (g.weights().count(key)) key += "_";
  g.weights()[key] = WeightData{m, std::move(bytes)};
  return g.AddWeight(name, key, m);
}

int64_t CatDim(const Node* n) {
  if (!n || n->op().schema.ns != "aten" || n->op().schema.name != "cat" || n->outputs().size() != 1 ||
      n->args().size() < 2 || n->args()[1].kind != Arg::Kind::kLiteral ||
      n->args()[1].literal.kind != Literal::Kind::kInt)
    return -1;
  const int64_t rank = static_cast<int64_t>(n->output()->meta().sizes.size()), d = n->args()[1].literal.i;
  return d < -rank || d >= rank ? -1 : (d < 0 ? d + rank : d);
}

int64_t CatSliceOffset(const Node* cat, size_t k) {
  const TensorMeta& y = cat->output()->meta();
  const size_t dim = static_cast<size_t>(CatDim(cat));
  const std::vector<Value*>& list = cat->args()[0].list;
  int64_t at = 0;
  for (size_t j = 0; j < k && j < list.size(); ++j)
    if (list[j] && list[j]->meta().sizes.size() == y.sizes.size()) at += list[j]->meta().sizes[dim];
  return y.offset + at * y.strides[dim];
}

bool CatInputInPlace(const Node* cat, size_t k) {
  const std::vector<Value*>& list = cat->args()[0].list;
  if (CatDim(cat) < 0 || k >= list.size() || !list[k]) return false;
  const TensorMeta &x = list[k]->meta(), &y = cat->output()->meta();
  if (x.storage != y.storage || x.dtype != y.dtype || x.sizes.size() != y.sizes.size() ||
      x.offset != CatSliceOffset(cat, k))
    return false;
  for (size_t d = 0; d < x.sizes.size(); ++d)
    if (x.sizes[d] != 1 && x.strides[d] != y.strides[d]) return false;
  return true;
}

bool IsViewNode(const Node* n) {
  if (n->op().Writes()) return false;
  if (CatDim(n) >= 0) {  // in place where every non-empty entry is (codegen/inplace_cat.h)
    const std::vector<Value*>& list = n->args()[0].list;
    bool any = false;
    for (size_t k = 0; k < list.size(); ++k) {
      if (!list[k] || list[k]->meta().numel() == 0) continue;
      if (!CatInputInPlace(n, k)) return false;
      any = true;
    }
    return any;
  }
  for (const Value* o : n->outputs())
    for (const Value* in : n->InputValues())
      if (o->meta().storage == in->meta().storage) return true;
  return false;
}

std::vector<int64_t> BroadcastStrides(const TensorMeta& m, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size(), 0);
  const size_t r = sizes.size(), rm = m.sizes.size();
  for (size_t d = 0; d < r; ++d) {
    if (d + rm < r) continue;
    size_t od = d + rm - r;
    st[d] = (m.sizes[od] == 1 && sizes[d] != 1) ? 0 : m.strides[od];
  }
  return st;
}

LoopSpace CoalesceLoops(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides) {
  std::vector<int64_t> sz;
  std::vector<std::vector<int64_t>> st(strides.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    sz.push_back(sizes[d]);
    for (size_t t = 0; t < strides.size(); ++t) st[t].push_back(strides[t][d]);
  }
  for (size_t d = sz.size(); d-- > 1;) {
    bool ok = true;
    for (size_t t = 0; t < st.size(); ++t)
      if (st[t][d - 1] != st[t][d] * sz[d]) ok = false;
    if (!ok) continue;
    sz[d - 1] *= sz[d];
    sz.erase(sz.begin() + static_cast<std::ptrdiff_t>(d));
    for (size_t t = 0; t < st.size(); ++t) {
      st[t][d - 1] = st[t][d];
      st[t].erase(st[t].begin() + static_cast<std::ptrdiff_t>(d));
    }
  }
  return {sz, st};
}

std::string StridedOffset(const std::string& var, const std::vector<int64_t>& sizes,
                          const std::vector<int64_t>& strides) {
  LoopSpace ls = CoalesceLoops(sizes, {strides});
  if (ls.sizes.empty()) return "0";
  std::string out;
  int64_t below = 1;  // product of the sizes of the dims after d
  for (size_t d = ls.sizes.size(); d-- > 0;) {
    const int64_t stride = ls.strides[0][d];
    std::string idx = below == 1 ? var : "(" + var + " / " + std::to_string(below) + ")";
    if (d > 0) idx = "(" + idx + " % " + std::to_string(ls.sizes[d]) + ")";
    if (stride != 0) out = idx + (stride == 1 ? "" : " * " + std::to_string(stride)) + (out.empty() ? "" : " + " + out);
    below *= ls.sizes[d];
  }
  return out.empty() ? "0" : out;
}

std::string LinearIndex(const std::vector<std::string>& vars, const std::vector<int64_t>& strides) {
  std::string e;
  for (size_t d = 0; d < vars.size() && d < strides.size(); ++d) {
    if (strides[d] == 0) continue;
    e += (e.empty() ? "" : " + ") + vars[d] + (strides[d] == 1 ? "" : " * " + std::to_string(strides[d]));
  }
  return e.empty() ? "0" : e;
}

int64_t NormDim(int64_t d, size_t rank) { return d < 0 ? d + static_cast<int64_t>(rank) : d; }

StatusOr<size_t> CheckedDim(int64_t d, size_t rank, const std::string& op) {
  const int64_t r = std::max<int64_t>(static_cast<int64_t>(rank), 1);
  if (d < -r || d >= r)
    return InvalidArgument(op + ": dimension " + std::to_string(d) + " is out of range for a " + std::to_string(rank) +
                           "-dim tensor");
  return static_cast<size_t>(rank == 0 ? 0 : NormDim(d, rank));
}

StatusOr<RowsAlong> RowsAlongDim(const Node* n, const Value* x, const Value* y, int64_t dim, bool drop_unit) {
  const TensorMeta &xm = x->meta(), &ym = y->meta();
  const size_t rank = xm.sizes.size();
  if (ym.sizes.size() != rank) return Unsupported("a result of another rank than its input");
  RowsAlong r;
  AOT_ASSIGN_OR_RETURN(r.dim, CheckedDim(dim, rank, n->op().qualified_name));
  if (rank == 0) return r;
  r.len = xm.sizes[r.dim];
  r.x_step = xm.strides[r.dim];
  r.y_step = ym.strides[r.dim];
  for (size_t d = 0; d < rank; ++d)
    if (d != r.dim && !(drop_unit && xm.sizes[d] == 1)) {
      r.outer.push_back(xm.sizes[d]);
      r.x_outer.push_back(xm.strides[d]);
      r.y_outer.push_back(ym.strides[d]);
    }
  return r;
}

double LiteralNumber(const Literal& l) { return l.kind == Literal::Kind::kFloat ? l.f : static_cast<double>(l.i); }

namespace {

std::vector<int64_t> Pair(std::vector<int64_t> v) {
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

}  // namespace

KernelKind ClassifyKernel(const Node* n) {
  const std::string& name = n->op().schema.name;
  const std::string& ov = n->op().schema.overload;
  if (name == "sum" || name == "mean" || name == "amax" || name == "amin" || name == "prod") return KernelKind::kReduce;
  if (((name == "max" || name == "min") && ov == "dim") || name == "argmax" || name == "argmin")
    return KernelKind::kIndexReduce;
  if (name == "softmax" || name == "_softmax" || name == "log_softmax" || name == "_log_softmax")
    return KernelKind::kSoftmax;
  if (name == "layer_norm" || name == "native_layer_norm") return KernelKind::kLayerNorm;
  if (name == "batch_norm") return KernelKind::kBatchNorm;
  if (name == "mm" || name == "bmm" || name == "matmul" || name == "addmm" || name == "linear")
    return KernelKind::kMatmul;
  if (name == "conv2d" || name == "_convolution" || name == "convolution") return KernelKind::kConv2d;
  if (name == "max_pool2d" || name == "avg_pool2d") return KernelKind::kPool2d;
  if (name == "adaptive_avg_pool2d" || name == "_adaptive_avg_pool2d") return KernelKind::kAdaptiveAvgPool2d;
  if (name == "cat") return KernelKind::kCat;
  if (name == "index_select" || name == "embedding") return KernelKind::kIndexSelect;
  if (name == "gather") return KernelKind::kGather;
  if (name == "index_put" || name == "index_put_") return KernelKind::kIndexPut;
  if (name == "index" && ov == "Tensor") return KernelKind::kIndex;
  if (name == "embedding_bag" || name == "_embedding_bag" || name == "_embedding_bag_forward_only")
    return KernelKind::kEmbeddingBag;
  if (name == "sort" || name == "topk") return KernelKind::kSort;
  if (name == "cumsum" || name == "cumprod") return KernelKind::kCumulative;
  if (n->op().scatter_view) return KernelKind::kScatter;
  if (n->op().IsView() || name == "_unsafe_view") return KernelKind::kCopy;
  if (name == "arange") return KernelKind::kArange;
  if (name == "empty" || name == "empty_like") return KernelKind::kNothing;
  return KernelKind::kUnsupported;
}

Status LowerKernel(KernelLowering& b, const Node* n) {
  switch (ClassifyKernel(n)) {
    case KernelKind::kReduce:
      return b.Reduce(n);
    case KernelKind::kIndexReduce:
      return b.ReduceWithIndex(n);
    case KernelKind::kSoftmax:
      return b.Softmax(n);
    case KernelKind::kLayerNorm:
      return b.LayerNorm(n);
    case KernelKind::kBatchNorm:
      return b.BatchNorm(n);
    case KernelKind::kMatmul:
      return b.Matmul(n);
    case KernelKind::kConv2d:
      return b.Conv2d(n);
    case KernelKind::kPool2d:
      return b.Pool2d(n);
    case KernelKind::kAdaptiveAvgPool2d:
      return b.AdaptiveAvgPool2d(n);
    case KernelKind::kCat:
      return b.Cat(n);
    case KernelKind::kIndexSelect:
      return b.IndexSelect(n);
    case KernelKind::kGather:
      return b.Gather(n);
    case KernelKind::kIndexPut:
      return b.IndexPut(n);
    case KernelKind::kIndex:
      return b.Index(n);
    case KernelKind::kEmbeddingBag:
      return b.EmbeddingBag(n);
    case KernelKind::kSort:
      return b.Sort(n);
    case KernelKind::kCumulative:
      return b.Cumulative(n);
    case KernelKind::kScatter:
      return b.Scatter(n);
    case KernelKind::kCopy:
      return b.CopyInOrder(n->input(0), n->output());
    case KernelKind::kArange:
      return b.Arange(n);
    case KernelKind::kNothing:
      return Status::Ok();
    case KernelKind::kUnsupported:
      break;
  }
  return Unsupported(std::string("no ") + b.BackendName() + " lowering for " + n->op().qualified_name);
}

Status KernelLowering::NoLowering(const Node* n) const {
  return Unsupported(std::string("no ") + BackendName() + " lowering for " + n->op().qualified_name);
}

StatusOr<AdvancedIndex> AnalyzeAdvancedIndex(const TensorMeta& x, const std::vector<Value*>& indices) {
  const size_t rank = x.sizes.size();
  if (indices.size() > rank) return InvalidArgument("more indices than dimensions");
  AdvancedIndex a;
  a.idx.assign(rank, nullptr);
  size_t first = rank, last = 0, count = 0;
  for (size_t d = 0; d < indices.size(); ++d) {
    const Value* t = indices[d];
    if (!t) continue;
    const DType dt = t->meta().dtype;
    if (dt == DType::kBool || dt == DType::kUInt8)
      return Unsupported(
          "a boolean-mask index gives a result whose shape depends on the data (its number of true "
          "elements); atenaot compiles only shapes known before the run");
    if (dt != DType::kInt64 && dt != DType::kInt32)
      return Unsupported("an index tensor of dtype " + std::string(DTypeName(dt)));
    a.idx[d] = t;
    first = std::min(first, d);
    last = d;
    ++count;
    // Broadcast the index shapes together (right-aligned).
    const std::vector<int64_t>& s = t->meta().sizes;
    if (s.size() > a.bshape.size()) a.bshape.insert(a.bshape.begin(), s.size() - a.bshape.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& b = a.bshape[a.bshape.size() - s.size() + k];
      if (b == 1)
        b = s[k];
      else if (s[k] != 1 && s[k] != b)
        return InvalidArgument("index tensors do not broadcast together");
    }
  }
  if (count == 0) return Unsupported("indexing without an index tensor");
  const bool adjacent = last - first + 1 == count;
  a.before = adjacent ? first : 0;
  for (size_t d = 0; d < a.before; ++d) a.result.push_back(x.sizes[d]);
  a.result.insert(a.result.end(), a.bshape.begin(), a.bshape.end());
  for (size_t d = adjacent ? last + 1 : 0; d < rank; ++d)
    if (!a.idx[d]) a.result.push_back(x.sizes[d]);
  return a;
}

StatusOr<AdvancedIndex> AnalyzeIndexNode(const Node* n) {
  AOT_ASSIGN_OR_RETURN(AdvancedIndex a, AnalyzeAdvancedIndex(n->input(0)->meta(), n->args()[1].list));
  if (a.result != n->output()->meta().sizes) return Internal("index result shape differs from the traced one");
  return a;
}

StatusOr<std::vector<std::string>> IndexTensorPtrs(const AdvancedIndex& a,
                                                   const std::function<StatusOr<std::string>(const Value*)>& ptr) {
  std::vector<std::string> ptrs;
  for (const Value* t : a.idx) {
    if (!t) continue;
    AOT_ASSIGN_OR_RETURN(std::string p, ptr(t));
    ptrs.push_back(p);
  }
  return ptrs;
}

GatherText AdvancedIndexText(const AdvancedIndex& a, const TensorMeta& x, const std::vector<std::string>& vars,
                             const std::vector<std::string>& idx_ptrs, const std::string& indent,
                             const std::function<std::string(const std::string& raw, int64_t size, size_t dim)>& fail) {
  GatherText t;
  const size_t nb = a.bshape.size();
  std::vector<std::string> bvars(vars.begin() + static_cast<std::ptrdiff_t>(a.before),
                                 vars.begin() + static_cast<std::ptrdiff_t>(a.before + nb));
  size_t j = 0, p = 0;  // j: dims not indexed so far (the first `before` come before the block)
  for (size_t d = 0; d < x.sizes.size(); ++d) {
    std::string var;
    if (a.idx[d]) {
      var = "k" + std::to_string(d);
      const std::string read =
          "(int64_t)" + idx_ptrs[p++] + "[" + LinearIndex(bvars, BroadcastStrides(a.idx[d]->meta(), a.bshape)) + "]";
      const std::string size = std::to_string(x.sizes[d]);
      if (fail) {
        const std::string raw = "r" + std::to_string(d);
        t.decls += indent + "const int64_t " + raw + " = " + read + ";\n";
        t.decls += indent + "const int64_t " + var + " = " + raw + " < 0 ? " + raw + " + " + size + " : " + raw + ";\n";
        t.decls += indent + "if (" + var + " < 0 || " + var + " >= " + size + ") " + fail(raw, x.sizes[d], d) + "\n";
      } else {
        t.decls += indent + "int64_t " + var + " = " + read + ";\n";
        t.decls += indent + "if (" + var + " < 0) " + var + " += " + size + ";\n";
      }
    } else {
      var = vars[j < a.before ? j : nb + j];
      ++j;
    }
    if (x.strides[d] != 0)
      t.offset +=
          (t.offset.empty() ? "" : " + ") + var + (x.strides[d] == 1 ? "" : " * " + std::to_string(x.strides[d]));
  }
  if (t.offset.empty()) t.offset = "0";
  return t;
}

std::string IndexWhere(const Node* n, const Value* x, size_t dim) {
  return "dimension " + std::to_string(dim) + " of %" + x->name() + " in " + n->op().qualified_name + " (%" +
         n->output(0)->name() + ")";
}

StatusOr<ReductionDims> ReduceDims(const Node* n) {
  const Value* x = n->input(0);
  const Value* y = n->output();
  const size_t rank = x->meta().sizes.size();
  std::vector<bool> reduced(rank, true);
  bool keepdim = false;
  const std::vector<Arg>& args = n->args();
  const std::string& op = n->op().qualified_name;
  // A 0-dim x has no dimension to mark: dims 0 and -1 name its one element.
  if (args.size() >= 3 && args[1].kind == Arg::Kind::kLiteral && args[1].literal.kind == Literal::Kind::kIntList) {
    std::fill(reduced.begin(), reduced.end(), args[1].literal.ints.empty());
    for (int64_t d : args[1].literal.ints) {
      AOT_ASSIGN_OR_RETURN(const size_t k, CheckedDim(d, rank, op));
      if (rank) reduced[k] = true;
    }
    keepdim = args[2].literal.kind == Literal::Kind::kBool && args[2].literal.b;
  } else if (args.size() >= 3 && args[1].kind == Arg::Kind::kLiteral && args[1].literal.kind == Literal::Kind::kInt) {
    std::fill(reduced.begin(), reduced.end(), false);
    AOT_ASSIGN_OR_RETURN(const size_t k, CheckedDim(args[1].literal.i, rank, op));
    if (rank) reduced[k] = true;
    keepdim = args[2].literal.kind == Literal::Kind::kBool && args[2].literal.b;
  }
  ReductionDims r;
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      r.inner.push_back(x->meta().sizes[d]);
      r.x_inner.push_back(x->meta().strides[d]);
      r.count *= x->meta().sizes[d];
    } else {
      r.outer.push_back(x->meta().sizes[d]);
      r.x_outer.push_back(x->meta().strides[d]);
    }
  }
  // y's strides for the kept dims (skipping kept size-1 dims of reduced axes).
  size_t yd = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      if (keepdim) ++yd;
      continue;
    }
    r.y_outer.push_back(yd < y->meta().strides.size() ? y->meta().strides[yd] : 0);
    ++yd;
  }
  return r;
}

StatusOr<IndexReductionDims> IndexReduceDims(const Node* n) {
  const Value* x = n->input(0);
  const std::string& name = n->op().schema.name;
  const size_t rank = x->meta().sizes.size();
  const Arg& dim = n->args()[1];
  IndexReductionDims r;
  r.is_max = name == "max" || name == "argmax";
  r.values = (name == "max" || name == "min") ? n->output(0) : nullptr;
  r.indices = (name == "max" || name == "min") ? n->output(1) : n->output(0);
  // argmax/argmin with no dim: the index into x's elements in row-major
  // order, one row of all of them where x is contiguous (a classifier's
  // logits.argmax()); the result has no dims to walk (keepdim: all of size 1).
  const bool all = dim.kind == Arg::Kind::kLiteral && dim.literal.kind == Literal::Kind::kNone && !r.values;
  if (all && !x->meta().IsContiguous()) return Unsupported(name + " over all dimensions of a strided tensor");
  if (!all && (dim.kind != Arg::Kind::kLiteral || dim.literal.kind != Literal::Kind::kInt))
    return Unsupported("reduction over all dimensions with indices");
  if (all) {
    r.len = x->meta().numel();
    r.x_step = 1;
  } else {
    AOT_ASSIGN_OR_RETURN(r.dim, CheckedDim(dim.literal.i, rank, n->op().qualified_name));
    if (rank) {
      r.len = x->meta().sizes[r.dim];
      r.x_step = x->meta().strides[r.dim];
    }
  }
  if (r.len == 0) return Unsupported(name + " over an empty dimension");  // ATen refuses it too
  if (all) return r;
  const bool keepdim = n->args()[2].literal.kind == Literal::Kind::kBool && n->args()[2].literal.b;
  for (size_t d = 0, yd = 0; d < rank; ++d) {
    if (d == r.dim) {
      if (keepdim) ++yd;
      continue;
    }
    r.outer.push_back(x->meta().sizes[d]);
    r.x_outer.push_back(x->meta().strides[d]);
    r.idx_outer.push_back(r.indices->meta().strides[yd]);
    if (r.values) r.values_outer.push_back(r.values->meta().strides[yd]);
    ++yd;
  }
  return r;
}

StatusOr<SortArgs> SortArguments(const Node* n) {
  const Value* x = n->input(0);
  const std::vector<Arg>& a = n->args();
  const size_t rank = x->meta().sizes.size();
  SortArgs s;
  int64_t dim = -1;
  if (n->op().schema.name == "topk") {  // (self, k, dim, largest, sorted)
    s.k = a[1].literal.i;
    dim = a[2].literal.i;
    s.descending = a[3].literal.b;
  } else if (n->op().schema.overload == "stable") {  // (self, stable, dim, descending)
    dim = a[2].literal.i;
    s.descending = a[3].literal.b;
  } else {  // (self, dim, descending)
    dim = a[1].literal.i;
    s.descending = a[2].literal.b;
  }
  if (rank == 0) return Unsupported("sort of a 0-d tensor");
  AOT_ASSIGN_OR_RETURN(s.dim, CheckedDim(dim, rank, n->op().qualified_name));
  const int64_t n_dim = x->meta().sizes[s.dim];
  if (n->op().schema.name != "topk") s.k = n_dim;
  if (s.k < 0 || s.k > n_dim) return InvalidArgument("topk's k is out of range");
  for (size_t d = 0; d < rank; ++d) {
    if (d == s.dim) continue;
    s.outer.push_back(x->meta().sizes[d]);
    s.x_outer.push_back(x->meta().strides[d]);
    s.v_outer.push_back(n->output(0)->meta().strides[d]);
    s.i_outer.push_back(n->output(1)->meta().strides[d]);
  }
  return s;
}

std::vector<int64_t> MatmulShape::BatchStrides(const TensorMeta& m) const {
  TensorMeta lead;
  lead.sizes.assign(m.sizes.begin(), m.sizes.end() - 2);
  lead.strides.assign(m.strides.begin(), m.strides.end() - 2);
  return BroadcastStrides(lead, batch);
}

namespace {
// Drops dimension d (a batch dim) of a matrix meta.
void DropDim(TensorMeta* t, size_t d) {
  t->sizes.erase(t->sizes.begin() + static_cast<std::ptrdiff_t>(d));
  t->strides.erase(t->strides.begin() + static_cast<std::ptrdiff_t>(d));
}
}  // namespace

// A batch dim over which B (and the bias) stay the same and whose A and y
// matrices follow each other row after row is more rows of one GEMM: a
// linear over [2, 12, 64] is one 24-row product, not two of 12 (one call,
// the packed weights streamed once, the microkernel's row blocks full).
void FoldSharedBatchIntoRows(MatmulShape* m) {
  if (m->a_vec || m->b_vec) return;
  while (!m->batch.empty()) {
    const size_t d = m->batch.size() - 1;  // the innermost batch dim
    const std::vector<int64_t> as = m->BatchStrides(m->am), bs = m->BatchStrides(m->bm), ys = m->BatchStrides(m->ym);
    const size_t ra = m->am.sizes.size(), ry = m->ym.sizes.size();
    int64_t arow = m->am.strides[ra - 2], yrow = m->ym.strides[ry - 2];
    if (m->M == 1) {
      // One row: its stride is free, the batch's becomes the rows' (a
      // seq-first linear, as nn.MultiheadAttention's in-projection of a
      // batch-first [1, T, E] input runs over [T, 1, E]).
      arow = as[d];
      yrow = ys[d];
    }
    if (bs[d] != 0 || as[d] != m->M * arow || ys[d] != m->M * yrow || arow == 0 || yrow == 0) return;
    if (m->bias) {
      std::vector<int64_t> bias = BroadcastStrides(m->bias->meta(), m->ym.sizes);
      if (bias.size() < 2 || bias[bias.size() - 2] != 0 || bias[d] != 0) return;  // a row vector [N] only
    }
    // The innermost batch dim is third from the end in every operand that has it.
    const size_t from_end = 3;
    if (ra >= from_end) DropDim(&m->am, ra - from_end);
    if (m->bm.sizes.size() >= from_end) DropDim(&m->bm, m->bm.sizes.size() - from_end);
    DropDim(&m->ym, ry - from_end);
    const int64_t rows = m->batch[d];
    m->M *= rows;
    m->am.sizes[m->am.sizes.size() - 2] = m->M;
    m->ym.sizes[m->ym.sizes.size() - 2] = m->M;
    m->am.strides[m->am.strides.size() - 2] = arow;
    m->ym.strides[m->ym.strides.size() - 2] = yrow;
    m->batch.pop_back();
  }
}

StatusOr<MatmulShape> AnalyzeMatmul(const Node* n) {
  const std::string& name = n->op().schema.name;
  const Value* y = n->output();
  if (y->meta().dtype != DType::kFloat32)
    return Unsupported("matmul in dtype " + std::string(DTypeName(y->meta().dtype)));
  MatmulShape m;
  if (name == "addmm") {
    m.bias = n->input(0);
    m.a = n->input(1);
    m.b = n->input(2);
    m.beta = LiteralNumber(n->args()[3].literal);
    m.alpha = LiteralNumber(n->args()[4].literal);
  } else if (name == "linear") {
    m.a = n->input(0);
    m.b = n->input(1);
    m.bias = n->input(2);
    m.b_transposed = true;
    m.beta = m.bias ? 1 : 0;
  } else {
    m.a = n->input(0);
    m.b = n->input(1);
  }
  if (!m.a || !m.b || m.a->meta().dtype != DType::kFloat32 || m.b->meta().dtype != DType::kFloat32)
    return Unsupported("matmul operands must be f32 tensors");
  m.am = m.a->meta();
  m.bm = m.b->meta();
  if (m.b_transposed) {  // view w [N, K] as [K, N]
    if (m.bm.sizes.size() != 2) return Unsupported("linear weight must be 2-D");
    std::swap(m.bm.sizes[0], m.bm.sizes[1]);
    std::swap(m.bm.strides[0], m.bm.strides[1]);
  }
  m.a_vec = m.am.sizes.size() == 1;
  m.b_vec = m.bm.sizes.size() == 1;
  if (m.a_vec) {
    m.am.sizes.insert(m.am.sizes.begin(), 1);
    m.am.strides.insert(m.am.strides.begin(), 0);
  }
  if (m.b_vec) {
    m.bm.sizes.push_back(1);
    m.bm.strides.push_back(0);
  }
  const size_t ra = m.am.sizes.size(), rb = m.bm.sizes.size();
  m.M = m.am.sizes[ra - 2];
  m.K = m.am.sizes[ra - 1];
  m.N = m.bm.sizes[rb - 1];
  if (m.bm.sizes[rb - 2] != m.K) return Internal("matmul inner sizes differ");
  // Batch = y's leading dims (y has them broadcast); operands broadcast to them.
  m.ym = y->meta();
  if (m.a_vec) {
    m.ym.sizes.insert(m.ym.sizes.end() - (m.b_vec ? 0 : 1), 1);
    m.ym.strides.insert(m.ym.strides.end() - (m.b_vec ? 0 : 1), 0);
  }
  if (m.b_vec) {
    m.ym.sizes.push_back(1);
    m.ym.strides.push_back(0);
  }
  m.batch.assign(m.ym.sizes.begin(), m.ym.sizes.end() - 2);
  FoldSharedBatchIntoRows(&m);
  return m;
}

StatusOr<Conv2dArgs> Conv2dArguments(const Node* n) {
  const Value *x = n->input(0), *y = n->output();
  Conv2dArgs c;
  const std::vector<Arg>& a = n->args();
  if (n->op().schema.name == "conv2d") {
    if (a[4].literal.kind != Literal::Kind::kIntList) return Unsupported("conv2d with string padding");
    c.groups = a[6].literal.i;
  } else {  // _convolution / convolution: (..., stride, padding, dilation, transposed, output_padding, groups, ...)
    if (a[6].literal.b) return Unsupported("transposed convolution");
    c.groups = a[8].literal.i;
  }
  c.stride = Pair(a[3].literal.ints);
  c.pad = Pair(a[4].literal.ints);
  c.dil = Pair(a[5].literal.ints);
  if (x->meta().sizes.size() != 4 || c.stride.size() != 2) return Unsupported("only 2-D convolution");
  if (y->meta().dtype != DType::kFloat32) return Unsupported("conv2d in a dtype other than f32");
  return c;
}

StatusOr<Pool2dArgs> Pool2dArguments(const Node* n) {
  Pool2dArgs p;
  p.is_max = n->op().schema.name == "max_pool2d";
  if (n->input(0)->meta().sizes.size() != 4) return Unsupported("only 4-D pooling");
  const std::vector<Arg>& a = n->args();
  p.k = a[1].literal.ints;
  p.s = a[2].literal.ints;
  p.p = a[3].literal.ints;
  p.d = {1, 1};
  if (p.s.empty()) p.s = p.k;
  p.k = Pair(p.k);
  p.s = Pair(p.s);
  p.p = Pair(p.p);
  if (p.is_max) {
    p.d = Pair(a[4].literal.ints);
  } else {
    p.count_pad = a[5].literal.b;
    if (a[6].kind == Arg::Kind::kLiteral && a[6].literal.kind != Literal::Kind::kNone)
      return Unsupported("avg_pool2d with divisor_override");
  }
  return p;
}

}  // namespace atenaot
