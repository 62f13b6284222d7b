// The generated code's float transcendentals (kernels/aot_vecmath.h) against libm in
// double over every 97th float bit pattern (NaN, +-Inf, subnormals and huge
// arguments included), built exactly as libraries are (cc -O3, the default
// --cpu) and, on x86-64, also without FMA, through vectorisable loops; and no
// libm call left in those loops.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "codegen/build_library.h"
#include "codegen/c_support.h"
#include "io/files.h"
#include "io/process.h"

namespace atenaot {
namespace {

using Unary = void (*)(const float*, float*, int64_t);
using Binary = void (*)(const float*, const float*, float*, int64_t);

// The loops under test, as a fused kernel's loop looks.
const char kLoops[] = R"C(
#define U(name, fn) void name(const float* x, float* y, int64_t n) { for (int64_t i = 0; i < n; ++i) y[i] = fn(x[i]); }
U(t_exp, aot__expf)
U(t_log, aot__logf)
U(t_tanh, aot__tanhf)
U(t_sigmoid, aot__sigmoidf)
U(t_silu, aot__siluf)
U(t_erf, aot__erff)
U(t_gelu_erf, aot__gelu_erff)
U(t_gelu_tanh, aot__gelu_tanhf)
void t_pow(const float* x, const float* e, float* y, int64_t n) { for (int64_t i = 0; i < n; ++i) y[i] = aot__powf(x[i], e[i]); }
)C";

// The extra compiler flags of each build under test: the default --cpu as
// libraries are built, and on x86-64 the same without FMA (aot_vecmath.h's
// AOT__FMA then rounds twice), so both forms are checked against the bounds.
std::vector<std::string> ExtraFlags(const std::string& variant) {
  if (variant == "no_fma") return {"-mno-fma"};
  return {};
}

// One compiled vm.c per variant, built once for all the tests.
struct Build {
  std::string dir;
  void* lib = nullptr;
  int first_loop_line = 0;  // kLoops' "U(t_exp" line
  std::string error;
};

const Build& GetBuild(const std::string& variant) {
  static std::map<std::string, Build>* builds = new std::map<std::string, Build>();
  auto found = builds->find(variant);
  if (found != builds->end()) return found->second;
  Build& b = (*builds)[variant];
  b.dir = ::testing::TempDir() + "/vecmath_test_" + variant;
  Status s = MakeDirs(b.dir);
  std::string src =
      "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n#define AOT_UNUSED __attribute__((unused))\n";
  src += kCSupportMath;
  b.first_loop_line = 3 + static_cast<int>(std::count(src.begin(), src.end(), '\n'));
  src += kLoops;
  if (s.ok()) s = WriteFile(b.dir + "/vm.c", src);
  std::vector<std::string> cc = CompilerCommand("cc");
  std::vector<std::string> obj = cc;
  for (const std::string& f : LibraryCFlags()) obj.push_back(f);
  StatusOr<std::vector<std::string>> cpu = CpuFlags(DefaultCpu());
  if (s.ok()) s = cpu.status();
  if (s.ok()) obj.insert(obj.end(), cpu->begin(), cpu->end());
  for (const std::string& f : ExtraFlags(variant)) obj.push_back(f);
  obj.insert(obj.end(), {"-c", "-o", "vm.o", "vm.c"});
  if (s.ok()) s = RunProgram(obj, "compiling vm.c", b.dir);
  std::vector<std::string> so = cc;
  so.insert(so.end(), {"-shared", "-o", "libvm.so", "vm.o", "-lm"});
  if (s.ok()) s = RunProgram(so, "linking libvm.so", b.dir);
  if (s.ok()) {
    b.lib = dlopen((b.dir + "/libvm.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!b.lib) b.error = dlerror();
  } else {
    b.error = s.ToString();
  }
  return b;
}

class VecMath : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const Build& b = GetBuild(GetParam());
    ASSERT_NE(b.lib, nullptr) << b.error;
    dir_ = &b.dir;
    lib_ = b.lib;
    first_loop_line_ = b.first_loop_line;
  }
  void* Sym(const char* name) const { return lib_ ? dlsym(lib_, name) : nullptr; }
  const std::string* dir_ = nullptr;
  void* lib_ = nullptr;
  int first_loop_line_ = 0;
};

#if defined(__x86_64__)
INSTANTIATE_TEST_SUITE_P(Builds, VecMath, ::testing::Values("default", "no_fma"));
#else
INSTANTIATE_TEST_SUITE_P(Builds, VecMath, ::testing::Values("default"));
#endif

// The spacing of floats at the correctly rounded result (2^-149 at least).
double Ulp(double r) {
  int k;
  std::frexp(r, &k);
  return std::max(std::ldexp(1.0, k - 24), std::ldexp(1.0, -149));
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Worst {
  double err = 0;
  float x = 0, y = 0;
  int64_t special_mismatches = 0;
  std::string first_mismatch;
};

// Compares got with the double reference r: NaN and infinities exactly,
// finite results in units in the last place of r as a float; `floor_err`
// (optional) gives an absolute error that counts as one unit (GELU's
// cancellation for x < 0, silu's subnormal e^x).
using Alt = double (*)(double x, double abs_err);
void Score(float x, float y, float got, double r, Alt alt, Worst* w) {
  const bool nan_ok = std::isnan(r) == std::isnan(got);
  const float rf = static_cast<float>(r);
  if (std::isnan(r) || std::isnan(got) || std::isinf(rf) || std::isinf(got)) {
    if (!nan_ok || (!std::isnan(r) && rf != got)) {
      if (w->special_mismatches++ == 0)
        w->first_mismatch = "x=" + std::to_string(x) + " y=" + std::to_string(y) + " got " + std::to_string(got) +
                            " want " + std::to_string(r);
    }
    return;
  }
  double e = std::fabs(got - r) / Ulp(r);
  if (alt) e = std::min(e, alt(x, std::fabs(got - r)));
  if (e > w->err) {
    w->err = e;
    w->x = x;
    w->y = y;
  }
}

// Every 97th bit pattern, 1M at a time.
Worst SweepUnary(Unary f, double (*ref)(double), Alt alt = nullptr) {
  const int64_t kChunk = 1 << 20;
  std::vector<float> x(kChunk), y(kChunk);
  Worst w;
  uint64_t b = 0;
  while (b < (1ull << 32)) {
    int64_t n = 0;
    for (; n < kChunk && b < (1ull << 32); ++n, b += 97) x[n] = FromBits(static_cast<uint32_t>(b));
    f(x.data(), y.data(), n);
    for (int64_t i = 0; i < n; ++i) Score(x[i], 0, y[i], ref(x[i]), alt, &w);
  }
  return w;
}

#define EXPECT_WITHIN(w, bound)                                                                   \
  do {                                                                                            \
    EXPECT_EQ((w).special_mismatches, 0) << (w).first_mismatch;                                   \
    EXPECT_LE((w).err, bound) << "worst at x=" << (w).x << " (" << std::hexfloat << (w).x << ")"; \
    std::printf("max error %.3f ulp (bound %.1f)\n", (w).err, static_cast<double>(bound));        \
  } while (0)

TEST_P(VecMath, Exp) {
  Unary f = reinterpret_cast<Unary>(Sym("t_exp"));
  ASSERT_NE(f, nullptr);
  EXPECT_WITHIN(SweepUnary(f, [](double x) { return std::exp(x); }), 1.0);
}

TEST_P(VecMath, Log) {
  Unary f = reinterpret_cast<Unary>(Sym("t_log"));
  ASSERT_NE(f, nullptr);
  EXPECT_WITHIN(SweepUnary(f, [](double x) { return std::log(x); }), 1.0);
}

TEST_P(VecMath, Tanh) {
  Unary f = reinterpret_cast<Unary>(Sym("t_tanh"));
  ASSERT_NE(f, nullptr);
  EXPECT_WITHIN(SweepUnary(f, [](double x) { return std::tanh(x); }), 1.5);
  // Saturated exactly where tanh rounds to +-1 (it once stayed one ulp short).
  const float x[] = {9.02f, 10.f, 20.f, 88.f, 1e30f, -9.02f, -10.f, -20.f, -88.f, -1e30f};
  float y[10];
  f(x, y, 10);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(y[i], x[i] > 0 ? 1.0f : -1.0f) << x[i];
}

TEST_P(VecMath, Sigmoid) {
  Unary f = reinterpret_cast<Unary>(Sym("t_sigmoid"));
  ASSERT_NE(f, nullptr);
  EXPECT_WITHIN(SweepUnary(f, [](double x) { return 1 / (1 + std::exp(-x)); }), 3.0);
}

TEST_P(VecMath, Silu) {
  Unary f = reinterpret_cast<Unary>(Sym("t_silu"));
  ASSERT_NE(f, nullptr);
  // Subnormal results: |x| times the subnormal spacing counts as one unit.
  auto alt = [](double x, double d) { return d / (std::fabs(x) * std::ldexp(1.0, -149)); };
  EXPECT_WITHIN(SweepUnary(
                    f, [](double x) { return x / (1 + std::exp(-x)); }, alt),
                3.5);
}

TEST_P(VecMath, Erf) {
  Unary f = reinterpret_cast<Unary>(Sym("t_erf"));
  ASSERT_NE(f, nullptr);
  EXPECT_WITHIN(SweepUnary(f, [](double x) { return std::erf(x); }), 1.5);
}

// GELU: ulps of the result, or (for x < 0, where the result is a difference
// that cancels) 2^-24 |x| as one unit, whichever is smaller.
double GeluAlt(double x, double d) { return d / (std::fabs(x) * std::ldexp(1.0, -24)); }

TEST_P(VecMath, GeluErf) {
  Unary f = reinterpret_cast<Unary>(Sym("t_gelu_erf"));
  ASSERT_NE(f, nullptr);
  EXPECT_WITHIN(SweepUnary(
                    f, [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, GeluAlt),
                2.0);
}

TEST_P(VecMath, GeluTanh) {
  Unary f = reinterpret_cast<Unary>(Sym("t_gelu_tanh"));
  ASSERT_NE(f, nullptr);
  auto ref = [](double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); };
  EXPECT_WITHIN(SweepUnary(f, ref, GeluAlt), 2.5);
}

// Every 97th base against exponents covering C99's special cases (0, +-Inf,
// NaN, odd and even integers, fractions, huge values).
TEST_P(VecMath, Pow) {
  Binary f = reinterpret_cast<Binary>(Sym("t_pow"));
  ASSERT_NE(f, nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ys = {2.0f,  0.5f,   -1.5f, 3.0f,    -3.0f, 7.25f,         1e-3f,
                                 -0.1f, 100.0f, 1e10f, inf,     -inf,  std::nanf(""), 0.0f,
                                 -0.0f, 1.0f,   -1.0f, 0.3333f, 21.0f, -140.0f,       16777217.0f};
  const int64_t kChunk = 1 << 20;
  std::vector<float> x(kChunk), e(kChunk), y(kChunk);
  Worst w;
  for (float yv : ys) {
    uint64_t b = 0;
    while (b < (1ull << 32)) {
      int64_t n = 0;
      for (; n < kChunk && b < (1ull << 32); ++n, b += 97 * 7) x[n] = FromBits(static_cast<uint32_t>(b));
      std::fill(e.begin(), e.begin() + n, yv);
      f(x.data(), e.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i)
        Score(x[i], yv, y[i], std::pow(static_cast<double>(x[i]), static_cast<double>(yv)), nullptr, &w);
    }
  }
  // The special bases against every exponent of the list.
  for (float xv : {0.0f, -0.0f, 1.0f, -1.0f, inf, -inf, std::nanf(""), -2.0f, 0.5f, -0.5f})
    for (float yv : ys) {
      float got = 0;
      f(&xv, &yv, &got, 1);
      Score(xv, yv, got, std::pow(static_cast<double>(xv), static_cast<double>(yv)), nullptr, &w);
    }
  EXPECT_WITHIN(w, 1.0);
}

// Nothing in the loops calls libm: the object has no undefined math symbols.
TEST_P(VecMath, NoLibmCalls) {
  ASSERT_NE(lib_, nullptr);
  const std::string out = *dir_ + "/nm.txt";
  Status s = RunProgram({"sh", "-c", "nm -u vm.o > nm.txt"}, "nm", *dir_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  StatusOr<std::string> text = ReadFileBytes(out, "nm output");
  ASSERT_TRUE(text.ok());
  for (const char* fn : {"expf", "logf", "tanhf", "erff", "erfcf", "powf", "exp", "log", "tanh", "erf", "pow"}) {
    for (size_t p = text->find(fn); p != std::string::npos; p = text->find(fn, p + 1)) {
      const bool starts = p == 0 || (*text)[p - 1] == ' ' || (*text)[p - 1] == '\n';
      const size_t end = p + std::strlen(fn);
      const bool ends = end == text->size() || (*text)[end] == '\n' || (*text)[end] == '@';
      EXPECT_FALSE(starts && ends) << "the loops call " << fn << ":\n" << *text;
    }
  }
}

// GCC's report: all nine loops vectorise (a select the compiler turns into
// a branch would make it scalar again).
TEST_P(VecMath, LoopsVectorise) {
  ASSERT_NE(lib_, nullptr);
  Status s = RunProgram({"sh", "-c", "cc --version > version.txt 2>&1"}, "cc --version", *dir_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  StatusOr<std::string> version = ReadFileBytes(*dir_ + "/version.txt", "cc --version");
  ASSERT_TRUE(version.ok());
  if (version->find("Free Software Foundation") == std::string::npos) GTEST_SKIP() << "cc is not GCC";
  std::vector<std::string> cmd = CompilerCommand("cc");
  std::vector<std::string> flags = LibraryCFlags();
  StatusOr<std::vector<std::string>> cpu = CpuFlags(DefaultCpu());
  ASSERT_TRUE(cpu.ok());
  cmd.insert(cmd.end(), flags.begin(), flags.end());
  cmd.insert(cmd.end(), cpu->begin(), cpu->end());
  for (const std::string& f : ExtraFlags(GetParam())) cmd.push_back(f);
  cmd.insert(cmd.end(), {"-fopt-info-vec-optimized=vec.txt", "-c", "-o", "vec.o", "vm.c"});
  s = RunProgram(cmd, "compiling vm.c with -fopt-info-vec", *dir_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  StatusOr<std::string> report = ReadFileBytes(*dir_ + "/vec.txt", "vectoriser report");
  ASSERT_TRUE(report.ok());
  const char* names[] = {"exp", "log", "tanh", "sigmoid", "silu", "erf", "gelu_erf", "gelu_tanh", "pow"};
  for (int k = 0; k < 9; ++k) {
    const std::string at = "vm.c:" + std::to_string(first_loop_line_ + k) + ":";
    bool vectorised = false;
    for (size_t p = report->find(at); p != std::string::npos; p = report->find(at, p + 1)) {
      const std::string line = report->substr(p, report->find('\n', p) - p);
      if (line.find("loop vectorized") != std::string::npos) vectorised = true;
    }
    EXPECT_TRUE(vectorised) << "the " << names[k] << " loop (" << at << ") did not vectorise:\n" << *report;
  }
}

}  // namespace
}  // namespace atenaot
