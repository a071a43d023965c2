#!/usr/bin/env python3
"""Extract the example command lines of tldr-pages as a shell corpus.

Reads every page of pages/common and pages/linux from a tldr-pages git
directory (a bare clone is enough), takes each example's command line (the
back-quoted line after a `- description:` line), and instantiates its
`{{placeholders}}` deterministically (the rule is in `instantiate` and in
corpora/real-world/README.md). Writes

  corpora/real-world/shell-tldr.jsonl             one record per example
  corpora/real-world/shell-tldr.provenance.json   repository, commit, license, counts

  scripts/tldr-shell-corpus.py /work/.mirror/tldr-pages+tldr/repo

The pages are CC-BY-4.0 (tldr-pages team and contributors); the corpus is a
derived work under the same license. Labels are added by
scripts/tldr-shell-label.py, not here.
"""

import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "corpora/real-world/shell-tldr.jsonl"
PROVENANCE = ROOT / "corpora/real-world/shell-tldr.provenance.json"
PLATFORMS = ("common", "linux")
UPSTREAM = "https://github.com/tldr-pages/tldr"

# `{{x}}`, where x may itself end in `}` (`{{{"a":1}}}` is the JSON `{"a":1}`).
PLACEHOLDER = re.compile(r"\{\{(.+?)\}\}(?!\})")

# Seeded files of the shell oracle's sandbox (harness/src/oracle/shell/
# programs.rs, SEEDS), by extension: a file placeholder names one of them,
# so that a command that edits or deletes it has something to change.
SEED_BY_EXT = {
    ".md": "README.md",
    ".json": "package.json",
    ".sh": "deploy.sh",
    ".sql": "dump.sql",
    ".log": "app.log",
    ".yml": "config.yml",
    ".yaml": "config.yml",
    ".db": "data.db",
    ".sqlite": "data.db",
    ".js": "dist/app.js",
    ".rs": "project/main.rs",
}
SEED_FILES = ["data/a.txt", "data/b.txt", "data/c.txt", "notes.txt", "a.txt", "b.txt"]
SEED_DIRS = ["data", "build", "dist", "project"]
TARGET_WORDS = ("target", "dest", "output", "new", "copy", "backup", "archive")
DIR_WORDS = ("dir", "folder", "root")

# Non-path values, by a word of the placeholder's name (first match wins).
VALUES = [
    ("url", "https://example.com/"),
    ("uri", "https://example.com/"),
    ("email", "user@example.com"),
    ("ip_address", "192.0.2.1"),
    ("ip", "192.0.2.1"),
    ("hostname", "example.com"),
    ("host", "example.com"),
    ("domain", "example.com"),
    ("server", "example.com"),
    ("port", "8080"),
    ("username", "user"),
    ("user", "user"),
    ("password", "password"),
    ("branch", "main"),
    ("remote", "origin"),
    ("commit", "HEAD"),
    ("pid", "1234"),
    ("command", "ls"),
    ("program", "ls"),
    ("package", "package"),
    ("pattern", "pattern"),
    ("regex", "pattern"),
    ("message", "message"),
    ("string", "text"),
    ("text", "text"),
    ("number", "5"),
    ("count", "5"),
    ("seconds", "5"),
    ("name", "name"),
]


class Paths:
    """Hands out workspace paths for one line, in order of appearance."""

    def __init__(self):
        self.files = 0
        self.dirs = 0
        self.seen = {}

    def path(self, text):
        if text in self.seen:
            return self.seen[text]
        base = text.rsplit("/", 1)[-1]
        base = re.sub(r"\[[^\]]*\]", "", base) or "file"
        stem, dot, ext = base.partition(".")
        ext = "." + ext.rsplit(".", 1)[-1] if dot else ""
        low = stem.lower()
        if any(w in low for w in TARGET_WORDS):
            # Something the command makes: a new name in the workspace.
            out = base
        elif any(w in low for w in DIR_WORDS):
            out = SEED_DIRS[self.dirs % len(SEED_DIRS)]
            self.dirs += 1
        elif ext in SEED_BY_EXT:
            out = SEED_BY_EXT[ext]
        else:
            out = SEED_FILES[self.files % len(SEED_FILES)]
            self.files += 1
        self.seen[text] = out
        return out


