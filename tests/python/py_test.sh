#!/usr/bin/env bash
# Runs one Python test file of the `atenaot` package (tests/python/*_test.py)
# with Debian's python3 and the CLI under test:  py_test.sh ATENAOT FILE.py [ATENAOT_PASSES]
# Cases that need torch skip visibly (SKIPPED: ... and skipped in test.xml)
# when the interpreter lacks it.
set -euo pipefail
export ATENAOT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
if [ -n "${3:-}" ]; then export ATENAOT_PASSES="$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"; fi
py=/usr/bin/python3; [ -x "$py" ] || py=python3
exec "$py" "$2"
