#!/usr/bin/env bash
# Every example model, compiled by atenaot, run through the C ABI and compared
# with eager's outputs twice: the generated library, the runtime and a C driver
# built with ASan + UBSan; and the library as `atenaot compile` built it under
# valgrind's memcheck. Any invalid read or write, leak or UB fails the test.
set -euo pipefail
source tests/testing/sh_test_lib.sh
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
command -v valgrind >/dev/null || { echo "valgrind is missing: bash tools/setup.sh installs it"; exit 1; }
for ex in mlp cnn transformer; do
  dir="$tmp/$ex"
  # x86-64-v2: valgrind's CPU has no AVX-512, and the library's open-time CPU
  # check (rightly) refuses to run a library built for this machine's level there.
  compile_example "$ex" "$dir" "$ex" --cpu x86-64-v2
  # Sanitized copies of the model and the runtime, built from the generated sources.
  cc -std=c99 $san -fPIC -shared -DAOT_SHARED_ENTRY -I"$dir" "$dir/$ex.c" "$dir/${ex}_weights.S" -Wa,-I,"$dir" \
    -o "$dir/lib${ex}_san.so" -lm
  cc -std=c99 $san -Wall -Wextra -Werror -I"$dir" tests/c_abi/run_example.c "$dir/atenaot_runtime.c" \
    -o "$dir/run_san" -ldl -lm
  ASAN_OPTIONS=detect_leaks=1 "$dir/run_san" "$dir/lib${ex}_san.so" "examples/$ex/input_0.npy" "examples/$ex/expected"
  # The library as built, under memcheck.
  cc -std=c99 -O2 -g -Wall -Wextra -Werror -I"$dir" tests/c_abi/run_example.c -o "$dir/run" \
    -L"$dir" -latenaot_runtime -Wl,-rpath,"$dir" -lm
  valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite \
    "$dir/run" "$dir/lib$ex.so" "examples/$ex/input_0.npy" "examples/$ex/expected"
done
echo "examples_sanitized_test: all passed"
