#!/usr/bin/env bash
# Proves that the published crates work on their own, without this checkout:
#
#  1. `cargo publish --dry-run --workspace`: every crate's metadata is
#     publishable, and each crate is packaged and built from its .crate file
#     against the other crates' .crate files (cargo ≥ 1.90 resolves workspace
#     members through a local overlay registry, in dependency order
#     protocol → cases → report → reference → rbv).
#  2. rbv is installed from the .crate files alone (unpacked, with a
#     [patch.crates-io] to the other unpacked crates: they are not on
#     crates.io yet), into a temporary root.
#  3. The installed rbv runs its embedded suite from an unrelated directory:
#     exit 0, at least RBV_MIN_CASES (default 1000) passed, none failed.
#  4. The packaged rbv-cases, with its YAML files removed, must fail to build.
#
# Release artifacts go to the shared target dir (CARGO_TARGET_DIR or
# ./target), so a second run reuses the dependencies. RBV_ALLOW_DIRTY=1
# packages uncommitted changes too.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
min_cases=${RBV_MIN_CASES:-1000}
dirty=()
[ "${RBV_ALLOW_DIRTY:-}" = 1 ] && dirty=(--allow-dirty)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
step() { printf '\n==== %s (+%ss)\n' "$*" "$(($(date +%s) - start))"; }

step "cargo publish --dry-run --workspace (package and verify every crate)"
cargo publish --dry-run --workspace --locked "${dirty[@]}"

step "unpack the .crate files of version $version"
crates=(rbv-protocol rbv-cases rbv-report rbv-reference rbv)
mkdir "$work/crates"
for crate in "${crates[@]}"; do
  tar -xzf "$CARGO_TARGET_DIR/package/$crate-$version.crate" -C "$work/crates"
done
{
  echo
  echo "[patch.crates-io]"
  for crate in "${crates[@]}"; do
    [ "$crate" = rbv ] || echo "$crate = { path = \"../$crate-$version\" }"
  done
} >> "$work/crates/rbv-$version/Cargo.toml"

step "cargo install rbv from the unpacked .crate files"
cargo install --path "$work/crates/rbv-$version" --root "$work/root" --offline
rbv=$work/root/bin/rbv
ls -l "$rbv"

step "the installed rbv runs the embedded suite from an unrelated directory"
mkdir "$work/elsewhere"
status=0
(cd "$work/elsewhere" && "$rbv" run > "$work/run.txt" 2>&1) || status=$?
tail -3 "$work/run.txt"
summary=$(grep -E '^rbv: [0-9]+ passed, [0-9]+ failed' "$work/run.txt" | tail -1)
passed=$(sed -E 's/^rbv: ([0-9]+) passed.*/\1/' <<< "$summary")
failed=$(sed -E 's/^rbv: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<< "$summary")
if [ "$status" -ne 0 ] || [ "${passed:-0}" -lt "$min_cases" ] || [ "${failed:-1}" -ne 0 ]; then
  echo "FAIL: exit $status, '$summary' (want exit 0, >= $min_cases passed, 0 failed)" >&2
  exit 1
fi
echo "ok: exit 0, $passed passed, 0 failed"

step "the packaged rbv-cases without its YAML files must not build"
cp -r "$work/crates/rbv-cases-$version" "$work/empty-cases"
find "$work/empty-cases" \( -name '*.yaml' -o -name '*.yml' \) -delete
if (cd "$work/empty-cases" && cargo build --offline -q > "$work/empty.txt" 2>&1); then
  echo "FAIL: rbv-cases built without a corpus" >&2
  exit 1
fi
grep 'refusing to embed the case corpus' "$work/empty.txt"

step "done in $(($(date +%s) - start))s"
