#!/usr/bin/env bash
# CUDA codegen in CI (no GPU needed): every example model, every fixture and
# tests/cuda/ops (IR text: kernels the others do not reach) is compiled with `atenaot compile --target cuda --emit-only`, and each
# emitted NAME.cu must then compile with nvcc with every warning an error
# (-Werror all-warnings, host -Wall -Wextra -Werror), for sm_90 with its PTX.
# Fixtures listed in UNSUPPORTED use ops the CUDA backend does not lower; for
# them compile must fail naming the op. nvcc runs JOBS (default 2) at a time.
#
# Each model is one test case in $XML_OUTPUT_FILE (tools/test.sh counts them);
# without nvcc every case is reported skipped, never passed.
# Usage: cuda_compile_test.sh ATENAOT_BIN
set -uo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
jobs="${JOBS:-2}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
xml="${XML_OUTPUT_FILE:-$tmp/test.xml}"
# Fixtures whose compile must fail, as "fixture:op-it-must-name" words.
export UNSUPPORTED="multi_output:aten::topk"

models=()
for m in examples/*/model.pt tests/fixtures/*/model.pt tests/cuda/*/model.ir; do models+=("$(dirname "$m")"); done
if [ "${#models[@]}" -lt 10 ]; then
  echo "found only ${#models[@]} models under examples/ and tests/fixtures/ (runfiles missing?)" >&2
  exit 1
fi

write_xml() {  # write_xml RESULT_DIR
  local n=0 f=0 s=0 body=""
  for m in "${models[@]}"; do
    local id="${m//\//_}" st msg
    st="$(cat "$1/$id.status" 2>/dev/null || echo "failed: no result")"
    n=$((n + 1))
    msg="$(sed -e 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g' "$1/$id.log" 2>/dev/null | head -c 4000)"
    case "$st" in
      ok) body+="    <testcase name=\"$m\" classname=\"cuda_compile\"/>"$'\n' ;;
      skipped*) s=$((s + 1)); body+="    <testcase name=\"$m\" classname=\"cuda_compile\" result=\"skipped\"><skipped message=\"${st#skipped: }\"/></testcase>"$'\n' ;;
      *) f=$((f + 1)); body+="    <testcase name=\"$m\" classname=\"cuda_compile\"><failure message=\"${st//\"/}\">$msg</failure></testcase>"$'\n' ;;
    esac
  done
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="%d" failures="%d" errors="0" disabled="0">\n  <testsuite name="cuda_compile_test" tests="%d" failures="%d" skipped="%d" errors="0">\n%s  </testsuite>\n</testsuites>\n' \
    "$n" "$f" "$n" "$f" "$s" "$body" > "$xml"
  echo "$n models: $((n - f - s)) passed, $f failed, $s skipped"
  [ "$f" -eq 0 ]
}

res="$tmp/results"
mkdir -p "$res"
if [ ! -x "$nvcc" ]; then
  for m in "${models[@]}"; do echo "skipped: nvcc not found at $nvcc (set NVCC)" > "$res/${m//\//_}.status"; done
  echo "SKIPPED: nvcc not found at $nvcc; no CUDA source was compiled" >&2
  write_xml "$res"
  exit 0
fi

one() {  # one MODEL_DIR: emit, then nvcc
  local m="$1" id="${1//\//_}" name out t0
  name="$(basename "$m")"
  out="$tmp/$id"
  rm -rf "$out"
  local ins
  ins="$(ls "$m"/input_*.npy | sort -V | tr '\n' ' ')"
  # shellcheck disable=SC2086
  local model="$m/model.pt"
  [ -f "$model" ] || model="$m/model.ir"
  "$bin" compile "$model" --inputs $ins -o "$out" --name "$name" --target cuda --emit-only > "$res/$id.log" 2>&1
  local rc=$?
  local want=""
  for u in $UNSUPPORTED; do [ "$m" = "tests/fixtures/${u%%:*}" ] && want="${u#*:}"; done
  if [ -n "$want" ]; then
    if [ "$rc" -ne 0 ] && grep -q "CUDA backend cannot compile.*$want" "$res/$id.log"; then echo ok > "$res/$id.status"
    else echo "failed: expected compile to report $want as unsupported" > "$res/$id.status"; fi
    return
  fi
  if [ "$rc" -ne 0 ]; then echo "failed: atenaot compile --target cuda exited $rc" > "$res/$id.status"; return; fi
  t0=$(date +%s%N)
  if "$nvcc" -O3 -gencode 'arch=compute_90,code=[sm_90,compute_90]' -Werror all-warnings \
      -Xcompiler -Wall,-Wextra,-Werror,-fPIC -I"$out" -c -o "$out/$name.o" "$out/$name.cu" >> "$res/$id.log" 2>&1; then
    echo ok > "$res/$id.status"
    echo "$m: nvcc $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  else
    echo "failed: nvcc rejected the emitted $name.cu (see log)" > "$res/$id.status"
    cat "$res/$id.log" >&2
  fi
}
export -f one
export bin nvcc tmp res
printf '%s\n' "${models[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}
write_xml "$res"
