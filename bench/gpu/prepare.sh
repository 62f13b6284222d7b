#!/usr/bin/env bash
# Step 1, HERE (where Bazel, LibTorch and nvcc are; no GPU needed): builds
# everything bench/gpu/run.sh needs on the GPU machine into bench/gpu/bundle
# (ignored by git; carry it to the device, see README.md):
#   bundle/<id>/libNAME.so, NAME.cu, ...  `atenaot compile --target cuda` of
#                                 every example and every fixture it supports
#   bundle/<id>/inputs/, expected/   the model's inputs and the CPU eager
#                                 reference outputs (and inputs after the run)
#   bundle/<id>/model.pt             for PyTorch eager timing on the GPU
#   bundle/chain/                    the 20-op elementwise chain on 64M f32
#   bundle/chain_fast/               the same .cu built with --use_fast_math
#   bundle/manifest.txt              one line per model: id name kind
# Usage: bash bench/gpu/prepare.sh [--cuda-arch sm_90]
set -euo pipefail
cd "$(dirname "$0")/../.."
arch="sm_90"
if [ "${1:-}" = "--cuda-arch" ]; then arch="$2"; fi
bazel build //:atenaot
bin="$(bazel info bazel-bin 2>/dev/null)/atenaot"  # the default configuration's, whatever bazel-bin points to now
B=bench/gpu/bundle
rm -rf "$B"
mkdir -p "$B"
: > "$B/manifest.txt"
t_all=$(date +%s)
for d in examples/mlp examples/cnn examples/transformer tests/fixtures/*/; do
  d="${d%/}"
  name="$(basename "$d")"
  kind=example
  [[ "$d" == tests/fixtures/* ]] && kind=fixture
  id="${kind}_$name"
  ins=$(ls "$d"/input_*.npy | sort -V)
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if ! "$bin" compile "$d/model.pt" --inputs $ins -o "$B/$id" --name "$name" --target cuda --cuda-arch "$arch" \
      > "$B/$id.compile.log" 2>&1; then
    if grep -q "CUDA backend cannot compile" "$B/$id.compile.log"; then
      echo "skip $id: $(cat "$B/$id.compile.log")"
      rm -rf "$B/$id"
      continue
    fi
    cat "$B/$id.compile.log" >&2
    exit 1
  fi
  if [ ! -f "$B/$id/lib$name.so" ]; then cat "$B/$id.compile.log" >&2; echo "no lib$name.so built (nvcc missing?)" >&2; exit 1; fi
  mkdir -p "$B/$id/inputs" "$B/$id/expected"
  cp $ins "$B/$id/inputs/"
  cp "$d"/expected/*.npy "$B/$id/expected/"
  cp "$d/model.pt" "$B/$id/model.pt"
  echo "$id $name $kind" >> "$B/manifest.txt"
  echo "$id: $(tail -1 "$B/$id.compile.log") [$(( $(date +%s) - t0 )) s]"
done
# Index range checks (tests/golden/codegen/cuda_index_range.ir): run_gpu.py
# runs it with good and bad indices and wants AOT_ERR_INDEX_OUT_OF_RANGE.
G=tests/golden/codegen
"$bin" compile "$G/cuda_index_range.ir" --inputs "$G/x4x8.npy" "$G/i3.npy" "$G/y8.npy" -o "$B/index_range" --name ix \
  --target cuda --cuda-arch "$arch"
mkdir -p "$B/index_range/inputs"
cp "$G/x4x8.npy" "$G/y8.npy" "$B/index_range/inputs/"
echo "index_range ix index_range" >> "$B/manifest.txt"
# The 64M-element chain: compiled from IR text with a zero sample input
# (256 MiB, deleted again; run.sh makes its own inputs on the GPU).
mkdir -p "$B/chain"
tmpnpy="$(mktemp --suffix .npy)"
python3 bench/gpu/chain.py "$B/chain/chain.ir" "$tmpnpy"
"$bin" compile "$B/chain/chain.ir" --inputs "$tmpnpy" -o "$B/chain" --name chain --target cuda --cuda-arch "$arch"
rm -f "$tmpnpy"
echo "chain chain chain" >> "$B/manifest.txt"
# The same chain.cu built with nvcc --use_fast_math (approximate expf/logf,
# division and sqrt, denormals flushed): how much of the chain's time is
# arithmetic rather than memory. atenaot itself never builds with it.
F="$B/chain_fast"
mkdir -p "$F"
cp "$B"/chain/{chain.cu,chain.h,atenaot.h,atenaot_model.h,atenaot_runtime.c,libatenaot_runtime.so} "$F/"
echo "--use_fast_math" > "$F/nvcc_flags.txt"
n="${arch#sm_}"
"${NVCC:-/usr/local/cuda/bin/nvcc}" -O3 -gencode "arch=compute_$n,code=[sm_$n,compute_$n]" --use_fast_math -Xcompiler -fPIC \
  -shared -I"$F" -o "$F/libchain.so" "$F/chain.cu" -lcublas
echo "chain_fast chain chain" >> "$B/manifest.txt"
cp examples/make_examples.py examples/python/atenaot_model.py "$B/"
git rev-parse HEAD > "$B/commit.txt"
echo "$arch" > "$B/arch.txt"
echo "bundle: $(wc -l < "$B/manifest.txt") models, $(du -sh "$B" | cut -f1) (the device takes 64 MiB with the tree), $(( $(date +%s) - t_all )) s"
