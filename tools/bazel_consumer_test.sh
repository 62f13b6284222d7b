#!/bin/bash
# CI check of examples/bazel_consumer: a workspace of its own that depends on
# atenaot through local_repository builds offline, its generated
# classifier_test passes, its cc_binary runs, and a second build is a no-op.
# Usage: bash tools/bazel_consumer_test.sh   (from anywhere; exit 0 = pass)
# The consumer has its own Bazel server and output base (first build: the
# atenaot tool from scratch, ~10 min on 2 cores; later ones hit the disk
# cache); the server exits 60 s after the last command.
set -u
cd "$(dirname "$0")/../examples/bazel_consumer" || exit 1
bazel=(bazel --max_idle_secs=60)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail() { echo "bazel_consumer: FAIL: $*"; exit 1; }

"${bazel[@]}" build //... || fail "bazel build //... in examples/bazel_consumer"
"${bazel[@]}" test //... || fail "bazel test //... in examples/bazel_consumer"
bin=$("${bazel[@]}" info bazel-bin 2>/dev/null) || fail "bazel info bazel-bin"
out=$("$bin/classify") || fail "classify exited with status $?"
echo "$out"
[[ "$out" == "classify: arena "*" bytes, classes:"* ]] || fail "classify printed '$out'"

# Nothing changed, so nothing may run again (cached actions are not executed).
"${bazel[@]}" build //... 2>&1 | tee "$log" | tail -1
if grep -E '^INFO: [0-9]+ process(es)?: ' "$log" | grep -qvE '^INFO: [0-9]+ process(es)?: [0-9]+ internal\.$'; then
  grep -E '^INFO: [0-9]+ process' "$log"
  fail "a second build ran actions"
fi
echo "bazel_consumer: PASS (built offline, classifier_test passed, classify ran, second build a no-op)"
