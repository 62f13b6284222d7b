// The kernel library against naive float64 references on awkward shapes
// (edges of every block size, strided and transposed operands, padding,
// dilation, stride), for the micro-kernel the test binary was built with
// (BUILD builds it portable, AVX2+FMA and AVX-512; a variant whose ISA this
// CPU lacks reports itself skipped).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "codegen/kernels/aot_kernels.h"

namespace {

bool IsaPresent() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#elif defined(__AVX2__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;
#endif
}

#define REQUIRE_ISA() \
  if (!IsaPresent()) GTEST_SKIP() << "this CPU lacks the ISA this test variant was built for"

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The first 64-byte aligned float of v (16 floats longer than it needs), as
// the library's scratch must be.
float* Aligned64(std::vector<float>& v) {
  const auto p = reinterpret_cast<uintptr_t>(v.data());
  return v.data() + (64 - p % 64) % 64 / sizeof(float);
}

double Act(double v, const aot__epilogue& ep) {
  switch (ep.act) {
    case AOT_ACT_RELU:
      return v < 0 ? 0 : v;
    case AOT_ACT_CLAMP:
      return std::min<double>(std::max<double>(v, ep.lo), ep.hi);
    case AOT_ACT_HARDSWISH:
      return v * std::min(std::max(v + 3, 0.0), 6.0) / 6;
    case AOT_ACT_SIGMOID:
      return 1 / (1 + std::exp(-v));
    case AOT_ACT_SILU:
      return v / (1 + std::exp(-v));
    case AOT_ACT_GELU:
      return 0.5 * v * (1 + std::erf(v * 0.70710678118654752));
    case AOT_ACT_GELU_TANH:
      return 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    default:
      return v;
  }
}

double Epilogue(double acc, const aot__epilogue* ep, int64_t m, int64_t n) {
  if (!ep) return acc;
  if (ep->bias) acc += ep->bias[m * ep->bias_m + n * ep->bias_n];
  if (ep->res) acc += ep->res[m * ep->res_m + n * ep->res_n];
  return Act(acc, *ep);
}

// |got - want| within a few float ulps of the sum of |terms| (the scale).
void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, const std::vector<double>& scale,
                const std::string& what) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double tol = 1e-6 * (scale[i] + 1) * 8;
    if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5)
      ADD_FAILURE() << what << ": element " << i << " got " << got[i] << " want " << want[i];
  }
}

// C (element (m, n) at c[m*c_m + n*c_n]) against the float64 product of A
// (at a[m*a_m + k*a_k]) and a row-major B (row stride b_k) with the epilogue.
void ExpectGemm(int64_t M, int64_t N, int64_t K, const float* a, int64_t a_m, int64_t a_k, const float* b, int64_t b_k,
                const aot__epilogue* ep, const float* c, int64_t c_m, int64_t c_n, const std::string& what) {
  std::vector<float> got(static_cast<size_t>(M * N));
  std::vector<double> want(got.size()), scale(got.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0, sa = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double p = static_cast<double>(a[m * a_m + k * a_k]) * b[k * b_k + n];
        s += p;
        sa += std::fabs(p);
      }
      want[m * N + n] = Epilogue(s, ep, m, n);
      scale[m * N + n] = sa;
      got[m * N + n] = c[m * c_m + n * c_n];
    }
  ExpectNear(got, want, scale, what);
}

// A (M x K, element (m, k) at a[m*a_m + k*a_k]) as an operand: read in
// place, or prepacked into *storage with `packed`.
aot__operand OperandA(int64_t M, int64_t K, const std::vector<float>& a, int64_t a_m, int64_t a_k, bool packed,
                      std::vector<float>* storage) {
  if (!packed) return {a.data(), a_m, a_k, 0, nullptr, nullptr};
  storage->resize(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
  aot__sgemm_pack_a(M, K, a.data(), a_m, a_k, storage->data());
  return {storage->data(), 0, 0, 1, nullptr, nullptr};
}

// aot__sgemm of A and a row-major B [K, N] (prepacked first with b_packed)
// into c, with the scratch the call asks for.
void CallSgemm(int64_t M, int64_t N, int64_t K, const aot__operand& A, const std::vector<float>& b, bool b_packed,
               float* c, int64_t c_m, int64_t c_n, const aot__epilogue* ep) {
  std::vector<float> pb;
  aot__operand B = {b.data(), N, 1, 0, nullptr};
  if (b_packed) {
    pb.resize(static_cast<size_t>(aot__sgemm_packed_b_floats(K, N)));
    aot__sgemm_pack_b(K, N, b.data(), N, 1, pb.data());
    B = {pb.data(), 0, 0, 1, nullptr};
  }
  std::vector<float> scratch(
      static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, aot__sgemm_packing(M, N, K, &A, &B))) + 16);
  aot__sgemm(M, N, K, &A, &B, c, c_m, c_n, ep, scratch.data());
}

struct GemmCase {
  int64_t M, N, K;
  bool a_packed, b_packed, a_trans, c_trans;
  int act;
  bool bias_row, res;
};

void RunGemm(const GemmCase& t) {
  const int64_t M = t.M, N = t.N, K = t.K;
  std::vector<float> a = Random(static_cast<size_t>(M * K), 1), b = Random(static_cast<size_t>(K * N), 2);
  std::vector<float> bias = Random(static_cast<size_t>(std::max(M, N)), 3), res = Random(static_cast<size_t>(M * N), 4);
  // A stored [M, K] or transposed [K, M]; B always [K, N].
  const int64_t a_m = t.a_trans ? 1 : K, a_k = t.a_trans ? M : 1;
  const int64_t c_m = t.c_trans ? 1 : N, c_n = t.c_trans ? M : 1;
  aot__epilogue ep = {};
  ep.act = t.act;
  ep.lo = -0.25f;
  ep.hi = 0.5f;
  if (t.bias_row) {
    ep.bias = bias.data();
    ep.bias_m = 1;
    ep.bias_n = 0;
  } else {
    ep.bias = bias.data();
    ep.bias_m = 0;
    ep.bias_n = 1;
  }
  if (t.res) {
    ep.res = res.data();
    ep.res_m = N;
    ep.res_n = 1;
  }
  std::vector<float> pa;
  const aot__operand A = OperandA(M, K, a, a_m, a_k, t.a_packed, &pa);
  std::vector<float> c(static_cast<size_t>(M * N), NAN);
  CallSgemm(M, N, K, A, b, t.b_packed, c.data(), c_m, c_n, &ep);
  ExpectGemm(M, N, K, a.data(), a_m, a_k, b.data(), N, &ep, c.data(), c_m, c_n,
             "gemm " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
}

TEST(Sgemm, AwkwardShapesAndOperandForms) {
  REQUIRE_ISA();
  const int64_t shapes[][3] = {{1, 1, 1},
                               {7, 13, 5},
                               {8, 16, 256},
                               {9, 17, 257},
                               {8, 33, 3},
                               {130, 530, 600},
                               {64, 49, 1000},
                               {3, 700, 40},
                               {129, 15, 513},
                               // few rows over two column blocks, B over AOT_GEMM_STREAM_BYTES
                               {1, 600, 520},
                               {5, 600, 520}};
  for (const auto& s : shapes)
    for (int form = 0; form < 4; ++form)
      RunGemm({s[0], s[1], s[2], (form & 1) != 0, (form & 2) != 0, false, false, AOT_ACT_NONE, true, false});
}

TEST(Sgemm, TransposedOperandsAndStridedOutput) {
  REQUIRE_ISA();
  RunGemm({37, 45, 300, false, false, true, false, AOT_ACT_NONE, false, false});
  RunGemm({37, 45, 300, false, true, false, true, AOT_ACT_RELU, false, true});
  RunGemm({5, 100, 7, true, false, false, true, AOT_ACT_NONE, true, false});
}

TEST(Sgemm, EpilogueActivations) {
  REQUIRE_ISA();
  // K = 300: two K blocks, so full tiles add the second block to what the first stored.
  for (int act :
       {AOT_ACT_RELU, AOT_ACT_CLAMP, AOT_ACT_HARDSWISH, AOT_ACT_SIGMOID, AOT_ACT_SILU, AOT_ACT_GELU, AOT_ACT_GELU_TANH})
    for (bool res : {false, true})
      for (bool bias_row : {true, false}) {
        RunGemm({19, 40, 70, true, false, false, false, act, bias_row, res});
        RunGemm({16, 64, 300, true, false, false, false, act, bias_row, res});
      }
}

// Sigmoid and SiLU rows run in blocks of 16 with the tail in a padded block,
// GELU rows in loops GCC vectorises: every length gives each element the bits
// of the one-element function (this file is built with -ffp-contract=off, as
// the C library and generated code are: ISO C contracts nothing).
TEST(ActRow, BlocksAndTailsMatchTheElementFunction) {
  REQUIRE_ISA();
  std::vector<float> src = Random(100, 15);
  const float special[] = {-100.f, -88.5f, -20.f, -0.f, 0.f, 1e-30f, 30.f, 90.f, INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); ++i) src[i * 7] = special[i];
  for (int act : {AOT_ACT_SIGMOID, AOT_ACT_SILU, AOT_ACT_GELU, AOT_ACT_GELU_TANH})
    for (int64_t n : {1, 7, 15, 16, 17, 49, 100}) {
      aot__epilogue ep = {};
      ep.act = act;
      std::vector<float> got(src.begin(), src.begin() + n);
      aot__act_row(got.data(), n, 1, &ep);
      for (int64_t j = 0; j < n; ++j) {
        const float want = aot__act1(src[j], act, 0, 0);
        EXPECT_EQ(0, std::memcmp(&got[j], &want, 4))
            << "act " << act << " n " << n << " element " << j << ": " << got[j] << " vs " << want;
      }
    }
}

// The row forms (sigmoid and SiLU blocks with AVX-512: vscalefps; GELU's
// vectorised loops) against the element functions over every 97th float bit
// pattern: the same bits, specials included.
TEST(ActRow, BlocksEqualTheElementFunctionOverTheFloats) {
  REQUIRE_ISA();
  std::vector<float> src;
  for (uint64_t b = 0; b <= 0xffffffffull; b += 97) {
    const uint32_t bits = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &bits, 4);
    src.push_back(f);
  }
  for (int act : {AOT_ACT_SIGMOID, AOT_ACT_SILU, AOT_ACT_GELU, AOT_ACT_GELU_TANH}) {
    aot__epilogue ep = {};
    ep.act = act;
    std::vector<float> got = src;
    aot__act_row(got.data(), static_cast<int64_t>(got.size()), 1, &ep);
    int64_t differ = 0;
    for (size_t j = 0; j < src.size(); ++j) {
      const float want = aot__act1(src[j], act, 0, 0);
      if (std::memcmp(&got[j], &want, 4) != 0 && ++differ <= 5)
        ADD_FAILURE() << "act " << act << " x " << src[j] << ": " << got[j] << " vs " << want;
    }
    EXPECT_EQ(differ, 0) << "act " << act << " over " << src.size() << " floats";
  }
}

