#!/usr/bin/env bash
# Builds the release asset that `cargo binstall rbv` downloads (see
# [package.metadata.binstall] in harness/Cargo.toml):
#   $CARGO_TARGET_DIR/archives/rbv-<target>-v<version>.tar.gz
# holding rbv-<target>-v<version>/rbv and rbv-launch (the launcher rbv starts
# implementations under; without it rbv falls back to `rbv launch`), built
# with the `dist` profile.
# Attach it to the GitHub release tagged v<version>.
# usage: scripts/release-archive.sh [TARGET-TRIPLE]   (default: the host)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
target=${1:-$(rustc -vV | sed -n 's/^host: //p')}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
cargo build --locked --profile dist -p rbv --target "$target"
name=rbv-$target-v$version
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$CARGO_TARGET_DIR/$target/dist/rbv" "$CARGO_TARGET_DIR/$target/dist/rbv-launch" \
    README.md "$stage/$name/"
mkdir -p "$CARGO_TARGET_DIR/archives"
tar -C "$stage" -czf "$CARGO_TARGET_DIR/archives/$name.tar.gz" "$name"
ls -l "$CARGO_TARGET_DIR/archives/$name.tar.gz"
