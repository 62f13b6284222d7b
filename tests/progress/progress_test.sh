#!/usr/bin/env bash
# The stage display of `compile` and `plan` (tools/progress.h): shown when
# stderr is a terminal (util-linux `script` provides one), never in a pipe,
# never with --quiet, and cleared before results and errors.
set -euo pipefail
source tests/testing/sh_test_lib.sh
command -v script >/dev/null || skip_test progress_test tty ProgressTest "no util-linux 'script' to provide a terminal"
atenaot="$(cd "$(dirname "$atenaot")" && pwd)/$(basename "$atenaot")"
ex=examples/cnn
fails=0
check() {  # check WHAT FILE [!] PATTERN
  local what="$1" file="$2" neg=""
  shift 2
  if [ "$1" = "!" ]; then neg=1; shift; fi
  if grep -q -- "$1" "$file"; then found=1; else found=""; fi
  if { [ -n "$found" ] && [ -z "$neg" ]; } || { [ -z "$found" ] && [ -n "$neg" ]; }; then
    echo "ok    $what"
  else
    echo "FAIL  $what (pattern '$1'${neg:+ must not appear}) in:"; cat -v "$file"; fails=$((fails + 1))
  fi
}
on_tty() {  # on_tty OUT COMMAND...: runs COMMAND with a terminal for stdout and stderr
  local out="$1"
  shift
  script -qfec "$(printf '%q ' "$@")" /dev/null > "$out" 2>&1 || true
}

on_tty "$tmp/c.tty" "$atenaot" compile $ex/model.pt --inputs $ex/input_0.npy -o "$tmp/c1" --name cnn
check "compile on a terminal: import stage" "$tmp/c.tty" "atenaot: \[ *[0-9.]* s\] import"
check "compile on a terminal: pass stages" "$tmp/c.tty" "passes: reinplace done"
check "compile on a terminal: C build stage" "$tmp/c.tty" "build libcnn.so"
check "compile on a terminal: result line" "$tmp/c.tty" "compiled $ex/model.pt -> "
"$atenaot" compile $ex/model.pt --inputs $ex/input_0.npy -o "$tmp/c2" --name cnn 2> "$tmp/c.err" > /dev/null
check "compile, stderr a file: nothing on stderr" "$tmp/c.err" ! "."
on_tty "$tmp/q.tty" "$atenaot" compile $ex/model.pt --inputs $ex/input_0.npy -o "$tmp/c3" --name cnn --quiet
check "compile --quiet on a terminal: no stages" "$tmp/q.tty" ! "atenaot: \["
check "compile --quiet on a terminal: result line" "$tmp/q.tty" "compiled $ex/model.pt -> "
on_tty "$tmp/p.tty" "$atenaot" plan $ex/model.pt --inputs $ex/input_0.npy
check "plan on a terminal: eager reference stage" "$tmp/p.tty" "eager peak (LibTorch reference run)"
check "plan on a terminal: the report" "$tmp/p.tty" "^arena: "
on_tty "$tmp/e.tty" "$atenaot" compile $ex/model.pt --inputs $ex/input_0.npy -o "$tmp/c4" --name cnn --algo nosuch
check "error on a terminal: the one-line error" "$tmp/e.tty" "atenaot: error: .*nosuch"
check "error on a terminal: the stage line cleared first" "$tmp/e.tty" $'\033\[Katenaot: error:'
[ "$fails" -eq 0 ] || { echo "progress_test: $fails FAILED"; exit 1; }
echo "progress_test: all passed"
