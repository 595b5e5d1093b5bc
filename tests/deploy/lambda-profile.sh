# Sourced by build-functions.sh and sam-build.sh (from the workspace root): exports the `lambda`
# profile of Cargo.toml as CARGO_PROFILE_RELEASE_* variables. sam build runs `cargo lambda build
# --release` and takes no other cargo options, so the zips are built with `--release` and these
# variables too: the same profile, RUSTFLAGS and target directory, one build that both use. The
# README's sam build line sets the same variables (sam-build.sh checks that it does).
lambda_profile_env() {
  python3 - <<'PY'
import tomllib

with open("Cargo.toml", "rb") as f:
    profile = tomllib.load(f)["profile"]["lambda"]
if profile.pop("inherits", None) != "release":
    raise SystemExit("Cargo.toml: [profile.lambda] must inherit release (sam build builds the release profile)")
for key, value in profile.items():
    value = str(value).lower() if isinstance(value, bool) else value
    print(f"CARGO_PROFILE_RELEASE_{key.upper().replace('-', '_')}={value}")
PY
}
lambda_profile_vars="$(lambda_profile_env)"
while IFS= read -r assignment; do
  export "${assignment?}"
done <<<"$lambda_profile_vars"
