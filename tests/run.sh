#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, starts the real
# servers they talk to, then runs the format and lint checks, every test of the workspace, the
# SAM template checks, the Lambda build and the deployed-shape suite on those zips.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-0}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# The openssl command makes the RSA keys of the token tests (agora-auth); make builds the policy
# runner's folder in sam build (BuildMethod: makefile). The machine image has both.
missing=()
for tool in openssl make; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${missing[@]}"
fi

# Python packages: oracles (pref_voting), real servers (secantusdb, moto, NATS), the SAM CLI,
# cfn-lint and cargo-lambda (with its zig).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
export AGORA_PYTHON="$PWD/.venv/bin/python"
export PATH="$PWD/.venv/bin:$PATH"

# Real servers on loopback: MongoDB protocol, DynamoDB/SQS/EventBridge/Scheduler (moto), NATS.
source tests/services.sh
start_services
# The moto launcher above answers as moto's own server does (its speed-ups change no answer).
.venv/bin/python shared/store-dynamodb/moto/check_launcher.py
# The AWS operator's dead-letter command (infra/aws/dead-letters) against that moto server.
.venv/bin/python -m pytest -q -p no:cacheprovider infra/aws

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
# The services' OpenAPI document is OpenAPI 3.1 (that it matches the code: infra/local/tests/openapi.rs).
.venv/bin/python -m openapi_spec_validator docs/openapi.json
# The clients against the local server: the Python client (clients/python), the `agora` CLI's
# MCP server (clients/cli) driven by the MCP Python SDK, and the console (infra/console) in
# Debian's Chromium (installed by its script; screenshots in target/console-screenshots/).
cargo build --locked -p agora-local -p agora-cli
export AGORA_LOCAL_BIN="$PWD/target/debug/agora-local" AGORA_BIN="$PWD/target/debug/agora"
.venv/bin/python -m pip install --quiet --disable-pip-version-check ./clients/python
.venv/bin/python -m pytest -q -p no:cacheprovider clients/python/tests clients/cli/tests/mcp
infra/console/tests/run.sh
# The same end-to-end suites (voting's, Orcade's and Xchange's) on the MongoDB and DynamoDB adapters (the
# embedded store ran above).
e2e_suite=(--test e2e -- voting::flow:: voting::concurrency:: voting::bad_input:: voting::live_stream:: voting::queries:: voting::crash:: voting::pqt_calls:: voting::input_keys:: voting::deadlines:: voting::cancel:: voting::weights:: orcade:: xchange:: clients::)
AGORA_E2E_STORE=mongodb cargo test --locked -p agora-e2e "${e2e_suite[@]}"
AGORA_E2E_STORE=dynamodb cargo test --locked -p agora-e2e "${e2e_suite[@]}"

# Deployment: the template's checks, then every function built as a Lambda zip.
./tests/deploy/check-template.sh
./tests/deploy/build-functions.sh
# sam build as the README runs it, every function, reusing that build (it compiles nothing).
./tests/deploy/sam-build.sh --all

# The stack as deployed: template.yaml run by the harness of tests/deployed (the zips above
# behind a Lambda Runtime API, the HTTP and WebSocket APIs, SQS event sources, Scheduler
# one-shots and rate rules against moto), on both stores; the real one-minute rate once.
./tests/deployed/run.sh --store mongodb --fast-only
./tests/deployed/run.sh --store dynamodb
