// Random straight-line ATen programs, each checked at every stage against
// eager (tests/random/random_program.h). The number of programs and the first
// seed come from ATENAOT_RANDOM_PROGRAMS (default 2000) and
// ATENAOT_RANDOM_SEED (default 1); a failure prints its seed, the minimised
// program's IR and its C++.
#include "tests/random/random_program.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace atenaot {
namespace random_program {
namespace {

int64_t EnvInt(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  return std::strtoll(v, nullptr, 10);
}

// `count` programs, or ATENAOT_RANDOM_PROGRAMS when `count_from_env`.
RunSummary RunMany(const std::vector<Stage>& stages, const GeneratorOptions& gen, int64_t count, bool count_from_env,
                   bool reuse_restored_inputs = false, int64_t first_seed = 0) {
  at::set_num_threads(1);
  InstallCrashHandler();
  if (count_from_env) count = EnvInt("ATENAOT_RANDOM_PROGRAMS", count);
  const uint64_t seed = static_cast<uint64_t>(first_seed ? first_seed : EnvInt("ATENAOT_RANDOM_SEED", 1));
  RunOptions run;
  run.check.stages = stages;
  run.check.reinplace_reuse_restored_inputs = reuse_restored_inputs;
  run.log = &std::cerr;
  run.max_minimized = 5;
  RunSummary sum = RunPrograms(seed, count, gen, run);
  std::cerr << "random programs: " << sum.programs << " (seeds " << seed << ".." << seed + count - 1 << "), "
            << sum.steps << " steps; " << sum.ok << " ok, " << sum.refused << " refused as expected, " << sum.invalid
            << " invalid, " << sum.failures << " failures\n";
  return sum;
}

std::string Seeds(const RunSummary& sum) {
  std::string seeds;
  for (uint64_t s : sum.failing_seeds) seeds += " " + std::to_string(s);
  return seeds;
}

// Every stage, the reinplaced one with reuse of restored inputs (the default).
TEST(RandomPrograms, EqualEagerAtEveryStage) {
  RunSummary sum = RunMany(AllStages(), GeneratorOptions(), 2000, true, /*reuse_restored_inputs=*/true);
  EXPECT_EQ(sum.failures, 0) << "failing seeds (rerun one with random_tester --seed S --count 1):" << Seeds(sum);
  // Generated programs are valid by construction (eager runs them without ties).
  EXPECT_EQ(sum.invalid, 0);
  if (sum.programs >= 1000) {
    // Every op kind is exercised.
    for (int k = 0; k < static_cast<int>(Op::kNumOps); ++k)
      EXPECT_GT(sum.op_counts[OpName(static_cast<Op>(k))], 0) << "never generated: " << OpName(static_cast<Op>(k));
    EXPECT_GT(sum.ok, sum.programs * 9 / 10);
  }
}

// Reinplace with reuse of restored inputs (bugs R1, R3), on 2000 more seeds.
TEST(RandomPrograms, ReinplacedWithInputReuseEqualsEager) {
  RunSummary sum = RunMany({Stage::kReinplaced}, GeneratorOptions(), 2000, false, /*reuse_restored_inputs=*/true,
                           /*first_seed=*/100001);
  EXPECT_EQ(sum.failures, 0) << "failing seeds (rerun one with random_tester --seed S --count 1):" << Seeds(sum);
}

// Programs that write where atenaot refuses by design are refused with the
// expected message (and never miscompiled).
TEST(RandomPrograms, ByDesignRefusalsCarryTheirMessage) {
  GeneratorOptions gen;
  gen.refusal_probability = 0.5;
  RunSummary sum = RunMany(AllStages(), gen, 300, false);
  EXPECT_EQ(sum.failures, 0) << "failing seeds:" << Seeds(sum);
  if (sum.programs >= 300) {
    EXPECT_GT(sum.refused, 0);
  }
}

TEST(RandomPrograms, GenerationIsReproducible) {
  for (uint64_t seed : {1u, 7u, 12345u}) {
    Program a = Generate(seed), b = Generate(seed);
    EXPECT_EQ(ToCpp(a), ToCpp(b));
    std::vector<at::Tensor> x = MakeInputs(a), y = MakeInputs(b);
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(at::equal(x[i], y[i]));
  }
  EXPECT_NE(ToCpp(Generate(1)), ToCpp(Generate(2)));
}

TEST(RandomPrograms, DroppingAStepDropsItsDependents) {
  // Find a program with a step whose result a later step reads.
  for (uint64_t seed = 1; seed < 200; ++seed) {
    Program p = Generate(seed);
    for (size_t k = 0; k < p.steps.size(); ++k) {
      if (p.steps[k].out.empty()) continue;
      const int id = p.steps[k].out[0];
      size_t users = 0;
      for (size_t j = k + 1; j < p.steps.size(); ++j)
        for (int in : p.steps[j].in) users += in == id;
      if (users == 0) continue;
      Program q;
      if (!DropStep(p, k, &q)) continue;
      EXPECT_LE(q.steps.size(), p.steps.size() - 2);
      // The smaller program still runs eagerly.
      std::vector<at::Tensor> in = MakeInputs(q);
      EXPECT_NO_THROW(Execute(q, in));
      return;
    }
  }
  FAIL() << "no program with a dependent step";
}

}  // namespace
}  // namespace random_program
}  // namespace atenaot
