#!/usr/bin/env bash
# Runs the tests (installing missing packages first) and ends with the line
#   N passed, M failed, K skipped
# counted from the test cases themselves: GoogleTest cases from each target's
# test.xml, one case per golden sh_test, and a target that did not build or
# timed out as one failure. Exit status is 0 only when nothing failed.
#
#   bash tools/test.sh                          # CI: all tests, then ASAN_TARGETS under --config=asan
#   bash tools/test.sh [bazel options] [-- targets]   # one run, e.g. --config=ubsan -- //ir/...
#
# With no arguments the final line sums both runs. The ASan part covers the
# LibTorch-free unit tests, the fuzz regressions and the random programs; the
# other LibTorch-linked tests are left out to keep CI's clean build short
# (measured on the 2-core machine, from a clean output base: the ASan part
# alone 223 s, 122 actions; 407 s next to a fuzzer with 2000 random programs.
# The plain suite takes 12-19 min.) Run them with
# `bash tools/test.sh --config=asan`.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh

ASAN_TARGETS=(//ir/... //io/... //passes/... //plan/... //schema/... //fuzz/... //tests/random/...)

total_passed=0; total_failed=0; total_skipped=0

# run_suite [bazel options] -- targets: one `bazel test`, its cases added to the totals.
run_suite() {
  local opts=() targets=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; targets=("$@"); break; fi
    opts+=("$1"); shift
  done
  [ ${#targets[@]} -eq 0 ] && targets=(//...)

  local log bazel_rc testlogs passed=0 failed=0 skipped=0
  log="$(mktemp)"
  bazel test -k --test_output=errors --test_summary=short "${opts[@]}" -- "${targets[@]}" 2>&1 | tee "$log"
  bazel_rc=${PIPESTATUS[0]}
  # The options matter: sanitizer configs keep their test logs elsewhere (.bazelrc).
  testlogs="$(bazel info "${opts[@]}" bazel-testlogs 2>/dev/null || bazel info bazel-testlogs 2>/dev/null)"

  # Summary lines look like: "//ir:schema_test   (cached) PASSED in 0.1s".
  local target status xml root n f e d s bad good
  while read -r target status; do
    xml="$testlogs/${target#//}"
    xml="${xml/://}/test.xml"
    case "$status" in
      PASSED|FAILED)
        if [ -f "$xml" ]; then
          root="$(grep -m1 -o '<testsuites[^>]*>' "$xml" || grep -m1 -o '<testsuite [^>]*>' "$xml")"
          n=$(echo "$root" | sed -n -E 's/.* tests="([0-9]+)".*/\1/p'); n=${n:-1}
          f=$(echo "$root" | sed -n -E 's/.* failures="([0-9]+)".*/\1/p'); f=${f:-0}
          e=$(echo "$root" | sed -n -E 's/.* errors="([0-9]+)".*/\1/p'); e=${e:-0}
          d=$(echo "$root" | sed -n -E 's/.* disabled="([0-9]+)".*/\1/p'); d=${d:-0}
          s=$(grep -c 'result="skipped"' "$xml" || true)
          bad=$((f + e))
          if [ "$status" = FAILED ] && [ "$bad" -eq 0 ]; then bad=1; fi  # crashed before reporting
          good=$((n - d - s - f - e)); [ "$good" -lt 0 ] && good=0
          passed=$((passed + good)); failed=$((failed + bad)); skipped=$((skipped + s))
        elif [ "$status" = PASSED ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
        ;;
      *) failed=$((failed + 1)) ;;  # FAILED TO BUILD, NO STATUS, TIMEOUT, FLAKY
    esac
  done < <(sed -n -E 's@^(//[^ ]+)[[:space:]]+(\(cached\)[[:space:]]+)?(PASSED|FAILED TO BUILD|FAILED|NO STATUS|TIMEOUT|FLAKY).*@\1 \3@p' "$log" | sed 's/FAILED TO BUILD/FAILED_TO_BUILD/; s/NO STATUS/NO_STATUS/')
  rm -f "$log"

  if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then failed=1; echo "no test results found" >&2; fi
  if [ "$bazel_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; echo "bazel test exited $bazel_rc" >&2; fi
  echo "[${opts[*]:-default} ${targets[*]}]: $passed passed, $failed failed, $skipped skipped"
  total_passed=$((total_passed + passed)); total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
}

if [ $# -eq 0 ]; then
  run_suite
  # 500 random programs under ASan (the plain run checks 2000): 92 s -> ~25 s.
  run_suite --config=asan --test_env=ATENAOT_RANDOM_PROGRAMS=500 -- "${ASAN_TARGETS[@]}"
else
  run_suite "$@"
fi
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" -eq 0 ]