TEST(Sgemm, EmptySumIsTheEpilogueOfZero) {
  REQUIRE_ISA();
  RunGemm({5, 6, 0, false, false, false, false, AOT_ACT_RELU, true, true});
}

// Fewer rows than a tile (batch-1 linear layers) sum K in steps of
// AOT_GEMM_KS_FEW, each from zero: products 1, then 2^-24 (half an ulp of 1,
// lost when added to 1 one at a time) survive outside the first step. With
// KC-deep sums alone the first 256 would be lost, not 32. N = 600: two
// column blocks and a B over AOT_GEMM_STREAM_BYTES (the panels prefetched).
TEST(Sgemm, FewRowsSumKInShortSteps) {
  REQUIRE_ISA();
  const int64_t K = 2 * AOT_GEMM_KC + 40;
  ASSERT_EQ(K % AOT_GEMM_KS_FEW, 8);  // a short last step too
  for (int64_t N : {int64_t{40}, int64_t{600}})
    for (int64_t M : {int64_t{1}, int64_t{AOT_GEMM_MR - 1}})
      for (bool b_packed : {false, true}) {
        std::vector<float> a(static_cast<size_t>(M * K), 1.f), b(static_cast<size_t>(K * N), std::ldexp(1.f, -24));
        for (int64_t n = 0; n < N; ++n) b[n] = 1.f;  // row k = 0
        std::vector<float> c(static_cast<size_t>(M * N), NAN);
        CallSgemm(M, N, K, {a.data(), K, 1, 0, nullptr}, b, b_packed, c.data(), N, 1, nullptr);
        const float want = 1.f + std::ldexp(static_cast<float>(K - AOT_GEMM_KS_FEW), -24);  // exact in float
        for (size_t i = 0; i < c.size(); ++i)
          ASSERT_EQ(c[i], want) << "M " << M << " N " << N << (b_packed ? " packed B" : "") << ", element " << i;
      }
}

// Threads split a GEMM into row or column ranges (multiples of MR rows, 2*NR
// columns), each with its own scratch: the pieces must equal the whole call
// bit for bit, whatever the cut.
// ... with operands packed into scratch or read in place alike; and the two
// forms give the same bits.
TEST(Sgemm, RangesAreBitwiseTheWholeCall) {
  REQUIRE_ISA();
  const int64_t M = 37, N = 600, K = 300;
  std::vector<float> a = Random(static_cast<size_t>(M * K), 11), b = Random(static_cast<size_t>(K * N), 12);
  std::vector<float> bias = Random(static_cast<size_t>(M), 13), res = Random(static_cast<size_t>(M * N), 14);
  for (int act : {AOT_ACT_NONE, AOT_ACT_RELU, AOT_ACT_SILU})
    for (bool with_res : {false, true}) {
      aot__epilogue ep = {bias.data(), 1, 0, with_res ? res.data() : nullptr, N, 1, act, 0.f, 0.f};
      const aot__operand A = {a.data(), K, 1, 0, nullptr}, B = {b.data(), N, 1, 0, nullptr};
      std::vector<float> packed_whole;
      const int forms[] = {AOT_GEMM_PACK_A | AOT_GEMM_PACK_B, 0, AOT_GEMM_PACK_A, AOT_GEMM_PACK_B};
      for (int packing : forms) {
        const int64_t slot = aot__sgemm_scratch_floats(M, N, K, packing);
        std::vector<float> scratch(static_cast<size_t>(slot * 3)), whole(static_cast<size_t>(M * N));
        float* s0 = slot ? scratch.data() : nullptr;  // nothing to pack: no scratch at all
        aot__sgemm_range_packing(M, N, K, &A, &B, whole.data(), N, 1, &ep, s0, 0, M, 0, N, packing);
        const int64_t col_cuts[] = {0, 32, 64, 544, N}, row_cuts[] = {0, 8, 24, M};
        std::vector<float> cols(whole.size(), NAN), rows(whole.size(), NAN);
        for (int i = 0; i + 1 < 5; ++i)
          aot__sgemm_range_packing(M, N, K, &A, &B, cols.data(), N, 1, &ep, s0 + (i % 3) * slot, 0, M, col_cuts[i],
                                   col_cuts[i + 1], packing);
        for (int i = 0; i + 1 < 4; ++i)
          aot__sgemm_range_packing(M, N, K, &A, &B, rows.data(), N, 1, &ep, s0 + (i % 3) * slot, row_cuts[i],
                                   row_cuts[i + 1], 0, N, packing);
        EXPECT_EQ(0, std::memcmp(whole.data(), cols.data(), whole.size() * 4))
            << "columns, act " << act << " packing " << packing;
        EXPECT_EQ(0, std::memcmp(whole.data(), rows.data(), whole.size() * 4))
            << "rows, act " << act << " packing " << packing;
        if (packed_whole.empty())
          packed_whole = whole;
        else
          EXPECT_EQ(0, std::memcmp(whole.data(), packed_whole.data(), whole.size() * 4))
              << "packing " << packing << " vs both packed, act " << act;
      }
    }
}

// M's last M % MR rows take a micro-kernel of their own (aot__micro2_rows
// with AVX-512): their bits are those the same rows get inside a full tile
// (M rounded up to 16, the extra rows random), for every tail length, A in
// place or prepacked, B prepacked or in place, with and without the store's
// epilogue (bias, residual, relu), K over two KC blocks.
TEST(Sgemm, TailRowsAreBitwiseRowsOfAFullTile) {
  REQUIRE_ISA();
  const int64_t Mf = 16, N = 80, K = 300;  // 80 columns: two panel pairs and a lone panel
  std::vector<float> a = Random(static_cast<size_t>(Mf * K), 31), b = Random(static_cast<size_t>(K * N), 32);
  std::vector<float> bias = Random(static_cast<size_t>(Mf), 33), res = Random(static_cast<size_t>(Mf * N), 34);
  for (int64_t M = AOT_GEMM_MR + 1; M < Mf; ++M)
    for (bool a_packed : {false, true})
      for (bool b_packed : {false, true})
        for (bool epi : {false, true}) {
          const aot__epilogue ep = {bias.data(), 1, 0, res.data(), N, 1, AOT_ACT_RELU, 0.f, 0.f};
          std::vector<float> tail(static_cast<size_t>(M * N)), full(static_cast<size_t>(Mf * N));
          for (int64_t rows : {M, Mf}) {
            std::vector<float> pa;
            const aot__operand A = OperandA(rows, K, a, K, 1, a_packed, &pa);
            CallSgemm(rows, N, K, A, b, b_packed, rows == M ? tail.data() : full.data(), N, 1, epi ? &ep : nullptr);
          }
          EXPECT_EQ(0, std::memcmp(tail.data(), full.data(), tail.size() * 4))
              << "M " << M << " a_packed " << a_packed << " b_packed " << b_packed << " epilogue " << epi;
          if (epi) ExpectGemm(M, N, K, a.data(), K, 1, b.data(), N, &ep, tail.data(), N, 1, "tail rows");
        }
}

// A B operand with a prologue (aot__prologue: shift + x scale per row k,
// then relu or not) gives the bits of the GEMM of the transformed matrix
// (rounded as the elementwise kernel rounds it: a product, then a sum, no
// fused multiply-add), for edge columns, K over two KC blocks, NaN and
// negative zero among the inputs, A prepacked or read in place, every
// column and row range.
TEST(Sgemm, PrologueIsTheGemmOfTheTransformedOperand) {
  REQUIRE_ISA();
  const int64_t M = 20, N = 70, K = 300;
  std::vector<float> a = Random(static_cast<size_t>(M * K), 41), x = Random(static_cast<size_t>(K * N), 42);
  std::vector<float> scale = Random(static_cast<size_t>(K), 43), shift = Random(static_cast<size_t>(K), 44);
  x[5] = NAN;
  x[N + 3] = -0.f;
  shift[1] = 0.f;
  for (int relu : {0, 1})
    for (bool a_packed : {false, true}) {
      std::vector<float> t(x.size());
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n) {
          volatile float prod = x[k * N + n] * scale[k];  // rounded on its own, as the fused loop rounds it
          const float v = shift[k] + prod;
          t[k * N + n] = relu && !(v > 0) && v == v ? 0.f : v;
        }
      const aot__prologue pro = {scale.data(), shift.data(), relu};
      std::vector<float> pa;
      const aot__operand A = OperandA(M, K, a, K, 1, a_packed, &pa);
      const aot__operand B = {x.data(), N, 1, 0, nullptr, &pro}, T = {t.data(), N, 1, 0, nullptr, nullptr};
      EXPECT_EQ(AOT_GEMM_PACK_B, aot__sgemm_packing(M, N, K, &A, &B) & AOT_GEMM_PACK_B);
      const int64_t slot = aot__sgemm_scratch_floats(M, N, K, aot__sgemm_packing(M, N, K, &A, &B)) + 16;
      std::vector<float> scratch(static_cast<size_t>(slot)), want(static_cast<size_t>(M * N)), got(want.size(), NAN),
          parts(want.size(), NAN);
      std::vector<float> ts(
          static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, aot__sgemm_packing(M, N, K, &A, &T))) + 16);
      aot__sgemm(M, N, K, &A, &T, want.data(), N, 1, nullptr, Aligned64(ts));
      aot__sgemm(M, N, K, &A, &B, got.data(), N, 1, nullptr, Aligned64(scratch));
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4))
          << "relu " << relu << " a_packed " << a_packed;
      const int64_t col_cuts[] = {0, 32, 64, N};
      for (int i = 0; i < 3; ++i)
        for (int64_t m0 : {int64_t{0}, int64_t{8}})
          aot__sgemm_range(M, N, K, &A, &B, parts.data(), N, 1, nullptr, Aligned64(scratch), m0, m0 ? M : 8,
                           col_cuts[i], col_cuts[i + 1]);
      EXPECT_EQ(0, std::memcmp(want.data(), parts.data(), want.size() * 4)) << "ranges, relu " << relu;
    }
}

