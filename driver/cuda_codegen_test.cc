// LibTorch-free tests of the CUDA codegen: what it emits for small graphs
// (the plan the C backend uses, parsed from IR text with complete types), the
// cuBLAS operand mapping, unsupported-op errors, the loop-space helpers and the
// nvcc architecture flags. Whether the emitted .cu compiles is
// //tests/cuda:cuda_compile_test; whether it computes right needs a GPU
// (bench/gpu).
#include "codegen/cuda_codegen.h"

#include <gtest/gtest.h>

#include "codegen/build_cuda_library.h"
#include "codegen/kernel_util.h"
#include "driver/compile_graph.h"
#include "ir/parser.h"
#include "ir/test_op_table.h"

namespace atenaot {
namespace {

StatusOr<CompiledGraphCuda> Compile(const std::string& ir, const std::string& name = "m") {
  auto g = ParseGraph(ir, SnapshotOpTable());
  if (!g.ok()) return g.status();
  static std::vector<std::unique_ptr<Graph>> keep;  // the plan points into its graph
  keep.push_back(std::move(*g));
  CudaCodegenOptions opts;
  opts.name = name;
  return CompileGraphCuda(
      *keep.back(), SnapshotOpTable(), [](Graph&) { return Status::Ok(); }, opts);
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(CudaCodegen, ElementwiseChainIsOneFusedKernelWithAFloat4Twin) {
  auto c = Compile(R"(graph @f(%x: f32[1024]@s0) {
  %a = aten::mul.Scalar(%x, 2.0) : f32[1024]@s1
  %b = aten::sigmoid(%a) : f32[1024]@s2
  %c = aten::relu(%b) : f32[1024]@s3
  return %c
})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cuda.arena_bytes, 0);  // the fused run writes the caller's output
  EXPECT_EQ(c->cuda.kernels, 2);      // scalar and float4 forms of one kernel
  EXPECT_EQ(c->cuda.gemms, 0);
  const std::string& s = c->cuda.source;
  EXPECT_EQ(Count(s, "__global__"), 2u);
  EXPECT_NE(s.find("reinterpret_cast<const float4*>(p0)[q]"), std::string::npos);
  EXPECT_NE(s.find("& 15u) == 0"), std::string::npos);  // the float4 form only for aligned pointers
  EXPECT_EQ(s.find("cudaMalloc", s.find("static aot_status aot__run(")), std::string::npos);  // run never allocates
  // The model table (codegen/templates/aot_cuda_model.cuh): CUDA, 1 input, 1 output.
  EXPECT_NE(s.find("#define AOT_M_INPUTS 1\n#define AOT_M_OUTPUTS 1\n"), std::string::npos);
  EXPECT_NE(s.find("AOT_M_NAME_STR, AOT_DEVICE_CUDA, 0,"), std::string::npos);
}

TEST(CudaCodegen, Float4KernelFinishesAnUnevenLengthElementByElement) {
  auto c = Compile(R"(graph @f(%x: f32[1023]@s0) {
  %a = aten::mul.Scalar(%x, 2.0) : f32[1023]@s1
  %b = aten::tanh(%a) : f32[1023]@s2
  return %b
})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::string& s = c->cuda.source;
  EXPECT_NE(s.find("q < (int)255;"), std::string::npos) << s;         // 255 float4s
  EXPECT_NE(s.find("for (int i = 1020 + "), std::string::npos) << s;  // then the last 3 elements
}

TEST(CudaCodegen, IndicesAre64BitOnlyWhenNeeded) {
  auto small = Compile(R"(graph @f(%x: f32[7]@s0) {
  %a = aten::exp(%x) : f32[7]@s1
  return %a
})");
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_NE(small->cuda.source.find("for (int i = "), std::string::npos);
  EXPECT_EQ(small->cuda.source.find("for (int64_t i = "), std::string::npos);
  auto big = Compile(R"(graph @f(%x: f32[1073741825]@s0) {
  %a = aten::exp(%x) : f32[1073741825]@s1
  return %a
})");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_NE(big->cuda.source.find("for (int64_t i = "), std::string::npos);
}

