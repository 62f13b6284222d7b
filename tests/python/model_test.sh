#!/usr/bin/env bash
# Compiles the MLP example with atenaot, then runs tests/python/model_test.py:
# examples/python/atenaot_model.py against eager's stored outputs, with numpy
# (when the interpreter has it) and with numpy made unimportable.
set -euo pipefail
source tests/testing/sh_test_lib.sh
ex=examples/mlp
compile_example mlp "$tmp/mlp" mlp
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" tests/python/model_test.py "$tmp/mlp" mlp $ex/input_0.npy $ex/expected/output_0.npy
