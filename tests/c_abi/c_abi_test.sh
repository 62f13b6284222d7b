#!/usr/bin/env bash
# Compiles the MLP example with atenaot, then drives it from a C program
# (compiled as C99 with -Wall -Wextra -Werror, including only atenaot.h) and
# from Python ctypes; both compare with eager's stored outputs and check ABI
# misuse. A second build under ASan+UBSan runs the generated code sanitized.
set -euo pipefail
source tests/testing/sh_test_lib.sh
ex=examples/mlp
compile_example mlp "$tmp/mlp" mlp
cc -std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200112L -I"$tmp/mlp" tests/c_abi/abi_test.c -o "$tmp/abi_test" \
  -L"$tmp/mlp" -latenaot_runtime -Wl,-rpath,"$tmp/mlp" -lm
cc -std=c99 -shared -fPIC tests/c_abi/other_abi.c -o "$tmp/libother.so"
cc -std=c99 -shared -fPIC tests/c_abi/null_entry.c -o "$tmp/libnull_entry.so"
"$tmp/abi_test" "$tmp/mlp/libmlp.so" $ex/input_0.npy $ex/expected/output_0.npy "$tmp/libother.so" "$tmp/mlp/libatenaot_runtime.so" \
  "$tmp/libnull_entry.so"
# The loader's device-model paths (open/close/state, stream, options) against
# a stand-in device model built without CUDA.
cc -std=c99 -Wall -Wextra -Werror -shared -fPIC -I"$tmp/mlp" tests/c_abi/device_model.c -o "$tmp/libfake.so"
cc -std=c99 -Wall -Wextra -Werror -I"$tmp/mlp" tests/c_abi/loader_test.c -o "$tmp/loader_test" \
  -L"$tmp/mlp" -latenaot_runtime -Wl,-rpath,"$tmp/mlp" -ldl
"$tmp/loader_test" "$tmp/libfake.so"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" tests/c_abi/ctypes_test.py "$tmp/mlp" mlp $ex/input_0.npy $ex/expected/output_0.npy
# Sanitized: the generated model and the runtime built with ASan and UBSan.
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cc -std=c99 -O1 $san -fPIC -shared -DAOT_SHARED_ENTRY -I"$tmp/mlp" "$tmp/mlp/mlp.c" "$tmp/mlp/mlp_weights.S" -Wa,-I,"$tmp/mlp" \
  -o "$tmp/mlp/libmlp_san.so" -lm
cc -std=c99 -O1 $san -D_POSIX_C_SOURCE=200112L -I"$tmp/mlp" tests/c_abi/abi_test.c "$tmp/mlp/atenaot_runtime.c" -o "$tmp/abi_test_san" -ldl -lm
ASAN_OPTIONS=detect_leaks=1 "$tmp/abi_test_san" "$tmp/mlp/libmlp_san.so" $ex/input_0.npy $ex/expected/output_0.npy "$tmp/libother.so" \
  "$tmp/mlp/libatenaot_runtime.so" "$tmp/libnull_entry.so"
# Weights in a side file (--weights file): the loader reads NAME.weights at open.
cnn=examples/cnn
compile_example cnn "$tmp/cnnw" cnnw --weights file
test -s "$tmp/cnnw/cnnw.weights"
if grep -q "static const uint8_t aot_w\|cnnw_weights_data" "$tmp/cnnw/cnnw.c" || [ -e "$tmp/cnnw/cnnw_weights.S" ]; then
  echo "weights embedded despite --weights file"; exit 1
fi
# Embedded weights as C arrays (--weights c): one self-contained NAME.c.
compile_example cnn "$tmp/cnnc" cnnc --weights c
grep -q "static const uint8_t aot_w" "$tmp/cnnc/cnnc.c"
if [ -e "$tmp/cnnc/cnnc_weights.S" ] || [ -e "$tmp/cnnc/cnnc.weights" ]; then echo "--weights c wrote a weights file"; exit 1; fi
"$atenaot" exec "$tmp/cnnc" --name cnnc --inputs $cnn/input_0.npy --out-dir "$tmp/cnnc_out"
"$atenaot" compare $cnn/expected "$tmp/cnnc_out"
"$atenaot" exec "$tmp/cnnw" --name cnnw --inputs $cnn/input_0.npy --out-dir "$tmp/cnnw_out"
"$atenaot" compare $cnn/expected "$tmp/cnnw_out"
# A truncated weights file is refused at open with a message, not a crash.
head -c 100 "$tmp/cnnw/cnnw.weights" > "$tmp/w" && mv "$tmp/w" "$tmp/cnnw/cnnw.weights"
if "$atenaot" exec "$tmp/cnnw" --name cnnw --inputs $cnn/input_0.npy --out-dir "$tmp/x" 2> "$tmp/err"; then
  echo "a truncated weights file was accepted"; exit 1
fi
grep -q "has the wrong size for this library" "$tmp/err"
# A same-size weights file with one changed byte fails its CRC-32 at open
# (it used to load and give outputs off by 1e35).
compile_example cnn "$tmp/cnnw" cnnw --weights file
byte=$(od -An -tu1 -j200 -N1 "$tmp/cnnw/cnnw.weights" | tr -d ' ')
printf "\\$(printf %03o $((byte ^ 1)))" | dd of="$tmp/cnnw/cnnw.weights" bs=1 seek=200 conv=notrunc status=none
if "$atenaot" exec "$tmp/cnnw" --name cnnw --inputs $cnn/input_0.npy --out-dir "$tmp/x" 2> "$tmp/err"; then
  echo "a corrupted weights file was accepted"; exit 1
fi
grep -q "AOT_ERR_CORRUPT_WEIGHTS: .*the weights file cnnw.weights fails its CRC-32 check" "$tmp/err"
echo "c_abi_test: all passed"
