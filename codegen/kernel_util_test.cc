// FoldSharedBatchIntoRows: which batched products become one GEMM of more
// rows (the numbers of the folded products: tests/codegen_diff_test's
// linear and matmul programs, model_zoo_small's transformer blocks).
// CheckedDim: ATen's dimension arguments, a 0-dim tensor's included.
#include "codegen/kernel_util.h"

#include <gtest/gtest.h>

namespace atenaot {
namespace {

TensorMeta Meta(std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  TensorMeta t;
  t.sizes = std::move(sizes);
  t.strides = std::move(strides);
  return t;
}

MatmulShape Shape(TensorMeta a, TensorMeta b, TensorMeta y, int64_t M, int64_t K, int64_t N,
                  std::vector<int64_t> batch) {
  MatmulShape m;
  m.am = std::move(a);
  m.bm = std::move(b);
  m.ym = std::move(y);
  m.M = M;
  m.K = K;
  m.N = N;
  m.batch = std::move(batch);
  return m;
}

// y[b] = a[b] @ w for a [2, 3, 12, 64] and a weight seen as [64, 192].
MatmulShape Linear(TensorMeta a, TensorMeta y) {
  return Shape(std::move(a), Meta({64, 192}, {1, 64}), std::move(y), 12, 64, 192, {2, 3});
}

TEST(FoldSharedBatchIntoRows, ContiguousLinearBecomesOneProduct) {
  MatmulShape m = Linear(Meta({2, 3, 12, 64}, {2304, 768, 64, 1}), Meta({2, 3, 12, 192}, {6912, 2304, 192, 1}));
  FoldSharedBatchIntoRows(&m);
  EXPECT_EQ(m.M, 72);
  EXPECT_TRUE(m.batch.empty());
  EXPECT_EQ(m.am.sizes, (std::vector<int64_t>{72, 64}));
  EXPECT_EQ(m.am.strides, (std::vector<int64_t>{64, 1}));
  EXPECT_EQ(m.ym.sizes, (std::vector<int64_t>{72, 192}));
  EXPECT_EQ(m.bm.sizes, (std::vector<int64_t>{64, 192}));
}

TEST(FoldSharedBatchIntoRows, StopsAtADimWhoseRowsDoNotRunOn) {
  // The outer batch dim of a is padded (stride 3000, not 3 * 768): only the inner one folds.
  MatmulShape m = Linear(Meta({2, 3, 12, 64}, {3000, 768, 64, 1}), Meta({2, 3, 12, 192}, {6912, 2304, 192, 1}));
  FoldSharedBatchIntoRows(&m);
  EXPECT_EQ(m.M, 36);
  EXPECT_EQ(m.batch, (std::vector<int64_t>{2}));
  EXPECT_EQ(m.am.sizes, (std::vector<int64_t>{2, 36, 64}));
  EXPECT_EQ(m.am.strides, (std::vector<int64_t>{3000, 64, 1}));
  EXPECT_EQ(m.ym.strides, (std::vector<int64_t>{6912, 192, 1}));
}

TEST(FoldSharedBatchIntoRows, KeepsTransposedRowsAndPerBatchB) {
  // a's rows are columns of a transposed tensor: no fold.
  MatmulShape t = Linear(Meta({2, 3, 12, 64}, {2304, 768, 1, 12}), Meta({2, 3, 12, 192}, {6912, 2304, 192, 1}));
  FoldSharedBatchIntoRows(&t);
  EXPECT_EQ(t.M, 12);
  EXPECT_EQ(t.batch.size(), 2u);
  // Attention's q @ k^T: B changes with the batch.
  MatmulShape q = Shape(Meta({8, 12, 16}, {192, 16, 1}), Meta({8, 16, 12}, {192, 1, 16}),
                        Meta({8, 12, 12}, {144, 12, 1}), 12, 16, 12, {8});
  FoldSharedBatchIntoRows(&q);
  EXPECT_EQ(q.M, 12);
  EXPECT_EQ(q.batch, (std::vector<int64_t>{8}));
}

TEST(FoldSharedBatchIntoRows, OneRowPerBatchFoldsWhateverItsStride) {
  // A batch-first [1, 128, 768] input transposed to [128, 1, 768] (strides 768, 98304, 1): 128 one-row
  // products were 128 GEMM calls; they are one of 128 rows, 768 floats apart.
  MatmulShape m = Shape(Meta({128, 1, 768}, {768, 98304, 1}), Meta({768, 2304}, {1, 768}),
                        Meta({128, 1, 2304}, {2304, 2304, 1}), 1, 768, 2304, {128});
  FoldSharedBatchIntoRows(&m);
  EXPECT_EQ(m.M, 128);
  EXPECT_TRUE(m.batch.empty());
  EXPECT_EQ(m.am.sizes, (std::vector<int64_t>{128, 768}));
  EXPECT_EQ(m.am.strides, (std::vector<int64_t>{768, 1}));
  EXPECT_EQ(m.ym.strides, (std::vector<int64_t>{2304, 1}));
  // Two rows do not run on at the batch stride: no fold.
  MatmulShape t = Shape(Meta({128, 2, 768}, {768, 98304, 1}), Meta({768, 2304}, {1, 768}),
                        Meta({128, 2, 2304}, {4608, 2304, 1}), 2, 768, 2304, {128});
  FoldSharedBatchIntoRows(&t);
  EXPECT_EQ(t.M, 2);
  EXPECT_EQ(t.batch.size(), 1u);
}

TEST(CheckedDim, NegativeFromTheEndAndAScalarsRowOfOne) {
  EXPECT_EQ(*CheckedDim(-1, 3, "aten::softmax"), 2u);
  EXPECT_EQ(*CheckedDim(1, 3, "aten::softmax"), 1u);
  EXPECT_EQ(*CheckedDim(0, 0, "aten::softmax"), 0u);  // a 0-dim tensor takes 0 and -1
  EXPECT_EQ(*CheckedDim(-1, 0, "aten::softmax"), 0u);
}

TEST(CheckedDim, OutOfRangeIsAnErrorNamingTheOp) {
  for (auto [d, rank] : {std::pair<int64_t, size_t>{3, 3}, {-4, 3}, {1, 0}, {-2, 0}}) {
    StatusOr<size_t> r = CheckedDim(d, rank, "aten::cumsum");
    ASSERT_FALSE(r.ok()) << d << " of rank " << rank;
    EXPECT_NE(r.status().message().find("aten::cumsum: dimension " + std::to_string(d) + " is out of range"),
              std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace atenaot
