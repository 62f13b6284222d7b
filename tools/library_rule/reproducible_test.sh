#!/bin/bash
# atenaot_library's compile step is byte-reproducible: compiling the example
# MLP again, twice, in other directories gives exactly the files Bazel's
# AtenaotCompile action made (//examples:mlp_srcs), so the action caches and
# runs remotely without spurious rebuilds.
# Usage (Bazel passes these): reproducible_test.sh ATENAOT MODEL INPUT BAZEL_FILE...
set -u
atenaot=$1 model=$2 input=$3
shift 3
fail=0
for run in 1 2; do
  out=$TEST_TMPDIR/run$run/src
  if ! "$atenaot" compile "$model" --inputs "$input" -o "$out" --name mlp --weights embed --emit-only >/dev/null; then
    echo "FAIL: atenaot compile (run $run)"
    exit 1
  fi
  for f in "$@"; do
    if cmp -s "$f" "$out/$(basename "$f")"; then
      echo "ok: run $run: $(basename "$f") is byte-identical to Bazel's"
    else
      echo "FAIL: run $run: $(basename "$f") differs from Bazel's $f"
      fail=1
    fi
  done
  extra=$(ls "$out" | wc -l)
  if [ "$extra" -ne $# ]; then
    echo "FAIL: run $run wrote $extra files, Bazel declared $#"
    fail=1
  fi
done
exit $fail
