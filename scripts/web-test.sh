#!/usr/bin/env bash
# The web board's tests in real Chromium: Debian's `chromium` driven by
# playwright-core from npm, each test file against a `monte serve` of its
# own (release binary, temporary SQLite file, free port). Installs what is
# missing on a fresh Debian machine: chromium and Node.js with npm (apt),
# playwright-core (npm ci in web/tests). Screenshots of the boards go to
# web/tests/artifacts/; screenshots of the main pages at 1280x800,
# 1366x768, 390x844 and 844x390 in both languages (screens.test.mjs) go to
# target/web-screenshots/, the directory CI keeps as artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v node > /dev/null || need_apt+=(nodejs)
command -v npm > /dev/null || need_apt+=(npm)
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "== apt-get install ${need_apt[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" > /dev/null
fi

echo "== npm ci (web/tests)"
(cd web/tests && npm ci --no-audit --no-fund --loglevel=error)

echo "== cargo build --release (the monte binary)"
cargo build --release --locked -p monte-cli

echo "== web tests (Chromium $(/usr/bin/chromium --version 2> /dev/null | grep -o '[0-9][0-9.]*' | head -1))"
rm -rf web/tests/artifacts target/web-screenshots
cd web/tests
node --test --test-concurrency=1 --test-reporter=spec ./*.test.mjs
