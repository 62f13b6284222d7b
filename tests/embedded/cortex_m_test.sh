#!/usr/bin/env bash
# Cross-compiles models for a Cortex-M4F microcontroller (the recipe in
# examples/embedded/README.md) and checks what firmware needs to know:
#  - `atenaot compile --embedded` writes only sources: NAME.c, NAME.h, the ABI
#    headers, and NAME_weights.S + NAME_weights.bin (the weights object);
#  - NAME.c builds with arm-none-eabi-gcc -Wall -Wextra -Werror (C99) and
#    needs no double-precision helpers (__aeabi_d*: float accumulation);
#  - a firmware image (tests/embedded/firmware_stub.c: static buffers, one
#    NAME_run call) links with -specs=nosys.specs --gc-sections and references
#    no malloc, free, calloc, realloc or printf (nor the stdio/sbrk they need);
#  - its flash and RAM (arm-none-eabi-size; the arena and I/O buffers are in
#    .bss) and the model's share of them: code, weights, arena, stack frames;
#  - when qemu-system-arm is installed, the same image (with semihosting I/O)
#    runs on an emulated Cortex-M4 (mps2-an386) on the example's input and
#    must match eager's stored output (atenaot compare's tolerances).
# usage: cortex_m_test.sh ATENAOT [REPORT.md]   (REPORT.md: the size table)
# Skips (reported as skipped) when arm-none-eabi-gcc, newlib or qemu-system-arm is absent.
set -euo pipefail
source tests/testing/sh_test_lib.sh
report="${2:-}"
here=tests/embedded
skip() { skip_test cortex_m_test cortex_m4f tests.embedded "$1"; }

command -v arm-none-eabi-gcc > /dev/null ||
  skip "arm-none-eabi-gcc not found (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi, or run tools/setup.sh)"
cpu="-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb"
specs="$(arm-none-eabi-gcc $cpu -print-file-name=nosys.specs)"
[ -f "$specs" ] || skip "newlib for arm-none-eabi not found (apt-get install libnewlib-arm-none-eabi)"
cflags="$cpu -Os -ffunction-sections -fdata-sections -std=c99"
strict="-Wall -Wextra -Werror"
qemu="$(command -v qemu-system-arm || true)"
echo "toolchain: $(arm-none-eabi-gcc --version | head -1)"
if [ -n "$qemu" ]; then echo "qemu: $("$qemu" --version | head -1)"
else echo "qemu: qemu-system-arm not installed: the images are built and checked, not run"; fi

# Heap and stdio entry points firmware must not pull in.
forbidden='^(_?malloc|_?free|_?calloc|_?realloc|_malloc_r|_free_r|_calloc_r|_realloc_r|[a-z_]*printf(_r)?|puts|fputs|_sbrk(_r)?|__sinit)$'
# What the model may need from the C library: memory, libm and the EABI helpers.
allowed='^(mem(cpy|set|move)|[a-z0-9]+f?|__aeabi_[a-z0-9]+|[a-z_]+_weights_data)$'
# Soft-double routines (the Cortex-M4F FPU is single precision): arithmetic,
# comparisons and conversions from or to double.
double_helpers='^__aeabi_(d[a-z0-9]+|f2d|[iu]?[il]2d|ul2d)$'

sum_sizes() {  # sums column 2 (hex or decimal) of `size -A` rows whose name matches $1
  awk -v pat="$1" '$1 ~ pat { s += $2 } END { print s + 0 }'
}

