#!/usr/bin/env bash
# The full mutation run of the reference: every mutant of one frozen commit,
# in shards, resumable from one session to the next (docs/mutation.md "The
# full run").
#
#   scripts/mutants-full-run.sh COMMIT SHARDS [FIRST]
#   nice -n 19 setsid scripts/mutants-full-run.sh be2d4c9 48 11 > run.log 2>&1 < /dev/null &
#
# The commit is checked out once in a worktree of its own ($RBV_MUTANTS_WORKTREE,
# default /work/wt/mut) with its own target directory, so that the run never
# sees a later edit; each shard K (FIRST ≤ K < SHARDS) writes
# $RBV_MUTANTS_OUT/shard-K/mutants.out (default /work/mutants-runs/COMMIT) and
# a `done` file when cargo-mutants finished it. A stopped session loses the
# shard it was in: that shard's directory has no `done` and is run again.
# Shards below FIRST are taken as already recorded.
#
# Merge finished shards into the record with
#   scripts/mutants-score.py docs/mutation-run-COMMIT.tsv $RBV_MUTANTS_OUT/shard-*/mutants.out \
#     --record docs/mutation-run-COMMIT.tsv
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,19p' "$0" >&2; exit 64; }
commit=$1 shards=$2 first=${3:-0}
repo=$(cd "$(dirname "$0")/.." && pwd)
wt=${RBV_MUTANTS_WORKTREE:-/work/wt/mut}
out=${RBV_MUTANTS_OUT:-/work/mutants-runs/$commit}

if [ ! -d "$wt" ]; then
  git -C "$repo" worktree add --detach "$wt" "$commit"
fi
# An `--in-place` run stopped mid-mutant leaves the mutated file behind.
git -C "$wt" checkout -q -- .
mkdir -p "$out"

for ((k = first; k < shards; k++)); do
  dir=$out/shard-$k
  [ -f "$dir/done" ] && continue
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "$(date -u +%FT%TZ) shard $k/$shards"
  rc=0
  (cd "$wt" && scripts/mutants.sh --shard "$k/$shards" --in-place --output "$dir") || rc=$?
  # cargo-mutants: 0 all caught, 2 some missed, 3 some timed out; anything
  # else (a failed baseline, a usage error) leaves the shard to run again.
  case $rc in
    0 | 2 | 3) touch "$dir/done" ;;
    *) echo "shard $k ended with $rc; not marked done" >&2; exit "$rc" ;;
  esac
done
echo "$(date -u +%FT%TZ) all $shards shards done"
