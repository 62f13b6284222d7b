#!/usr/bin/env bash
# tools/install.sh into a scratch PREFIX (with the CLI under test as $ATENAOT),
# then, from outside the checkout and with only PREFIX on PATH/PYTHONPATH:
# `atenaot --help`, the three-line Python flow (compile, call, compare with
# eager), and a C program built against PREFIX/include + PREFIX/lib.
set -euo pipefail
source tests/testing/sh_test_lib.sh
py=/usr/bin/python3; [ -x "$py" ] || py=python3
prefix="$tmp/prefix"
ATENAOT="$(cd "$(dirname "$atenaot")" && pwd)/$(basename "$atenaot")" bash tools/install.sh "$prefix" > "$tmp/install.log"
cat "$tmp/install.log"
site="$(sed -n 's@^  \(.*\)/atenaot/__init__.py$@\1@p' "$tmp/install.log")"
for f in bin/atenaot include/atenaot.h include/atenaot_model.h lib/libatenaot_runtime.so; do
  [ -f "$prefix/$f" ] || { echo "FAIL: $prefix/$f not installed"; exit 1; }
done
[ -f "$site/atenaot/_model.py" ] && [ ! -L "$site/atenaot/_model.py" ] || { echo "FAIL: _model.py not copied as a file"; exit 1; }

cd "$tmp"  # nothing of the checkout from here on
unset ATENAOT
export PATH="$prefix/bin:/usr/bin:/bin" PYTHONPATH="$site"
atenaot --help | head -1
if ! "$py" -c 'import torch' 2>/dev/null; then
  skip_test install_test python_flow InstallTest "$py has no torch (install python3-torch): Python flow not run"
fi
"$py" - <<'PY'
import atenaot, torch
assert atenaot.__file__.startswith(__import__("os").environ["PYTHONPATH"]), atenaot.__file__
assert atenaot.find_cli().endswith("prefix/bin/atenaot"), atenaot.find_cli()
model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU()).eval()
x = torch.randn(3, 8)
cm = atenaot.compile(model, (x,))
y = cm(x)
err = float((y - model(x)).abs().max())
assert err <= 1e-5 * max(1.0, float(model(x).abs().max())), err
print("python flow: max abs error %g, arena %d bytes, eager peak %d bytes" % (err, cm.arena_bytes, cm.eager_peak_bytes))
PY
cat > use_abi.c <<'C'
#include <stdio.h>
#include "atenaot.h"
int main(void) {
  printf("ABI %u: %s\n", aot_abi_version(), aot_version_string());
  return aot_abi_version() == ATENAOT_ABI_VERSION ? 0 : 1;
}
C
cc -std=c99 -I"$prefix/include" use_abi.c -L"$prefix/lib" -latenaot_runtime -Wl,-rpath,"$prefix/lib" -o use_abi
./use_abi
echo "install_test: all passed"
