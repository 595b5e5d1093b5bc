#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then runs the
# format and lint checks and every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-0}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# Python packages the tests use as oracles (pref_voting for the social-choice rules).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
export AGORA_PYTHON="$PWD/.venv/bin/python"

# Real servers on loopback: MongoDB protocol, DynamoDB/SQS/EventBridge (moto), NATS.
source tests/services.sh
start_services

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
