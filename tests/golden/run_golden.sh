#!/usr/bin/env bash
# Runs one golden test file the LLVM lit way: every "// RUN: <cmd>" (or
# "# RUN:") line is a shell pipeline, run with pipefail. Substitutions:
#   atenaot   the atenaot binary under test
#   FileCheck LLVM's FileCheck (Debian llvm-14-tools)
#   not       inverts the exit status of the command after it
#   %s        the test file itself (what FileCheck reads its CHECK lines from)
#   %i        the test file with its comment lines removed (for TorchScript IR
#             text, whose parser has no comment syntax)
#   %S        the directory of the test file
#   %t        a scratch path unique to this test
# Usage: run_golden.sh ATENAOT_BIN TEST_FILE
set -euo pipefail
bin="$1"
file="$2"
filecheck="${FILECHECK:-/usr/lib/llvm-14/bin/FileCheck}"
[ -x "$filecheck" ] || filecheck="$(command -v FileCheck || true)"
if [ -z "$filecheck" ]; then
  echo "FileCheck not found: install llvm-14-tools" >&2
  exit 1
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
stripped="$tmp/input"
grep -v -E '^[[:space:]]*(//|#)' "$file" > "$stripped" || true
dir="$(cd "$(dirname "$file")" && pwd)"

not() { if "$@"; then return 1; else return 0; fi; }
export -f not

mapfile -t runs < <(sed -n -E 's@^[[:space:]]*(//|#) RUN: (.*)$@\2@p' "$file")
if [ "${#runs[@]}" -eq 0 ]; then
  echo "$file: no RUN lines" >&2
  exit 1
fi
for cmd in "${runs[@]}"; do
  cmd="${cmd//%s/$file}"
  cmd="${cmd//%i/$stripped}"
  cmd="${cmd//%S/$dir}"
  cmd="${cmd//%t/$tmp/t}"
  cmd="$(echo "$cmd" | sed -E "s@(^|[|;&( ])atenaot @\1$bin @g; s@(^|[|;&( ])FileCheck @\1$filecheck @g")"
  echo "RUN: $cmd"
  if ! bash -o pipefail -c "$cmd"; then
    echo "FAILED: $file" >&2
    exit 1
  fi
done
