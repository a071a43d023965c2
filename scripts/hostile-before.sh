#!/bin/bash
# Runs today's hostile battery (harness/tests/hostile*) against rbv as it
# was before the hostile-input fixes (the merge base d160fc5^1), one test at
# a time, and says which fail (docs/hostile.md). Usage:
#   scripts/hostile-before.sh [DIR] [TEST…]
# DIR (default ../h-before-old) becomes a detached worktree at d160fc5^1;
# the battery is copied into it with the only glue it needs to compile
# against the old code (marked OLD-TREE GLUE; no assertion changes), and
# each TEST (default: all) runs alone under `ulimit -v 4000000` and a
# 180 s SIGKILL timeout: a hang or an allocation past 4 GB ends it, and
# counts as a failure. Logs: $DIR/hostile-before/<test>.log.
# Nothing of it is committed; `rm -rf DIR/target` frees the disk after.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
old=${1:-$here/../h-before-old}
shift || true
if [ ! -e "$old/.git" ]; then
    git -C "$here" worktree add --detach "$old" d160fc5^1
fi
cp "$here/harness/tests/hostile.rs" "$old/harness/tests/hostile.rs"
mkdir -p "$old/harness/tests/hostile"
cp "$here"/harness/tests/hostile/* "$old/harness/tests/hostile/"
python3 - "$old" <<'EOF'
import sys
old = sys.argv[1] + "/harness/tests/"
# RunOptions::deadline was added by the fix (005c63a): None was the old
# behaviour, so the field goes.
p = old + "hostile.rs"
s = open(p).read()
s = s.replace("            deadline: None,\n",
              "            // OLD-TREE GLUE: no `deadline` field before 005c63a.\n")
# rbv_report::text::{is_hostile, xml_allowed} were added by the fix: the
# test oracle, copied verbatim from report/src/text.rs at d160fc5.
s += r'''
/// OLD-TREE GLUE: `rbv_report::text::{is_hostile, xml_allowed}` were added
/// by the fix (005c63a, 3a2c4a5); copied verbatim from report/src/text.rs.
pub(crate) mod oracle {
    pub(crate) fn is_hostile(c: char) -> bool {
        c.is_control()
            || matches!(
                c,
                '\u{200b}'..='\u{200f}'
                    | '\u{2028}'..='\u{202e}'
                    | '\u{2060}'..='\u{2069}'
                    | '\u{061c}'
                    | '\u{feff}'
                    | '\u{fff9}'..='\u{fffb}'
            )
    }

    pub(crate) fn xml_allowed(c: char) -> bool {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    }
}
'''
open(p, "w").write(s)
p = old + "hostile/text.rs"
s = open(p).read()
s = s.replace("rbv_report::text::is_hostile", "super::oracle::is_hostile")
s = s.replace("rbv_report::text::xml_allowed", "super::oracle::xml_allowed")
open(p, "w").write(s)
EOF
cd "$old"
bin=$(nice -n 15 cargo test -p rbv --test hostile --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "hostile" and m.get("executable"):
        print(m["executable"])')
[ -n "$bin" ] || { echo "the battery does not compile against d160fc5^1" >&2; exit 2; }
logs=$old/hostile-before
mkdir -p "$logs"
[ $# -gt 0 ] || set -- $("$bin" --list 2>/dev/null | sed -n 's/: test$//p')
cd "$old/harness"
for t in "$@"; do
    timeout -s KILL 180 nice -n 15 bash -c "ulimit -v 4000000; exec '$bin' '$t' --exact --test-threads=1 --nocapture" \
        >"$logs/$t.log" 2>&1 && rc=0 || rc=$?
    case $rc in
        0) verdict="passes before the fix" ;;
        137) verdict="FAILS before the fix (killed: hang or memory)" ;;
        *) verdict="FAILS before the fix: $(grep -a -m1 -A1 'panicked at' "$logs/$t.log" | tail -n 1 | tr -d '\0' | cut -c1-120)" ;;
    esac
    echo "$t: $verdict"
done
