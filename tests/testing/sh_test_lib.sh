# Shared by the shell tests that drive `atenaot compile` (tests/c_abi,
# tests/embedded, tests/python, tests/rust). Source it, after `set -euo
# pipefail`, from a script called as `SCRIPT ATENAOT [...]`:
#
#   source tests/testing/sh_test_lib.sh
#
# It sets
#   atenaot   the CLI ($1)
#   tmp       a scratch directory ($TEST_TMPDIR under Bazel)
# and defines
#   compile_example EXAMPLE DIR NAME [ARGS...]
#             atenaot compile examples/EXAMPLE/model.pt on its input_0.npy
#             into DIR as NAME, with ARGS (e.g. --embedded, --weights file)
#   skip_test SUITE CASE CLASS MESSAGE
#             prints "SKIPPED: MESSAGE", writes a one-case JUnit report marked
#             skipped (tools/test.sh counts it) and exits 0
atenaot="${1:?usage: $0 ATENAOT [...]}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

compile_example() {
  local ex="examples/$1" dir="$2" name="$3"
  shift 3
  "$atenaot" compile "$ex/model.pt" --inputs "$ex/input_0.npy" -o "$dir" --name "$name" "$@"
}

skip_test() {
  echo "SKIPPED: $4"
  if [ -n "${XML_OUTPUT_FILE:-}" ]; then
    cat > "$XML_OUTPUT_FILE" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="0" errors="0" disabled="0">
  <testsuite name="$1" tests="1" failures="0" errors="0" skipped="1">
    <testcase name="$2" classname="$3" result="skipped"><skipped message="$4"/></testcase>
  </testsuite>
</testsuites>
XML
  fi
  exit 0
}
