#!/usr/bin/env bash
# `sam build` as the README's "Deploy to AWS" runs it (its CARGO_PROFILE_RELEASE_* variables and
# flags), for the machine's own architecture (the template's Architecture parameter: no Rust target
# to download), then checks what it produced: .aws-sam/build/<LogicalId>/bootstrap, an executable
# for that architecture, and the .aws-sam/build/template.yaml that `sam deploy` packages. Before
# building, every function's Metadata is checked (a Rust function's BuildMethod rust-cargolambda,
# its Binary in one of the workspace's default-members, CodeUri the root, Architectures the
# parameter), and the README's variables against the `lambda` profile of Cargo.toml.
#
#   tests/deploy/sam-build.sh                 sam build of the template's first Rust function
#   tests/deploy/sam-build.sh LogicalId       of that Rust function
#   tests/deploy/sam-build.sh --all           the README's command as it is: every function, the
#                                             Rust ones and the others (PolicyRunnerFunction's make)
#
# Run right after tests/deploy/build-functions.sh (tests/run.sh does): sam build runs
# `cargo lambda build --release --bin <Binary>` from the workspace root (each function's CodeUri),
# which is build-functions.sh's build (the same release profile from lambda-profile.sh, the same
# packages, default-members, hence the same features, RUSTFLAGS and target directory), so cargo
# finds everything fresh and compiles nothing. When build-functions.sh's zips are there, this
# checks that it did: sam's bootstrap must be the zip's binary, and no crate recompiled (that
# would be a second release build of the workspace in CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH"
export SAM_CLI_TELEMETRY=0

case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 triple=x86_64-unknown-linux-gnu ;;
  aarch64 | arm64) arch=arm64 triple=aarch64-unknown-linux-gnu ;;
  *) echo "sam-build: no Lambda architecture for $(uname -m)" >&2; exit 1 ;;
esac
# shellcheck source=lambda-profile.sh
source tests/deploy/lambda-profile.sh
target_dir="$(cargo metadata --no-deps --format-version 1 --locked | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
all=false
if [ "${1:-}" = "--all" ]; then
  all=true
  shift
fi

# The plan: the README's sam build line (its variables must be the `lambda` profile's), the
# functions to build (LogicalId, Binary), each checked against the template and the workspace.
plan="$(
  lambda_profile_vars="$lambda_profile_vars" all="$all" .venv/bin/python - "$@" <<'PY'
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, "tests/deploy")
import translate  # noqa: E402  (the template's YAML loader, which takes the short tags)

errors = []

# The README's sam build line: the first ```sh block of "## Deploy to AWS", continuation lines joined.
readme = open("README.md", encoding="utf-8").read()
section = readme.split("\n## Deploy to AWS", 1)[-1].split("\n## ", 1)[0]
block = re.search(r"```sh\n(.*?)```", section, re.S)
lines = (block.group(1) if block else "").replace("\\\n", " ").splitlines()
command = None
for line in lines:
    words = shlex.split(line, comments=True)  # a comment line is no words
    if "sam" in words and words[words.index("sam") + 1 :][:1] == ["build"]:
        command = words
        break
if not command:
    sys.exit("README.md: no `sam build` line in the sh block of \"## Deploy to AWS\"")
