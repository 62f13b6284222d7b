// atenaot_library's generated NAME_benchmark: the latency of one NAME_run on
// the sample inputs (statically linked, caller's arena), with the arena's
// bytes as a counter. Google Benchmark flags pass through
// (bazel run //pkg:NAME_benchmark -- --benchmark_min_time=2).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "tools/library_rule/model_driver.h"

namespace atenaot {
namespace {

DriverArgs g_args;

void BM_Run(benchmark::State& state) {
  const aot_compiled_model* m = AOT_UT_MODEL();
  auto inputs = ReadArrays(g_args.inputs);
  auto outputs = OutputArrays(*m);
  auto weights = ReadWeights(g_args.weights);
  if (!inputs.ok() || !outputs.ok() || !weights.ok() || inputs.value().size() != m->num_inputs) {
    state.SkipWithError("cannot read the sample inputs or weights (run the test for details)");
    return;
  }
  std::vector<aot_tensor> in, out;
  for (size_t k = 0; k < m->num_inputs; ++k) {
    auto t = DescribeFor(inputs.value()[k], m->inputs[k], "input");
    if (!t.ok()) return state.SkipWithError(t.status().ToString().c_str());
    in.push_back(t.value());
  }
  for (size_t k = 0; k < m->num_outputs; ++k)
    out.push_back(DescribeFor(outputs.value()[k], m->outputs[k], "output").value());
  AlignedBuffer arena(m->arena_bytes);
  const void* w = weights.value()->size() ? weights.value()->data() : nullptr;
  char err[256];
  for (auto _ : state) {
    int s =
        AOT_UT_RUN_MSG(in.data(), in.size(), out.data(), out.size(), arena.data(), arena.size(), w, err, sizeof err);
    if (s != AOT_OK) return state.SkipWithError(err);
  }
  state.counters["arena_bytes"] = static_cast<double>(m->arena_bytes);
  state.SetLabel(m->name);
}
BENCHMARK(BM_Run);

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) {
  if (!atenaot::TakeDriverArgs(&argc, argv, &atenaot::g_args)) return 2;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
