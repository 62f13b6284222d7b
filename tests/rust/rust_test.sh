#!/usr/bin/env bash
# Compiles the MLP example with atenaot, then runs `cargo test --offline` on
# examples/rust (a copy in TEST_TMPDIR, so nothing is written into the source
# tree) against it: eager's stored outputs and ABI misuse.
# Uses cargo from PATH (Debian's, which tools/setup.sh installs) or a rustup
# install. No cargo: prints "SKIPPED: cargo not found" and reports the case
# skipped in its test.xml (tools/test.sh lists it among the skips).
set -euo pipefail
source tests/testing/sh_test_lib.sh
ex=examples/mlp
skip() { skip_test rust_test cargo_test tests.rust "$1"; }

# Bazel's test environment has a minimal PATH and may have no HOME.
cargo="$(command -v cargo || true)"
for c in ${HOME:+"$HOME/.cargo/bin/cargo"} /root/.cargo/bin/cargo /usr/local/cargo/bin/cargo; do
  [ -n "$cargo" ] && break
  [ -x "$c" ] && cargo="$c"
done
[ -n "$cargo" ] || skip "cargo not found (install Rust to run the Rust binding tests)"
cargo_bin="$(dirname "$cargo")"
# A rustup install keeps its toolchains next to cargo (~/.cargo/bin); Debian's
# cargo (/usr/bin) needs only a writable CARGO_HOME.
if [ "$cargo_bin" = /usr/bin ]; then export CARGO_HOME="${CARGO_HOME:-$tmp/cargo_home}"
else export CARGO_HOME="${CARGO_HOME:-$(dirname "$cargo_bin")}"; fi
if [ -z "${RUSTUP_HOME:-}" ] && [ -d "$(dirname "$CARGO_HOME")/.rustup" ]; then
  export RUSTUP_HOME="$(dirname "$CARGO_HOME")/.rustup"
fi
export PATH="$cargo_bin:$PATH"
export CARGO_NET_OFFLINE=true CARGO_TERM_COLOR=never
"$cargo" --version || skip "cargo at $cargo does not run (no toolchain installed?)"

compile_example mlp "$tmp/mlp" mlp
cp -RL examples/rust "$tmp/crate"
rm -rf "$tmp/crate/target" "$tmp/crate/Cargo.lock"
export CARGO_TARGET_DIR="$tmp/target"
export ATENAOT_LIB_DIR="$tmp/mlp" ATENAOT_MODEL_DIR="$tmp/mlp" ATENAOT_MODEL_NAME=mlp ATENAOT_REQUIRE_MODEL=1
export ATENAOT_INPUT="$PWD/$ex/input_0.npy" ATENAOT_EXPECTED="$PWD/$ex/expected/output_0.npy"
(cd "$tmp/crate" && "$cargo" test --offline --manifest-path Cargo.toml -- --nocapture 2>&1 | tee "$tmp/cargo.log"
 exit "${PIPESTATUS[0]}")
grep -q "test result: ok. 2 passed" "$tmp/cargo.log" || { echo "the model tests did not run"; exit 1; }
echo "rust_test: all passed"