assignments = [word for word in command if re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", word)]
rest = command[len(assignments):]
if rest[:2] != ["sam", "build"] or command[: len(assignments)] != assignments:
    sys.exit(f"README.md: the sam build line is not VARIABLE=value... sam build [flags]: {command}")
flags = rest[2:]
wanted = dict(a.split("=", 1) for a in os.environ["lambda_profile_vars"].splitlines())
given = dict(a.split("=", 1) for a in assignments)
if given != wanted:
    errors.append(
        f"README.md's sam build line sets {given}, but the `lambda` profile of Cargo.toml is {wanted}: "
        "sam build would deploy other binaries than the tested zips (and rebuild everything)"
    )

# The template's functions, in order: the Rust ones (BuildMethod rust-cargolambda) with their Binary.
with open("template.yaml", encoding="utf-8") as f:
    template = translate.yaml_parse(f.read())
globals_ = template.get("Globals", {}).get("Function", {})
functions, others = {}, []
for lid, resource in template["Resources"].items():
    if resource.get("Type") != "AWS::Serverless::Function":
        continue
    metadata = resource.get("Metadata") or {}
    props = resource.get("Properties", {})
    runtime = str(props.get("Runtime", globals_.get("Runtime", "")))
    if metadata.get("BuildMethod") != "rust-cargolambda":
        if runtime.startswith("provided") and not metadata.get("BuildMethod"):
            errors.append(f"template.yaml: {lid}: runtime {runtime} and no Metadata BuildMethod (rust-cargolambda, with BuildProperties Binary)")
        others.append(lid)
        continue
    binary = (metadata.get("BuildProperties") or {}).get("Binary")
    if not binary:
        errors.append(f"template.yaml: {lid}: Metadata.BuildProperties.Binary is missing (sam build would guess the binary)")
    architectures = props.get("Architectures", globals_.get("Architectures"))
    if architectures != [{"Ref": "Architecture"}]:
        errors.append(
            f"template.yaml: {lid}: Architectures is {architectures}, not [!Ref Architecture] "
            "(CI builds for its own architecture, without downloading a Rust target)"
        )
    if str(props.get("CodeUri", ".")).rstrip("/") != ".":
        errors.append(
            f"template.yaml: {lid}: CodeUri is {props.get('CodeUri')!r}, not the workspace root: sam build would "
            "select other packages, so other features, than build-functions.sh"
        )
    functions[lid] = binary
if not functions:
    sys.exit("template.yaml: no function with Metadata BuildMethod rust-cargolambda")

names = sys.argv[1:]
if os.environ["all"] == "true" or not names:
    selected = list(functions) if os.environ["all"] == "true" else [next(iter(functions))]
elif len(names) > 1:
    sys.exit("sam-build: one LogicalId (each sam build of one function empties .aws-sam/build), or --all")
elif names[0] not in functions:
    sys.exit(f"template.yaml: no Rust function {names[0]!r} (there are {', '.join(functions)})")
else:
    selected = names

# sam build runs `cargo lambda build --release --bin <Binary>` at the workspace root: only the
# default-members' binaries are there, built with build-functions.sh's features.
metadata = json.loads(subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1", "--locked"], check=True, capture_output=True).stdout)
default_members = set(metadata["workspace_default_members"])
owner = {t["name"]: p for p in metadata["packages"] for t in p["targets"] if "bin" in t["kind"]}
for lid, binary in functions.items():
    if binary and binary not in owner:
        errors.append(f"template.yaml: {lid}: no package of the workspace has a binary {binary!r}")
    elif binary and owner[binary]["id"] not in default_members:
        errors.append(
            f"{lid}: binary {binary!r} is in {owner[binary]['name']}, not one of the workspace's default-members "
            "(Cargo.toml), which build-functions.sh and sam build build: add the package there"
        )

if errors:
    sys.exit("sam-build: " + "\n  ".join(["the template or the README does not build as CI does:", *errors]))
print(shlex.join(assignments))
print(shlex.join(flags))
for lid in selected:
    print(f"{lid} {functions[lid]}")
if os.environ["all"] == "true":
    for lid in others:
        print(f"{lid} -")  # built by its own BuildMethod (or runtime): checked for a non-empty artifact
PY
)"
mapfile -t plan_lines <<<"$plan"
eval "readme_env=(${plan_lines[0]})"
eval "readme_flags=(${plan_lines[1]})"
builds=("${plan_lines[@]:2}")

# cargo lambda's binary output (target/lambda/<Binary>/bootstrap), from which sam copies: gone
# after, as build-functions.sh left that directory (tests/deployed would run it before the zip).
left=()
stamp="$(mktemp)"
cleanup() {
  for binary in "${left[@]}"; do
    rm -f "$target_dir/lambda/$binary/bootstrap"
  done
  rm -f "$stamp"
}
trap cleanup EXIT
had_zips=true
lids=()
for build in "${builds[@]}"; do
  read -r lid binary <<<"$build"
  [ "$binary" != - ] || continue
  lids+=("$lid")
  left+=("$binary")
  [ -f "$target_dir/lambda/$binary/bootstrap.zip" ] || had_zips=false
done

run_sam() {
  local started=$SECONDS
  echo "+ ${readme_env[*]} sam build $* ${readme_flags[*]} --parameter-overrides Architecture=$arch"
  env "${readme_env[@]}" sam build "$@" "${readme_flags[@]}" --parameter-overrides "Architecture=$arch"
  echo "sam build ${1:-(every function)}: $((SECONDS - started)) s"
}
started=$SECONDS
if $all; then
  run_sam
else
  run_sam "${lids[0]}"
fi
elapsed=$((SECONDS - started))

# What cargo recompiled during sam build: the units whose fingerprints changed.
rebuilt="$(find "$target_dir/$triple/release/.fingerprint" "$target_dir/release/.fingerprint" -type f -newer "$stamp" -printf '%h\n' 2>/dev/null | xargs -r -n1 basename | sort -u)"

had_zips="$had_zips" arch="$arch" rebuilt="$rebuilt" target_dir="$target_dir" .venv/bin/python - "${builds[@]}" <<'PY'
import hashlib
import os
import sys
import zipfile

sys.path.insert(0, "tests/deploy")
import translate  # noqa: E402

MACHINE = {"x86_64": 62, "arm64": 183}  # ELF e_machine: EM_X86_64, EM_AARCH64
errors = []
with open(".aws-sam/build/template.yaml", encoding="utf-8") as f:
    built = translate.yaml_parse(f.read())["Resources"]
for build in sys.argv[1:]:
    lid, binary = build.split()
    if binary == "-":
        built_files = os.listdir(f".aws-sam/build/{lid}") if os.path.isdir(f".aws-sam/build/{lid}") else []
        if not built_files:
            errors.append(f"{lid}: sam build left nothing in .aws-sam/build/{lid}/")
        else:
            print(f"{lid}: .aws-sam/build/{lid}/: {', '.join(sorted(built_files))}")
        continue
    path = f".aws-sam/build/{lid}/bootstrap"
    if not os.path.isfile(path):
        errors.append(f"{lid}: sam build left no {path}")
        continue
    data = open(path, "rb").read()
    if not os.access(path, os.X_OK):
        errors.append(f"{lid}: {path} is not executable")
    if data[:4] != b"\x7fELF" or int.from_bytes(data[18:20], "little") != MACHINE[os.environ["arch"]]:
        errors.append(f"{lid}: {path} is not an ELF executable for {os.environ['arch']}")
    code = built.get(lid, {}).get("Properties", {}).get("CodeUri")
    if code != lid:
        errors.append(f"{lid}: .aws-sam/build/template.yaml gives it CodeUri {code!r}, not its build directory {lid!r}")
    zip_path = os.path.join(os.environ["target_dir"], "lambda", binary, "bootstrap.zip")
    if os.environ["had_zips"] == "true":
        with zipfile.ZipFile(zip_path) as z:
            tested = z.read("bootstrap")
        if hashlib.sha256(tested).digest() != hashlib.sha256(data).digest():
            errors.append(f"{lid}: sam build's bootstrap is not the binary of {zip_path} (build-functions.sh's, which tests/deployed runs)")
    size = len(data) / 1048576
    print(f"{lid}: .aws-sam/build/{lid}/bootstrap, {os.environ['arch']} ELF, {size:.2f} MB" + (", the zip's binary" if os.environ["had_zips"] == "true" else ""))
rebuilt = os.environ["rebuilt"].split()
if os.environ["had_zips"] == "true" and rebuilt:
    errors.append(
        f"sam build recompiled {len(rebuilt)} crate(s) that build-functions.sh had built ({', '.join(rebuilt[:8])}"
        + (", ..." if len(rebuilt) > 8 else "") + "): a second release build. Both must build the same way: "
        "the release profile with lambda-profile.sh's variables, default-members, the same RUSTFLAGS "
        "(or the sources changed since build-functions.sh ran)"
    )
if errors:
    sys.exit("sam-build: " + "\n  ".join(["FAILED", *errors]))
PY
echo "sam build: ${#builds[@]} function(s) in ${elapsed} s, $( [ "$had_zips" = true ] && echo "reusing build-functions.sh's build (no crate recompiled)" || echo "no zips from build-functions.sh to compare with")"
