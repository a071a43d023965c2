#!/usr/bin/env bash
# Mutation testing of the reference with the conformance corpus as the test.
#
#   scripts/mutants.sh                                  # every mutant (hours on 2 cores)
#   scripts/mutants.sh --shard 3/8                      # one slice, as the scheduled workflow does
#   scripts/mutants.sh -f reference/src/token.rs        # one module
#
# A prebuilt release `rbv` runs the corpus over the protocol against each
# mutated `rbv-ref` (reference/tests/corpus_over_protocol.rs); results land in
# mutants.out/ (outcomes.json, caught.txt, missed.txt, unviable.txt,
# timeout.txt). Missed mutants that are equivalent are listed with a reason in
# docs/mutation-equivalent.txt; scripts/mutants-score.py tallies per module.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked
cargo build --release --locked -q -p rbv
export RBV_BIN="$PWD/target/release/rbv"
exec cargo mutants --package rbv-reference --test-package rbv-reference \
  --baseline run --timeout 300 "$@" \
  -- --test corpus_over_protocol -- --ignored
