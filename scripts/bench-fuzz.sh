#!/usr/bin/env bash
# Fuzzing figures for BENCHMARKS.md, medians of 5 runs with different seeds:
#  1. exec/s of every target on the stable driver, in-process (reference);
#  2. exec/s against the reference over the protocol (a child process);
#  3. time for the stable driver to find each fuzzable mutant;
#  4. with nightly + cargo-fuzz: time for libFuzzer to find each mutant;
#  5. time for the stable driver to find each realistic bug family
#     (harness/tests/integration/support/bugs.rs), in-process and over the protocol.
# Usage: scripts/bench-fuzz.sh [seconds-per-throughput-run]   (default 10)
#        RBV_BENCH_LIBFUZZER=0 skips the libFuzzer part (it builds every target).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
cargo build --release -q -p rbv
rbv=./target/release/rbv
seeds="1 2 3 4 5"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rate() { sed -n 's/.*(\([0-9.]*\) exec\/s).*/\1/p'; }

if [ "${RBV_BENCH_THROUGHPUT:-1}" = 1 ]; then
echo "## exec/s, stable driver (median of 5 seeds, ${secs}s each)"
echo "| target | in-process | over the protocol |"
echo "|---|---:|---:|"
for t in token_binding sql_bypass shell_bypass url_loopback manifest rule_of_two projection case_loader protocol_decoder; do
  inproc=$(for s in $seeds; do $rbv fuzz --target "$t" --time "${secs}s" --seed "$s" 2>&1 >/dev/null | rate; done | median)
  case $t in
    case_loader|protocol_decoder) proto="n/a (no implementation)" ;;
    *) proto=$(for s in $seeds; do $rbv fuzz --target "$t" --time "${secs}s" --seed "$s" --impl "$rbv serve" 2>&1 >/dev/null | rate; done | median) ;;
  esac
  echo "| $t | $inproc | $proto |"
done
fi

pairs="rule-of-two-off:rule_of_two shape-bound-token:token_binding replayable-token:token_binding model-minted-token:token_binding first-keyword-sql:sql_bypass substring-loopback:url_loopback whatwg-only-host:url_loopback infrastructure-blind:url_loopback quoted-string-blind:shell_bypass whole-plugin-invalid:manifest permissive-default:manifest"
echo
echo "## time to find each mutant, stable driver (median of 5 seeds)"
echo "| mutant | target | execs | ms |"
echo "|---|---|---:|---:|"
for pair in $pairs; do
  m=${pair%%:*}; t=${pair##*:}
  rows=$(for s in $seeds; do
    # `rbv fuzz` exits 1 on a finding, which is the point here.
    { $rbv fuzz --target "$t" --mutant "$m" --seed "$s" --time 60s --stop-at-first --artifact-dir "$(mktemp -d)" 2>/dev/null || true; } \
      | sed -n 's/^# found after \([0-9]*\) execs (\([0-9.]*\) ms).*/\1 \2/p' | head -1
  done)
  execs=$(echo "$rows" | awk '{print $1}' | median)
  time=$(echo "$rows" | awk '{print $2}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "| $m | $t | $execs | $time |"
done

echo
echo "## time to first finding of realistic bug families, stable driver (median of 5 seeds, ${secs}s cap each)"
cargo build --release -q -p rbv --example bug_families
./target/release/examples/bug_families --time "$secs"
echo
./target/release/examples/bug_families --time "$secs" --impl "$rbv serve"

if [ "${RBV_BENCH_LIBFUZZER:-1}" = 1 ] && rustup toolchain list | grep -q '^nightly' && command -v cargo-fuzz >/dev/null; then
  echo
  echo "## time to find each mutant, libFuzzer (cargo +nightly fuzz, median of 5 seeds, from the seed corpus)"
  echo "| mutant | target | seconds |"
  echo "|---|---|---:|"
  (cd fuzz && cargo +nightly fuzz build -O >/dev/null 2>&1)
  for pair in $pairs; do
    m=${pair%%:*}; t=${pair##*:}
    secs_found=$(for s in $seeds; do
      work=$(mktemp -d); cp -r "corpora/$t/." "$work/"
      start=$(date +%s.%N)
      (cd fuzz && RBV_MUTANT=$m cargo +nightly fuzz run -O "$t" "$work" -- -seed="$s" -max_total_time=60 \
        -artifact_prefix="$work/" >/dev/null 2>&1) || true
      end=$(date +%s.%N)
      if ls "$work"/crash-* >/dev/null 2>&1; then echo "$end - $start" | bc; else echo 999; fi
      rm -rf "$work"
    done | median)
    echo "| $m | $t | $secs_found |"
  done
  echo
  echo "## libFuzzer exec/s in-process against the reference (median of 5 seeds, ${secs}s)"
  echo "| target | exec/s |"
  echo "|---|---:|"
  for t in token_binding sql_bypass shell_bypass url_loopback manifest rule_of_two projection case_loader protocol_decoder; do
    r=$(for s in $seeds; do
      work=$(mktemp -d); cp -r "corpora/$t/." "$work/"
      (cd fuzz && cargo +nightly fuzz run -O "$t" "$work" -- -seed="$s" -max_total_time="$secs" -print_final_stats=1 2>&1) \
        | sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' | awk -v s="$secs" '{printf "%d\n", $1/s}'
      rm -rf "$work"
    done | median)
    echo "| $t | $r |"
  done
else
  echo
  echo "!!! SKIP: nightly or cargo-fuzz missing (or RBV_BENCH_LIBFUZZER=0): no libFuzzer figures !!!"
fi