// `n` floats that end where an unreadable page begins: a kernel reading past
// an operand's last element faults (what the edge tiles of the in-place
// reads are for).
class Guarded {
 public:
  explicit Guarded(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE)), bytes = (n * 4 + page - 1) / page * page;
    len_ = bytes + page;
    base_ = static_cast<char*>(mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED || mprotect(base_ + bytes, page, PROT_NONE) != 0) std::abort();
    p_ = reinterpret_cast<float*>(base_ + bytes) - n;
  }
  ~Guarded() { munmap(base_, len_); }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  float* data() { return p_; }

 private:
  char* base_;
  size_t len_;
  float* p_;
};

struct InPlaceCase {
  int64_t M, N, K;
  int64_t lda_pad, ldb_pad;  // row strides K + lda_pad (or M + lda_pad, A transposed), N + ldb_pad
  bool a_trans, c_trans;
  int act;
  bool bias_row, res;
};

// Issue 15: A and B read in place (no scratch), B prepacked with A in place,
// one of them packed: the bits of the form that packs both, on sizes around
// MR, NR, KC, MC and NC, padded and 4 KB row strides, transposed A and C,
// every epilogue; the operands end at an unreadable page.
TEST(Sgemm, InPlaceOperandsAreBitwiseThePackedOnes) {
  REQUIRE_ISA();
  const InPlaceCase cases[] = {
      {1, 1, 1, 0, 0, false, false, AOT_ACT_NONE, true, false},
      {7, 15, 3, 0, 0, false, false, AOT_ACT_RELU, true, true},
      {8, 16, 256, 0, 0, false, false, AOT_ACT_NONE, true, true},
      {9, 17, 257, 3, 5, false, false, AOT_ACT_CLAMP, false, true},
      {8, 32, 1, 0, 0, false, false, AOT_ACT_SILU, true, false},
      {16, 48, 64, 0, 1024 - 48, false, false, AOT_ACT_RELU, true, true},    // B rows 4 KB apart
      {20, 128, 64, 1024 - 64, 0, false, false, AOT_ACT_NONE, true, false},  // A rows 4 KB apart
      {10, 64, 10, 0, 0, false, false, AOT_ACT_SIGMOID, false, false},
      {127, 511, 255, 1, 1, false, false, AOT_ACT_HARDSWISH, true, true},
      {129, 513, 257, 0, 0, false, false, AOT_ACT_RELU, true, true},
      {130, 530, 600, 7, 2, false, false, AOT_ACT_NONE, false, true},
      {37, 31, 513, 0, 0, true, false, AOT_ACT_SILU, true, false},
      {33, 40, 70, 2, 9, true, true, AOT_ACT_CLAMP, true, true},
      {3, 700, 40, 0, 0, false, true, AOT_ACT_NONE, false, false},
      {128, 33, 128, 0, 3, false, false, AOT_ACT_RELU, true, true},
      {14, 64, 7, 0, 0, false, false, AOT_ACT_NONE, true, false},
  };
  for (const InPlaceCase& t : cases) {
    const int64_t M = t.M, N = t.N, K = t.K;
    const int64_t lda = (t.a_trans ? M : K) + t.lda_pad, ldb = N + t.ldb_pad;
    const int64_t a_m = t.a_trans ? 1 : lda, a_k = t.a_trans ? lda : 1, c_m = t.c_trans ? 1 : N,
                  c_n = t.c_trans ? M : 1;
    // the last row (A: column) is as long as the matrix needs, so the page after it is off limits
    const int64_t a_len = t.a_trans ? (K - 1) * lda + M : (M - 1) * lda + K, b_len = (K - 1) * ldb + N;
    Guarded ga(static_cast<size_t>(a_len)), gb(static_cast<size_t>(b_len));
    const std::vector<float> ra = Random(static_cast<size_t>(a_len), 21), rb = Random(static_cast<size_t>(b_len), 22);
    std::copy(ra.begin(), ra.end(), ga.data());
    std::copy(rb.begin(), rb.end(), gb.data());
    std::vector<float> bias = Random(static_cast<size_t>(std::max(M, N)), 23),
                       res = Random(static_cast<size_t>(M * N), 24);
    aot__epilogue ep = {
        bias.data(), t.bias_row ? 1 : 0, t.bias_row ? 0 : 1, t.res ? res.data() : nullptr, N, 1, t.act, -0.25f, 0.5f};
    const aot__operand A = {ga.data(), a_m, a_k, 0, nullptr}, B = {gb.data(), ldb, 1, 0, nullptr};
    std::vector<float> pb(static_cast<size_t>(aot__sgemm_packed_b_floats(K, N)));
    aot__sgemm_pack_b(K, N, gb.data(), ldb, 1, pb.data());
    const aot__operand Bp = {pb.data(), 0, 0, 1, nullptr};
    const std::string what = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " lda " +
                             std::to_string(lda) + " ldb " + std::to_string(ldb);
    auto run = [&](const aot__operand& b, int packing) {
      std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, packing)));
      std::vector<float> c(static_cast<size_t>(M * N), NAN);
      aot__sgemm_range_packing(M, N, K, &A, &b, c.data(), c_m, c_n, &ep, scratch.empty() ? nullptr : scratch.data(), 0,
                               M, 0, N, packing);
      return c;
    };
    const std::vector<float> both = run(B, AOT_GEMM_PACK_A | AOT_GEMM_PACK_B);
    ExpectGemm(M, N, K, ga.data(), a_m, a_k, gb.data(), ldb, &ep, both.data(), c_m, c_n, what);
    const int forms[] = {0, AOT_GEMM_PACK_A, AOT_GEMM_PACK_B};
    for (int packing : forms) {
      const std::vector<float> c = run(B, packing);
      EXPECT_EQ(0, std::memcmp(c.data(), both.data(), c.size() * 4)) << what << " packing " << packing;
    }
    const std::vector<float> prepacked = run(Bp, 0);
    EXPECT_EQ(0, std::memcmp(prepacked.data(), both.data(), both.size() * 4)) << what << " B prepacked, A in place";
    // aot__sgemm (the rule's form) with exactly the scratch the rule names.
    const int rule = aot__sgemm_packing(M, N, K, &A, &B);
    std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, rule)));
    std::vector<float> c(static_cast<size_t>(M * N), NAN);
    aot__sgemm(M, N, K, &A, &B, c.data(), c_m, c_n, &ep, scratch.empty() ? nullptr : scratch.data());
    EXPECT_EQ(0, std::memcmp(c.data(), both.data(), c.size() * 4)) << what << " aot__sgemm, packing " << rule;
  }
}

// One output column (N = 1) with a prepacked A runs through the narrow-panel
// kernel (aot__micro_narrow) and the column's activation at once: bitwise
// what the 16-column micro-kernels give with the same A read in place, for M
// below, at and above a tile and a group of four panels, K below and across
// KC (and KS steps for M < MR), every epilogue, a strided column and output,
// and row ranges as threads split them.
TEST(Sgemm, OneColumnWithPackedAIsBitwiseTheTiledPath) {
  REQUIRE_ISA();
  struct Case {
    int64_t M, K, xs, c_m;
    int act;
    bool bias, res;
  };
  const Case cases[] = {{1, 1, 1, 1, AOT_ACT_NONE, false, false},       {5, 70, 1, 1, AOT_ACT_SIGMOID, true, false},
                        {8, 48, 1, 1, AOT_ACT_SILU, true, false},       {33, 300, 3, 2, AOT_ACT_RELU, true, true},
                        {1152, 48, 1, 1, AOT_ACT_SIGMOID, true, false}, {48, 1152, 1, 1, AOT_ACT_SILU, true, false},
                        {100, 513, 1, 5, AOT_ACT_CLAMP, false, true},   {7, 600, 2, 1, AOT_ACT_HARDSWISH, true, true},
                        {40, 256, 1, 1, AOT_ACT_GELU, true, false},     {1000, 1280, 1, 1, AOT_ACT_NONE, true, false}};
  for (const Case& t : cases) {
    const int64_t M = t.M, K = t.K;
    const std::vector<float> a = Random(static_cast<size_t>(M * K), 31), x = Random(static_cast<size_t>(K * t.xs), 32),
                             bias = Random(static_cast<size_t>(M), 33), res = Random(static_cast<size_t>(M), 34);
    std::vector<float> pa(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
    aot__sgemm_pack_a(M, K, a.data(), K, 1, pa.data());
    const aot__operand A = {a.data(), K, 1, 0, nullptr}, Ap = {pa.data(), 0, 0, 1, nullptr},
                       B = {x.data(), t.xs, 1, 0, nullptr};
    const aot__epilogue ep = {
        t.bias ? bias.data() : nullptr, 1, 0, t.res ? res.data() : nullptr, 1, 0, t.act, -0.25f, 0.5f};
    const std::string what = std::to_string(M) + "x1x" + std::to_string(K);
    auto run = [&](const aot__operand& op, int64_t lo, int64_t hi, std::vector<float>* c) {
      std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, 1, K, 0)) + 1);
      aot__sgemm_range_packing(M, 1, K, &op, &B, c->data(), t.c_m, 1, &ep, scratch.data(), lo, hi, 0, 1, 0);
    };
    std::vector<float> tiled(static_cast<size_t>(M * t.c_m), NAN), packed(tiled.size(), NAN), parts(tiled.size(), NAN);
    run(A, 0, M, &tiled);
    run(Ap, 0, M, &packed);
    std::vector<float> want(static_cast<size_t>(M), NAN);
    for (int64_t m = 0; m < M; ++m) want[static_cast<size_t>(m)] = packed[static_cast<size_t>(m * t.c_m)];
    ExpectGemm(M, 1, K, a.data(), K, 1, x.data(), t.xs, &ep, want.data(), 1, 1, what);
    EXPECT_EQ(0, std::memcmp(tiled.data(), packed.data(), tiled.size() * 4)) << what;
    for (int64_t lo = 0; lo < M; lo += 8) run(Ap, lo, std::min(M, lo + 8), &parts);  // threads split MR-row units
    EXPECT_EQ(0, std::memcmp(parts.data(), packed.data(), packed.size() * 4)) << what << " in ranges";
  }
}

