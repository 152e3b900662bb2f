#!/usr/bin/env bash
# All of Monte's tests, on a fresh machine: formatting, lints, the test
# suites (release build: deep perft cases included), the Python package's
# tests, and a short fuzz run.
# FUZZ_SECONDS (default 10) sets the fuzz time per target; 0 skips fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== rustfmt"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

# The server's tests need PostgreSQL (MONTE_TEST_POSTGRES, default
# postgres://postgres@127.0.0.1:5432/postgres); MONTE_SKIP_POSTGRES=1 skips them.
if [ -z "${MONTE_SKIP_POSTGRES:-}" ] && command -v pg_isready > /dev/null && ! pg_isready -q -h 127.0.0.1; then
  echo "== starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
fi

echo "== tests (release)"
cargo test --workspace --release --locked

# The Python package (python/, docs/python.md): its crate's formatting
# and lints (it is not a member of the workspace), then the wheel that
# `pip install ./python` builds (maturin comes from PyPI) in a virtual
# environment, and its tests; MONTE_SKIP_PYTHON=1 skips it.
if [ -z "${MONTE_SKIP_PYTHON:-}" ]; then
  echo "== python package"
  cargo fmt --manifest-path python/Cargo.toml -- --check
  cargo clippy --manifest-path python/Cargo.toml --all-targets --locked -- -D warnings
  python3 -m venv target/pyenv
  # numpy is the package's one dependency; gymnasium and pettingzoo are
  # those of monte.envs, which the tests check with the libraries' own
  # checkers.
  target/pyenv/bin/pip install --quiet --disable-pip-version-check pytest mypy numpy gymnasium pettingzoo
  # Reinstalled every time: the version number stays while the code changes.
  target/pyenv/bin/pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./python
  # The type stubs against the compiled module: names, parameters, kinds.
  target/pyenv/bin/python -m mypy.stubtest monte
  target/pyenv/bin/pytest python/tests
fi

# The web board in real Chromium (installs chromium and playwright-core
# when missing); MONTE_SKIP_WEB=1 skips it.
if [ -z "${MONTE_SKIP_WEB:-}" ]; then
  echo "== web board (Chromium)"
  bash scripts/web-test.sh
fi

if [ "${FUZZ_SECONDS:-10}" != "0" ]; then
  echo "== fuzz (${FUZZ_SECONDS:-10} s per target)"
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}"
fi
echo "== all tests passed"
