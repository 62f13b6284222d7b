// The random differential tester's long mode:
//   bazel run -c opt //tests/random:random_tester -- --count 100000 --seed 1
// checks programs with seeds S..S+N-1 at every stage against eager, prints a
// minimised report for each failure (seed, stage, message, IR at stage import,
// C++) and a summary; exits 1 when any program failed.
//   --print SEED          print one program (C++) and exit
//   --max-minimized K     minimise at most K failures (default 20), list the rest by seed
//   --progress N          a progress line every N programs (default 10000)
//   --stages LIST         stages to check, e.g. import,functional (default: all four)
//   --no-input-reuse      run the reinplaced stage with ReinplaceOptions::reuse_restored_inputs off
//   --with-known-bugs     also generate the patterns of known, unfixed bugs
//   --refusal-probability P  how often to generate a by-design refusal on purpose (default 0.02)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "tests/random/random_program.h"

using namespace atenaot::random_program;

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t count = 1000;
  int64_t print = -1;
  GeneratorOptions gen;
  RunOptions run;
  run.max_minimized = 20;
  run.progress_every = 10000;
  run.log = &std::cout;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "random_tester: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--count")
      count = std::stoll(next());
    else if (a == "--seed")
      seed = std::stoull(next());
    else if (a == "--print")
      print = std::stoll(next());
    else if (a == "--max-minimized")
      run.max_minimized = std::stoi(next());
    else if (a == "--progress")
      run.progress_every = std::stoll(next());
    else if (a == "--with-known-bugs")
      gen.avoid_known_bugs = false;
    else if (a == "--no-input-reuse")
      run.check.reinplace_reuse_restored_inputs = false;
    else if (a == "--stages") {
      if (!ParseStages(next(), &run.check.stages)) {
        std::cerr << "random_tester: --stages takes a comma-separated list of " << atenaot::StageNames() << "\n";
        return 2;
      }
    } else if (a == "--refusal-probability")
      gen.refusal_probability = std::stod(next());
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: random_tester [--count N] [--seed S] [--print SEED] [--max-minimized K] [--progress N]"
                   " [--stages LIST] [--no-input-reuse] [--with-known-bugs] [--refusal-probability P]\n";
      return 0;
    } else {
      std::cerr << "random_tester: unknown argument " << a << "\n";
      return 2;
    }
  }
  at::set_num_threads(1);
  InstallCrashHandler();
  if (print >= 0) {
    Program p = Generate(static_cast<uint64_t>(print), gen);
    std::cout << ToCpp(p) << "\n";
    CheckResult r = CheckProgram(p, run.check);
    std::cout << "check: " << KindName(r.kind) << " at stage " << atenaot::StageName(r.stage) << ": " << r.message
              << "\n";
    return IsFailure(r) ? 1 : 0;
  }
  auto t0 = std::chrono::steady_clock::now();
  RunSummary sum = RunPrograms(seed, count, gen, run);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "\nsummary: " << sum.programs << " programs (seeds " << seed << ".." << seed + count - 1 << "), "
            << sum.steps << " steps, " << secs << " s\n"
            << "  ok " << sum.ok << ", refused as expected " << sum.refused << ", invalid " << sum.invalid
            << ", failures " << sum.failures << "\n";
  if (!sum.failing_seeds.empty()) {
    std::cout << "  failing seeds:";
    for (uint64_t s : sum.failing_seeds) std::cout << " " << s;
    std::cout << "\n";
  }
  std::cout << "  steps by op:";
  for (const auto& [op, n] : sum.op_counts) std::cout << " " << op << "=" << n;
  std::cout << "\n";
  return sum.failures == 0 ? 0 : 1;
}
