#!/usr/bin/env bash
# The main job, end to end: install what is missing, build atenaot, then for
# the example CNN (conv/bn/relu/pool/linear, traced with weights): print its
# memory plan against the lower bound and LibTorch eager's peak, compile it to
# a standalone C library, run that through the C ABI and compare with eager,
# and finally time compiled C against LibTorch eager on all examples.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build //:atenaot
bin=bazel-bin/atenaot
ex=examples/cnn
out="$(mktemp -d)"

echo "== memory plan for $ex (atenaot plan)"
"$bin" plan "$ex/model.pt" --inputs "$ex/input_0.npy" --svg "$out/plan.svg"
echo "(picture of the plan: $out/plan.svg)"

echo "== compile to C (atenaot compile)"
"$bin" compile "$ex/model.pt" --inputs "$ex/input_0.npy" -o "$out/cnn" --name cnn
ls -l "$out/cnn"

echo "== run the compiled library through the C ABI (atenaot exec) and compare with eager"
"$bin" exec "$out/cnn" --name cnn --inputs "$ex/input_0.npy" --out-dir "$out/run"
"$bin" compare "$ex/expected" "$out/run"

echo "== latency and memory: compiled C vs LibTorch eager (bench/compiled_vs_eager.cc)"
bazel run -c opt //bench:compiled_vs_eager
