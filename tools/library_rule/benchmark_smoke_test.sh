#!/bin/bash
# A generated NAME_benchmark runs: one short Google Benchmark run of
# //examples:mlp_benchmark reports a time per run and the arena_bytes counter
# (NAME_ARENA_BYTES of the generated mlp.h).
# Usage (Bazel passes these): benchmark_smoke_test.sh BENCHMARK INPUT GENERATED_FILE...
set -u
out=$("$1" "--input=$2" --benchmark_min_time=0.01 2>&1)
status=$?
echo "$out"
[ $status -eq 0 ] || { echo "FAIL: the benchmark exited with status $status"; exit 1; }
header=""
for f in "${@:3}"; do [[ "$f" == *.h ]] && header=$f; done
bytes=$(sed -n 's/^#define mlp_ARENA_BYTES \([0-9]*\)$/\1/p' "$header")
[ -n "$bytes" ] || { echo "FAIL: no mlp_ARENA_BYTES in '$header'"; exit 1; }
# Google Benchmark prints counters in units of 1000: 12288 -> 12.288k.
want=$(awk -v b="$bytes" 'BEGIN { printf (b >= 1000 ? "%.3fk" : "%d"), (b >= 1000 ? b / 1000 : b) }')
echo "$out" | grep -qE "^BM_Run +[0-9.]+ [mun]?s .*arena_bytes=${want//./\\.}( |\$)" ||
  { echo "FAIL: no BM_Run line with arena_bytes=$want (mlp_ARENA_BYTES $bytes)"; exit 1; }
echo "ok: BM_Run timed, arena_bytes reported"
