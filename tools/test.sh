#!/usr/bin/env bash
# Runs the tests (installing missing packages first) and ends with the line
#   N passed, M failed, K skipped (distinct test cases; ...)
# counted by tools/count_tests.py from the test cases themselves: GoogleTest
# cases from each target's test.xml, the cases a shell test reports (one for a
# golden sh_test), a target that did not build or timed out as one failure, a
# test that failed without a failing case (a crash) as one failure, never as a
# pass too. A case run in several bazel runs (the plain run, then the
# sanitizer reruns) counts once; each run also gets its own line. Skipped cases
# are listed by name with their reasons; a skip not on tests/skip_allowlist.txt
# counts as a failure. Exit status is 0 only when nothing failed.
#
#   bash tools/test.sh                          # CI: all tests, ASAN_TARGETS under --config=asan, UBSAN_TARGETS under --config=ubsan
#   bash tools/test.sh [bazel options] [-- targets]   # one run, e.g. --config=ubsan -- //ir/...
#
# The ASan part covers the LibTorch-free unit tests, the fuzz regressions and
# the random programs; the UBSan part the LibTorch-free targets (LibTorch
# itself is not built with -fsanitize=undefined; 15 targets today, 10 min from
# a cold UBSan build on the loaded 2-core machine). The other LibTorch-linked
# tests are left out to keep CI's clean build short (measured on the 2-core
# machine, from a clean output base: the ASan part alone 223 s, 122 actions;
# 407 s next to a fuzzer with 2000 random programs. The plain suite takes
# 12-19 min.) Run them with `bash tools/test.sh --config=asan`.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh

ASAN_TARGETS=(//ir/... //io/... //passes/... //plan/... //schema/... //fuzz/... //tests/random/...)
# The C++ tests that do not link LibTorch (which is not built with UBSan).
ubsan_targets() { bazel query 'kind(cc_test, //...) except rdeps(//..., @libtorch//:all)' 2>/dev/null; }

manifest="$(mktemp -d)"  # RUN TARGET STATUS XML lines, and copies of each test.xml
trap 'rm -rf "$manifest"' EXIT
bazel_failed=0 copies=0

# run_suite [bazel options] -- targets: one `bazel test`; each target's status
# and test.xml go to the manifest that tools/count_tests.py counts.
run_suite() {
  local opts=() targets=()
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; targets=("$@"); break; fi
    opts+=("$1"); shift
  done
  [ ${#targets[@]} -eq 0 ] && targets=(//...)

  local log bazel_rc testlogs label
  label="${opts[*]:-default} ${targets[*]}"
  log="$(mktemp)"
  bazel test -k --test_output=errors --test_summary=short "${opts[@]}" -- "${targets[@]}" 2>&1 | tee "$log"
  bazel_rc=${PIPESTATUS[0]}
  # The options matter: sanitizer configs keep their test logs elsewhere (.bazelrc).
  testlogs="$(bazel info "${opts[@]}" bazel-testlogs 2>/dev/null || bazel info bazel-testlogs 2>/dev/null)"

  # Summary lines look like: "//ir:schema_test   (cached) PASSED in 0.1s".
  local target status dir xml xmls copy
  while read -r target status; do
    dir="$testlogs/${target#//}"
    dir="${dir/://}"
    # A sharded test has one report per shard (shard_K_of_N/test.xml).
    xmls=("$dir/test.xml")
    [ -f "$dir/test.xml" ] || xmls=("$dir"/shard_*_of_*/test.xml)
    for xml in "${xmls[@]}"; do
      copy=-
      if [ -f "$xml" ]; then copy="$manifest/$((++copies)).xml"; cp "$xml" "$copy"; fi
      printf '%s\t%s\t%s\t%s\n' "$label" "$target" "$status" "$copy" >> "$manifest/list"
    done
  done < <(sed -n -E 's@^(//[^ ]+)[[:space:]]+(\(cached\)[[:space:]]+)?(PASSED|FAILED TO BUILD|FAILED|NO STATUS|TIMEOUT|FLAKY).*@\1 \3@p' "$log" | sed 's/FAILED TO BUILD/FAILED_TO_BUILD/; s/NO STATUS/NO_STATUS/')
  rm -f "$log"
  if ! grep -q -F -e "$label"$'\t' "$manifest/list" 2>/dev/null; then
    echo "[$label]: no test results found" >&2; bazel_failed=$((bazel_failed + 1))
  elif [ "$bazel_rc" -ne 0 ] && [ "$bazel_rc" -ne 3 ] &&
       ! grep -F -e "$label"$'\t' "$manifest/list" | cut -f3 | grep -qv -E '^(PASSED|FAILED)$'; then
    # 3: tests failed; 1 with a target that did not build: both counted as cases.
    echo "[$label]: bazel test exited $bazel_rc" >&2; bazel_failed=$((bazel_failed + 1))
  fi
}

if [ $# -eq 0 ]; then
  run_suite
  # 500 random programs under ASan (the plain run checks 2000): 92 s -> ~25 s.
  run_suite --config=asan --test_env=ATENAOT_RANDOM_PROGRAMS=500 -- "${ASAN_TARGETS[@]}"
  mapfile -t UBSAN_TARGETS < <(ubsan_targets)
  if [ "${#UBSAN_TARGETS[@]}" -eq 0 ]; then echo "bazel query found no LibTorch-free tests for UBSan" >&2; bazel_failed=$((bazel_failed + 1))
  else run_suite --config=ubsan -- "${UBSAN_TARGETS[@]}"; fi
  # examples/bazel_consumer: another workspace using atenaot_library through
  # local_repository (its own Bazel server; ~10 min the first time on 2 cores,
  # seconds after). One case: it builds, its generated test passes, it runs.
  if bash tools/bazel_consumer_test.sh; then consumer=PASSED; else consumer=FAILED; fi
  printf '%s\t%s\t%s\t%s\n' "tools/bazel_consumer_test.sh" "//examples/bazel_consumer:all" "$consumer" - >> "$manifest/list"
  # Layering (issue 18): cross-layer dependencies rejected by Bazel visibility
  # and absent from the graph; Bazel inside Bazel, so run here. One case.
  if bash tools/layering_test.sh; then layering=PASSED; else layering=FAILED; fi
  printf '%s\t%s\t%s\t%s\n' "tools/layering_test.sh" "//tests/layering:all" "$layering" - >> "$manifest/list"
  # Formatting (issue 18): every C/C++ source as .clang-format lays it out. One case.
  if bash tools/format_check.sh; then formatting=PASSED; else formatting=FAILED; fi
  printf '%s\t%s\t%s\t%s\n' "tools/format_check.sh" "//:clang_format" "$formatting" - >> "$manifest/list"
else
  run_suite "$@"
fi
echo
# Per-run lines, the skipped cases by name (checked against the allow-list),
# then the final line, counting each distinct test case once.
python3 tools/count_tests.py "$manifest/list" tests/skip_allowlist.txt
count_rc=$?
if [ "$bazel_failed" -ne 0 ]; then echo "and $bazel_failed bazel run(s) failed outside the test cases (see above)"; fi
[ "$count_rc" -eq 0 ] && [ "$bazel_failed" -eq 0 ]
