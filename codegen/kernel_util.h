// What the code generators (C and CUDA) share: which nodes are views,
// broadcasting strides, merging loop dimensions, and the shapes and
// arguments of the ops they lower as kernels (reductions, matmuls,
// convolutions, pools), read off the node once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace atenaot {

// A node whose results share memory with an argument without writing it is a
// view: no code, only pointer arithmetic.
bool IsViewNode(const Node* n);

// A weight's data when the value is laid out as that data (offset 0,
// contiguous, every byte there), else nullptr.
const WeightData* WeightDataOf(const Graph& g, const Value* v);
// A weight computed at compile time: `bytes` (contiguous, `sizes`) under a
// fresh key "atenaot.folded.NAME" and a fresh storage.
Value* AddFoldedWeight(Graph& g, const std::string& name, DType dtype, const std::vector<int64_t>& sizes,
                       std::vector<uint8_t> bytes);

// aten::cat's dim (normalised), or -1 when n is not a cat with one result.
int64_t CatDim(const Node* n);
// Where (elements into the result's storage) cat's tensor-list entry k goes;
// n must be a cat (CatDim >= 0).
int64_t CatSliceOffset(const Node* cat, size_t k);
// Whether cat's tensor-list entry k already lies where the cat would copy it
// (codegen/inplace_cat.h): in the result's storage at its slice. Those
// entries need no copy; a cat with all of them in place is a view.
bool CatInputInPlace(const Node* cat, size_t k);

// Strides of `m` broadcast (right-aligned) to the index space `sizes`.
std::vector<int64_t> BroadcastStrides(const TensorMeta& m, const std::vector<int64_t>& sizes);

// Loop dimensions after dropping size-1 dimensions and merging dimensions
// that every tensor walks contiguously.
struct LoopSpace {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;  // per tensor, per dim
};
LoopSpace CoalesceLoops(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides);

// A C expression for the element offset of row-major flat index `var` in a
// tensor of these sizes and strides: "var" or "var * 7" when the dims
// coalesce into one, else a sum of (var / a % b) * stride terms.
std::string StridedOffset(const std::string& var, const std::vector<int64_t>& sizes,
                          const std::vector<int64_t>& strides);

// A dimension argument d of a rank-`rank` tensor, negative ones counted from the end.
int64_t NormDim(int64_t d, size_t rank);
// The same, checked: d in [-rank, rank), where a 0-dim tensor takes 0 and -1
// as in ATen (its element is a row of one); else an error naming `op`.
StatusOr<size_t> CheckedDim(int64_t d, size_t rank, const std::string& op);

// An op along one dimension whose rows are the other dimensions (softmax,
// cumsum/cumprod): the row's length and steps in x and y (y of x's rank),
// and the other dimensions' sizes and strides. A 0-dim x is one row of one
// element. `drop_unit` leaves out other dimensions of size 1 (their index is
// always 0).
struct RowsAlong {
  size_t dim = 0;
  int64_t len = 1, x_step = 0, y_step = 0;
  std::vector<int64_t> outer, x_outer, y_outer;  // sizes, then strides
};
StatusOr<RowsAlong> RowsAlongDim(const Node* n, const Value* x, const Value* y, int64_t dim, bool drop_unit = false);
// An int or float literal argument as a double.
double LiteralNumber(const Literal& l);

// "i0 * 4 + i1" for per-dimension loop variables and strides ("0" if none).
std::string LinearIndex(const std::vector<std::string>& vars, const std::vector<int64_t>& strides);

