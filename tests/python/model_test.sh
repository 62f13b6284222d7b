#!/usr/bin/env bash
# Compiles the MLP example with atenaot, then runs tests/python/model_test.py:
# examples/python/atenaot_model.py against eager's stored outputs, with numpy
# (when the interpreter has it) and with numpy made unimportable.
set -euo pipefail
atenaot="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
ex=examples/mlp
"$atenaot" compile $ex/model.pt --inputs $ex/input_0.npy -o "$tmp/mlp" --name mlp
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" tests/python/model_test.py "$tmp/mlp" mlp $ex/input_0.npy $ex/expected/output_0.npy