// The packing rule (aot_gemm.c, from gemm_bench's rows): prepacked operands
// are never packed again, a conv's B always is (im2col panels), a unit-stride
// A never is, a unit-column-stride B only with rows 4 KB or more apart and a
// whole KC block of them; what is not packed takes no scratch.
// A gate folded into packed weights is the packing of the gated weights,
// bit for bit (one product per element either way), on shapes with a
// partial row panel and several KC blocks.
TEST(Sgemm, ScaledPackedAIsThePackingOfTheScaledMatrix) {
  REQUIRE_ISA();
  for (int64_t M : {1, 8, 13}) {
    for (int64_t K : {1, 40, 2 * AOT_GEMM_KC + 3}) {
      const std::vector<float> a = Random(static_cast<size_t>(M * K), 21), s = Random(static_cast<size_t>(2 * K), 22);
      std::vector<float> scaled(a.size());
      for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < K; ++k) scaled[m * K + k] = a[m * K + k] * s[2 * k];
      const size_t n = static_cast<size_t>(aot__sgemm_packed_a_floats(M, K));
      std::vector<float> packed(n), want(n), got(n, 7.f);
      aot__sgemm_pack_a(M, K, a.data(), K, 1, packed.data());
      aot__sgemm_pack_a(M, K, scaled.data(), K, 1, want.data());
      aot__sgemm_scale_packed_a(M, K, packed.data(), s.data(), 2, got.data());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), n * 4)) << "M " << M << " K " << K;
    }
  }
}

TEST(Sgemm, PackingRule) {
  const aot__conv_geom g = {};
  const aot__operand packed = {nullptr, 0, 0, 1, nullptr}, conv = {nullptr, 0, 0, 0, &g};
  const aot__operand rows = {nullptr, 64, 1, 0, nullptr}, cols = {nullptr, 1, 64, 0, nullptr},
                     strided = {nullptr, 128, 2, 0, nullptr};
  EXPECT_EQ(0, aot__sgemm_packing(100, 100, 1000, &packed, &packed));
  EXPECT_EQ(AOT_GEMM_PACK_B, aot__sgemm_packing(100, 100, 1000, &packed, &conv));
  EXPECT_EQ(0, aot__sgemm_packing(7, 128, 64, &rows, &rows));
  EXPECT_EQ(0, aot__sgemm_packing(7, 128, 64, &cols, &rows));
  EXPECT_EQ(AOT_GEMM_PACK_A, aot__sgemm_packing(7, 128, 64, &strided, &rows));
  EXPECT_EQ(AOT_GEMM_PACK_B, aot__sgemm_packing(7, 128, 64, &rows, &cols));  // B = W^T: columns of unit stride
  EXPECT_EQ(AOT_GEMM_PACK_B, aot__sgemm_packing(7, 128, 64, &rows, &strided));
  const aot__operand far = {nullptr, 1024, 1, 0, nullptr}, near = {nullptr, 1023, 1, 0, nullptr};
  EXPECT_EQ(0, aot__sgemm_packing(128, 256, 768, &rows, &near));
  EXPECT_EQ(AOT_GEMM_PACK_B, aot__sgemm_packing(128, 256, AOT_GEMM_KC, &rows, &far));
  EXPECT_EQ(0, aot__sgemm_packing(128, 64, AOT_GEMM_KC - 1, &rows, &far));  // attention @ V: short K
  EXPECT_EQ(0, aot__sgemm_scratch_floats(100, 100, 1000, 0));
  EXPECT_EQ(8 * 64, aot__sgemm_scratch_floats(7, 100, 64, AOT_GEMM_PACK_A));    // 7 rows -> one panel of 8
  EXPECT_EQ(112 * 64, aot__sgemm_scratch_floats(7, 100, 64, AOT_GEMM_PACK_B));  // 100 -> 7 panels of 16
}

aot__conv_geom Geom(int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t S, int64_t P, int64_t D) {
  aot__conv_geom g = {C, H, W, KH, KW, S, S, P, P, D, D, 0, 0};
  g.OH = (H + 2 * P - D * (KH - 1) - 1) / S + 1;
  g.OW = (W + 2 * P - D * (KW - 1) - 1) / S + 1;
  return g;
}

// y[oc] = sum over (c, kh, kw) of w[oc][c][kh][kw] x[c][ih][iw]; cin = C (groups 1) or 1 (depthwise).
void NaiveConv(const aot__conv_geom& g, const std::vector<float>& x, const std::vector<float>& w, int64_t cout,
               bool depthwise, std::vector<double>* y, std::vector<double>* scale) {
  const int64_t cin = depthwise ? 1 : g.C;
  y->assign(static_cast<size_t>(cout * g.OH * g.OW), 0);
  scale->assign(y->size(), 0);
  for (int64_t oc = 0; oc < cout; ++oc)
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) {
        double s = 0, sa = 0;
        for (int64_t c = 0; c < cin; ++c)
          for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              const int64_t ih = oh * g.SH - g.PH + kh * g.DH, iw = ow * g.SW - g.PW + kw * g.DW;
              if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
              const int64_t xc = depthwise ? oc : c;
              const double p =
                  static_cast<double>(w[((oc * cin + c) * g.KH + kh) * g.KW + kw]) * x[(xc * g.H + ih) * g.W + iw];
              s += p;
              sa += std::fabs(p);
            }
        (*y)[(oc * g.OH + oh) * g.OW + ow] = s;
        (*scale)[(oc * g.OH + oh) * g.OW + ow] = sa;
      }
}

TEST(Conv, Im2colPanelsMatchNaiveConvolution) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, W, KH, KW, S, P, D, cout;
  };
  const C cases[] = {{3, 23, 37, 7, 7, 2, 3, 1, 10},
                     {16, 20, 40, 3, 3, 1, 1, 1, 9},
                     {5, 9, 9, 1, 1, 2, 0, 1, 17},
                     {4, 12, 33, 3, 3, 1, 2, 2, 8},
                     {2, 5, 6, 3, 3, 1, 1, 1, 3},
                     {30, 7, 7, 3, 3, 1, 1, 1, 70},
                     // stride 2 with padding; a second K block that starts inside a channel (300 = 12 x 25)
                     {8, 15, 31, 3, 3, 2, 1, 1, 12},
                     {12, 19, 21, 5, 5, 1, 2, 1, 20},
                     // stride 2: maps narrower than a panel, padding wider than the kernel's reach
                     // (whole rows and columns of zeros), dilation, odd widths around 16 and 32
                     {3, 11, 13, 3, 3, 2, 1, 1, 5},
                     {2, 9, 10, 3, 3, 2, 3, 1, 5},
                     {4, 17, 33, 3, 3, 2, 2, 2, 6},
                     {3, 40, 35, 7, 7, 2, 3, 1, 4}};
  for (const C& t : cases) {
    const aot__conv_geom g = Geom(t.C, t.H, t.W, t.KH, t.KW, t.S, t.P, t.D);
    const int64_t K = t.C * t.KH * t.KW, N = g.OH * g.OW;
    std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 5),
                       w = Random(static_cast<size_t>(t.cout * K), 6);
    std::vector<float> bias = Random(static_cast<size_t>(t.cout), 7);
    std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(t.cout, K)));
    aot__sgemm_pack_a(t.cout, K, w.data(), K, 1, pw.data());
    aot__operand A = {pw.data(), 0, 0, 1, nullptr}, B = {x.data(), 0, 0, 0, &g};
    aot__epilogue ep = {};
    ep.bias = bias.data();
    ep.bias_m = 1;
    ep.act = AOT_ACT_RELU;
    EXPECT_EQ(AOT_GEMM_PACK_B, aot__sgemm_packing(t.cout, N, K, &A, &B));  // im2col panels
    std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(t.cout, N, K, AOT_GEMM_PACK_B)));
    std::vector<float> y(static_cast<size_t>(t.cout * N), NAN);
    aot__sgemm(t.cout, N, K, &A, &B, y.data(), N, 1, &ep, scratch.data());
    std::vector<double> want, scale;
    NaiveConv(g, x, w, t.cout, false, &want, &scale);
    for (int64_t m = 0; m < t.cout; ++m)
      for (int64_t n = 0; n < N; ++n) want[m * N + n] = Epilogue(want[m * N + n], &ep, m, n);
    ExpectNear(y, want, scale, "conv C=" + std::to_string(t.C) + " k=" + std::to_string(t.KH));
  }
}

// The im2col panels packed straight from the image (stride 1 and 2: the
// AVX-512 packers precompute each run's masks per panel) hold exactly the
// explicit im2col matrix: the GEMM of a conv operand is bitwise the GEMM of
// that matrix read in place, for whole calls and for the channel and column
// ranges threads split into; padding wider than the kernel's reach, maps
// narrower than a panel, runs crossing output rows, dilation, every epilogue
// form.
TEST(Conv, Im2colPanelsAreBitwiseTheExplicitIm2colGemm) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, W, K, S, P, D, cout;
  };
  const C cases[] = {{3, 33, 35, 3, 2, 1, 1, 32}, {3, 16, 16, 3, 2, 1, 1, 16}, {1, 20, 37, 5, 1, 2, 1, 12},
                     {4, 9, 40, 3, 1, 3, 1, 24},  {2, 7, 5, 7, 2, 3, 1, 8},    {3, 40, 41, 7, 2, 3, 1, 64},
                     {5, 12, 13, 3, 2, 1, 1, 16}, {3, 1, 17, 3, 2, 1, 1, 9},   {20, 15, 14, 3, 2, 1, 2, 10},
                     {9, 13, 31, 1, 2, 0, 1, 8},  {6, 10, 9, 5, 2, 4, 1, 8}};
  for (const C& t : cases) {
    const aot__conv_geom g = Geom(t.C, t.H, t.W, t.K, t.K, t.S, t.P, t.D);
    const int64_t K = t.C * t.K * t.K, N = g.OH * g.OW, M = t.cout;
    const std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 41),
                             w = Random(static_cast<size_t>(M * K), 42), bias = Random(static_cast<size_t>(M * N), 43),
                             res = Random(static_cast<size_t>(M * N), 44);
    std::vector<float> cols(static_cast<size_t>(K * N), 0.f);  // the im2col matrix, zeros in the padding
    for (int64_t c = 0; c < t.C; ++c)
      for (int64_t kh = 0; kh < t.K; ++kh)
        for (int64_t kw = 0; kw < t.K; ++kw)
          for (int64_t oh = 0; oh < g.OH; ++oh)
            for (int64_t ow = 0; ow < g.OW; ++ow) {
              const int64_t ih = oh * t.S - t.P + kh * t.D, iw = ow * t.S - t.P + kw * t.D;
              if (ih >= 0 && ih < t.H && iw >= 0 && iw < t.W)
                cols[static_cast<size_t>(((c * t.K + kh) * t.K + kw) * N + oh * g.OW + ow)] =
                    x[static_cast<size_t>((c * t.H + ih) * t.W + iw)];
            }
    std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
    aot__sgemm_pack_a(M, K, w.data(), K, 1, pw.data());
    const aot__operand A = {pw.data(), 0, 0, 1, nullptr}, conv = {x.data(), 0, 0, 0, &g},
                       im2col = {cols.data(), N, 1, 0, nullptr};
    const int acts[] = {AOT_ACT_SILU, AOT_ACT_CLAMP, AOT_ACT_HARDSWISH};
    for (int form = 0; form < 3; ++form) {
      aot__epilogue ep = {
          bias.data(), form == 1 ? 0 : 1, form == 1 ? 1 : 0, form == 2 ? res.data() : nullptr, N, 1, acts[form], 0.f,
          6.f};
      const std::string what = "C=" + std::to_string(t.C) + " " + std::to_string(t.H) + "x" + std::to_string(t.W) +
                               " k=" + std::to_string(t.K) + " s=" + std::to_string(t.S) + " form " +
                               std::to_string(form);
      auto run = [&](const aot__operand& b, int64_t m_lo, int64_t m_hi, int64_t n_lo, int64_t n_hi, float* y) {
        const int packing = aot__sgemm_packing(M, N, K, &A, &b);
        std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, packing)) + 1);
        aot__sgemm_range_packing(M, N, K, &A, &b, y, N, 1, &ep, scratch.data(), m_lo, m_hi, n_lo, n_hi, packing);
      };
      std::vector<float> want(static_cast<size_t>(M * N), NAN), got(want.size(), NAN), parts(want.size(), NAN);
      run(im2col, 0, M, 0, N, want.data());
      run(conv, 0, M, 0, N, got.data());
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4)) << what;
      for (int64_t m = 0; m < M; m += 8)  // channel ranges of MR rows, column ranges of 2 NR columns
        for (int64_t n = 0; n < N; n += 2 * AOT_GEMM_NR)
          run(conv, m, std::min(M, m + 8), n, std::min(N, n + 2 * AOT_GEMM_NR), parts.data());
      EXPECT_EQ(0, std::memcmp(want.data(), parts.data(), want.size() * 4)) << what << " in ranges";
    }
  }
}

