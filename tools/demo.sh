#!/usr/bin/env bash
# The main job, end to end: install what is missing, build atenaot, import an
# example model (an MLP traced with its weights), print its IR, run it with the
# reference interpreter and print the outputs next to eager PyTorch's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build //:atenaot
bin=bazel-bin/atenaot
model=tests/fixtures/mlp
out="$(mktemp -d)"

echo "== IR of $model/model.pt (stage: import)"
"$bin" dump "$model/model.pt" --inputs "$model/input_0.npy" --time-passes

echo "== run with the reference interpreter"
"$bin" run "$model/model.pt" --inputs "$model/input_0.npy" --out-dir "$out" --print --time-passes

echo "== eager PyTorch on the same inputs (stored with the fixture)"
"$bin" show "$model/expected/output_0.npy"

echo "== atenaot vs eager (outputs and inputs after the run)"
"$bin" compare "$model/expected" "$out"
