// Random programs (tests/random/random_program.h) through the product path:
// `compile` to C, built with cc and run through the C ABI, compared with eager
// (outputs and inputs after the run); and through the plan-checked
// interpreter under every placement algorithm (hill_climb included), where a
// wrong plan would corrupt live buffers.
//
// ATENAOT_RANDOM_COMPILED (default 500) programs are checked, from seed
// ATENAOT_RANDOM_SEED (default 1); ATENAOT_RANDOM_BATCH (default 16) of them
// share one compiled library (one combined program over all their inputs: one
// cc run instead of sixteen). A batch that fails is split in halves until the
// failing seeds stand alone; a batch that fails while every program in it
// passes alone is a failure of its own (a compile bug that needs the larger
// program). ATENAOT_RANDOM_SEEDS=S1,S2,... checks exactly those seeds (valid
// ones) as one batch, for minimising such a failure. Aliasing, non-contiguous and offset inputs are
// passed as they are (the library takes the layout it was traced with);
// programs using an op on kKnownUnsupported are counted as skipped; any other
// refusal is a failure.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "plan/placement.h"
#include "tests/random/random_program.h"
#include "tests/testing/compiled_runner.h"
#include "tests/testing/stage_runner.h"

namespace atenaot {
namespace random_program {
namespace {

using Ts = std::vector<at::Tensor>;

int64_t EnvInt(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : dflt;
}

// Generated programs that are valid (eager runs them, no ties) and make no
// by-design refusal.
struct Candidate {
  Program p;
};

// Seeds of open bugs (tests/random/README.md, tests/random/known_bugs_test.cc):
// counted as skipped unless ATENAOT_RUN_KNOWN_BUGS=1.
const std::map<uint64_t, std::string> kOpenBugSeeds = {};

bool OpenBug(const Program& p, std::string* bug) {
  const char* run = std::getenv("ATENAOT_RUN_KNOWN_BUGS");
  auto it = kOpenBugSeeds.find(p.seed);
  if (it == kOpenBugSeeds.end() || (run && std::string(run) == "1")) return false;
  *bug = it->second;
  return true;
}

bool Valid(const Program& p) {
  try {
    bool ambiguous = false;
    Execute(p, MakeInputs(p), &ambiguous);
    return !ambiguous;
  } catch (const std::exception&) {
    return false;
  }
}

SuiteProgram AsSuiteProgram(const Program& p) {
  SuiteProgram s;
  s.name = "seed_" + std::to_string(p.seed);
  s.fn = [p](const Ts& in) { return Execute(p, in); };
  s.inputs = [p] { return MakeInputs(p); };
  return s;
}

// One program over the inputs of all of `ps`, returning all their outputs.
SuiteProgram Combined(const std::vector<const Program*>& ps) {
  SuiteProgram s;
  s.name = "batch_" + std::to_string(ps.front()->seed);
  s.fn = [ps](const Ts& in) {
    Ts outs;
    size_t at = 0;
    for (const Program* p : ps) {
      Ts mine(in.begin() + static_cast<std::ptrdiff_t>(at),
              in.begin() + static_cast<std::ptrdiff_t>(at + p->inputs.size()));
      at += p->inputs.size();
      for (at::Tensor& t : Execute(*p, mine)) outs.push_back(t);
    }
    return outs;
  };
  s.inputs = [ps] {
    Ts ins;
    for (const Program* p : ps)
      for (at::Tensor& t : MakeInputs(*p)) ins.push_back(t);
    return ins;
  };
  return s;
}

// ATENAOT_RANDOM_SEEDS=S1,S2,...: exactly these seeds (empty when unset).
std::vector<uint64_t> ExplicitSeeds() {
  std::vector<uint64_t> seeds;
  const char* at = std::getenv("ATENAOT_RANDOM_SEEDS");
  while (at && *at) {
    char* end = nullptr;
    const uint64_t seed = std::strtoull(at, &end, 10);
    if (end == at) break;
    seeds.push_back(seed);
    at = *end == ',' ? end + 1 : end;
  }
  return seeds;
}

// The valid programs of ExplicitSeeds(), or of the first seeds from
// first_seed until `count` are found; *count becomes their number when the
// seeds were explicit.
std::vector<Candidate> Candidates(uint64_t first_seed, int64_t* count, int64_t* seeds_tried) {
  GeneratorOptions gen;
  gen.refusal_probability = 0;
  std::vector<Candidate> cs;
  if (const std::vector<uint64_t> seeds = ExplicitSeeds(); !seeds.empty()) {
    for (uint64_t seed : seeds) {
      Candidate c{Generate(seed, gen)};
      if (Valid(c.p)) cs.push_back(std::move(c));
    }
    *seeds_tried = static_cast<int64_t>(seeds.size());
    *count = static_cast<int64_t>(cs.size());
    return cs;
  }
  uint64_t seed = first_seed;
  for (; static_cast<int64_t>(cs.size()) < *count && seed < first_seed + 20 * static_cast<uint64_t>(*count); ++seed) {
    Candidate c{Generate(seed, gen)};
    if (!Valid(c.p)) continue;
    cs.push_back(std::move(c));
  }
  *seeds_tried = static_cast<int64_t>(seed - first_seed);
  return cs;
}

TEST(RandomCompiled, CompiledCEqualsEager) {
  at::set_num_threads(1);
  InstallCrashHandler();
  int64_t count = EnvInt("ATENAOT_RANDOM_COMPILED", 500);
  int64_t batch = std::max<int64_t>(1, EnvInt("ATENAOT_RANDOM_BATCH", 16));
  const uint64_t first = static_cast<uint64_t>(EnvInt("ATENAOT_RANDOM_SEED", 1));
  const auto t0 = std::chrono::steady_clock::now();
  int64_t tried = 0;
  std::vector<Candidate> cs = Candidates(first, &count, &tried);
  if (!ExplicitSeeds().empty()) batch = std::max<int64_t>(1, count);  // one batch of exactly those
  int64_t ok = 0, skipped = 0, failed = 0, builds = 0;
  std::map<std::string, int64_t> skip_reasons;
  std::string failures;
  const std::string dir = ::testing::TempDir() + "/random_compiled";
  std::vector<const Program*> todo;
  for (const Candidate& c : cs) {
    std::string bug;
    if (OpenBug(c.p, &bug)) {
      ++skipped;
      ++skip_reasons["known bug " + bug + " (tests/random/README.md; ATENAOT_RUN_KNOWN_BUGS=1 runs it)"];
    } else {
      todo.push_back(&c.p);
    }
  }
  // One library per batch; a failing batch is split in halves until the
  // failing programs stand alone (a few builds, not one per program).
  std::function<void(const std::vector<const Program*>&)> check = [&](const std::vector<const Program*>& ps) {
    // A fresh directory per library: dlopen of a reused path could hand back the previous one.
    const std::string lib_dir = dir + "_" + std::to_string(++builds);
    std::string r = ps.size() == 1 ? RunProgramCompiled(AsSuiteProgram(*ps[0]), lib_dir)
                                   : RunProgramCompiled(Combined(ps), lib_dir);
    if (r.empty()) {
      ok += static_cast<int64_t>(ps.size());
      return;
    }
    if (ps.size() > 1) {
      std::cerr << "batch of " << ps.size() << " from seed " << ps[0]->seed << " failed: " << r.substr(0, 300) << "\n";
      const auto half = ps.begin() + static_cast<std::ptrdiff_t>(ps.size() / 2);
      const int64_t failed_before = failed, skipped_before = skipped;
      check(std::vector<const Program*>(ps.begin(), half));
      check(std::vector<const Program*>(half, ps.end()));
      if (failed == failed_before && skipped == skipped_before) {
        // Every program passed alone: the combined program is a valid one,
        // so its failure is a compile bug of its own, counted once.
        std::string seeds;
        for (const Program* p : ps) seeds += (seeds.empty() ? "" : ",") + std::to_string(p->seed);
        if (++failed <= 5)
          failures +=
              "batch (every program passes alone; ATENAOT_RANDOM_SEEDS=" + seeds + "): " + r.substr(0, 1500) + "\n";
        else
          failures += "batch from seed " + std::to_string(ps[0]->seed) + "\n";
      }
      return;
    }
    std::string known = KnownRefusal(r);
    if (!known.empty() && known.rfind("FAIL: ", 0) != 0) {
      ++skipped;
      ++skip_reasons[known.substr(0, known.find(']') + 1)];
    } else if (++failed <= 5) {
      failures += "seed " + std::to_string(ps[0]->seed) + ": " + r.substr(0, 1500) + "\n" + ToCpp(*ps[0]) + "\n";
    } else {
      failures += "seed " + std::to_string(ps[0]->seed) + "\n";
    }
  };
  for (size_t b = 0; b < todo.size(); b += static_cast<size_t>(batch))
    check(std::vector<const Program*>(
        todo.begin() + static_cast<std::ptrdiff_t>(b),
        todo.begin() + static_cast<std::ptrdiff_t>(std::min(todo.size(), b + static_cast<size_t>(batch)))));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "random programs through compiled C: " << cs.size() << " (of " << tried << " seeds from " << first
            << ": eager refuses the others), " << builds << " libraries built; " << ok << " equal eager, " << skipped
            << " skipped (known unsupported ops or open bugs), " << failed << " failed; " << secs << " s\n";
  for (const auto& [reason, n] : skip_reasons) std::cerr << "  skipped " << n << ": " << reason << "\n";
  EXPECT_EQ(failed, 0) << failures;
  EXPECT_EQ(static_cast<int64_t>(cs.size()), count) << "too few valid programs";
  // Most programs must actually compile: skips are the exception.
  EXPECT_GT(ok, static_cast<int64_t>(cs.size()) * 3 /
                    4);  // 389 of 500 (seeds 1-500, inputs of every layout): 108 use topk/sort
}

TEST(RandomCompiled, PlanCheckedInterpreterEqualsEagerForEveryPlacement) {
  at::set_num_threads(1);
  InstallCrashHandler();
  int64_t count = EnvInt("ATENAOT_RANDOM_COMPILED", 500);
  const uint64_t first = static_cast<uint64_t>(EnvInt("ATENAOT_RANDOM_SEED", 1));
  int64_t tried = 0, runs = 0, failed = 0;
  std::vector<Candidate> cs = Candidates(first, &count, &tried);
  std::string failures;
  const auto t0 = std::chrono::steady_clock::now();
  for (const Candidate& c : cs) {
    SuiteProgram s = AsSuiteProgram(c.p);
    for (const std::string& algorithm : PlacementAlgorithms()) {
      ++runs;
      std::string r = RunProgramPlanned(s, algorithm);
      if (r.empty()) continue;
      ++failed;
      if (failed <= 5)
        failures += "seed " + std::to_string(c.p.seed) + ", " + algorithm + ": " + r.substr(0, 1500) + "\n";
      else
        failures += "seed " + std::to_string(c.p.seed) + ", " + algorithm + "\n";
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "random programs through the plan-checked interpreter: " << cs.size() << " programs x "
            << PlacementAlgorithms().size() << " placements = " << runs << " runs, " << failed << " failed; " << secs
            << " s\n";
  EXPECT_EQ(failed, 0) << failures;
  EXPECT_EQ(static_cast<int64_t>(cs.size()), count);
}

}  // namespace
}  // namespace random_program
}  // namespace atenaot