// Winograd F(2x2, 3x3) and F(4x4, 3x3): odd sizes (partial last tiles),
// padding 0 to 2, channel counts past the transform chunk (16), the GEMM's K
// block (256) and the output-channel pass (64), with bias, residual and an
// activation. Error bound relative to each element's sum of |terms| (the
// scale): 8e-6 at m = 2 as for the direct kernels; at m = 4 the transforms'
// entries (up to 8, and 1/24 in G) cost about 3 more bits: 6.4e-5.
// A 1x1 convolution with K = M <= KC through im2col panels may write its
// result over its image (LibraryGemm::in_place): each block of columns is
// packed whole before its results are stored, and no other block reads
// those columns. Bitwise the out-of-place result, whole and in column
// ranges (as threads split it), with a bias and relu in the store, over
// several column blocks and a narrow tail.
TEST(Conv, PointwisePanelsMayOverwriteTheirImage) {
  REQUIRE_ISA();
  for (int64_t C : {16, 200}) {
    const aot__conv_geom g = Geom(C, 30, 25, 1, 1, 1, 0, 1);
    const int64_t N = g.OH * g.OW;
    std::vector<float> x = Random(static_cast<size_t>(C * N), 51), w = Random(static_cast<size_t>(C * C), 52),
                       bias = Random(static_cast<size_t>(C), 53);
    std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(C, C)));
    aot__sgemm_pack_a(C, C, w.data(), C, 1, pw.data());
    const aot__epilogue ep = {bias.data(), 1, 0, nullptr, 0, 0, AOT_ACT_RELU, 0.f, 0.f};
    const aot__operand A = {pw.data(), 0, 0, 1, nullptr, nullptr};
    const aot__operand B = {x.data(), 0, 0, 0, &g, nullptr};
    std::vector<float> scratch(static_cast<size_t>(aot__sgemm_scratch_floats(C, N, C, AOT_GEMM_PACK_B)) + 16);
    std::vector<float> want(x.size());
    aot__sgemm(C, N, C, &A, &B, want.data(), N, 1, &ep, Aligned64(scratch));
    std::vector<float> whole = x, parts = x;
    const aot__operand Bw = {whole.data(), 0, 0, 0, &g, nullptr}, Bp = {parts.data(), 0, 0, 0, &g, nullptr};
    aot__sgemm(C, N, C, &A, &Bw, whole.data(), N, 1, &ep, Aligned64(scratch));
    const int64_t cuts[] = {0, 96, 320, 704, N};
    for (int i = 0; i < 4; ++i)
      aot__sgemm_range(C, N, C, &A, &Bp, parts.data(), N, 1, &ep, Aligned64(scratch), 0, C, cuts[i], cuts[i + 1]);
    EXPECT_EQ(0, std::memcmp(want.data(), whole.data(), want.size() * 4)) << "C " << C;
    EXPECT_EQ(0, std::memcmp(want.data(), parts.data(), want.size() * 4)) << "C " << C << ", column ranges";
  }
}

TEST(Conv, WinogradMatchesNaive) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, W, P, cout;
  };
  const C cases[] = {{5, 9, 13, 1, 7},    {3, 7, 30, 0, 9},   {8, 6, 5, 2, 70},    {20, 31, 17, 1, 65},
                     {130, 10, 11, 1, 8}, {300, 6, 9, 1, 16}, {64, 14, 14, 1, 32}, {1, 3, 3, 1, 1}};
  for (int m = 2; m <= 4; m += 2)
    for (const C& t : cases) {
      const aot__conv_geom g = Geom(t.C, t.H, t.W, 3, 3, 1, t.P, 1);
      const int64_t N = g.OH * g.OW;
      std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 15),
                         w = Random(static_cast<size_t>(t.cout * t.C * 9), 16),
                         bias = Random(static_cast<size_t>(t.cout), 17),
                         res = Random(static_cast<size_t>(t.cout * N), 18);
      std::vector<float> u(static_cast<size_t>(aot__wino_packed_floats(m, t.cout, t.C))),
          tmp(static_cast<size_t>(t.cout * t.C));
      aot__wino_pack(m, t.cout, t.C, w.data(), tmp.data(), u.data());
      aot__epilogue ep = {};
      ep.bias = bias.data();
      ep.bias_m = 1;
      ep.res = res.data();
      ep.res_m = N;
      ep.res_n = 1;
      ep.act = m == 2 ? AOT_ACT_RELU : AOT_ACT_SILU;
      std::vector<float> scratch(static_cast<size_t>(aot__wino_scratch_floats(m, &g, t.cout)), NAN);
      std::vector<float> y(static_cast<size_t>(t.cout * N), NAN);
      aot__conv2d_wino_range(m, &g, t.cout, x.data(), u.data(), y.data(), &ep, scratch.data(), 0,
                             aot__wino_tile_rows(m, &g));
      std::vector<double> want, scale;
      NaiveConv(g, x, w, t.cout, false, &want, &scale);
      const double tol = m == 2 ? 8e-6 : 6.4e-5;
      int bad = 0;
      for (int64_t o = 0; o < t.cout; ++o)
        for (int64_t n = 0; n < N; ++n) {
          const size_t i = static_cast<size_t>(o * N + n);
          const double v = Epilogue(want[i], &ep, o, n);
          if (!(std::fabs(y[i] - v) <= tol * (scale[i] + 1)) && bad++ < 5)
            ADD_FAILURE() << "F(" << m << ") C=" << t.C << " " << t.H << "x" << t.W << " P=" << t.P << " M=" << t.cout
                          << ": element " << i << " got " << y[i] << " want " << v;
        }
    }
}

// Tile rows split over callers (threads), each with its own scratch, give
// the whole call's bits, also where a split starts or ends inside one of the
// whole call's blocks; the output is written in place of its residual.
TEST(Conv, WinogradTileRowSplitsAreBitwiseTheWholeCall) {
  REQUIRE_ISA();
  for (int m = 2; m <= 4; m += 2) {
    const aot__conv_geom g = Geom(64, 80, 37, 3, 3, 1, 1, 1);
    const int64_t M = 72, N = g.OH * g.OW, blocks = aot__wino_tile_rows(m, &g);
    ASSERT_GE(blocks, 3) << "the shape must make several tile rows";
    std::vector<float> x = Random(static_cast<size_t>(g.C * g.H * g.W), 21),
                       w = Random(static_cast<size_t>(M * g.C * 9), 22), bias = Random(static_cast<size_t>(M), 23);
    std::vector<float> u(static_cast<size_t>(aot__wino_packed_floats(m, M, g.C))), tmp(static_cast<size_t>(M * g.C));
    aot__wino_pack(m, M, g.C, w.data(), tmp.data(), u.data());
    const std::vector<float> res = Random(static_cast<size_t>(M * N), 24);
    std::vector<float> whole = res, split = res;
    auto epi = [&](std::vector<float>& y) {
      aot__epilogue ep = {};
      ep.bias = bias.data();
      ep.bias_m = 1;
      ep.res = y.data();  // y += conv, as an in-place residual add
      ep.res_m = N;
      ep.res_n = 1;
      ep.act = AOT_ACT_CLAMP;
      ep.lo = -0.5f;
      ep.hi = 0.5f;
      return ep;
    };
    const size_t sf = static_cast<size_t>(aot__wino_scratch_floats(m, &g, M));
    std::vector<float> s0(sf), s1(sf), s2(sf);
    aot__epilogue ew = epi(whole), es = epi(split);
    aot__conv2d_wino_range(m, &g, M, x.data(), u.data(), whole.data(), &ew, s0.data(), 0, blocks);
    aot__conv2d_wino_range(m, &g, M, x.data(), u.data(), split.data(), &es, s2.data(), 2, blocks);
    aot__conv2d_wino_range(m, &g, M, x.data(), u.data(), split.data(), &es, s1.data(), 0, 1);
    aot__conv2d_wino_range(m, &g, M, x.data(), u.data(), split.data(), &es, s0.data(), 1, 2);
    EXPECT_EQ(0, std::memcmp(whole.data(), split.data(), whole.size() * sizeof(float))) << "F(" << m << ")";
  }
}

