#include "codegen/element_kernels.h"

#include "codegen/c_types.h"
#include "ir/literal.h"
#include "ir/view_meta.h"

namespace atenaot {
namespace {

// `ind`-indented statements of one gathered element (index_select, gather):
// index k read at `k_at`, `fail` outside [0, size), then y_at = x_at (an
// element of x at index k).
std::string GatherElement(const std::string& ind, const std::string& k_at, int64_t size, const std::string& fail,
                          const std::string& y_at, const std::string& x_at) {
  return ind + "const int64_t k = (int64_t)" + k_at + ";\n" + ind + "if (k < 0 || k >= " + std::to_string(size) + ") " +
         fail + "\n" + ind + y_at + " = " + x_at + ";\n";
}

}  // namespace

// Each input not already in place (codegen/inplace_cat.h) copied into its slice.
Status ElementKernels::Cat(const Node* n) {
  const Value* y = n->output();
  const size_t rank = y->meta().sizes.size();
  const size_t dim = static_cast<size_t>(NormDim(n->args()[1].literal.i, rank));
  const std::vector<int64_t>& yst = y->meta().strides;
  AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
  int64_t at = 0;
  const std::vector<Value*>& list = n->args()[0].list;
  for (size_t k = 0; k < list.size(); ++k) {
    const Value* in = list[k];
    if (!in) return Unsupported("none in cat's tensor list");
    if (in->meta().sizes.size() != rank) {
      if (in->meta().numel() == 0) continue;  // cat skips empty 1-D tensors
      return Unsupported("cat of tensors of different rank");
    }
    if (!CatInputInPlace(n, k)) {  // else its producer wrote it there
      AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(in));
      const std::string base = std::to_string(at * yst[dim]);
      ElementLoop("part", in->meta().sizes, [&](const std::vector<std::string>& v, const std::string& ind) {
        return ind + py + "[" + LinearIndex(v, yst) + " + " + base +
               "] = " + CCast(pi + "[" + LinearIndex(v, in->meta().strides) + "]", y->meta().dtype) + ";\n";
      });
    }
    at += in->meta().sizes[dim];
  }
  return Status::Ok();
}

// y's dims: src's dims before `dim`, idx's dims, src's dims after `dim`.
// Indices must lie in [0, size): index_select and embedding do not wrap negatives.
Status ElementKernels::IndexSelect(const Node* n) {
  const bool emb = n->op().schema.name == "embedding";
  const Value* src = n->input(0);
  const Value* idx = emb ? n->input(1) : n->input(2);
  const size_t rank = src->meta().sizes.size(), ir = idx->meta().sizes.size();
  size_t dim = 0;
  if (!emb) {
    AOT_ASSIGN_OR_RETURN(dim, CheckedDim(n->args()[1].literal.i, rank, n->op().qualified_name));
  }
  const Value* y = n->output();
  // index_select takes a 0-dim index as one of 1 element, embedding does not.
  // A 0-dim source (ATen gives a 0-dim result whatever the index) is refused.
  const size_t iy = emb ? ir : std::max<size_t>(ir, 1);
  if (rank == 0 || y->meta().sizes.size() != rank - 1 + iy)
    return Unsupported("index_select of a " + std::to_string(rank) + "-dim tensor by a " + std::to_string(ir) +
                       "-dim index into a " + std::to_string(y->meta().sizes.size()) + "-dim result");
  AOT_ASSIGN_OR_RETURN(std::string ps, Ptr(src));
  AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(idx));
  AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
  const int64_t size = src->meta().sizes[dim];
  const std::string fail = IndexFail("k", 0, size, IndexWhere(n, src, dim));
  ElementLoop("", y->meta().sizes, [&](const std::vector<std::string>& v, const std::string& ind) {
    const std::vector<std::string> iv(v.begin() + static_cast<std::ptrdiff_t>(dim),
                                      v.begin() + static_cast<std::ptrdiff_t>(dim + ir));
    std::string so;
    for (size_t d = 0; d < src->meta().sizes.size(); ++d) {
      const std::string& var = d < dim ? v[d] : d == dim ? std::string("k") : v[d - 1 + iy];
      so += (so.empty() ? "" : " + ") + var + " * " + std::to_string(src->meta().strides[d]);
    }
    return GatherElement(ind, pi + "[" + LinearIndex(iv, idx->meta().strides) + "]", size, fail,
                         py + "[" + LinearIndex(v, y->meta().strides) + "]", ps + "[" + so + "]");
  });
  return Status::Ok();
}

