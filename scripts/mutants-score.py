#!/usr/bin/env python3
"""Tally cargo-mutants outcomes per module, against the equivalents file.

    scripts/mutants-score.py mutants.out [more.out ...] [--equivalent docs/mutation-equivalent.txt]
    scripts/mutants-score.py docs/mutation-outcomes.tsv new.out --record docs/mutation-outcomes.tsv

Each input is a cargo-mutants output directory or a record written by
`--record` (one `outcome<TAB>mutant name` line per mutant). A mutant in
several inputs counts with its outcome in the last one. `--record FILE`
writes the merged outcomes, so that the published score can be recomputed
from the repository alone (docs/mutation-outcomes.tsv).

Reads each DIR/outcomes.json (cargo-mutants 27), prints a Markdown table of
caught / missed / unviable / timeout per source file, and lists every missed
mutant that docs/mutation-equivalent.txt does not justify. Exits 1 when such
a mutant remains: a missed mutant is either killed by a new case or recorded
as equivalent with its reason.
"""
import json
import sys
from collections import defaultdict

KINDS = {
    "CaughtMutant": "caught",
    "MissedMutant": "missed",
    "Unviable": "unviable",
    "Timeout": "timeout",
}


def equivalents(path):
    """`NAME  # reason` lines; the name is cargo-mutants' mutant name."""
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                name, sep, reason = line.partition("  # ")
                if not sep or not reason.strip():
                    sys.exit(f"{path}: an equivalent mutant needs `  # reason`: {line}")
                out[name.strip()] = reason.strip()
    except FileNotFoundError:
        pass
    return out


def main(argv):
    eq_path = "docs/mutation-equivalent.txt"
    record = None
    dirs = []
    it = iter(argv)
    for a in it:
        if a == "--equivalent":
            eq_path = next(it)
        elif a == "--record":
            record = next(it)
        else:
            dirs.append(a)
    if not dirs:
        sys.exit(__doc__)
    eq = equivalents(eq_path)
    # A later directory's outcome replaces an earlier one's: a re-run after
    # new cases is what counts.
    latest = {}
    for d in dirs:
        latest.update(read_input(d))
    if record:
        with open(record, "w", encoding="utf-8") as f:
            f.write("# outcome<TAB>mutant (scripts/mutants-score.py --record; docs/mutation.md)\n")
            for name in sorted(latest):
                f.write(f"{latest[name][1]}\t{name}\n")
    table = defaultdict(lambda: defaultdict(int))
    unexplained = []
    for name, (file, kind) in latest.items():
        row = table[file]
        if kind == "missed" and name in eq:
            row["equivalent"] += 1
        else:
            row[kind] += 1
        if kind == "missed" and name not in eq:
            unexplained.append(name)
    cols = ["caught", "missed", "equivalent", "unviable", "timeout"]
    print("| module | " + " | ".join(cols) + " | score |")
    print("|---|" + "---:|" * (len(cols) + 1))
    total = defaultdict(int)
    for file in sorted(table):
        row = table[file]
        for c in cols:
            total[c] += row[c]
        print(f"| `{file}` | " + " | ".join(str(row[c]) for c in cols) + f" | {score(row)} |")
    print("| **all** | " + " | ".join(f"**{total[c]}**" for c in cols) + f" | **{score(total)}** |")
    print()
    print("score = caught ÷ (caught + missed), equivalent mutants left out")
    if unexplained:
        print("\nmissed, neither killed nor recorded as equivalent:")
        for name in unexplained:
            print(f"  {name}")
        return 1
    return 0


def read_input(path):
    """{name: (file, outcome)} from an output directory or a record."""
    out = {}
    if path.endswith(".tsv"):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                kind, name = line.rstrip("\n").split("\t", 1)
                out[name] = (name.split(":", 1)[0], kind)
        return out
    with open(f"{path}/outcomes.json", encoding="utf-8") as f:
        data = json.load(f)
    for o in data["outcomes"]:
        scenario = o["scenario"]
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue  # the baseline
        m = scenario["Mutant"]
        out[m["name"]] = (m["file"], KINDS.get(o["summary"], o["summary"]))
    return out


def score(row):
    judged = row["caught"] + row["missed"]
    return "—" if judged == 0 else f"{100 * row['caught'] / judged:.1f}%"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