TEST(Conv, DepthwiseMatchesNaive) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, W, K, S, P, D;
  };
  // The specialised shapes (3x3 and 5x5, stride 1 and 2), odd and even
  // sizes, planes narrower than the filter, dilation, 7x7 and 1x1 (generic);
  // small stride-1 maps take the zero-bordered copy on the stack (up to 32
  // wide: 7x7, 14x14, 20x21, 32x32 here), 5x5 stride-2 ones its four phase
  // planes (9x11, 20x21, 56x56), larger ones and 3x3 stride 2 the row code
  // (with the flat loop over interior rows at stride 1: 33x35 and 40x41 5x5).
  // With AVX-512 or AVX2 every stride 1 and 2 case takes the vector row code,
  // four channels at a time: the last three cases have more channels than
  // that (and a partial group), a stride-2 map in two 16-column pieces.
  const C cases[] = {
      {5, 13, 17, 3, 1, 1, 1}, {4, 14, 15, 3, 2, 1, 1},   {3, 9, 11, 5, 2, 2, 1},  {2, 12, 12, 3, 1, 2, 2},
      {3, 2, 3, 3, 1, 1, 1},   {3, 7, 7, 3, 1, 1, 1},     {2, 7, 7, 3, 2, 1, 1},   {3, 14, 14, 5, 1, 2, 1},
      {2, 3, 4, 5, 1, 2, 1},   {2, 11, 9, 7, 1, 3, 1},    {2, 6, 6, 1, 1, 0, 1},   {2, 8, 8, 3, 1, 0, 1},
      {2, 33, 35, 3, 1, 1, 1}, {2, 20, 21, 5, 2, 2, 1},   {2, 32, 32, 5, 1, 2, 1}, {1, 64, 64, 3, 1, 1, 1},
      {2, 64, 64, 3, 2, 1, 1}, {2, 90, 90, 5, 2, 2, 1},   {2, 56, 56, 5, 2, 2, 1}, {2, 8, 9, 5, 2, 1, 1},
      {2, 37, 41, 3, 2, 0, 1}, {1, 112, 113, 3, 2, 1, 1}, {2, 40, 41, 5, 1, 2, 1}, {9, 14, 14, 5, 2, 2, 1},
      {6, 40, 40, 3, 2, 1, 1}, {8, 7, 7, 5, 1, 2, 1}};
  const int acts[] = {AOT_ACT_CLAMP, AOT_ACT_SILU, AOT_ACT_RELU, AOT_ACT_SIGMOID, AOT_ACT_HARDSWISH, AOT_ACT_NONE};
  int which = 0;
  for (const C& t : cases) {
    const aot__conv_geom g = Geom(t.C, t.H, t.W, t.K, t.K, t.S, t.P, t.D);
    std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 8),
                       w = Random(static_cast<size_t>(t.C * t.K * t.K), 9);
    std::vector<float> bias = Random(static_cast<size_t>(t.C), 10),
                       res = Random(static_cast<size_t>(t.C * g.OH * g.OW), 11);
    aot__epilogue ep = {};
    ep.bias = bias.data();
    ep.bias_m = 1;
    ep.res = res.data();
    ep.res_m = g.OH * g.OW;
    ep.res_n = 1;
    ep.act = acts[which++ % 6];  // every activation's row loop
    ep.lo = 0;
    ep.hi = 0.75f;
    std::vector<float> y(static_cast<size_t>(t.C * g.OH * g.OW), NAN);
    aot__conv2d_depthwise(&g, x.data(), w.data(), y.data(), &ep);
    std::vector<double> want, scale;
    NaiveConv(g, x, w, t.C, true, &want, &scale);
    const int64_t N = g.OH * g.OW;
    for (int64_t m = 0; m < t.C; ++m)
      for (int64_t n = 0; n < N; ++n) want[m * N + n] = Epilogue(want[m * N + n], &ep, m, n);
    ExpectNear(y, want, scale,
               "depthwise k=" + std::to_string(t.K) + " s=" + std::to_string(t.S) + " act=" + std::to_string(ep.act));
    // Channel ranges (how threads split it) give the same bits.
    std::vector<float> parts(y.size(), NAN);
    for (int64_t c = 0; c < t.C; ++c) aot__conv2d_depthwise_range(&g, x.data(), w.data(), parts.data(), &ep, c, c + 1);
    EXPECT_EQ(0, std::memcmp(parts.data(), y.data(), y.size() * sizeof(float))) << "k=" << t.K << " s=" << t.S;
  }
}

// Max pooling against a naive window max (taps outside the image skipped, a
// NaN tap propagating): the specialised 3x3 windows at stride 1 and 2,
// generic ones with dilation, ceil_mode's windows that run past the image
// (OH, OW one more than floor mode), maps smaller than the window, and NaNs
// in the interior and on the border. Channel ranges give the same bits.
TEST(Pool, MaxPoolMatchesNaive) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, W, KH, KW, S, P, D;
    bool ceil;
  };
  const C cases[] = {{3, 14, 14, 3, 3, 1, 1, 1, false},  {2, 56, 57, 3, 3, 2, 1, 1, false},
                     {2, 112, 112, 3, 3, 2, 0, 1, true}, {2, 13, 13, 3, 3, 2, 0, 1, true},
                     {2, 7, 9, 2, 2, 2, 0, 1, false},    {2, 9, 10, 3, 2, 1, 1, 2, false},
                     {1, 2, 3, 3, 3, 1, 1, 1, false},    {2, 33, 40, 5, 5, 3, 2, 1, true}};
  for (const C& t : cases) {
    aot__conv_geom g = Geom(t.C, t.H, t.W, t.KH, t.KW, t.S, t.P, t.D);
    if (t.ceil) {  // eager's ceil_mode: one more window where it still starts inside the image or left padding
      auto out = [&](int64_t n, int64_t k) {
        int64_t o = (n + 2 * t.P - t.D * (k - 1) - 1 + t.S - 1) / t.S + 1;
        if ((o - 1) * t.S >= n + t.P) --o;
        return o;
      };
      g.OH = out(t.H, t.KH);
      g.OW = out(t.W, t.KW);
    }
    std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 15);
    x[static_cast<size_t>(t.W + 1) % x.size()] = NAN;  // near the top-left border
    x[x.size() / 2] = NAN;                             // in the interior
    std::vector<float> y(static_cast<size_t>(t.C * g.OH * g.OW), 7.f), parts(y.size(), 7.f);
    aot__max_pool2d_range(&g, x.data(), y.data(), 0, t.C);
    for (int64_t c = 0; c < t.C; ++c) aot__max_pool2d_range(&g, x.data(), parts.data(), c, c + 1);
    for (int64_t c = 0; c < t.C; ++c)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          float want = -INFINITY;
          bool nan = false;
          for (int64_t kh = 0; kh < t.KH; ++kh)
            for (int64_t kw = 0; kw < t.KW; ++kw) {
              const int64_t ih = oh * t.S - t.P + kh * t.D, iw = ow * t.S - t.P + kw * t.D;
              if (ih < 0 || ih >= t.H || iw < 0 || iw >= t.W) continue;
              const float v = x[static_cast<size_t>((c * t.H + ih) * t.W + iw)];
              nan |= v != v;
              want = std::max(want, v);
            }
          const float got = y[static_cast<size_t>((c * g.OH + oh) * g.OW + ow)];
          if (nan)
            EXPECT_TRUE(got != got) << "NaN window, c=" << c << " oh=" << oh << " ow=" << ow << " k=" << t.KH;
          else
            EXPECT_EQ(got, want) << "c=" << c << " oh=" << oh << " ow=" << ow << " k=" << t.KH << " s=" << t.S;
        }
    EXPECT_EQ(0, std::memcmp(parts.data(), y.data(), y.size() * sizeof(float))) << "k=" << t.KH << " s=" << t.S;
  }
}

// aot__conv_band_range (reader over cg's result, weights pw packed as A) is
// bitwise `want` for 1 to 3 channel chunks (as many as M's 8-row tiles
// allow) and every split of the chunks x bands units between two callers
// (split 0: one call for all units), each with its own scratch.
void ExpectBandsBitwise(const aot__conv_geom& cg, const aot__conv_geom& qg, int reader, int64_t M, int64_t K,
                        const float* pw, const float* x, const aot__epilogue* ep, const float* w2,
                        const aot__epilogue* ep2, const std::vector<float>& want, const std::string& what) {
  const int64_t bands = aot__conv_bands(&cg, &qg, reader, M);
  for (int64_t chunks = 1; chunks <= std::max<int64_t>(1, std::min<int64_t>(3, M / AOT_GEMM_MR)); ++chunks) {
    const int64_t units = chunks * bands;
    std::vector<float> scratch(static_cast<size_t>(aot__conv_band_scratch_floats(&cg, &qg, reader, M, K, chunks)) + 16);
    for (int64_t split = 0; split < units; ++split) {
      std::vector<float> got(want.size(), 7.f);
      auto run = [&](int64_t u0, int64_t u1) {
        aot__conv_band_range(&cg, &qg, reader, M, K, chunks, pw, x, ep, w2, ep2, got.data(), Aligned64(scratch), u0,
                             u1);
      };
      run(0, split ? split : units);
      if (split) run(split, units);
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4))
          << what << " " << chunks << " chunks, split at unit " << split;
    }
  }
}