def one(content, paths, before):
    """One placeholder's value; `before` is the line's text before it."""
    c = content.strip()
    # Option placeholders `[-o|--output]` and alternatives `a|b|c`: the first.
    m = re.fullmatch(r"\[([^\]]*)\]", c)
    if m and c.startswith("[-"):
        return m.group(1).split("|")[0]
    # One or more of a kind, `a b ...`: the first two.
    if c.endswith("...") and " " in c:
        items = [w for w in c[:-3].split() if w]
        return " ".join(one(w, paths, before) for w in items[:2])
    if "|" in c and not c.startswith("|") and "path/to" not in c:
        c = c.split("|")[0]
    if "path/to/" in c or c.startswith("path/to"):
        p = paths.path(c)
        # `/{{path/to/x}}`: the page fixes the leading slash outside.
        return p.rsplit("/", 1)[-1] if before.endswith("/") else p
    low = c.lower()
    plain = re.fullmatch(r"[a-z][a-z0-9_]*", low) is not None
    if plain:
        for word, value in VALUES:
            if word in low.split("_") or low == word or low.endswith("_" + word):
                return value
        return c
    # A literal example value (`192.168.0.1`, `*.html`, `wc -l`, `+500k`).
    return c


def instantiate(template):
    paths = Paths()
    out, at = [], 0
    for m in PLACEHOLDER.finditer(template):
        out.append(template[at : m.start()])
        out.append(one(m.group(1), paths, "".join(out)))
        at = m.end()
    out.append(template[at:])
    return "".join(out)


def examples(text):
    """(description, template) for each example of a page."""
    description = None
    for line in text.splitlines():
        if line.startswith("- "):
            description = line[2:].strip().rstrip(":")
        elif line.startswith("`") and line.endswith("`") and len(line) > 2:
            if description is not None:
                yield description, line[1:-1]
            description = None


def git(gitdir, *args):
    return subprocess.run(
        ["git", "--git-dir", str(gitdir), *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def blobs(gitdir, revs):
    """The text of each `commit:path`, through one `git cat-file --batch`."""
    out = subprocess.run(
        ["git", "--git-dir", str(gitdir), "cat-file", "--batch"],
        input="".join(r + "\n" for r in revs).encode(),
        check=True,
        capture_output=True,
    ).stdout
    at = 0
    for _ in revs:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        yield out[header_end + 1 : header_end + 1 + size].decode()
        at = header_end + 1 + size + 1


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} TLDR_GIT_DIR")
    gitdir = pathlib.Path(sys.argv[1])
    commit = git(gitdir, "rev-parse", "HEAD").strip()
    date = git(gitdir, "show", "-s", "--format=%cI", commit).strip()
    records, pages = [], {}
    for platform in PLATFORMS:
        listing = git(gitdir, "ls-tree", "--name-only", commit, f"pages/{platform}/")
        names = sorted(n for n in listing.splitlines() if n.endswith(".md"))
        pages[platform] = len(names)
        for name, text in zip(names, blobs(gitdir, [f"{commit}:{n}" for n in names])):
            page = name.removeprefix("pages/")
            for n, (description, template) in enumerate(examples(text), 1):
                records.append(
                    {
                        "id": f"{page.removesuffix('.md')}:{n}",
                        "description": description,
                        "template": template,
                        "command": instantiate(template),
                    }
                )
    with OUT.open("w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    PROVENANCE.write_text(
        json.dumps(
            {
                "source": UPSTREAM,
                "commit": commit,
                "commit_date": date,
                "license": "CC-BY-4.0 (Copyright tldr-pages team and contributors; "
                "see LICENSE.md of the source)",
                "pages": {p: f"pages/{p}/*.md" for p in PLATFORMS},
                "page_counts": pages,
                "examples": len(records),
                "script": "scripts/tldr-shell-corpus.py",
            },
            indent=2,
        )
        + "\n"
    )
    print(f"{len(records)} examples from {sum(pages.values())} pages -> {OUT}")


if __name__ == "__main__":
    main()
