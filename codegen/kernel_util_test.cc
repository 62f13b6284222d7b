// FoldSharedBatchIntoRows: which batched products become one GEMM of more
// rows (the numbers of the folded products: tests/codegen_diff_test's
// linear and matmul programs, model_zoo_small's transformer blocks).
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

// y[b] = a[b] @ w for a [2, 3, 12, 64] and a weight seen as [64, 192].
MatmulShape Linear(TensorMeta a, TensorMeta y) {
  MatmulShape m;
  m.am = std::move(a);
  m.bm = Meta({64, 192}, {1, 64});
  m.ym = std::move(y);
  m.M = 12;
  m.K = 64;
  m.N = 192;
  m.batch = {2, 3};
  return m;
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
  MatmulShape q;
  q.am = Meta({8, 12, 16}, {192, 16, 1});
  q.bm = Meta({8, 16, 12}, {192, 1, 16});
  q.ym = Meta({8, 12, 12}, {144, 12, 1});
  q.M = 12;
  q.K = 16;
  q.N = 12;
  q.batch = {8};
  FoldSharedBatchIntoRows(&q);
  EXPECT_EQ(q.M, 12);
  EXPECT_EQ(q.batch, (std::vector<int64_t>{8}));
}

}  // namespace
}  // namespace atenaot