// A convolution and the max pooling that alone reads it, in bands of pooled
// rows (aot__conv_band_range): bitwise the whole convolution (aot__sgemm)
// then the pooling (aot__max_pool2d_range), for the bands in one call and
// split at every band (a caller's first band computes its shared rows
// itself). Stems (7x7/2 then 3x3/2), VGG's 2x2/2, a stride-1 pooling that
// shares two rows, ceil_mode, a dilated window, channel counts off the
// 8-row tile, NaN in the image, bias and activations in the store.
TEST(ConvPool, BandsAreBitwiseTheConvolutionThenThePooling) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, W, K, S, P, cout, pk, ps, pp, pd;
    bool ceil;
    int act;
  };
  const C cases[] = {{3, 70, 66, 7, 2, 3, 16, 3, 2, 1, 1, false, AOT_ACT_RELU},
                     {4, 130, 40, 3, 1, 1, 8, 2, 2, 0, 1, false, AOT_ACT_RELU},
                     {3, 91, 91, 11, 4, 2, 9, 3, 2, 0, 1, false, AOT_ACT_NONE},
                     {2, 100, 31, 3, 1, 1, 9, 3, 2, 0, 1, true, AOT_ACT_CLAMP},
                     {3, 80, 20, 3, 1, 1, 13, 3, 1, 1, 1, false, AOT_ACT_SILU},
                     {3, 90, 24, 3, 1, 1, 8, 3, 2, 1, 2, false, AOT_ACT_RELU}};
  int multi = 0;
  for (const C& t : cases) {
    const aot__conv_geom cg = Geom(t.C, t.H, t.W, t.K, t.K, t.S, t.P, 1);
    aot__conv_geom pg = Geom(t.cout, cg.OH, cg.OW, t.pk, t.pk, t.ps, t.pp, t.pd);
    if (t.ceil) {  // one more window where it still starts inside the map or its left padding
      auto out = [&](int64_t n) {
        int64_t o = (n + 2 * t.pp - t.pd * (t.pk - 1) - 1 + t.ps - 1) / t.ps + 1;
        if ((o - 1) * t.ps >= n + t.pp) --o;
        return o;
      };
      pg.OH = out(cg.OH);
      pg.OW = out(cg.OW);
    }
    const int64_t M = t.cout, K = t.C * t.K * t.K, N = cg.OH * cg.OW;
    std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 51);
    x[x.size() / 3] = NAN;
    const std::vector<float> w = Random(static_cast<size_t>(M * K), 52), bias = Random(static_cast<size_t>(M), 53);
    std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
    aot__sgemm_pack_a(M, K, w.data(), K, 1, pw.data());
    const aot__operand A = {pw.data(), 0, 0, 1, nullptr}, B = {x.data(), 0, 0, 0, &cg};
    const aot__epilogue ep = {bias.data(), 1, 0, nullptr, 0, 0, t.act, -0.5f, 0.5f};
    const std::string what = std::to_string(t.H) + "x" + std::to_string(t.W) + " k=" + std::to_string(t.K) + " pool " +
                             std::to_string(t.pk) + "/" + std::to_string(t.ps);
    std::vector<float> conv(static_cast<size_t>(M * N)), want(static_cast<size_t>(M * pg.OH * pg.OW), 7.f);
    std::vector<float> gs(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, AOT_GEMM_PACK_B)) + 16);
    aot__sgemm(M, N, K, &A, &B, conv.data(), N, 1, &ep, Aligned64(gs));
    aot__max_pool2d_range(&pg, conv.data(), want.data(), 0, M);
    ExpectBandsBitwise(cg, pg, AOT_BAND_MAX_POOL, M, K, pw.data(), x.data(), &ep, nullptr, nullptr, want, what);
    multi += aot__conv_bands(&cg, &pg, AOT_BAND_MAX_POOL, M) > 1;
  }
  EXPECT_EQ(multi, 5);  // all but the stride-4 one (a 22 x 22 map) take more than one band
}

// A convolution and the depthwise one that alone reads it (MobileNet's and
// EfficientNet's inverted bottlenecks after a pointwise expansion; their
// stems after a 3x3 stride-2 convolution), in bands of the depthwise
// output's rows: bitwise the whole GEMM (a pointwise image read in place,
// else im2col panels) then the whole depthwise kernel, for the bands in one
// call and split at every band. 3x3 and 5x5 filters at stride 1 and 2, maps
// from 7 to 112 wide (the depthwise kernel's padded paths on small maps, one
// band), a K past the GEMM's block (the image packed), bias and activations
// in both stores.
TEST(ConvBands, ConvolutionThenDepthwiseIsBitwiseTheTwoKernels) {
  REQUIRE_ISA();
  struct C {
    int64_t C, H, pk, ps, M, k, s;
    int act1, act2;
  };
  const C cases[] = {{16, 112, 1, 1, 96, 3, 2, AOT_ACT_CLAMP, AOT_ACT_CLAMP},
                     {24, 56, 1, 1, 40, 3, 1, AOT_ACT_SILU, AOT_ACT_SILU},
                     {8, 57, 1, 1, 24, 5, 2, AOT_ACT_SILU, AOT_ACT_NONE},
                     {300, 40, 1, 1, 16, 3, 1, AOT_ACT_RELU, AOT_ACT_RELU},
                     {12, 7, 1, 1, 72, 5, 1, AOT_ACT_HARDSWISH, AOT_ACT_HARDSWISH},
                     {3, 224, 3, 2, 32, 3, 1, AOT_ACT_CLAMP, AOT_ACT_CLAMP},
                     {16, 14, 1, 1, 44, 3, 2, AOT_ACT_CLAMP, AOT_ACT_NONE}};
  int multi = 0;
  for (const C& t : cases) {
    const aot__conv_geom cg = Geom(t.C, t.H, t.H, t.pk, t.pk, t.ps, t.pk / 2, 1);
    const aot__conv_geom dg = Geom(t.M, cg.OH, cg.OW, t.k, t.k, t.s, t.k / 2, 1);
    const int64_t M = t.M, K = t.C * t.pk * t.pk, N = cg.OH * cg.OW;
    std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.H), 61);
    x[x.size() / 5] = NAN;
    const std::vector<float> w = Random(static_cast<size_t>(M * K), 62), b1 = Random(static_cast<size_t>(M), 63),
                             w2 = Random(static_cast<size_t>(M * t.k * t.k), 64),
                             b2 = Random(static_cast<size_t>(M), 65);
    // A residual in the depthwise store where the channels are off the tile (44 = 5 tiles and 4).
    const std::vector<float> res = Random(static_cast<size_t>(M * dg.OH * dg.OW), 66);
    const float* r2 = M % AOT_GEMM_MR ? res.data() : nullptr;
    std::vector<float> pw(static_cast<size_t>(aot__sgemm_packed_a_floats(M, K)));
    aot__sgemm_pack_a(M, K, w.data(), K, 1, pw.data());
    const aot__operand A = {pw.data(), 0, 0, 1, nullptr},
                       B = t.pk == 1 ? aot__operand{x.data(), N, 1, 0, nullptr} : aot__operand{x.data(), 0, 0, 0, &cg};
    const aot__epilogue ep1 = {b1.data(), 1, 0, nullptr, 0, 0, t.act1, 0.f, 6.f},
                        ep2 = {b2.data(), 1, 0, r2, dg.OH * dg.OW, 1, t.act2, 0.f, 6.f};
    const std::string what = "K=" + std::to_string(K) + " " + std::to_string(t.H) + "x" + std::to_string(t.H) + " dw " +
                             std::to_string(t.k) + "/" + std::to_string(t.s);
    std::vector<float> mid(static_cast<size_t>(M * N)), want(static_cast<size_t>(M * dg.OH * dg.OW), 7.f);
    std::vector<float> gs(static_cast<size_t>(aot__sgemm_scratch_floats(M, N, K, aot__sgemm_packing(M, N, K, &A, &B))) +
                          16);
    aot__sgemm(M, N, K, &A, &B, mid.data(), N, 1, &ep1, Aligned64(gs));
    aot__conv2d_depthwise(&dg, mid.data(), w2.data(), want.data(), &ep2);
    ExpectBandsBitwise(cg, dg, AOT_BAND_DEPTHWISE, M, K, pw.data(), x.data(), &ep1, w2.data(), &ep2, want, what);
    multi += aot__conv_bands(&cg, &dg, AOT_BAND_DEPTHWISE, M) > 1;
  }
  EXPECT_EQ(multi, 5);  // all but the 7 x 7 and 14 x 14 maps take more than one band
}

// Where the bands do not go round the threads (maps up to 32 wide are one
// band), the channels split into chunks of whole 8-row tiles instead; a
// chunk never has fewer than AOT_GEMM_MR channels, and enough bands need
// none. Chunks hold only their own channels, so two take about the scratch
// of one.
TEST(ConvBands, ChunksWhereTheBandsDoNotGoRound) {
  const aot__conv_geom cg = Geom(24, 14, 14, 1, 1, 1, 0, 1), dg = Geom(144, 14, 14, 3, 3, 1, 1, 1);
  ASSERT_EQ(1, aot__conv_bands(&cg, &dg, AOT_BAND_DEPTHWISE, 144));
  EXPECT_EQ(2, aot__conv_band_chunks(&cg, &dg, AOT_BAND_DEPTHWISE, 144, 2));
  EXPECT_EQ(1, aot__conv_band_chunks(&cg, &dg, AOT_BAND_DEPTHWISE, 144, 1));
  EXPECT_EQ(1, aot__conv_band_chunks(&cg, &dg, AOT_BAND_DEPTHWISE, 12, 2));  // one tile and a half: no chunks
  EXPECT_EQ(2, aot__conv_band_chunks(&cg, &dg, AOT_BAND_DEPTHWISE, 20, 4));  // two tiles at most
  const int64_t one = aot__conv_band_scratch_floats(&cg, &dg, AOT_BAND_DEPTHWISE, 144, 24, 1),
                two = aot__conv_band_scratch_floats(&cg, &dg, AOT_BAND_DEPTHWISE, 144, 24, 2);
  EXPECT_LE(2 * two, one + one / 8);
  const aot__conv_geom wide = Geom(16, 112, 112, 1, 1, 1, 0, 1), wdg = Geom(96, 112, 112, 3, 3, 2, 1, 1);
  ASSERT_GE(aot__conv_bands(&wide, &wdg, AOT_BAND_DEPTHWISE, 96), 2);
  EXPECT_EQ(1, aot__conv_band_chunks(&wide, &wdg, AOT_BAND_DEPTHWISE, 96, 2));
}

// An image in any strides gathered into CHW order: channels-last (the
// blocked path), a permutation with H innermost, and plain CHW.
TEST(GatherChw, EveryLayoutIntoChw) {
  const int64_t C = 19, H = 7, W = 37;
  const std::vector<float> chw = Random(static_cast<size_t>(C * H * W), 81);
  struct L {
    int64_t cs, hs, ws;
  };
  for (const L& l : {L{1, W * C, C}, L{H, 1, C * H}, L{H * W, W, 1}}) {
    std::vector<float> x(chw.size()), got(chw.size(), 7.f);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          x[static_cast<size_t>(c * l.cs + h * l.hs + w * l.ws)] = chw[static_cast<size_t>((c * H + h) * W + w)];
    aot__gather_chw(C, H, W, x.data(), l.cs, l.hs, l.ws, got.data());
    EXPECT_EQ(0, std::memcmp(chw.data(), got.data(), chw.size() * 4))
        << "strides " << l.cs << ", " << l.hs << ", " << l.ws;
  }
}

