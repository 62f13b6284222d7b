#!/usr/bin/env bash
# atenaot-passes gives the same IR as `atenaot dump` (which loads LibTorch's
# live op table) at every stage, on the reinplace and functionalize goldens'
# graphs; it links no LibTorch; bad input gets one error line and status 1.
set -euo pipefail
atenaot="$1"; passes="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# The op table is the snapshot //schema:dispatcher_schemas_test checks
# against the live dispatcher, so a sample of graphs suffices here (each
# `atenaot dump` pays seconds of LibTorch start-up).
n=0
for f in $(ls tests/golden/reinplace/*.ir | head -6) $(ls tests/golden/functionalize/*.ir | head -6); do
  for stage in functional reinplaced; do
    if "$atenaot" dump "$f" --stage "$stage" > "$tmp/want" 2> "$tmp/want_err"; then
      "$passes" --stage "$stage" "$f" > "$tmp/got" || { echo "atenaot-passes failed on $f ($stage)"; exit 1; }
      cmp -s "$tmp/want" "$tmp/got" || { echo "differs from atenaot dump: $f ($stage)"; diff "$tmp/want" "$tmp/got" | head; exit 1; }
      n=$((n + 1))
    else
      if "$passes" --stage "$stage" "$f" > /dev/null 2> "$tmp/got_err"; then
        echo "atenaot dump refused $f ($stage) but atenaot-passes accepted it"; exit 1
      fi
      [ "$(grep -c 'atenaot: error:' "$tmp/got_err")" = 1 ] || { echo "no one-line error for $f"; cat "$tmp/got_err"; exit 1; }
    fi
  done
done
[ "$n" -ge 12 ] || { echo "only $n graph/stage pairs compared"; exit 1; }
# stdin, and the default stage (reinplaced).
f=tests/golden/reinplace/inplace_chain.ir
"$passes" < "$f" > "$tmp/stdin"
"$atenaot" dump "$f" --stage reinplaced | cmp -s - "$tmp/stdin"
# No LibTorch in the binary.
if ldd "$passes" | grep -qi torch; then echo "atenaot-passes links LibTorch"; ldd "$passes"; exit 1; fi
# Errors: one line, status 1 (2 for usage).
echo 'graph @f(%x: f32[4]@s0) { %y = aten::no_such_op(%x) : f32[4]@s1 return %y }' > "$tmp/bad.ir"
set +e
"$passes" "$tmp/bad.ir" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ "$rc" = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '^atenaot: error: .*no_such_op' "$tmp/err" \
  || { echo "bad op: rc $rc"; cat "$tmp/err"; exit 1; }
set +e
"$passes" --stage nope "$f" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q '^atenaot: error: ' "$tmp/err" || { echo "bad stage: rc $rc"; exit 1; }
echo "PASS: $n graph/stage pairs equal atenaot dump"
