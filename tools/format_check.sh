#!/bin/bash
# The C and C++ sources are formatted as .clang-format says (Google style, 120
# columns; issue 18). Lists each file clang-format would change, with the first
# lines of its diff, and exits 1 if there is any. Fix with:
#   git ls-files '*.cc' '*.h' '*.c' '*.cu' | grep -v '^third_party/' | xargs clang-format-14 -i
# Usage: bash tools/format_check.sh   (exit 0 = formatted)
set -u
cd "$(dirname "$0")/.." || exit 1
fmt=$(command -v clang-format-14 || command -v clang-format) || { echo "format: FAIL: clang-format-14 not found (bash tools/setup.sh)"; exit 1; }
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' '*.cu' | grep -v '^third_party/')
[ "${#files[@]}" -gt 0 ] || { echo "format: FAIL: no sources found (not a git checkout?)"; exit 1; }
bad=0
for f in "${files[@]}"; do
  if ! out=$(diff -u "$f" <("$fmt" --style=file "$f") 2>&1); then
    echo "format: $f is not clang-formatted:"
    head -n 12 <<<"$out"
    bad=$((bad + 1))
  fi
done
[ "$bad" -eq 0 ] && echo "format: ${#files[@]} files formatted" || echo "format: FAIL: $bad of ${#files[@]} files need clang-format"
[ "$bad" -eq 0 ]
