#!/bin/bash
# Layering of the LibTorch-free core (issue 18), enforced by Bazel:
#   ir/, io/  <-  passes/, plan/  <-  codegen/ (emits only)  <-  driver/  <-  CLI
# 1. Visibility: each probe in tests/layering (a package outside the allowed
#    users) must be rejected with "is not visible"; the ir/ control accepted.
# 2. No path: codegen/ reaches no passes/ target, plan/ none of passes/,
#    codegen/, driver/, and ir/ and io/ none of the layers above them.
# Usage: bash tools/layering_test.sh   (exit 0 = pass)
set -u
cd "$(dirname "$0")/.." || exit 1
fail=0
for probe in uses_passes uses_codegen uses_plan uses_driver; do
  out=$(bazel build --nobuild "//tests/layering:$probe" 2>&1)
  if [ $? -eq 0 ] || ! grep -q "is not visible from target '//tests/layering:$probe'" <<<"$out"; then
    echo "layering: FAIL: //tests/layering:$probe was not rejected for visibility"
    fail=1
  fi
done
if ! bazel build --nobuild //tests/layering:uses_ir >/dev/null 2>&1; then
  echo "layering: FAIL: the control //tests/layering:uses_ir was rejected"
  fail=1
fi
check_no_path() {  # FROM TO: no dependency from FROM's targets to TO's
  local got
  got=$(bazel query "deps($1) intersect ($2)" 2>/dev/null) || { echo "layering: FAIL: query deps($1)"; fail=1; return; }
  if [ -n "$got" ]; then
    echo "layering: FAIL: $1 depends on $2: $(echo "$got" | tr '\n' ' ')"
    fail=1
  fi
}
check_no_path "//codegen/..." "//passes/... + //driver/..."
check_no_path "//plan/..." "//passes/... + //codegen/... + //driver/..."
check_no_path "//passes/..." "//plan/... + //codegen/... + //driver/..."
check_no_path "//ir/... + //io/..." "//passes/... + //plan/... + //codegen/... + //driver/..."
[ "$fail" -eq 0 ] && echo "layering: PASS (4 cross-layer dependencies rejected by visibility, no path across layers)"
exit "$fail"