// The channels-last depthwise kernel equals the CHW one (up to the sign
// of a zero: the CHW kernel's padded paths add zero taps) on ConvNeXt's
// 7x7 layer, a 3x3 stride-2 one and a dilated 5x5, with and without bias;
// 70 channels (one register block and a tail), pixels 3 channels apart
// more than C (a strided view), rows split in two calls.
TEST(DepthwiseChannelsLast, EqualsTheChwKernel) {
  struct D {
    int64_t C, H, W, k, s, p, d;
    bool bias;
  };
  for (const D& t :
       {D{70, 14, 13, 7, 1, 3, 1, true}, D{70, 15, 17, 3, 2, 1, 1, false}, D{70, 12, 12, 5, 1, 4, 2, true}}) {
    const aot__conv_geom g = Geom(t.C, t.H, t.W, t.k, t.k, t.s, t.p, t.d);
    const std::vector<float> x = Random(static_cast<size_t>(t.C * t.H * t.W), 91),
                             w = Random(static_cast<size_t>(t.C * t.k * t.k), 92),
                             b = Random(static_cast<size_t>(t.C), 93);
    const aot__epilogue ep = {t.bias ? b.data() : nullptr, 1, 0, nullptr, 0, 0, AOT_ACT_NONE, 0.f, 0.f};
    std::vector<float> want(static_cast<size_t>(t.C * g.OH * g.OW));
    aot__conv2d_depthwise(&g, x.data(), w.data(), want.data(), &ep);
    const int64_t P = t.C + 3;  // pixel stride
    std::vector<float> xcl(static_cast<size_t>(t.H * t.W * P), NAN), wt(w.size()),
        ycl(static_cast<size_t>(g.OH * g.OW * P), 7.f);
    for (int64_t c = 0; c < t.C; ++c) {
      for (int64_t i = 0; i < t.H * t.W; ++i)
        xcl[static_cast<size_t>(i * P + c)] = x[static_cast<size_t>(c * t.H * t.W + i)];
      for (int64_t k = 0; k < t.k * t.k; ++k)
        wt[static_cast<size_t>(k * t.C + c)] = w[static_cast<size_t>(c * t.k * t.k + k)];
    }
    const int64_t half = g.OH / 2;
    aot__conv2d_depthwise_cl(&g, xcl.data(), t.W * P, P, wt.data(), t.bias ? b.data() : nullptr, 1, ycl.data(),
                             g.OW * P, P, 0, half);
    aot__conv2d_depthwise_cl(&g, xcl.data(), t.W * P, P, wt.data(), t.bias ? b.data() : nullptr, 1, ycl.data(),
                             g.OW * P, P, half, g.OH);
    double err = 0, scale = 0;
    for (int64_t c = 0; c < t.C; ++c)
      for (int64_t i = 0; i < g.OH * g.OW; ++i) {
        const double a = want[static_cast<size_t>(c * g.OH * g.OW + i)], v = ycl[static_cast<size_t>(i * P + c)];
        err = std::max(err, std::fabs(a - v));
        scale = std::max(scale, std::fabs(a));
      }
    EXPECT_EQ(err, 0.0) << t.k << "x" << t.k << " stride " << t.s << " (scale " << scale << ")";
    EXPECT_EQ(ycl[static_cast<size_t>(t.C)], 7.f) << "a pixel's padding past C was written";
  }
}

// Two linears in bands of rows (a transformer's or ConvNeXt's MLP) are
// bitwise the two GEMMs unbanded, for every split of the bands between two
// callers: the first's bias and activation, the second's bias and residual
// in the stores, NaN included; bands of AOT_GEMM_MR or more rows each.
TEST(LinearBands, BitwiseTheTwoGemms) {
  REQUIRE_ISA();
  struct C {
    int64_t M, K1, N1, N2;
    int act;
    bool residual;
  };
  const C cases[] = {{200, 64, 1024, 48, AOT_ACT_GELU_TANH, true},
                     {1000, 96, 384, 96, AOT_ACT_GELU, false},
                     {77, 32, 2048, 16, AOT_ACT_RELU, true}};
  int multi = 0;
  for (const C& t : cases) {
    std::vector<float> x = Random(static_cast<size_t>(t.M * t.K1), 71);
    x[x.size() / 3] = NAN;
    const std::vector<float> w1 = Random(static_cast<size_t>(t.N1 * t.K1), 72),
                             b1 = Random(static_cast<size_t>(t.N1), 73),
                             w2 = Random(static_cast<size_t>(t.N2 * t.N1), 74),
                             b2 = Random(static_cast<size_t>(t.N2), 75),
                             res = Random(static_cast<size_t>(t.M * t.N2), 76);
    std::vector<float> p1(static_cast<size_t>(aot__sgemm_packed_b_floats(t.K1, t.N1))),
        p2(static_cast<size_t>(aot__sgemm_packed_b_floats(t.N1, t.N2)));
    aot__sgemm_pack_b(t.K1, t.N1, w1.data(), 1, t.K1, p1.data());  // B[k, n] = W[n, k]
    aot__sgemm_pack_b(t.N1, t.N2, w2.data(), 1, t.N1, p2.data());
    const aot__epilogue ep1 = {b1.data(), 0, 1, nullptr, 0, 0, t.act, 0.f, 0.f},
                        ep2 = {b2.data(), 0, 1, t.residual ? res.data() : nullptr, t.N2, 1, AOT_ACT_NONE, 0.f, 0.f};
    const aot__operand X = {x.data(), t.K1, 1, 0, nullptr}, B1 = {p1.data(), 0, 0, 1, nullptr},
                       B2 = {p2.data(), 0, 0, 1, nullptr};
    std::vector<float> hidden(static_cast<size_t>(t.M * t.N1)), want(static_cast<size_t>(t.M * t.N2));
    const aot__operand H = {hidden.data(), t.N1, 1, 0, nullptr};
    aot__sgemm(t.M, t.N1, t.K1, &X, &B1, hidden.data(), t.N1, 1, &ep1, nullptr);
    aot__sgemm(t.M, t.N2, t.N1, &H, &B2, want.data(), t.N2, 1, &ep2, nullptr);
    const int64_t band = aot__linear_band_rows(t.K1, t.N1, t.N2), bands = aot__linear_bands(t.M, band);
    std::vector<float> scratch(static_cast<size_t>(aot__linear_band_scratch_floats(t.M, t.N1, band)) + 16);
    for (int64_t split = 0; split < bands; ++split) {
      std::vector<float> got(want.size(), 7.f);
      auto run = [&](int64_t b0, int64_t bn) {
        aot__linear_band_range(t.M, t.K1, t.N1, t.N2, band, x.data(), t.K1, p1.data(), &ep1, p2.data(), got.data(),
                               t.N2, &ep2, Aligned64(scratch), b0, bn);
      };
      run(0, split ? split : bands);
      if (split) run(split, bands);
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4))
          << "M=" << t.M << " N1=" << t.N1 << " split at band " << split;
    }
    multi += bands > 1;
  }
  EXPECT_EQ(multi, 2);  // 3 bands of 64 rows (the last 72), 5 of 168 (the last 328); 77 rows stay one band
}

// Softmax and log_softmax rows against float64: within a few float ulps of
// each result (the exp is 1 ulp, the sum in double); masked (-inf) entries
// give exactly 0 (softmax) and -inf (log_softmax); in place gives the same bits.
TEST(SoftmaxRow, MatchesFloat64InAndOutOfPlace) {
  for (int64_t n : {1, 7, 16, 33, 128, 1000})
    for (int log_form : {0, 1}) {
      std::vector<float> x = Random(static_cast<size_t>(n), 21);
      for (float& v : x) v *= 8.f;
      if (n > 7) x[3] = x[5] = -INFINITY;  // a causal mask's entries
      std::vector<float> y(x.size(), NAN), same = x;
      aot__softmax_row(x.data(), y.data(), n, log_form);
      aot__softmax_row(same.data(), same.data(), n, log_form);
      EXPECT_EQ(0, std::memcmp(y.data(), same.data(), y.size() * sizeof(float))) << "n " << n;
      double m = -INFINITY, sum = 0;
      for (float v : x) m = std::max<double>(m, v);
      for (float v : x) sum += std::exp(static_cast<double>(v) - m);
      for (int64_t j = 0; j < n; ++j) {
        const double want =
            log_form ? static_cast<double>(x[j]) - m - std::log(sum) : std::exp(static_cast<double>(x[j]) - m) / sum;
        if (std::isinf(x[j])) {
          EXPECT_EQ(y[j], log_form ? -INFINITY : 0.f) << "n " << n << " j " << j;
          continue;
        }
        EXPECT_NEAR(y[j], want, 4e-7 * std::max(1.0, std::fabs(want)) + 1e-30)
            << "n " << n << " log " << log_form << " j " << j;
      }
    }
}

// Layer norm rows against float64, with and without weight and bias, and
// the row's mean and rstd as native_layer_norm returns them.
TEST(LayerNormRow, MatchesFloat64) {
  for (int64_t n : {1, 5, 16, 100, 768})
    for (int form = 0; form < 4; ++form) {
      std::vector<float> x = Random(static_cast<size_t>(n), 31), w = Random(static_cast<size_t>(n), 32),
                         b = Random(static_cast<size_t>(n), 33);
      for (float& v : x) v = 3.f + 2.f * v;  // an offset mean: the two-pass variance keeps it exact
      const float* pw = (form & 1) ? w.data() : nullptr;
      const float* pb = (form & 2) ? b.data() : nullptr;
      std::vector<float> y(x.size(), NAN);
      float mean = NAN, rstd = NAN;
      aot__layer_norm_row(x.data(), y.data(), n, pw, pb, 1e-5, &mean, &rstd);
      double dm = 0, dv = 0;
      for (float v : x) dm += v;
      dm /= static_cast<double>(n);
      for (float v : x) dv += (v - dm) * (v - dm);
      dv /= static_cast<double>(n);
      const double dr = 1 / std::sqrt(dv + 1e-5);
      EXPECT_NEAR(mean, dm, 1e-6 * std::fabs(dm));
      EXPECT_NEAR(rstd, dr, 1e-6 * dr);
      for (int64_t j = 0; j < n; ++j) {
        double want = (x[j] - dm) * dr;
        if (pw) want *= w[j];
        if (pb) want += b[j];
        EXPECT_NEAR(y[j], want, 2e-6 * (std::fabs((x[j] - dm) * dr) + 1))
            << "n " << n << " form " << form << " j " << j;
      }
      aot__layer_norm_row(x.data(), x.data(), n, pw, pb, 1e-5, nullptr, nullptr);  // in place, no statistics
      EXPECT_EQ(0, std::memcmp(x.data(), y.data(), y.size() * sizeof(float))) << "n " << n << " form " << form;
    }
}

}  // namespace
