#!/usr/bin/env bash
# Regenerates bench/RESULTS.md, bench/memory.svg and bench/speedup.svg. One command, from anywhere:
#
#   bash bench/make_results.sh
#
# about 30 minutes on the 2-core development VM once the builds are cached
# (the first -c opt build of the benchmark adds several). It runs, in order:
#   1. bazel build //:atenaot; bazel build -c opt //bench:compiled_vs_eager
#   2. /usr/bin/python3 bench/plan_quality.py --atenaot bazel-bin/atenaot   (memory plans + the SVG's data)
#      /usr/bin/python3 bench/memory_zoo.py --atenaot bazel-bin/atenaot     (arena vs eager over the model zoo)
#   3. /usr/bin/python3 bench/trace_models.py TV                         (issue 15's model list: traced, random weights)
#      bazel run -c opt //bench:compiled_vs_eager -- --model NAME=TV/NAME (latency + memory vs eager, all threads and 1)
#      /usr/bin/python3 bench/threads_speedup.py ...                     (the same libraries, 1 vs all threads, no LibTorch)
#      /usr/bin/python3 bench/accuracy.py                               (error vs float64: eager and compiled)
#      bazel run -c opt //bench:elementwise_bandwidth                   (fused chains vs memcpy, threads)
#   4. /usr/bin/python3 bench/reinplace_timing.py --sizes 250,500,1000    (pass time vs PyTorch, small sizes)
#   5. bash tests/embedded/cortex_m_test.sh bazel-bin/atenaot             (Cortex-M4F flash/RAM)
#   6. /usr/bin/python3 bench/make_results.py WORK                        (assembles RESULTS.md, memory.svg)
# Each step writes its own report into a scratch directory (kept with
# KEEP=DIR), never over the committed bench/*.md; a failed step is recorded
# in RESULTS.md with the end of its log, the others still run, and the exit
# status is then 1.
# Environment: REINPLACE_SIZES (default 250,500,1000), PLAN_REPEAT (default 3).
set -uo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; work="$(cd "$KEEP" && pwd)"; else work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT; fi
sizes="${REINPLACE_SIZES:-250,500,1000}"
repeat="${PLAN_REPEAT:-3}"
cut -d' ' -f1-3 /proc/loadavg > "$work/loadavg"
failed=0

# run NAME DISPLAYED_COMMAND -- ARGV...: runs ARGV, logs, records status and time.
run() {
  local name="$1" shown="$2"; shift 3
  echo "== $name: $shown" >&2
  echo "$shown" > "$work/$name.cmd"
  local t0=$SECONDS rc=0
  "$@" > "$work/$name.log" 2>&1 || rc=$?
  echo $((SECONDS - t0)) > "$work/$name.secs"
  echo "$rc" > "$work/$name.rc"
  if [ "$rc" -ne 0 ]; then failed=1; echo "   failed (exit $rc): $work/$name.log" >&2; tail -5 "$work/$name.log" >&2; fi
}

# Build everything first, so no compile competes with the timed steps. The
# atenaot binary is copied: `-c opt` repoints bazel-bin, and others may
# rebuild //:atenaot while this runs.
if ! { bazel build //:atenaot && cp "$(bazel info bazel-bin 2>/dev/null)/atenaot" "$work/atenaot" &&
       bazel build -c opt //bench:compiled_vs_eager //bench:elementwise_bandwidth //bench/kernels:gemm_bench &&
       cp "$(bazel info -c opt bazel-bin 2>/dev/null)/bench/kernels/gemm_bench" "$work/gemm_bench"; } > "$work/build.log" 2>&1; then
  tail -20 "$work/build.log" >&2; echo "make_results: the build failed" >&2; exit 1
fi
atenaot="$work/atenaot"

run plan_quality "/usr/bin/python3 bench/plan_quality.py --atenaot bazel-bin/atenaot --repeat $repeat" -- \
  "$py" bench/plan_quality.py --atenaot "$atenaot" --repeat "$repeat" --out "$work/plan_quality.md" \
  --keep "$work/plan_quality"
