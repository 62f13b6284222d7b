#!/bin/bash
# A generated NAME_benchmark runs: one short Google Benchmark run of
# //examples:mlp_benchmark reports a time per run and the arena_bytes counter
# (8192 bytes for the MLP, its planned arena).
# Usage (Bazel passes these): benchmark_smoke_test.sh BENCHMARK INPUT
set -u
out=$("$1" "--input=$2" --benchmark_min_time=0.01 2>&1)
status=$?
echo "$out"
[ $status -eq 0 ] || { echo "FAIL: the benchmark exited with status $status"; exit 1; }
echo "$out" | grep -qE '^BM_Run +[0-9.]+ [mun]?s .*arena_bytes=8\.192k' ||
  { echo "FAIL: no BM_Run line with arena_bytes=8.192k"; exit 1; }
echo "ok: BM_Run timed, arena_bytes reported"
