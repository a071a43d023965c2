#!/bin/sh
# rbv's peak memory against a hostile implementation, over the whole
# embedded suite with --report (BENCHMARKS.md, "Memory"). Usage:
#   scripts/bench-memory.sh [RBV] [BYTES] [MODE] [RUNS]
# RBV defaults to target/release/rbv, BYTES to 1000000, RUNS to 3. MODE is
# `padding` (a legal extra key of BYTES bytes in every answer; the cases
# pass) or `message` (every answer `unsupported` with a message of BYTES
# bytes; every case fails with it), default `message`. Each run prints GNU
# time's maximum resident set size (the largest of rbv and its waited-for
# children; the proxy and adapters stay far below rbv) and its wall time;
# then the median peak, and the last run's summary line and report sizes.
set -eu
rbv=${1:-target/release/rbv}
bytes=${2:-1000000}
mode=${3:-message}
runs=${4:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
case $mode in
    padding) flag= ;;
    message) flag=--message ;;
    *) echo "bench-memory: MODE is padding or message, not $mode" >&2; exit 2 ;;
esac
proxy="python3 $here/harness/tests/hostile/padding_proxy.py $flag $bytes $rbv serve"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    rm -rf "$scratch/out"
    /usr/bin/time -v "$rbv" run --impl "$proxy" --report "$scratch/out" --timeout 20s \
        >"$scratch/stdout" 2>"$scratch/time" || true
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$scratch/time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$scratch/time")
    echo "run $i: $mode $bytes bytes: peak RSS $kb kB ($((kb / 1024)) MiB), wall $wall"
    echo "$kb" >>"$scratch/peaks"
done
median=$(sort -n "$scratch/peaks" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "median peak RSS of $runs runs: $median kB ($((median / 1024)) MiB)"
tail -n 1 "$scratch/stdout"
ls -l "$scratch/out" | awk 'NR > 1 { print "  " $5 "\t" $9 }'
