#!/usr/bin/env bash
# The `--spawn-per-case` figure of BENCHMARKS.md: wall time of
#   RBV run --spawn-per-case --jobs 2 --impl "exec 'IMPL' serve" --cases CASES --filter FILTER
# for each binary given, the same implementation for all (IMPL, default
# the first binary: its own `rbv serve`), in interleaved rounds; then the
# median per binary and the median of the per-round ratios to the first.
# Usage: scripts/bench-spawn.sh [-n ROUNDS] [-c CASES] [-f FILTER] [-i IMPL] RBV [RBV…]
#   e.g. scripts/bench-spawn.sh -c ../old/cases old/rbv before/rbv ./target/release/rbv
# Defaults: 5 rounds, ./cases, sql/. Each RBV runs with whatever sits
# beside it (`rbv-launch`); give every binary a corpus it can load.
set -euo pipefail
rounds=5 cases=./cases filter=sql/ impl=
while getopts n:c:f:i: opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    c) cases=$OPTARG ;;
    f) filter=$OPTARG ;;
    i) impl=$OPTARG ;;
    *) sed -n '2,11p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,11p' "$0"; exit 2; }
bins=("$@")
impl=${impl:-${bins[0]}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
one() {
  local bin=$1 out=$work/out TIMEFORMAT='%3R'
  local took
  took=$( { time "$bin" run --spawn-per-case --jobs 2 --impl "exec '$impl' serve" \
    --cases "$cases" --filter "$filter" >"$out" 2>&1; } 2>&1 ) || {
    echo "$bin failed:" >&2; tail -5 "$out" >&2; exit 1; }
  tail -1 "$out" >"$work/summary.$2"
  awk -v t="$took" 'BEGIN {printf "%d\n", t * 1000}'
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# implementation: exec '$impl' serve; cases: $cases --filter $filter; $rounds interleaved rounds"
for round in $(seq "$rounds"); do
  for i in "${!bins[@]}"; do
    one "${bins[$i]}" "$i" >>"$work/$i"
  done
  # Per-round ratio of every binary to the first.
  for i in "${!bins[@]}"; do
    paste -d' ' <(tail -1 "$work/$i") <(tail -1 "$work/0") | awk '{printf "%.4f\n", $1 / $2}' >>"$work/ratio.$i"
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| binary | wall, median (ms) | rounds (ms) | ÷ first, median of per-round ratios | last summary |"
echo "|---|---:|---|---:|---|"
for i in "${!bins[@]}"; do
  printf '| `%s` | %s | %s | %s× | %s |\n' "${bins[$i]}" "$(median <"$work/$i")" \
    "$(tr '\n' ' ' <"$work/$i" | sed 's/ $//')" "$(median <"$work/ratio.$i" | awk '{printf "%.2f", $1}')" \
    "$(cat "$work/summary.$i")"
done
