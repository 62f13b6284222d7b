#!/usr/bin/env bash
# Runs the small models of the zoo (tests/models/model_zoo.py --small --check).
set -euo pipefail
source tests/testing/sh_test_lib.sh
py=/usr/bin/python3; [ -x "$py" ] || py=python3
if ! "$py" -c "import torch, torchvision" 2>/dev/null; then
  skip_test model_zoo small model_zoo_small_test "python3 with torch and torchvision is needed (Debian python3-torchvision)"
fi
exec "$py" tests/models/model_zoo.py --atenaot "$atenaot" --work "$tmp/zoo" --small --check
