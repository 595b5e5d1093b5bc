#!/usr/bin/env bash
# The deployed-shape suite: template.yaml deployed by the harness (tests/deployed/harness) on
# moto and the MongoDB-protocol server, every Lambda binary a process behind a Runtime API, and
# the three services' flows, the IAM check and issue 24's items over HTTP and WebSocket.
#
#   tests/deployed/run.sh [--store mongodb|dynamodb] [--bin-dir DIR] [--fast-only] [pytest args]
#
# --bin-dir: where the binaries are, DIR/<binary>/bootstrap (or bootstrap.zip), or DIR/<binary>;
#   default ${CARGO_TARGET_DIR:-target}/lambda, what tests/deploy/build-functions.sh leaves. For
#   development: CARGO_PROFILE_DEV_DEBUG=0 cargo build -p agora-voting-functions
#   -p agora-orcade-functions -p agora-xchange-functions --bins, then --bin-dir target/debug.
# The fast suite runs the rate rules every second; then (unless --fast-only or pytest args are
# given) the real-rate test runs them at the template's one minute. Servers: those at
# MONGODB_URI and AGORA_AWS_ENDPOINT when they answer, else started here (tests/services.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

store="${AGORA_DEPLOYED_STORE:-mongodb}"
bin_dir="${AGORA_DEPLOYED_BIN_DIR:-${CARGO_TARGET_DIR:-target}/lambda}"
fast_only=false
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --store) store="$2"; shift 2 ;;
    --store=*) store="${1#*=}"; shift ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --bin-dir=*) bin_dir="${1#*=}"; shift ;;
    --fast-only) fast_only=true; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import aiohttp, jwt, cryptography, pytest, boto3, moto, samtranslator' 2>/dev/null; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi

# shellcheck source=../services.sh
source tests/services.sh
start_services

pytest=(.venv/bin/python -m pytest -c tests/deployed/pytest.ini tests/deployed --store "$store" --bin-dir "$bin_dir")
started=$SECONDS
"${pytest[@]}" -rxXfE "${args[@]}"
echo "deployed-shape suite ($store): $((SECONDS - started)) s"
if [ "$fast_only" = false ] && [ ${#args[@]} -eq 0 ]; then
  started=$SECONDS
  "${pytest[@]}" -rxXfE -m real_rate
  echo "deployed-shape real-rate test ($store): $((SECONDS - started)) s"
fi
