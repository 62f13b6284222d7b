// Reinplace wall time on generated chains of 1k..1M nodes (functionalized and
// cleaned first, untimed). Run: bazel run -c opt //bench:reinplace_bench
#include <benchmark/benchmark.h>

#include "bench/chain_graph.h"
#include "ir/test_op_table.h"
#include "passes/dce.h"
#include "passes/functionalize.h"
#include "passes/reinplace.h"

namespace atenaot {
namespace {

void BM_Reinplace(benchmark::State& state) {
  const OpTable& ops = SnapshotOpTable();
  int64_t inplaced = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto g = MakeChainGraph(state.range(0), ops);
    Status s = Functionalize(*g, ops, {});
    if (s.ok()) s = EliminateDeadCode(*g, ops);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    ReinplaceStats stats;
    state.ResumeTiming();
    s = Reinplace(*g, ops, {}, &stats);
    state.PauseTiming();
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    inplaced = stats.inplaced + stats.scatters_replaced;
    g.reset();
    state.ResumeTiming();
  }
  state.counters["inplaced"] = static_cast<double>(inplaced);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Reinplace)->Arg(1 << 10)->Arg(1 << 14)->Arg(1 << 18)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace atenaot

BENCHMARK_MAIN();
