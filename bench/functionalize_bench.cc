// Functionalize (+ dce) wall time on generated chains of 1k..1M nodes.
// Run: bazel run -c opt //bench:functionalize_bench
#include <benchmark/benchmark.h>

#include "bench/chain_graph.h"
#include "ir/test_op_table.h"
#include "passes/dce.h"
#include "passes/functionalize.h"

namespace atenaot {
namespace {

void BM_Functionalize(benchmark::State& state) {
  const OpTable& ops = SnapshotOpTable();
  for (auto _ : state) {
    state.PauseTiming();
    auto g = MakeChainGraph(state.range(0), ops);
    state.ResumeTiming();
    Status s = Functionalize(*g, ops, {});
    if (s.ok()) s = EliminateDeadCode(*g, ops);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    state.PauseTiming();
    g.reset();  // freeing is not the pass's cost
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Functionalize)->Arg(1 << 10)->Arg(1 << 14)->Arg(1 << 18)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace atenaot

BENCHMARK_MAIN();
