#!/usr/bin/env bash
# Run every fuzz target of fuzz/ for a while, starting from the committed
# seed corpus in fuzz/seeds/<target>/ (copied to a scratch directory, so the
# work tree is left alone). Fails if any target finds a crash, a failed check
# or a timeout, and says which; the failing input is kept in
# fuzz/artifacts/<target>/ (ignored by git).
#
#   bash scripts/fuzz.sh [SECONDS]      # per target, default 10
#
# Environment:
#   FUZZ_TARGETS    space-separated targets to run (default: all)
#   FUZZ_SANITIZER  cargo-fuzz sanitizer (default: none; the rules crate
#                   forbids unsafe code, and without ASan it runs ~2x faster)
#   FUZZ_TOOLCHAIN  rustup toolchain (default: nightly, else stable)
#
# Works on a fresh machine with rustup: installs cargo-fuzz when missing and
# falls back to the stable toolchain when no nightly can be had (cargo-fuzz
# needs no nightly feature without a sanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET="${1:-10}"
if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || [ "$SECONDS_PER_TARGET" -eq 0 ]; then
  echo "usage: bash scripts/fuzz.sh [SECONDS]   (a whole number of seconds per target, at least 1)" >&2
  exit 2
fi

ALL_TARGETS="salta_position focus_position salta_move focus_move record rules"
TARGETS="${FUZZ_TARGETS:-$ALL_TARGETS}"
SANITIZER="${FUZZ_SANITIZER:-none}"
RSS_LIMIT_MB=2048
TIMEOUT_S=20 # one input

max_len() {
  case "$1" in
    salta_position | focus_position) echo 512 ;;
    salta_move | focus_move) echo 256 ;;
    record) echo 8192 ;;
    rules) echo 256 ;;
    *) echo 4096 ;;
  esac
}

dict() {
  case "$1" in
    salta_position | salta_move) echo fuzz/dicts/salta.dict ;;
    focus_position | focus_move) echo fuzz/dicts/focus.dict ;;
    record) echo fuzz/dicts/record.dict ;;
    rules) echo fuzz/dicts/rules.dict ;;
  esac
}

# --- toolchain -------------------------------------------------------------
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v rustup >/dev/null 2>&1; then
  echo "fuzz: rustup not found; it is needed to pick the toolchain" >&2
  exit 1
fi

has_toolchain() { rustup run "$1" rustc --version >/dev/null 2>&1; }

TOOLCHAIN="${FUZZ_TOOLCHAIN:-}"
if [ -z "$TOOLCHAIN" ]; then
  if has_toolchain nightly; then
    TOOLCHAIN=nightly
  elif timeout 900 rustup toolchain install nightly --profile minimal >&2 && has_toolchain nightly; then
    TOOLCHAIN=nightly
  else
    echo "fuzz: no nightly toolchain (and none could be installed); using stable" >&2
    TOOLCHAIN=stable
  fi
fi
if ! has_toolchain "$TOOLCHAIN"; then
  echo "fuzz: toolchain $TOOLCHAIN is not installed" >&2
  exit 1
fi
if [ "$SANITIZER" != "none" ] && ! rustup run "$TOOLCHAIN" rustc --version | grep -q nightly; then
  # Sanitizers need -Z flags: allow them on a stable compiler.
  export RUSTC_BOOTSTRAP=1
fi

# libfuzzer-sys compiles libFuzzer from C++ source.
if ! command -v c++ >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "fuzz: installing a C++ compiler (g++) for libFuzzer" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++; } >/dev/null ||
      { echo "fuzz: could not install g++" >&2; exit 1; }
  else
    echo "fuzz: a C++ compiler (c++ or clang++) is needed to build libFuzzer" >&2
    exit 1
  fi
fi

if ! cargo fuzz --help >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked
fi

FUZZ_FLAGS=(--sanitizer "$SANITIZER" --debug-assertions)

echo "fuzz: toolchain $TOOLCHAIN ($(rustup run "$TOOLCHAIN" rustc --version)), sanitizer $SANITIZER, ${SECONDS_PER_TARGET}s per target"
echo "fuzz: building targets"
# shellcheck disable=SC2086 # TARGETS is a list
for target in $TARGETS; do
  cargo "+$TOOLCHAIN" fuzz build "${FUZZ_FLAGS[@]}" "$target"
done

# --- run -------------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/monte-fuzz.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

failed=()
# shellcheck disable=SC2086
for target in $TARGETS; do
  corpus="$WORK/corpus/$target"
  mkdir -p "$corpus"
  if [ -d "fuzz/seeds/$target" ]; then
    cp -R "fuzz/seeds/$target/." "$corpus/"
  fi
  log="$WORK/$target.log"
  args=(
    "-max_total_time=$SECONDS_PER_TARGET"
    "-rss_limit_mb=$RSS_LIMIT_MB"
    "-max_len=$(max_len "$target")"
    "-timeout=$TIMEOUT_S"
    "-print_final_stats=1"
  )
  d="$(dict "$target")"
  if [ -n "$d" ] && [ -f "$d" ]; then
    args+=("-dict=$d")
  fi
  echo "== fuzz $target (${SECONDS_PER_TARGET}s)"
  status=0
  cargo "+$TOOLCHAIN" fuzz run "${FUZZ_FLAGS[@]}" "$target" "$corpus" -- "${args[@]}" >"$log" 2>&1 || status=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  cov="$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 || true)"
  if [ "$status" -eq 0 ]; then
    echo "   ok: ${runs:-?} runs, ${speed:-?} exec/s, ${cov:-cov: ?}"
  else
    failed+=("$target")
    echo "   FAILED (exit $status): ${runs:-?} runs"
    # The panic message (up to its backtrace) and libFuzzer's verdict.
    awk '/panicked at/ { p = 1 } /^stack backtrace:|^note: .*RUST_BACKTRACE/ { p = 0 } p' "$log" | head -n 40
    grep -a -E '^==[0-9]+== ERROR: libFuzzer|^SUMMARY: libFuzzer|^Base64:' "$log" | head -n 5 || true
    if ! grep -a -q -e 'panicked at' -e 'ERROR: libFuzzer' "$log"; then
      tail -n 40 "$log" # a build or setup failure
    fi
    artifact="$(grep -a -o "fuzz/artifacts/$target/[^ ]*" "$log" | tail -1 || true)"
    if [ -n "$artifact" ]; then
      echo "   input: $artifact"
      echo "   reproduce: cargo +$TOOLCHAIN fuzz run ${FUZZ_FLAGS[*]} $target $artifact"
      echo "   minimize:  cargo +$TOOLCHAIN fuzz tmin ${FUZZ_FLAGS[*]} $target $artifact"
    fi
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all targets ran ${SECONDS_PER_TARGET}s without a crash"
