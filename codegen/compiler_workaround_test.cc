// kCCompilerWorkarounds keeps known C compiler bugs off generated code. Each
// case is a reproducer cut from a generated library; built with the prelude
// it must give the right answer under every flag set users are likely to
// pass. Without the prelude the test only reports whether this cc has the bug
// (other compilers need not).
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "codegen/build_library.h"
#include "codegen/c_support.h"
#include "io/files.h"
#include "io/process.h"

namespace atenaot {
namespace {

// G3 (tests/random/README.md): two fused elementwise kernels of a random
// batch. GCC 12.2 at -O1/-O2 with the kernels not inlined dropped the call to
// k9, so k10 divided by stale arena bytes (1 instead of 2/3).
const char kDroppedKernelCall[] = R"C(
#include <math.h>
#include <stdint.h>
#include <stdio.h>
static void k9(uint8_t* arena) {
  float* const p0 = (float*)((arena + 512) + 8);
  float* const p1 = (float*)((arena + 0) + 0);
  for (int64_t i0 = 0; i0 < 2; ++i0)
    for (int64_t i1 = 0; i1 < 3; ++i1) p1[i0 + i1 * 2] = fabsf(p0[i0 + i1 * 4]) + 1;
}
static void k10(uint8_t* arena) {
  float* const p0 = (float*)(arena + 0);
  float* const p1 = (float*)((arena + 512) + 8);
  for (int64_t i0 = 0; i0 < 2; ++i0)
    for (int64_t i1 = 0; i1 < 3; ++i1) p1[i0 + i1 * 4] = p1[i0 + i1 * 4] / p0[i0 + i1 * 2];
}
__attribute__((noinline)) void run(uint8_t* arena) { k9(arena); k10(arena); }
static union { float f[272]; uint8_t b[1088]; } arena;
int main(void) {
  for (int i = 0; i < 272; ++i) arena.f[i] = 2.0f;
  run(arena.b);
  printf("%.6f\n", arena.f[130]);
  return 0;
}
)C";

// Builds `src` with `flags` and returns what the program prints, or the error.
std::string BuildAndRun(const std::string& name, const std::string& src, const std::vector<std::string>& flags) {
  const std::string dir = ::testing::TempDir() + "/compiler_workaround_" + name;
  Status s = MakeDirs(dir);
  if (s.ok()) s = WriteFile(dir + "/p.c", src);
  std::vector<std::string> cmd = CompilerCommand("cc");
  cmd.insert(cmd.end(), {"-std=c99"});
  cmd.insert(cmd.end(), flags.begin(), flags.end());
  cmd.insert(cmd.end(), {"-o", "p", "p.c", "-lm"});
  if (s.ok()) s = RunProgram(cmd, "compiling p.c", dir);
  if (s.ok()) s = RunProgram({"sh", "-c", "./p > out.txt"}, "running p", dir);
  if (!s.ok()) return s.ToString();
  StatusOr<std::string> out = ReadFileBytes(dir + "/out.txt", "p's output");
  return out.ok() ? *out : out.status().ToString();
}

struct FlagSet {
  const char* name;
  std::vector<std::string> flags;
};

const std::vector<FlagSet>& FlagSets() {
  static const auto* sets = new std::vector<FlagSet>{{"O1_noinline", {"-O1", "-fno-inline"}},
                                                     {"O2_noinline", {"-O2", "-fno-inline"}},
                                                     {"O1", {"-O1"}},
                                                     {"O2", {"-O2"}},
                                                     {"O3", {"-O3"}},
                                                     {"Os", {"-Os"}}};
  return *sets;
}

TEST(CompilerWorkarounds, KernelCallIsNotDropped) {
  int buggy = 0;
  for (const FlagSet& f : FlagSets()) {
    const std::string with =
        BuildAndRun(std::string(f.name) + "_with", kCCompilerWorkarounds + std::string(kDroppedKernelCall), f.flags);
    EXPECT_EQ(with, "0.666667\n") << "with the workaround, flags " << f.name;
    const std::string without = BuildAndRun(std::string(f.name) + "_without", kDroppedKernelCall, f.flags);
    if (without != "0.666667\n") ++buggy;
  }
  std::cerr << "cc drops the kernel call without the workaround under " << buggy << " of " << FlagSets().size()
            << " flag sets (GCC 12.2: 2, -O1/-O2 with -fno-inline)\n";
}

}  // namespace
}  // namespace atenaot
