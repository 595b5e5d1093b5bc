#!/usr/bin/env bash
# Builds every Lambda function with cargo-lambda (zip output) and prints each zip's size: the
# workspace's default-members (the function packages), `--release` with the `lambda` profile of
# Cargo.toml given as CARGO_PROFILE_RELEASE_* variables (lambda-profile.sh), exactly as sam build
# builds them, so that tests/deploy/sam-build.sh reuses this build. CI builds for the machine's own
# architecture (no rustup target download); deployments add --arm64 (see the README).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lambda-profile.sh
source tests/deploy/lambda-profile.sh
# A bare bootstrap beside a zip (cargo lambda's binary output, which sam build leaves) would be run
# by tests/deployed instead of the zip built here.
rm -f "${CARGO_TARGET_DIR:-target}"/lambda/*/bootstrap
cargo lambda build --release --locked --output-format zip "$@"
echo "Lambda zips:"
for zip in "${CARGO_TARGET_DIR:-target}"/lambda/*/bootstrap.zip; do
  awk -v name="$(basename "$(dirname "$zip")")" -v bytes="$(stat -c %s "$zip")" 'BEGIN { printf "  %-24s %6.2f MB\n", name, bytes / 1048576 }'
done