// Which kernel lowers a node that is not elementwise (both backends).
enum class KernelKind {
  kReduce,             // sum, mean, amax, amin, prod
  kIndexReduce,        // max.dim, min.dim, argmax, argmin
  kSoftmax,            // softmax, log_softmax (and the _ forms)
  kLayerNorm,          // layer_norm, native_layer_norm
  kBatchNorm,          // batch_norm (inference)
  kMatmul,             // mm, bmm, matmul, addmm, linear
  kConv2d,             // conv2d, _convolution, convolution
  kPool2d,             // max_pool2d, avg_pool2d
  kAdaptiveAvgPool2d,  // adaptive_avg_pool2d
  kCat,
  kIndexSelect,   // index_select, embedding
  kGather,        // gather
  kIndexPut,      // index_put, index_put_
  kIndex,         // index.Tensor (advanced indexing)
  kEmbeddingBag,  // embedding_bag (sum, mean, max over bags)
  kSort,          // sort, sort.stable, topk (stable merge sort per row)
  kCumulative,    // cumsum, cumprod
  kScatter,       // the *_scatter ops (a view's inverse)
  kCopy,          // a view op that copied (its result has its own memory)
  kArange,
  kNothing,  // empty, empty_like
  kUnsupported,
};
KernelKind ClassifyKernel(const Node* n);

// What a backend implements for those kernels; LowerKernel picks the one
// ClassifyKernel names (kNothing: nothing to emit; kUnsupported: an error
// naming the backend and the op).
class KernelLowering {
 public:
  virtual ~KernelLowering() = default;
  virtual const char* BackendName() const = 0;
  virtual Status Reduce(const Node* n) = 0;
  virtual Status ReduceWithIndex(const Node* n) = 0;
  virtual Status Softmax(const Node* n) = 0;
  virtual Status LayerNorm(const Node* n) = 0;
  virtual Status BatchNorm(const Node* n) = 0;
  virtual Status Matmul(const Node* n) = 0;
  virtual Status Conv2d(const Node* n) = 0;
  virtual Status Pool2d(const Node* n) = 0;
  virtual Status AdaptiveAvgPool2d(const Node* n) = 0;
  virtual Status Cat(const Node* n) = 0;
  virtual Status IndexSelect(const Node* n) = 0;
  virtual Status Gather(const Node* n) = 0;
  virtual Status IndexPut(const Node* n) = 0;
  virtual Status Scatter(const Node* n) = 0;
  virtual Status CopyInOrder(const Value* in, const Value* out) = 0;  // kCopy: a view op that copied
  virtual Status Arange(const Node* n) = 0;
  // Lowered by the C backend only so far; another backend says it has none.
  virtual Status Index(const Node* n) { return NoLowering(n); }
  virtual Status EmbeddingBag(const Node* n) { return NoLowering(n); }
  virtual Status Sort(const Node* n) { return NoLowering(n); }
  virtual Status Cumulative(const Node* n) { return NoLowering(n); }

 protected:
  Status NoLowering(const Node* n) const;
};
Status LowerKernel(KernelLowering& backend, const Node* n);

// sum/mean/amax/amin/prod: the kept (outer) and reduced (inner) dimensions
// of the input, and the output's strides for the kept ones.
struct ReductionDims {
  std::vector<int64_t> outer, inner;               // sizes
  std::vector<int64_t> x_outer, x_inner, y_outer;  // strides
  int64_t count = 1;                               // elements per output
};
StatusOr<ReductionDims> ReduceDims(const Node* n);

// max.dim/min.dim/argmax/argmin over one dimension of `len` elements (not
// empty), `x_step` apart in x (a 0-dim x: one element); argmax/argmin with
// no dim over all elements of a contiguous x (outer empty).
struct IndexReductionDims {
  size_t dim = 0;
  int64_t len = 1, x_step = 0;
  bool is_max = false;
  const Value* values = nullptr;  // max.dim/min.dim only
  const Value* indices = nullptr;
  std::vector<int64_t> outer, x_outer, idx_outer, values_outer;  // sizes, then strides
};
StatusOr<IndexReductionDims> IndexReduceDims(const Node* n);

