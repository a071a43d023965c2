#!/bin/sh
# rbv's peak memory against an implementation that adds a legal 1 MB key
# to every answer (BENCHMARKS.md, "Memory"). Usage:
#   scripts/bench-memory.sh [RBV] [BYTES]
# RBV defaults to target/release/rbv, BYTES to 1000000. Prints GNU time's
# maximum resident set size of rbv (its children are separate processes:
# time -v counts the largest of rbv and its waited-for children, and the
# proxy and adapters stay far below rbv's figure; see the summary line).
set -eu
rbv=${1:-target/release/rbv}
bytes=${2:-1000000}
here=$(cd "$(dirname "$0")/.." && pwd)
proxy="python3 $here/harness/tests/hostile/padding_proxy.py $bytes $rbv adapter"
report=$(mktemp -d)
/usr/bin/time -v "$rbv" run --impl "$proxy" --report "$report/out" --timeout 20000 \
    >"$report/stdout" 2>"$report/time" || true
tail -n 1 "$report/stdout"
grep -E "Maximum resident set size|Elapsed \(wall" "$report/time"
ls -l "$report/out" | awk 'NR > 1 { print "  " $5 "\t" $9 }'
rm -rf "$report"
