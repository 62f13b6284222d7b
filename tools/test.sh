#!/usr/bin/env bash
# Runs every test (installing missing packages first) and ends with the line
#   N passed, M failed, K skipped
# counted from the test cases themselves: GoogleTest cases from each target's
# test.xml, one case per golden sh_test, and a target that did not build or
# timed out as one failure. Exit status is 0 only when nothing failed.
# Extra arguments go to `bazel test` (e.g. --config=asan).
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh

log="$(mktemp)"
bazel test //... -k --test_output=errors --test_summary=short "$@" 2>&1 | tee "$log"
bazel_rc=${PIPESTATUS[0]}

testlogs="$(bazel info bazel-testlogs 2>/dev/null)"
passed=0; failed=0; skipped=0
# Summary lines look like: "//ir:schema_test   (cached) PASSED in 0.1s".
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
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
