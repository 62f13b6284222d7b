#!/usr/bin/env bash
# Runs one fuzz target for SECONDS with its corpus fuzz/corpus/TARGET/:
#   bash fuzz/run.sh TARGET SECONDS [libFuzzer flags...]
# e.g. bash fuzz/run.sh ir_parser_fuzzer 600 -fork=2 -ignore_crashes=1
# (FUZZ_OUT=DIR runs the binary built into DIR, e.g. a RECOVER=1 build.)
# An empty corpus is seeded from the repository's tests (tests/golden,
# tests/fixtures). Crashes land in fuzz/artifacts/TARGET/; minimise one with
#   fuzz/out/TARGET -minimize_crash=1 -runs=100000 CRASH_FILE
# and keep it under fuzz/regressions/TARGET/ (replayed by
# //fuzz:fuzz_regressions_test).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags...]" >&2; exit 2; }
target=$1; seconds=$2; shift 2
bin=${FUZZ_OUT:-fuzz/out}/$target
[ -x "$bin" ] || { echo "$bin is not built: bash fuzz/build.sh $target" >&2; exit 2; }
corpus=fuzz/corpus/$target
artifacts=fuzz/artifacts/$target
mkdir -p "$corpus" "$artifacts"

# Strips the golden tests' RUN/CHECK comment lines (atenaot IR keeps its // comments).
strip_hash() { grep -v -E '^[[:space:]]*#' "$1" || true; }
seed() {
  local i=0
  case "$target" in
    ir_parser_fuzzer)
      for f in $(find tests -name '*.ir') ; do strip_hash "$f" > "$corpus/seed_$((i++))"; done ;;
    npy_fuzzer)
      for f in $(find tests -name '*.npy'); do cp "$f" "$corpus/seed_$((i++))"; done ;;
    weights_fuzzer)
      for f in $(find tests -name '*.weights'); do cp "$f" "$corpus/seed_$((i++))"; done ;;
    ts_ir_fuzzer)
      for f in $(find tests/golden -name '*.ts') $(grep -l -E '^graph\(' -r tests/golden --include='*.test'); do
        strip_hash "$f" > "$corpus/seed_$((i++))"
      done ;;
    pt_archive_fuzzer)
      # Every archive in the tests, and truncated and bit-flipped copies of each.
      for f in $(find tests examples -name '*.pt' -size -256k); do
        cp "$f" "$corpus/seed_$((i++))"
        python3 - "$f" "$corpus/seed_$i" <<'PY'
import random, sys
data = open(sys.argv[1], "rb").read()
rng = random.Random(len(data))
for k in range(8):
    cut = data[: rng.randrange(len(data))]
    open("%s_cut%d" % (sys.argv[2], k), "wb").write(cut)
    flipped = bytearray(data)
    flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    open("%s_flip%d" % (sys.argv[2], k), "wb").write(bytes(flipped))
PY
      done ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  echo "seeded $corpus with $i files"
}
[ -n "$(ls -A "$corpus")" ] || seed

dict=()
case "$target" in
  ir_parser_fuzzer) dict=(-dict=fuzz/dict/ir.dict) ;;
  ts_ir_fuzzer) dict=(-dict=fuzz/dict/ts.dict) ;;
esac
# Leaks are not findings here (LibTorch keeps global state); timeouts and
# memory blow-ups are.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
max_len=8192
[ "$target" = pt_archive_fuzzer ] && max_len=262144  # archives of small models
exec "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
  -max_len=$max_len -print_final_stats=1 -artifact_prefix="$artifacts/" "$@"