// Advanced indexing (index.Tensor, index_put with integer index tensors):
// x[i0, :, i2] with the index tensors broadcast together to `bshape`. The
// result (or index_put's iteration space) is x's dims before the first index,
// then bshape, then the dims after the last when the indexed dims are
// adjacent; else bshape first, then every dim not indexed.
struct AdvancedIndex {
  std::vector<const Value*> idx;  // per dim of x (nullptr: the whole dim)
  std::vector<int64_t> bshape;
  std::vector<int64_t> result;  // sizes of the result
  size_t before = 0;            // result dims before the bshape block
};
// Refuses boolean masks: the result's shape would depend on the data.
StatusOr<AdvancedIndex> AnalyzeAdvancedIndex(const TensorMeta& x, const std::vector<Value*>& indices);
// index.Tensor's node: the analysis, checked against the traced result shape.
StatusOr<AdvancedIndex> AnalyzeIndexNode(const Node* n);
// The backend's pointer names of a's index tensors, in dim order.
StatusOr<std::vector<std::string>> IndexTensorPtrs(const AdvancedIndex& a,
                                                   const std::function<StatusOr<std::string>(const Value*)>& ptr);
// C statements (one per line, each starting with `indent`) that read the
// index tensors at the result index `vars` into k0, k1, ... (negative
// indices wrapped), and the element offset into x they select. `ptr(v)`
// names each index tensor's pointer.
struct GatherText {
  std::string decls, offset;
};
// With `fail`, each index K of dimension d outside [-size, size) runs the
// statement fail(K's variable, size, d) (the C backend returns an error).
GatherText AdvancedIndexText(
    const AdvancedIndex& a, const TensorMeta& x, const std::vector<std::string>& vars,
    const std::vector<std::string>& idx_ptrs, const std::string& indent,
    const std::function<std::string(const std::string& raw, int64_t size, size_t dim)>& fail = nullptr);

// Where a gather's index points, for its out-of-range message: "dimension D
// of %x in aten::op (%y)".
std::string IndexWhere(const Node* n, const Value* x, size_t dim);

// sort/topk over one dim: the rows (every other dim) and, per result, the
// strides of its kept dims.
struct SortArgs {
  size_t dim = 0;
  int64_t k = 0;  // elements kept per row (n for sort)
  bool descending = false;
  std::vector<int64_t> outer, x_outer, v_outer, i_outer;
};
StatusOr<SortArgs> SortArguments(const Node* n);

// mm/bmm/matmul/addmm/linear (f32): C[batch] = alpha A @ B + beta bias, with
// vectors as 1-row/1-column matrices, linear's weight viewed as [K, N] and
// the batch dims of y (operands broadcast to them).
struct MatmulShape {
  const Value *a = nullptr, *b = nullptr, *bias = nullptr;
  bool b_transposed = false;  // linear: y = a @ w^T
  bool a_vec = false, b_vec = false;
  double alpha = 1, beta = 0;
  TensorMeta am, bm, ym;  // as matrices (rank >= 2)
  int64_t M = 0, K = 0, N = 0;
  std::vector<int64_t> batch;
  // m's strides over `batch` (its leading dims, broadcast).
  std::vector<int64_t> BatchStrides(const TensorMeta& m) const;
};
StatusOr<MatmulShape> AnalyzeMatmul(const Node* n);
// Turns the innermost batch dims into rows of one product where B and the
// bias do not change over them and A's and y's rows run on (AnalyzeMatmul
// does it; exposed for its test).
void FoldSharedBatchIntoRows(MatmulShape* m);

// conv2d/_convolution/convolution (2-D, f32, not transposed).
struct Conv2dArgs {
  std::vector<int64_t> stride, pad, dil;  // two entries each
  int64_t groups = 1;
};
StatusOr<Conv2dArgs> Conv2dArguments(const Node* n);

// max_pool2d/avg_pool2d (4-D input, no divisor_override).
struct Pool2dArgs {
  bool is_max = false;
  std::vector<int64_t> k, s, p, d;  // two entries each
  bool count_pad = true;            // avg_pool2d's count_include_pad
};
StatusOr<Pool2dArgs> Pool2dArguments(const Node* n);

}  // namespace atenaot