TEST(CudaCodegen, MatmulIsRowMajorThroughTheTransposeTrick) {
  // C[4,3] = A[4,8] @ B[8,3]: column-major C^T = B^T A^T, so cuBLAS gets
  // m = 3, n = 4, k = 8, B first with ld 3, A second with ld 8, C with ld 3.
  auto c = Compile(R"(graph @f(%a: f32[4,8]@s0, %b: f32[8,3]@s1) {
  %c = aten::mm(%a, %b) : f32[4,3]@s2
  return %c
})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cuda.gemms, 1);
  EXPECT_NE(c->cuda.source.find(
                "cublasSgemmStridedBatched(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, 3, 4, 8, &alpha, p1 + 0, 3, 0LL, "
                "p0 + 0, 8, 0LL, &beta, p2 + 0, 3, 0LL, 1)"),
            std::string::npos)
      << c->cuda.source;
  // linear: y = x @ w^T with w [N, K] row-major is B = w^T, stored k-major: op T, ld K.
  auto l = Compile(R"(graph @f(%x: f32[2,5]@s0, %w: f32[6,5]@s1) {
  %y = aten::linear(%x, %w, none) : f32[2,6]@s2
  return %y
})");
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_NE(l->cuda.source.find(
                "cublasSgemmStridedBatched(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, 6, 2, 5, &alpha, p1 + 0, 5, 0LL, "
                "p0 + 0, 5, 0LL, &beta, p2 + 0, 6, 0LL, 1)"),
            std::string::npos)
      << l->cuda.source;
  // bmm with a batch stride: one strided-batched call over 3 batches.
  auto b = Compile(R"(graph @f(%a: f32[3,2,4]@s0, %b: f32[3,4,5]@s1) {
  %c = aten::bmm(%a, %b) : f32[3,2,5]@s2
  return %c
})");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NE(b->cuda.source.find("5, 2, 4, &alpha, p1 + 0, 5, 20LL, p0 + 0, 4, 8LL, &beta, p2 + 0, 5, 10LL, 3)"),
            std::string::npos)
      << b->cuda.source;
}

TEST(CudaCodegen, SoftmaxIsABlockReductionPerRow) {
  auto c = Compile(R"(graph @f(%x: f32[6,100]@s0) {
  %y = aten::softmax.int(%x, 1, none) : f32[6,100]@s1
  return %y
})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::string& s = c->cuda.source;
  EXPECT_NE(s.find("__launch_bounds__(128)"), std::string::npos);  // rows of 100: 4 warps
  EXPECT_EQ(Count(s, "aot__block_reduce(m, aot__max(), sh)"), 1u);
  EXPECT_EQ(Count(s, "aot__block_reduce(sum, aot__add(), sh)"), 1u);
}

TEST(CudaCodegen, FewLongRowsGetLargerBlocks) {
  auto c = Compile(R"(graph @f(%x: f32[1000000]@s0) {
  %s = aten::sum(%x, none) : f32[]@s1
  return %s
})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NE(c->cuda.source.find("__launch_bounds__(1024)"), std::string::npos);
  EXPECT_NE(c->cuda.source.find("aot__block_reduce(acc, aot__add(), sh)"), std::string::npos);
}

TEST(CudaCodegen, ListsEveryUnsupportedOpWithItsNode) {
  auto c = Compile(R"(graph @f(%x: f32[4,8]@s0) {
  %v, %i = aten::topk(%x, 2, -1, true, true) : f32[4,2]@s1, i64[4,2]@s2
  %s = aten::cumsum(%x, 1, none) : f32[4,8]@s3
  return (%v, %i, %s)
})");
  ASSERT_FALSE(c.ok());
  const std::string m = c.status().ToString();
  EXPECT_NE(m.find("2 op(s) the CUDA backend cannot compile"), std::string::npos) << m;
  EXPECT_NE(m.find("aten::topk"), std::string::npos) << m;
  EXPECT_NE(m.find("%s = aten::cumsum"), std::string::npos) << m;
}

TEST(CudaCodegen, RejectsNamesThatAreNotCIdentifiers) {
  auto c = Compile(R"(graph @f(%x: f32[4]@s0) {
  %a = aten::neg(%x) : f32[4]@s1
  return %a
})",
                   "9lives");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("not a C identifier"), std::string::npos);
}

TEST(KernelUtil, CoalesceMergesWhatEveryTensorWalksContiguously) {
  LoopSpace flat = CoalesceLoops({4, 8}, {{8, 1}, {8, 1}});
  EXPECT_EQ(flat.sizes, (std::vector<int64_t>{32}));
  EXPECT_EQ(flat.strides[0], (std::vector<int64_t>{1}));
  LoopSpace bcast = CoalesceLoops({4, 8}, {{8, 1}, {0, 1}});  // a row broadcast keeps two dims
  EXPECT_EQ(bcast.sizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(bcast.strides[1], (std::vector<int64_t>{0, 1}));
  TensorMeta row;
  row.sizes = {8};
  row.strides = {1};
  EXPECT_EQ(BroadcastStrides(row, {4, 8}), (std::vector<int64_t>{0, 1}));
}

TEST(BuildCudaLibrary, ArchitectureFlags) {
  auto f = CudaArchFlags("sm_90");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, "-gencode arch=compute_90,code=[sm_90,compute_90]");
  EXPECT_FALSE(CudaArchFlags("90").ok());
  EXPECT_FALSE(CudaArchFlags("sm_9a; rm -rf /").ok());
}

}  // namespace
}  // namespace atenaot
