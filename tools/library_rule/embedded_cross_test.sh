#!/bin/bash
# atenaot_library(embedded = True) for a cross toolchain: the sources Bazel
# generated (NAME_srcs) build with arm-none-eabi-gcc for a Cortex-M4F into a
# static library (C99, -Werror), which needs no heap, no stdio and no
# soft-double routines (examples/embedded/README.md's recipe). Skips, passing,
# with "SKIPPED: ..." where arm-none-eabi-gcc is not installed.
# Usage (Bazel passes these): embedded_cross_test.sh SH_TEST_LIB NAME FILE...
set -u
source "$1"
name=$2
shift 2
skip() { skip_test embedded_cross_test cortex_m4f tools.library_rule "$1"; }
command -v arm-none-eabi-gcc > /dev/null ||
  skip "arm-none-eabi-gcc not found (apt-get install gcc-arm-none-eabi, or run tools/setup.sh)"
d=$TEST_TMPDIR/src
mkdir -p "$d"
cp "$@" "$d"
cd "$d" || exit 1
cpu="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb"
set -e
arm-none-eabi-gcc $cpu -Os -std=c99 -Wall -Wextra -Werror -I. -c "$name.c" -o "$name.o"
objs="$name.o"
if [ -s "${name}_weights.S" ]; then
  arm-none-eabi-gcc $cpu -c "${name}_weights.S" -o "${name}_weights.o"
  objs="$objs ${name}_weights.o"
fi
arm-none-eabi-ar rcs "lib$name.a" $objs
set +e
echo "built lib$name.a for Cortex-M4F:"
arm-none-eabi-size "lib$name.a"
fail=0
arm-none-eabi-nm "lib$name.a" | grep -q " T ${name}_run$" || { echo "FAIL: ${name}_run is not defined"; fail=1; }
bad=$(arm-none-eabi-nm -u "lib$name.a" | grep -E ' (malloc|calloc|realloc|free|printf|fprintf|__aeabi_d[a-z0-9]+)$')
if [ -n "$bad" ]; then
  echo "FAIL: the library needs heap, stdio or soft-double routines:"
  echo "$bad"
  fail=1
fi
[ $fail -eq 0 ] && echo "ok: no heap, no stdio, no soft-double routines"
exit $fail