run memory_zoo "/usr/bin/python3 bench/memory_zoo.py --atenaot bazel-bin/atenaot" -- \
  "$py" bench/memory_zoo.py --atenaot "$atenaot" --keep "$work/memory_zoo" --out "$work/memory_zoo.md"
# The zoo models for the latency rows (the examples are committed).
tv="$work/torchvision"; tv_args=(); tv_shown=""
if "$py" bench/trace_models.py "$tv" > "$work/torchvision.log" 2>&1; then
  for d in $(sed -n 's/^wrote //p' "$work/torchvision.log"); do  # in trace_models.py's order
    m="$(basename "$d")"; tv_args+=(--model "$m=$tv/$m"); tv_shown+=" --model $m=TV/$m"
  done
else
  echo "   torchvision models not traced (see $work/torchvision.log); compiled_vs_eager runs without them" >&2
  tail -3 "$work/torchvision.log" >&2; failed=1
fi
run compiled_vs_eager "/usr/bin/python3 bench/trace_models.py TV && bazel run -c opt //bench:compiled_vs_eager --$tv_shown" -- \
  bazel run -c opt //bench:compiled_vs_eager -- --out "$work/compiled_vs_eager.md" "${tv_args[@]}"
# The same libraries on one thread and on all, without LibTorch in the process.
th_args=()
for d in $(sed -n 's/^wrote //p' "$work/torchvision.log"); do
  m="$(basename "$d")"; th_args+=("$m=/tmp/atenaot_bench_$m:$(ls "$tv/$m"/input_*.npy | paste -sd,)")
done
run threads "/usr/bin/python3 bench/threads_speedup.py MODEL=/tmp/atenaot_bench_MODEL:TV/MODEL/input_0.npy (each model above)" -- \
  "$py" bench/threads_speedup.py --out "$work/threads.md" "${th_args[@]}"
run kernels "bazel run -c opt //bench/kernels:gemm_bench (via bench/kernels/gemm_table.py)" -- \
  "$py" bench/kernels/gemm_table.py --bench "$work/gemm_bench" --out "$work/kernels.md"
run accuracy "/usr/bin/python3 bench/accuracy.py --atenaot bazel-bin/atenaot" -- \
  "$py" bench/accuracy.py --atenaot "$atenaot" --out "$work/accuracy.md"
run elementwise_bandwidth "bazel run -c opt //bench:elementwise_bandwidth" -- \
  bazel run -c opt //bench:elementwise_bandwidth -- --out "$work/elementwise_bandwidth.md"
run reinplace_timing "/usr/bin/python3 bench/reinplace_timing.py --atenaot bazel-bin/atenaot --sizes $sizes" -- \
  "$py" bench/reinplace_timing.py --atenaot "$atenaot" --sizes "$sizes" --out "$work/reinplace_timing.md"
run cortex_m "bash tests/embedded/cortex_m_test.sh bazel-bin/atenaot" -- \
  env TEST_TMPDIR="$work/cortex_m_tmp" bash -c 'mkdir -p "$TEST_TMPDIR" && exec bash tests/embedded/cortex_m_test.sh "$@"' \
  _ "$atenaot" "$work/cortex_m.md"
{ echo "gcc=$(arm-none-eabi-gcc -dumpfullversion 2>/dev/null || echo none)"
  echo "qemu=$(qemu-system-arm --version 2>/dev/null | head -1 | sed -n 's/.*version \([0-9.]*\).*/\1/p')"
} > "$work/cortex_m.toolchain"
if grep -q "^SKIPPED" "$work/cortex_m.log"; then echo "2 (skipped: $(grep '^SKIPPED' "$work/cortex_m.log"))" > "$work/cortex_m.rc"; failed=1; fi

cut -d' ' -f1-3 /proc/loadavg > "$work/loadavg_end"
"$py" bench/make_results.py "$work" --out bench/RESULTS.md --svg bench/memory.svg --speed-svg bench/speedup.svg \
  --schedule-svg bench/memory_schedule.svg || failed=1
bazel build //:atenaot > /dev/null 2>&1 || true  # bazel-bin back to the default configuration
[ "$failed" -eq 0 ] || echo "make_results: some steps failed; see bench/RESULTS.md" >&2
exit "$failed"
