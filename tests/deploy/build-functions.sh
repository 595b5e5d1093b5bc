#!/usr/bin/env bash
# Builds every Lambda function with cargo-lambda (the `lambda` profile of Cargo.toml, zip output) and prints
# each zip's size. CI builds for the machine's own architecture (no rustup target download);
# deployments add --arm64 (see the README).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo lambda build --profile lambda --locked -p agora-voting-functions -p agora-orcade-functions -p agora-xchange-functions -p agora-http-functions --output-format zip "$@"
echo "Lambda zips:"
for zip in "${CARGO_TARGET_DIR:-target}"/lambda/*/bootstrap.zip; do
  awk -v name="$(basename "$(dirname "$zip")")" -v bytes="$(stat -c %s "$zip")" 'BEGIN { printf "  %-24s %6.2f MB\n", name, bytes / 1048576 }'
done
