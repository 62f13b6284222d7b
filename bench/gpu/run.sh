#!/usr/bin/env bash
# Step 2, THERE (the H200 machine of the `device` tool; PyTorch with CUDA,
# numpy, nvcc): runs every model of bench/gpu/bundle against the CPU
# reference outputs and times fused CUDA against PyTorch CUDA eager.
# Writes bench/gpu/results/ and, when $OUT is set, copies the results there.
# Usage: bash bench/gpu/run.sh
set -uo pipefail
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
[ -f bundle/manifest.txt ] || { echo "no bench/gpu/bundle: run bench/gpu/prepare.sh first and carry bench/gpu/bundle" >&2; exit 2; }
# cuBLAS 13 for the libraries: the toolkit's, else PyTorch's wheel.
pyblas="$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null || true)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${pyblas}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
mkdir -p results
python3 run_gpu.py bundle results
rc=$?
if [ -n "${OUT:-}" ]; then cp results/* "$OUT"/ 2>/dev/null || true; fi
exit $rc
