#!/usr/bin/env bash
# Installs, only when missing, every Debian package atenaot needs to build and
# test. Idempotent; safe to run on every build. Needs root (or sudo) the first
# time on a fresh machine.
set -euo pipefail

packages=(
  g++                   # the C++17 compiler Bazel drives
  bazel-bootstrap       # Bazel 4.2.3, offline
  bazel-rules-java      # @rules_java, a local repository in WORKSPACE
  bazel-platforms       # @platforms, a local repository in WORKSPACE
  libtorch-dev          # LibTorch 1.13 (CPU): import, schemas, reference interpreter, tests
  libgtest-dev          # GoogleTest
  libbenchmark-dev      # Google Benchmark
  llvm-14-tools         # FileCheck for the golden IR tests
  libopenblas0-pthread  # fast BLAS behind LibTorch's libblas.so.3, so eager runs at its best
  libopenblas-dev       # cblas_sgemm, the peer bench/kernels times the kernel library against
  gcc-arm-none-eabi     # Cortex-M cross compiler: tests/embedded (compile --embedded into firmware)
  libnewlib-arm-none-eabi  # its C library and libm (only recommended by gcc-arm-none-eabi)
  qemu-system-arm       # runs the Cortex-M4 test firmware (mps2-an386) to check its results
  valgrind              # memcheck over the compiled examples (tests/c_abi/examples_sanitized_test)
  cargo                 # Rust and cargo: the Rust binding tests (tests/rust, examples/rust)
  python3               # tools/count_tests.py (tools/test.sh's final count)
  clang-format-14       # tools/format_check.sh: the tree is clang-formatted (.clang-format)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# CUDA has no Debian package new enough: tests/cuda uses the toolkit at
# /usr/local/cuda (or $NVCC) when present, and tools/test.sh reports "CUDA NOT
# CHECKED" with the number of skipped cases when it is not.
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
if [ -x "$nvcc" ]; then echo "setup: CUDA: $nvcc ($("$nvcc" --version | tail -1))"
else echo "setup: CUDA: no nvcc at $nvcc: the CUDA build tests will be skipped (install the CUDA Toolkit there)"; fi

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
