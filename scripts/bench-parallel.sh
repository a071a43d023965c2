#!/usr/bin/env bash
# The rayon figures for BENCHMARKS.md ("Parallel corpus work"): the CPU-bound
# commands, timed with rayon on one thread (RAYON_NUM_THREADS=1, the
# sequential baseline, measured in the same rounds) and with its default
# (one thread per core), medians of interleaved rounds.
# Then the load alone, in process (no process start around it): the
# load_corpus example, 1 thread and rayon's default interleaved, 21 rounds.
# Usage: scripts/bench-parallel.sh [rounds]        (default 5)
#        BEFORE=path/to/rbv scripts/bench-parallel.sh   also times another
#        binary (e.g. built from the commit before rayon) in the same rounds.
#        RBV=path/to/rbv skips the build and times that binary.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
if [ -z "${RBV:-}" ]; then
  cargo build --release -q -p rbv
  RBV=./target/release/rbv
fi
cargo build --release -q -p rbv --example load_corpus
before=${BEFORE:-}
commands=("list" "lint --coverage" "run --all-mutants")
variants=("1" "default")
[ -n "$before" ] && variants=("before" "${variants[@]}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]}'; }
# One run: "wall user+sys" in seconds, from bash's own `time`.
one() {
  local variant=$1 command=$2 bin=$RBV
  local -a env=()
  case $variant in
    1) env=(RAYON_NUM_THREADS=1) ;;
    before) bin=$before ;;
  esac
  local TIMEFORMAT='%3R %3U %3S'
  { time env "${env[@]}" "$bin" $command >/dev/null 2>&1; } 2>&1 | awk '{print $1, $2 + $3}'
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for i in "${!commands[@]}"; do
    for v in "${variants[@]}"; do
      one "$v" "${commands[$i]}" >>"$work/$i.$v"
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); $rounds interleaved rounds"
echo
header="| command |"
rule="|---|"
for v in "${variants[@]}"; do
  case $v in
    1) name="RAYON_NUM_THREADS=1" ;;
    default) name="rayon default" ;;
    before) name="before (\`$before\`)" ;;
  esac
  header+=" $name: wall ms (CPU ms) |"
  rule+="---:|"
done
extra=""
[ -n "$before" ] && extra=" before ÷ default |" && rule+="---:|"
echo "$header 1 thread ÷ default, median of per-round ratios |$extra"
echo "$rule---:|"
for i in "${!commands[@]}"; do
  row="| \`rbv ${commands[$i]}\` |"
  for v in "${variants[@]}"; do
    wall=$(awk '{print $1 * 1000}' "$work/$i.$v" | median)
    cpu=$(awk '{print $2 * 1000}' "$work/$i.$v" | median)
    row+=" $wall ($cpu) |"
  done
  ratio=$(paste -d' ' "$work/$i.1" "$work/$i.default" | awk '{printf "%.2f\n", $1 / $3}' | median)
  row+=" ${ratio}× |"
  if [ -n "$before" ]; then
    row+=" $(paste -d' ' "$work/$i.before" "$work/$i.default" | awk '{printf "%.2f\n", $1 / $3}' | median)× |"
  fi
  echo "$row"
done
echo
echo "rounds (wall ms):"
for i in "${!commands[@]}"; do
  for v in "${variants[@]}"; do
    echo "  rbv ${commands[$i]} [$v]: $(awk '{printf "%d ", $1 * 1000}' "$work/$i.$v")"
  done
done
echo
./target/release/examples/load_corpus --rounds 21
