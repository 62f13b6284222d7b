#!/usr/bin/env bash
# Writes a C++ source holding ir/testdata/aten_schemas.txt (one schema per
# line) as an array of raw string literals: the op table of the LibTorch-free
# tool, the same snapshot //schema:dispatcher_schemas_test checks against
# the live dispatcher.
set -euo pipefail
in="$1"; out="$2"
{
  echo '// Generated from ir/testdata/aten_schemas.txt by tools/passes_tool/embed_schemas.sh. Do not edit.'
  echo '#include "tools/passes_tool/snapshot_schemas.h"'
  echo 'namespace atenaot {'
  echo 'const char* const kSnapshotSchemas[] = {'
  sed 's/.*/    R"S(&)S",/' "$in"
  echo '};'
  echo 'const size_t kNumSnapshotSchemas = sizeof(kSnapshotSchemas) / sizeof(kSnapshotSchemas[0]);'
  echo '}  // namespace atenaot'
} > "$out"