rows=()
for m in mlp cnn transformer; do
  ex=examples/$m
  d="$tmp/$m"
  echo "== $m"
  compile_example $m "$d" $m --embedded
  for f in $m.c $m.h atenaot.h atenaot_model.h ${m}_weights.S ${m}_weights.bin; do
    test -s "$d/$f" || { echo "--embedded did not write $f"; exit 1; }
  done
  for f in lib$m.so lib$m.a libatenaot_runtime.so atenaot_runtime.c; do
    if [ -e "$d/$f" ]; then echo "--embedded built $f (it must write sources only)"; exit 1; fi
  done

  # What the firmware must reserve, read from the model's own tables (host build).
  cc -std=c99 -I"$d" -DAOT_MODEL=$m "-DAOT_MODEL_HEADER=\"$m.h\"" $here/model_sizes.c "$d/$m.c" "$d/${m}_weights.S" \
    -Wa,-I,"$d" -lm -o "$d/sizes"
  sizes="$("$d/sizes")"
  arena="$(echo "$sizes" | sed -n 's/.*arena=\([0-9]*\).*/\1/p')"
  io="$(echo "$sizes" | sed -n 's/.*io=\([0-9]*\).*/\1/p')"
  nin="$(echo "$sizes" | sed -n 's/.*inputs=\([0-9]*\).*/\1/p')"
  nout="$(echo "$sizes" | sed -n 's/.*outputs=\([0-9]*\).*/\1/p')"
  grep -qx "#define AOT_M_ARENA_BYTES $arena" "$d/$m.c" || { echo "arena $arena disagrees with $m.c"; exit 1; }

  # The model object, strictly.
  (cd "$d" && arm-none-eabi-gcc $cflags $strict -fstack-usage -I. -c $m.c -o $m.o &&
   arm-none-eabi-gcc $cflags -c ${m}_weights.S -o ${m}_weights.o)
  undefined="$(arm-none-eabi-nm -u "$d/$m.o" | awk '{print $NF}')"
  echo "$m.o needs: $(echo $undefined)"
  if echo "$undefined" | grep -E "$forbidden"; then echo "$m.o references the heap or stdio"; exit 1; fi
  if echo "$undefined" | grep -E "$double_helpers"; then echo "$m.o needs soft-double routines"; exit 1; fi
  if [ -n "$undefined" ] && echo "$undefined" | grep -vE "$allowed"; then echo "$m.o needs symbols outside memory/libm/EABI helpers"; exit 1; fi
  if grep -v "static$" "$d/$m.su"; then echo "$m.o has dynamic stack frames"; exit 1; fi
  stack="$(awk '{ s += $(NF-1) } END { print s + 0 }' "$d/$m.su")"
  code="$(arm-none-eabi-size -A "$d/$m.o" | sum_sizes '^\\.text')"
  rodata="$(arm-none-eabi-size -A "$d/$m.o" | sum_sizes '^\\.rodata')"
  weights="$(arm-none-eabi-nm -S -t d "$d/${m}_weights.o" | awk -v s="${m}_weights_data" '$4 == s { print $2 + 0 }')"

  # The firmware image: nosys specs, unused sections dropped.
  defs="-I$d -DAOT_MODEL=$m -DAOT_MODEL_HEADER=\"$m.h\" -DAOT_ARENA_BYTES=$arena -DAOT_IO_BYTES=$io"
  defs+=" -DAOT_NUM_INPUTS=$nin -DAOT_NUM_OUTPUTS=$nout"
  arm-none-eabi-gcc $cflags $strict $defs -c $here/firmware_stub.c -o "$d/fw.o"
  arm-none-eabi-gcc $cpu -specs=nosys.specs -Wl,--gc-sections -Wl,-Map,"$d/fw.map" "$d/fw.o" "$d/$m.o" "$d/${m}_weights.o" -lm \
    -o "$d/fw.elf"
  if arm-none-eabi-nm "$d/fw.elf" | awk '{print $NF}' | grep -E "$forbidden"; then
    echo "the firmware links the heap or stdio (see $d/fw.map)"; exit 1
  fi
  arm-none-eabi-size "$d/fw.elf"
  read -r text data bss _ < <(arm-none-eabi-size "$d/fw.elf" | tail -1)
  flash=$((text + data)); ram=$((data + bss))
  echo "cortex-m4f: $m flash=$flash ram=$ram (text=$text data=$data bss=$bss) model: code=$code rodata=$rodata" \
       "weights=$weights arena=$arena io=$io stack_frames=$stack"

  ran="not run (no qemu-system-arm)"
  if [ -n "$qemu" ]; then
    # The same model on an emulated Cortex-M4 with semihosting I/O.
    arm-none-eabi-gcc $cflags $strict $defs -DAOT_SEMIHOSTING -c $here/firmware_stub.c -o "$d/fwq.o"
    arm-none-eabi-gcc $cflags $strict -c $here/mps2_startup.c -o "$d/start.o"
    arm-none-eabi-gcc $cpu -nostartfiles -T $here/mps2.ld -Wl,--gc-sections "$d/start.o" "$d/fwq.o" "$d/$m.o" "$d/${m}_weights.o" \
      -lm -lc -o "$d/fwq.elf"
    mkdir -p "$d/run"
    for ((k = 0; k < nin; ++k)); do
      npy=$ex/input_$k.npy
      [ -f "$npy" ] || { echo "$npy missing: $m takes $nin inputs"; exit 1; }
      hl=$(od -An -tu2 -j8 -N2 "$npy" | tr -d ' ')      # .npy 1.0 header length
      tail -c +$((11 + hl)) "$npy" > "$d/run/input_$k.bin"
    done
    rc=0
    (cd "$d/run" && timeout 120 "$qemu" -M mps2-an386 -nographic -monitor none -serial none \
       -semihosting-config enable=on,target=native -kernel ../fwq.elf) || rc=$?
    [ "$rc" -eq 0 ] || { echo "the firmware exited with $rc under QEMU"; exit 1; }
    # Every output (the firmware writes output_K.bin for each K < nout).
    nexp=$(ls $ex/expected/output_*.npy | wc -l)
    [ "$nexp" -eq "$nout" ] || { echo "$m has $nout outputs but $nexp expected output_*.npy"; exit 1; }
    for ((k = 0; k < nout; ++k)); do
      exp=$ex/expected/output_$k.npy
      hl=$(od -An -tu2 -j8 -N2 $exp | tr -d ' ')
      { head -c $((10 + hl)) $exp; cat "$d/run/output_$k.bin"; } > "$d/run/output_$k.npy"
      "$atenaot" compare $exp "$d/run/output_$k.npy"
    done
    ran="$nout/$nout outputs match eager on QEMU mps2-an386"
  fi
  rows+=("| $m | $flash | $ram | $text | $data | $bss | $code | $weights | $rodata | $arena | $io | $stack | $ran |")
done

table="| model | flash (text+data) | RAM (data+bss) | text | data | bss | model code | weights | other rodata | arena | I/O buffers | model stack frames | run |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
for r in "${rows[@]}"; do table+=$'\n'"$r"; done
echo
echo "$table"
if [ -n "$report" ]; then echo "$table" > "$report"; fi
# Without QEMU nothing ran on the target: a skip, not a pass.
[ -n "$qemu" ] || skip "qemu-system-arm not installed (apt-get install qemu-system-arm): the images were built and checked, not run"
echo "cortex_m_test: all passed"
