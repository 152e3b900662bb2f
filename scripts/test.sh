#!/usr/bin/env bash
# All of Monte's tests, on a fresh machine: formatting, lints, the test
# suites (release build: deep perft cases included), and a short fuzz run.
# FUZZ_SECONDS (default 10) sets the fuzz time per target; 0 skips fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== rustfmt"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== tests (release)"
cargo test --workspace --release --locked

if [ "${FUZZ_SECONDS:-10}" != "0" ]; then
  echo "== fuzz (${FUZZ_SECONDS:-10} s per target)"
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}"
fi
echo "== all tests passed"
