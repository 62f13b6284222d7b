#!/usr/bin/env bash
# `compile --cpu`: libraries built for an instruction set this CPU has load
# and match eager; one built for extensions it lacks fails at aot_model_open
# with AOT_ERR_UNSUPPORTED_CPU and a message naming the extension (never
# SIGILL). A CPU without a feature is simulated with the generated code's test
# hook (-DAOT_TEST_HIDE_CPU_FEATURE), and the check itself must be baseline
# x86-64 code (no VEX/EVEX instructions) even in a v4 build.
set -euo pipefail
source tests/testing/sh_test_lib.sh
[ "$(uname -m)" = x86_64 ] || skip_test cpu_check_test x86_64 tests.c_abi "the CPU check is for x86-64 hosts"
ex=examples/mlp
has() { grep -qw "$1" /proc/cpuinfo; }

run_ok() {  # DIR: exec matches eager
  "$atenaot" exec "$1" --name mlp --inputs $ex/input_0.npy --out-dir "$1/out"
  "$atenaot" compare $ex/expected "$1/out"
}
run_unsupported() {  # DIR FEATURE: open fails cleanly, naming FEATURE
  local rc=0
  "$atenaot" exec "$1" --name mlp --inputs $ex/input_0.npy --out-dir "$1/out" 2> "$1/err" || rc=$?
  cat "$1/err"
  [ "$rc" -ne 0 ] || { echo "$1 opened on a CPU without $2"; exit 1; }
  [ "$rc" -lt 128 ] || { echo "$1 died with signal $((rc - 128))"; exit 1; }
  grep -q "AOT_ERR_UNSUPPORTED_CPU: .*needs the CPU feature $2, which this CPU lacks" "$1/err"
}

for cpu in x86-64-v2 x86-64-v3 x86-64-v4 native; do
  d="$tmp/$cpu"
  compile_example mlp "$d" mlp --cpu "$cpu" | tee "$d.log"
  grep -q -- "--cpu $cpu;" "$d.log"
  case $cpu in
    x86-64-v3) need=avx2 ;;
    x86-64-v4) need=avx512f ;;
    *) need=sse2 ;;
  esac
  if has "$need"; then run_ok "$d"; else run_unsupported "$d" "$need"; fi
done
# The default is this machine's highest level.
compile_example mlp "$tmp/default" mlp | tee "$tmp/default.log"
if has avx512f && has avx512bw && has avx512vl && has avx512dq && has avx512cd; then want=x86-64-v4
elif has avx2 && has fma && has bmi2; then want=x86-64-v3
else want=x86-64-v2; fi
grep -q -- "--cpu $want;" "$tmp/default.log" || { echo "the default --cpu is not $want"; exit 1; }
run_ok "$tmp/default"

# A v4 build whose CPU "lacks" AVX-512BW (test hook), and a v3 one without AVX2.
for pair in x86-64-v4:avx512bw x86-64-v3:avx2; do
  cpu=${pair%%:*}; hide=${pair##*:}
  d="$tmp/hide_$hide"
  cp -r "$tmp/$cpu" "$d"
  (cd "$d" && cc -std=c99 -O2 -fPIC -shared -march=$cpu -DAOT_SHARED_ENTRY "-DAOT_TEST_HIDE_CPU_FEATURE=\"$hide\"" \
     "-DAOT_CPU_NAME=\"--cpu $cpu\"" -I. mlp.c mlp_weights.S -o libmlp.so -lm)
  run_unsupported "$d" "$hide"
  grep -q "built for --cpu $cpu" "$d/err"
done

# The open hook and the check run before anything else of a v4 library: no
# AVX (VEX) or AVX-512 (EVEX) instruction in them.
objdump -d --no-show-raw-insn "$tmp/x86-64-v4/libmlp.so" > "$tmp/v4.dis"
for fn in aot__open_checked aot__cpu_check aot__cpu_fail aot_compiled_model_entry; do
  body="$(awk -v f="<$fn>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' "$tmp/v4.dis")"
  if [ -z "$body" ]; then  # the static helpers may be inlined into the open hook
    case $fn in aot__cpu_check | aot__cpu_fail) continue ;; esac
    echo "$fn not found in the v4 library"; exit 1
  fi
  if echo "$body" | grep -E '%[yz]mm|\bv[a-z0-9]+ ' ; then echo "$fn uses AVX instructions"; exit 1; fi
done
echo "cpu_check_test: all passed"
