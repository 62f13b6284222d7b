#include "tests/testing/program_suite.h"

#include <ATen/ATen.h>

namespace atenaot {
namespace {

using T = at::Tensor;
using Ts = std::vector<at::Tensor>;

// Seeded random inputs: each program gets its own seed so programs are
// independent of their order in the suite.
std::function<Ts()> Randn(uint64_t seed, std::vector<std::vector<int64_t>> shapes) {
  return [seed, shapes] {
    at::manual_seed(seed);
    Ts ts;
    for (const auto& s : shapes) ts.push_back(at::randn(s));
    return ts;
  };
}

std::vector<SuiteProgram> Build() {
  std::vector<SuiteProgram> ps;
  auto add = [&](std::string name, CppProgram fn, std::function<Ts()> inputs) {
    ps.push_back({std::move(name), std::move(fn), std::move(inputs)});
  };

  // The seed texts' examples.
  add("seed_view_of_intermediate",
      [](const Ts& in) -> Ts {
        T b = in[0] + 1;
        b.view({-1}).add_(1);
        return {b};
      },
      Randn(1, {{2}}));
  add("seed_mutate_input_through_view",
      [](const Ts& in) -> Ts {
        in[0].view({-1}).add_(1);
        return {in[0]};
      },
      Randn(2, {{2}}));
  add("seed_diagonal_fill",
      [](const Ts& in) -> Ts {
        T a = in[0] + in[0];
        a.diagonal().fill_(0);
        return {a};
      },
      Randn(3, {{3, 3}}));

  // One write through each view kind, on an intermediate.
  add("write_through_transpose",
      [](const Ts& in) -> Ts {
        T b = in[0] * 2;
        b.transpose(0, 1).mul_(3);
        return {b, b.sum()};
      },
      Randn(10, {{2, 3}}));
  add("write_through_permute",
      [](const Ts& in) -> Ts {
        T b = in[0].clone();
        b.permute({2, 0, 1}).add_(in[1]);
        return {b};
      },
      Randn(11, {{2, 3, 4}, {4, 2, 3}}));
  add("write_through_select_slice_chain",
      [](const Ts& in) -> Ts {
        T b = in[0] - 1;
        b.select(1, 2).slice(0, 1, 4, 2).fill_(7);
        return {b};
      },
      Randn(12, {{5, 3}}));
  return ps;
}

}  // namespace

const std::vector<SuiteProgram>& ProgramSuite() {
  static const std::vector<SuiteProgram> suite = Build();
  return suite;
}

}  // namespace atenaot
