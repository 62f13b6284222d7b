#!/usr/bin/env bash
# CUDA codegen in CI (no GPU needed): every example model, every fixture and
# tests/cuda/ops (IR text: kernels the others do not reach) is compiled with
# `atenaot compile --target cuda`, the real build path (build_cuda_library.cc):
# nvcc builds libNAME.so from the emitted NAME.cu (linked against cuBLAS) and
# the C ABI runtime, with every warning an error (-Werror all-warnings, host
# -Wall -Wextra -Werror, passed through $NVCC), for sm_90 with its PTX.
# Fixtures listed in UNSUPPORTED use ops the CUDA backend does not lower; for
# them compile must fail naming the op. nvcc runs JOBS at a time (default 2,
# 1 when Bazel shards the test: its shards already run side by side).
#
# Each model is one test case in $XML_OUTPUT_FILE (tools/test.sh counts them);
# without nvcc every case is reported skipped, never passed (and tools/test.sh
# ends with "CUDA NOT CHECKED").
# Usage: cuda_compile_test.sh ATENAOT_BIN
set -uo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
jobs="${JOBS:-$([ -n "${TEST_TOTAL_SHARDS:-}" ] && echo 1 || echo 2)}"
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
# Bazel sharding (shard_count in BUILD): this shard takes every TOTAL-th model.
if [ -n "${TEST_TOTAL_SHARDS:-}" ]; then
  [ -n "${TEST_SHARD_STATUS_FILE:-}" ] && touch "$TEST_SHARD_STATUS_FILE"
  mine=()
  for i in "${!models[@]}"; do [ $((i % TEST_TOTAL_SHARDS)) -eq "${TEST_SHARD_INDEX:-0}" ] && mine+=("${models[$i]}"); done
  models=("${mine[@]}")
  echo "shard ${TEST_SHARD_INDEX:-0} of $TEST_TOTAL_SHARDS: ${#models[@]} models"
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

# compile takes $NVCC as one executable: the strict flags go in a wrapper.
printf '#!/bin/sh\nexec "%s" -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror "$@"\n' "$nvcc" > "$tmp/nvcc_strict"
chmod +x "$tmp/nvcc_strict"

one() {  # one MODEL_DIR: atenaot compile --target cuda (nvcc builds and links)
  local m="$1" id="${1//\//_}" name out t0
  name="$(basename "$m")"
  out="$tmp/$id"
  rm -rf "$out"
  local ins
  # A program without tensor inputs takes no --inputs.
  ins="$(ls "$m"/input_*.npy 2>/dev/null | sort -V | tr '\n' ' ')"
  [ -z "$ins" ] || ins="--inputs $ins"
  # shellcheck disable=SC2086
  local model="$m/model.pt"
  [ -f "$model" ] || model="$m/model.ir"
  local want=""
  for u in $UNSUPPORTED; do [ "$m" = "tests/fixtures/${u%%:*}" ] && want="${u#*:}"; done
  t0=$(date +%s%N)
  # The real build, through nvcc_strict (nvcc with the strict flags); compile writes libNAME.so.
  NVCC="$tmp/nvcc_strict" "$bin" compile "$model" $ins -o "$out" --name "$name" --target cuda > "$res/$id.log" 2>&1
  local rc=$?
  if [ -n "$want" ]; then
    if [ "$rc" -ne 0 ] && grep -q "CUDA backend cannot compile.*$want" "$res/$id.log"; then echo ok > "$res/$id.status"
    else echo "failed: expected compile to report $want as unsupported" > "$res/$id.status"; fi
    return
  fi
  if [ "$rc" -ne 0 ]; then
    echo "failed: atenaot compile --target cuda exited $rc (see log)" > "$res/$id.status"
    cat "$res/$id.log" >&2
  elif [ ! -s "$out/lib$name.so" ] || [ ! -s "$out/libatenaot_runtime.so" ]; then
    echo "failed: compile --target cuda exited 0 but did not write lib$name.so and libatenaot_runtime.so" > "$res/$id.status"
  elif ! nm -D --defined-only "$out/lib$name.so" | grep -q ' aot_compiled_model_entry$'; then
    echo "failed: lib$name.so does not export aot_compiled_model_entry" > "$res/$id.status"
  else
    echo ok > "$res/$id.status"
    echo "$m: compile + nvcc + link $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  fi
}
export -f one
export bin nvcc tmp res
printf '%s\n' "${models[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}
write_xml "$res"
