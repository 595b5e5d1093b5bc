#!/usr/bin/env bash
# The console's tests: its unit tests (Node's test runner, the same ES modules the page loads) and
# its browser test (Debian's Chromium through playwright-core, against the local server binary
# AGORA_LOCAL_BIN, default target/debug/agora-local, which must be built). Installs what it needs:
# the npm packages of package-lock.json, and Chromium from the distribution when it is missing.
# Screenshots of each page: target/console-screenshots/.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)

if [ ! -x "${CHROMIUM_BIN:-/usr/bin/chromium}" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi
bin="${AGORA_LOCAL_BIN:-$root/target/debug/agora-local}"
if [ ! -x "$bin" ]; then
  echo "console tests: $bin is missing; build it first: cargo build -p agora-local" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
AGORA_LOCAL_BIN="$bin" node --test
