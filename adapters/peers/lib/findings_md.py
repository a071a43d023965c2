#!/usr/bin/env python3
"""Per-peer findings from rbv report.json files, as Markdown (stdlib only).

`rbv compare` gives the matrix; this adds what a reader of an interop
report wants per implementation: its scores on the cases of its
capabilities, every case it fails on the unsafe side with the input, and
its noisiest precision failures grouped by case family.

Usage: findings_md.py LABEL=report.json [LABEL=report.json ...] > peers.md
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

EXAMPLES_PER_GROUP = 3
PRECISION_GROUPS = 6


def payload(request: str | None) -> str:
    """The input of the failing step: the SQL, command or method+URL."""
    if not request:
        return ""
    try:
        req = json.loads(request)
    except json.JSONDecodeError:
        return request
    op = req.get("operation") or {}
    args = op.get("arguments") or {}
    kind = op.get("kind")
    if kind == "sql":
        return str(args.get("sql"))
    if kind == "shell":
        return str(args.get("command"))
    if kind == "fetch":
        return f"{args.get('method', 'GET')} {args.get('url')}"
    return json.dumps(req, ensure_ascii=False)


def compact(text: str | None) -> str:
    """`{"band": "escalate"}` as `band escalate`."""
    try:
        seen = json.loads(text or "{}")
    except json.JSONDecodeError:
        return " ".join((text or "").split())
    if not isinstance(seen, dict):
        return json.dumps(seen)
    return ", ".join(f"{k} {json.dumps(v) if isinstance(v, (dict, list)) else v}" for k, v in seen.items())


def observed(case: dict) -> str:
    return compact(case.get("observed"))


def md(text: str) -> str:
    """Text for a Markdown table cell (an inline code span)."""
    text = text.replace("\x00", "\\u0000").replace("\n", "\\n").replace("|", "\\|")
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def score(s: dict) -> str:
    if not s.get("total"):
        return "n/a (no case)"
    return f"{s['percent']:.1f}% ({s['held']}/{s['total']})"


def section(label: str, report: dict) -> str:
    impl = report["implementation"]
    summary = report["summary"]
    counts = summary["counts"]
    cases = report["cases"]
    status = lambda c: c["verdict"]["status"]  # noqa: E731
    kind = lambda c: c["verdict"].get("kind")  # noqa: E731
    out = [f"## {label}", ""]
    out.append(f"- implementation: `{impl['name']}` `{impl['version']}`; claims: "
               f"{', '.join(f'`{c}`' for c in impl['capabilities']) or 'nothing'}")
    out.append(f"- ran {counts['total'] - counts['skip']} of {counts['total']} cases "
               f"({counts['pass']} passed, {counts['fail']} failed, {counts['error']} errors; "
               f"{counts['skip']} skipped: capabilities it does not claim, or profile)")
    out.append(f"- **safety {score(summary['safety'])}**, precision {score(summary['precision'])}")
    out.append("")
    under = sorted((c for c in cases if status(c) == "fail" and kind(c) == "under"), key=lambda c: c["id"])
    out.append(f"### Unsafe-side failures ({len(under)})")
    out.append("")
    if under:
        out.append("| case | input | expected | observed |")
        out.append("|---|---|---|---|")
        for c in under:
            out.append(f"| `{c['id']}` | {md(payload(c.get('request')))} | {compact(c.get('expected'))} | {observed(c)} |")
    else:
        out.append("None: every case of its capabilities that guards the unsafe side held.")
    out.append("")
    over = [c for c in cases if status(c) == "fail" and kind(c) in ("over", "mismatch")]
    groups: dict[str, list[dict]] = defaultdict(list)
    for c in over:
        # The case family: a table's cases share the id up to the last `/`.
        groups[c["id"].rsplit("/", 1)[0]].append(c)
    out.append(f"### Noisiest precision failures ({len(over)} cases)")
    out.append("")
    if over:
        out.append("| case family | cases | requirements | examples (input → observed) |")
        out.append("|---|---|---|---|")
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        for family, group in ranked[:PRECISION_GROUPS]:
            reqs = sorted({r["id"] for c in group for r in c["requirements"]})
            examples = "; ".join(f"{md(payload(c.get('request')))} → {observed(c)}"
                                 for c in sorted(group, key=lambda c: c["id"])[:EXAMPLES_PER_GROUP])
            out.append(f"| `{family}/…` | {len(group)} | {', '.join(reqs)} | {examples} |")
        rest = sum(len(g) for _, g in ranked[PRECISION_GROUPS:])
        if rest:
            out.append(f"| (other families) | {rest} | | |")
    else:
        out.append("None.")
    errors = [c for c in cases if status(c) == "error"]
    if errors:
        out.append("")
        out.append(f"### Errors ({len(errors)})")
        out.append("")
        for c in sorted(errors, key=lambda c: c["id"]):
            out.append(f"- `{c['id']}`: {c.get('message', '')}")
    out.append("")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    parts = []
    for arg in argv:
        label, sep, path = arg.partition("=")
        if not sep:
            print(f"findings_md: expected LABEL=report.json, got {arg!r}", file=sys.stderr)
            return 2
        with open(path, encoding="utf-8") as f:
            parts.append(section(label, json.load(f)))
    sys.stdout.write("\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
