#!/bin/bash -eu
# Builds every target in fuzz/ with the OSS-Fuzz toolchain and ships each
# with its seed corpus (corpora/<target>/, regressions included).
cd "$SRC/rbv"
cargo fuzz build -O --fuzz-dir fuzz
for target in $(cargo fuzz list --fuzz-dir fuzz); do
  cp "fuzz/target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
  if [ -d "corpora/$target" ]; then
    (cd "corpora/$target" && find . -type f | zip -q -@ "$OUT/${target}_seed_corpus.zip")
  fi
done
