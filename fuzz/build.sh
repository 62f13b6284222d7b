#!/usr/bin/env bash
# Builds the libFuzzer targets outside Bazel with clang++-14:
#   bash fuzz/build.sh [TARGET...]     (default: all five)
# Environment: CLEAN=1 rebuilds every object; FUZZ_OUT=DIR builds into DIR
# instead of fuzz/out; RECOVER=1 makes UB non-fatal (exploration builds).
# Targets: ir_parser_fuzzer, npy_fuzzer, weights_fuzzer (LibTorch-free) and
# ts_ir_fuzzer and pt_archive_fuzzer (link LibTorch). Binaries go to fuzz/out/. The atenaot
# sources they need are compiled directly (-fsanitize=fuzzer-no-link,address,
# undefined -O1 -g); LibTorch itself is not instrumented.
set -euo pipefail
cd "$(dirname "$0")/.."

CXX=${CXX:-clang++-14}
OUT=${FUZZ_OUT:-fuzz/out}
JOBS=${JOBS:-$(nproc)}
# UB is fatal (so libFuzzer saves the input); RECOVER=1 builds an exploration
# variant (use FUZZ_OUT=fuzz/out-recover) where UB is reported and the run
# goes on, to see past a known UB finding.
if [ "${RECOVER:-0}" = 1 ]; then
  SAN="-fsanitize=address,undefined -fsanitize-recover=undefined"
else
  SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
fi
CXXFLAGS="-std=c++17 -O1 -g -fno-omit-frame-pointer $SAN -fsanitize=fuzzer-no-link -DATENAOT_LIBFUZZER -I. ${EXTRA_CXXFLAGS:-}"
TORCH_INC="-isystem /usr/include/torch/csrc/api/include"
TORCH_LIBS="-Wl,--no-as-needed -ltorch -ltorch_cpu -lc10 -Wl,--as-needed -lpthread"

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(ir_parser_fuzzer npy_fuzzer weights_fuzzer ts_ir_fuzzer pt_archive_fuzzer)

# Sources of each part, found by glob so new files are picked up (tests and
# mains excluded).
srcs() { ls $1/*.cc | grep -v -E '_test\.cc$|_main\.cc$'; }
CORE_SRCS="$(srcs ir) $(srcs io)"
# Headers-only C the core includes (runtime/aot_crc32.h) need no objects.
TORCH_SRCS="$(srcs capture) schema/dispatcher_schemas.cc"

# Compiles each source to $OUT/obj/<path>.o when missing or older than its
# inputs (a header change: rerun with CLEAN=1).
[ "${CLEAN:-0}" = 1 ] && rm -rf "$OUT/obj"
compile() {  # compile FLAGS SRC...
  local flags="$1"; shift
  for src in "$@"; do
    local obj="$OUT/obj/${src%.cc}.o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ]; then
      mkdir -p "$(dirname "$obj")"
      echo "$CXX -c $src -o $obj $flags"
    fi
  done | xargs -P "$JOBS" -I{} sh -c '{}'
}
objs() { for src in "$@"; do echo -n "$OUT/obj/${src%.cc}.o "; done; }

mkdir -p "$OUT"
needs_torch=0
for t in "${targets[@]}"; do case "$t" in ts_ir_fuzzer|pt_archive_fuzzer) needs_torch=1 ;; esac; done
echo "compiling atenaot sources ($JOBS jobs)..."
compile "$CXXFLAGS" $CORE_SRCS
[ $needs_torch = 1 ] && compile "$CXXFLAGS $TORCH_INC" $TORCH_SRCS

for t in "${targets[@]}"; do
  case "$t" in
    ts_ir_fuzzer|pt_archive_fuzzer)
      compile "$CXXFLAGS $TORCH_INC" fuzz/$t.cc
      $CXX $CXXFLAGS -fsanitize=fuzzer $(objs fuzz/$t.cc $CORE_SRCS $TORCH_SRCS) $TORCH_LIBS -o "$OUT/$t" ;;
    ir_parser_fuzzer|npy_fuzzer|weights_fuzzer)
      compile "$CXXFLAGS" fuzz/$t.cc
      $CXX $CXXFLAGS -fsanitize=fuzzer $(objs fuzz/$t.cc $CORE_SRCS) -o "$OUT/$t" ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  echo "built $OUT/$t"
done