// gather(x, dim, idx): y[i] = x[i with dimension `dim` replaced by idx[i]];
// y has idx's shape, of x's rank. Indices must lie in [0, size) (gather does
// not wrap negatives).
Status ElementKernels::Gather(const Node* n) {
  const Value *x = n->input(0), *idx = n->input(2), *y = n->output();
  const size_t rank = x->meta().sizes.size();
  AOT_ASSIGN_OR_RETURN(const size_t dim, CheckedDim(n->args()[1].literal.i, rank, n->op().qualified_name));
  if (rank == 0 || idx->meta().sizes.size() != rank || y->meta().sizes != idx->meta().sizes)
    return Unsupported("gather of a " + std::to_string(rank) + "-dim tensor by a " +
                       std::to_string(idx->meta().sizes.size()) + "-dim index");
  AOT_ASSIGN_OR_RETURN(std::string px, Ptr(x));
  AOT_ASSIGN_OR_RETURN(std::string pi, Ptr(idx));
  AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
  const int64_t size = x->meta().sizes[dim];
  const std::string fail = IndexFail("k", 0, size, IndexWhere(n, x, dim));
  ElementLoop("", y->meta().sizes, [&](const std::vector<std::string>& v, const std::string& ind) {
    std::vector<std::string> xv = v;
    xv[dim] = "k";
    return GatherElement(ind, pi + "[" + LinearIndex(v, idx->meta().strides) + "]", size, fail,
                         py + "[" + LinearIndex(v, y->meta().strides) + "]",
                         px + "[" + LinearIndex(xv, x->meta().strides) + "]");
  });
  return Status::Ok();
}

// y = self with src written through the view the scatter inverts: self
// copied into y unless they are the same memory, then src into the view.
Status ElementKernels::Scatter(const Node* n) {
  const Value *self = n->input(0), *src = n->input(1), *y = n->output();
  if (self->meta().storage != y->meta().storage || self->meta().offset != y->meta().offset ||
      self->meta().strides != y->meta().strides)
    AOT_RETURN_IF_ERROR(CopyInOrder(self, y));
  std::vector<Arg> vargs = {Arg::Of(const_cast<Value*>(y))};
  for (size_t i = 2; i < n->args().size(); ++i) vargs.push_back(n->args()[i]);
  const TensorMeta view = ScatterViewMeta(*n->op().scatter_view, vargs, y->meta());
  AOT_ASSIGN_OR_RETURN(std::string ps, Ptr(src));
  AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
  const std::vector<int64_t> sst = BroadcastStrides(src->meta(), view.sizes);
  const std::string off = std::to_string(view.offset - y->meta().offset);
  ElementLoop("view", view.sizes, [&](const std::vector<std::string>& v, const std::string& ind) {
    return ind + py + "[" + off + " + " + LinearIndex(v, view.strides) +
           "] = " + CCast(ps + "[" + LinearIndex(v, sst) + "]", y->meta().dtype) + ";\n";
  });
  return Status::Ok();
}

// arange(end), arange.start(start, end), arange.start_step(start, end, step).
Status ElementKernels::Arange(const Node* n) {
  const Value* y = n->output();
  if (y->meta().sizes.size() != 1) return Unsupported("arange of rank != 1");
  const std::string& ov = n->op().schema.overload;
  const double start = ov == "start" || ov == "start_step" ? LiteralNumber(n->args()[0].literal) : 0;
  const double step = ov == "start_step" ? LiteralNumber(n->args()[2].literal) : 1;
  AOT_ASSIGN_OR_RETURN(std::string py, Ptr(y));
  ElementLoop("", y->meta().sizes, [&](const std::vector<std::string>& v, const std::string& ind) {
    return ind + py + "[" + LinearIndex(v, y->meta().strides) +
           "] = " + CCast(FormatDouble(start) + " + (double)" + v[0] + " * " + FormatDouble(step), y->meta().dtype) +
           ";\n";
  });
  return Status::Ok();
}

}  // namespace atenaot
