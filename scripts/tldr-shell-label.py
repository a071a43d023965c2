#!/usr/bin/env python3
"""Label the tldr shell corpus by what bash really did with each line.

Runs every line of corpora/real-world/shell-tldr.jsonl whose command words
could all earn a label (programs the oracle runs for real, bash's builtins,
the programs of corpora/real-world/shell-readonly-programs.json) through
`rbv oracle shell` (a sandbox: no network, a throwaway root, programs
stubbed and logged; see harness/src/oracle/shell/), and writes one label per
example to

  corpora/real-world/shell-tldr.labels.jsonl

  scripts/tldr-shell-label.py [--rbv target/release/rbv] [--jobs 2]

Labels (the rule is `label` below; corpora/real-world/README.md says what
they mean and what they cannot see):
  pure-read       the sandbox saw no file change; every program that ran
                  is a real read-only program of the oracle (its effects
                  would have been seen) or one whose manual documents it as
                  read-only (shell-readonly-programs.json); no builtin that
                  changes the shell's state
  workspace-edit  files changed, all of them inside the sandbox's working
                  directory (/home/user) and none under a dot-entry
                  (.git, .ssh, .bashrc …); every program that ran is a real
                  one of the oracle or a read-only one as above; no
                  state-changing builtin
  other           anything else (a stub or missing program ran, so its
                  effects are unknown; a change outside the workspace; a
                  timeout; bash -n refused it; not run: a command word is a
                  program whose effects the oracle does not see, a stub or
                  one it lacks, so the line could only be `other`); excluded
                  from the prompt rate
"""

import argparse
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora/real-world/shell-tldr.jsonl"
LABELS = ROOT / "corpora/real-world/shell-tldr.labels.jsonl"
DOCUMENTED = ROOT / "corpora/real-world/shell-readonly-programs.json"
PROGRAMS_RS = ROOT / "harness/src/oracle/shell/programs.rs"
WORKSPACE = "/home/user/"

# Bash's builtins and reserved words (bash manual §3.2.5, §4.1, §4.2, §4.3),
# as command words: the oracle runs them for real.
BUILTINS = set(
    """: . [[ ]] alias bg bind break builtin caller cd command compgen complete
    compopt continue declare dirs disown echo enable eval exec exit export false
    fc fg getopts hash help history jobs kill let local logout mapfile popd printf
    pushd pwd read readarray readonly return set shift shopt source suspend test
    times trap true type typeset ulimit umask unalias unset wait
    if then else elif fi case esac for select while until do done in function
    time coproc""".split()
)
# The builtins whose effect is on the shell or the system and leaves no file
# for the sandbox to see: the shell's state (a later command of the same
# shell sees it: an alias, a variable, the directory, options, traps,
# limits, completions, the history) or another process (kill, exec, disown).
STATE_BUILTINS = set(
    """alias unalias bind cd pushd popd dirs complete compopt declare typeset
    export readonly local unset set shopt enable hash ulimit umask trap history
    fc read readarray mapfile let source . exec kill disown suspend logout""".split()
)
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "{", "}", "!", "|&", ";;", "&;"}
KEYWORDS_BEFORE_COMMAND = {"if", "then", "else", "elif", "while", "until", "do", "time", "!"}


def program_list(name):
    text = PROGRAMS_RS.read_text()
    m = re.search(r"pub const %s: &\[&str\] = &\[(.*?)\];" % name, text, re.S)
    if not m:
        sys.exit(f"{PROGRAMS_RS}: no list {name}")
    return set(re.findall(r'"([^"]+)"', m.group(1)))


def is_operator(token):
    """A control operator or a run of them (shlex joins `);` into one)."""
    return token in SEPARATORS or re.fullmatch(r"[;&|()]+", token) is not None


def tokenize(command):
    """Shell words and operators (shlex), with `2>&1`-style redirections of
    one descriptor to another left out; None for an unbalanced quote."""
    command = re.sub(r"\d*[<>]&(\d+-?|-)|&>>?", " > ", command)
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def command_words(command):
    """The words in command position of each simple command (after
    assignments), as bash's grammar places them; None when the line does not
    split into words (an unbalanced quote)."""
    tokens = tokenize(command)
    if tokens is None:
        return None
    words, at_start, assignments = [], True, 0
    for t in tokens:
        if is_operator(t):
            at_start = True
            continue
        if at_start:
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=.*", t):
                assignments += 1
                continue
            words.append(t)
            at_start = t in KEYWORDS_BEFORE_COMMAND
    return words, assignments


def bare_assignment(command):
    """A simple command made of assignments only (`X=1`, `a=b; ls`): it
    sets a shell variable."""
    tokens = tokenize(command)
    if tokens is None:
        return False
    run = []
    tokens.append(";")
    for t in tokens:
        if is_operator(t):
            if run and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\+?=.*", w) for w in run):
                return True
            run = []
        else:
            run.append(t)
    return False


# tldr's keypress syntax (`<Enter>`, `<Ctrl c>`, `<q>`): keys typed into a
# program, not shell.
KEYPRESS = re.compile(
    r"<(Enter|Space|Tab|Esc|Escape|Backspace|Delete|Home|End|PageUp|PageDown|"
    r"ArrowUp|ArrowDown|ArrowLeft|ArrowRight|(Ctrl|Alt|Shift|Cmd|Super|Meta) [^>]+|[^<>\s])>"
)
# A write the sandbox refused (permissions: the line runs as a throwaway
# uid), a file bash could not open, or a program a wrapper (find -exec,
# xargs, nohup …) could not start: the line did not do what it says.
REFUSED = re.compile(
    r"Permission denied|Read-only file system|Operation not permitted|"
    r"(^|\n)\S*(bash|sh|dash|find|xargs|env|nice|nohup|timeout|stdbuf): [^\n]*"
    r"(No such file or directory|Not a directory|Is a directory)"
)
SHELLS = {"bash", "sh", "dash"}


def shell_input(run):
    """For a run of a shell: `code` (-c), `script` (a file operand) or
    `stdin` (neither: it reads its commands from standard input)."""
    args = run["args"]
    for n, a in enumerate(args):
        if a == "--":
            return "script" if n + 1 < len(args) else "stdin"
        if a.startswith("--"):
            continue
        if a.startswith("-") and len(a) > 1:
            if "c" in a[1:]:
                return "code"
            continue
        if a.startswith("+"):
            continue
        return "script"
    return "stdin"


def label(observed, state_words, read_only, documented, inert, names_home=False, piped_into=False):
    """(label, why) for one oracle observation. `names_home`: the line names
    the home directory (`~`, `$HOME`), which in the sandbox is also the
    working directory, so a change there is not known to be the workspace's."""
    o = observed
    if not o["parsed"]:
        return "other", "bash -n refused the line"
    if o["timed_out"]:
        return "other", "ran past the sandbox's time limit"
    if state_words:
        return "other", "changes the shell's state: " + ", ".join(sorted(state_words))
    refused = REFUSED.search(o["output"])
    if refused:
        return "other", "an effect was refused or failed: " + refused.group(0).strip()
    for run in o["ran"]:
        if run["program"] in SHELLS and run["real"]:
            given = shell_input(run)
            if given == "script":
                return "other", "runs a script file (what it does is the sandbox's seed, not the line's)"
            if given == "stdin" and not piped_into:
                return "other", "a shell reading commands from standard input, which the sandbox leaves empty"
    unknown, edits = [], []
    for run in o["ran"]:
        name = run["program"]
        if run["real"]:
            if name not in read_only:
                edits.append(name)
        elif name in documented or name in inert:
            continue
        else:
            why = "not installed" if not run["installed"] else "stub"
            unknown.append(f"{name} ({why})")
    if unknown:
        return "other", "effects unknown: " + ", ".join(sorted(set(unknown)))
    if o["runs_not_kept"]:
        return "other", "more runs than the sandbox kept"
    changes = o["changes"]
    if not changes:
        if edits:
            return "other", "ran a writing program but changed nothing: " + ", ".join(
                sorted(set(edits))
            )
        return "pure-read", "no file changed; every program read-only"
    outside = [c["path"] for c in changes if not c["path"].startswith(WORKSPACE)]
    if outside:
        return "other", "changed outside the workspace: " + ", ".join(outside[:3])
    hidden = [
        c["path"]
        for c in changes
        if any(p.startswith(".") for p in c["path"][len(WORKSPACE) :].split("/"))
    ]
    if hidden:
        return "other", "changed a dot-entry of the workspace: " + ", ".join(hidden[:3])
    if names_home:
        return "other", "changed files through ~ or $HOME (the sandbox's home is its workspace)"
    kinds = sorted({c["kind"] for c in changes})
    return "workspace-edit", "changed only workspace files (" + ", ".join(kinds) + ")"


def run_oracle(rbv, lines, jobs):
    """{line: the oracle's JSON record} for each line, in `jobs` processes."""
    shards = [lines[i::jobs] for i in range(jobs)]
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, shard in enumerate(shards):
            path = pathlib.Path(tmp) / f"shard-{n}.txt"
            path.write_text("".join(line + "\n" for line in shard))
            result = pathlib.Path(tmp) / f"shard-{n}.jsonl"
            with result.open("w") as sink:
                procs.append(
                    (
                        subprocess.Popen(
                            [rbv, "oracle", "shell", "--file", str(path)],
                            stdout=sink,
                        ),
                        result,
                    )
                )
        out = {}
        for p, result in procs:
            if p.wait() != 0:
                sys.exit(f"rbv oracle shell exited with {p.returncode}")
            for text in result.read_text().splitlines():
                record = json.loads(text)
                out[record["line"]] = record
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rbv", default=str(ROOT / "target/release/rbv"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--reuse",
        action="append",
        default=[],
        metavar="JSONL",
        help="`rbv oracle shell` output of an earlier run: its lines are not run again",
    )
    args = ap.parse_args()

    real = program_list("REAL")
    stubs = program_list("STUB_ONLY")
    read_only = program_list("READ_ONLY")
    inert = program_list("INERT_STUBS")
    documented = set(json.loads(DOCUMENTED.read_text())["programs"])
    # A line that names a stub or a program the sandbox lacks can only be
    # `other` (what that program does is not observed): it is not run.
    observable = real | documented | inert | BUILTINS

    records = [json.loads(line) for line in CORPUS.read_text().splitlines() if line]
    plan = {}
    for r in records:
        command = r["command"]
        split = command_words(command)
        if split is None:
            plan[r["id"]] = ("other", "does not split into words (shlex)", None)
            continue
        words, _ = split
        unseen = sorted({w for w in words if w not in observable})
        if "\n" in command or "\0" in command:
            plan[r["id"]] = ("other", "not one line", None)
        elif KEYPRESS.search(command):
            plan[r["id"]] = ("other", "not run: tldr keypress notation, not shell", None)
        elif unseen:
            kind = "stubbed" if all(w in stubs for w in unseen) else "unobserved"
            plan[r["id"]] = ("other", f"not run: {kind} " + ", ".join(unseen[:3]), None)
        else:
            state = {w for w in words if w in STATE_BUILTINS}
            if bare_assignment(command):
                state.add("an assignment")
            plan[r["id"]] = (None, None, state)
    wanted = sorted({r["command"] for r in records if plan[r["id"]][0] is None})
    seen = {}
    for path in args.reuse:
        for text in pathlib.Path(path).read_text().splitlines():
            record = json.loads(text)
            if "error" not in record:
                seen[record["line"]] = record
    to_run = [c for c in wanted if c not in seen]
    print(
        f"{len(wanted)} distinct lines to observe, {len(wanted) - len(to_run)} reused",
        file=sys.stderr,
    )
    seen.update(run_oracle(args.rbv, to_run, args.jobs) if to_run else {})

    counts = {}
    with LABELS.open("w") as f:
        for r in records:
            lab, why, state = plan[r["id"]]
            out = {"id": r["id"], "command": r["command"]}
            if lab is None:
                o = seen.get(r["command"])
                if o is None or "error" in o:
                    lab, why = "other", "the oracle failed: " + (o or {}).get("error", "no answer")
                else:
                    obs = o["observed"]
                    names_home = re.search(r"(^|[\s=:'\"])~|\$\{?HOME\b", r["command"]) is not None
                    piped = re.search(r"\|\s*(\S*/)?(ba|da)?sh\b|<", r["command"]) is not None
                    lab, why = label(obs, state, read_only, documented, inert, names_home, piped)
                    out["ran"] = [
                        {k: run[k] for k in ("program", "args", "real", "installed")}
                        for run in obs["ran"]
                    ]
                    out["changes"] = obs["changes"]
                    out["exit"] = obs["exit"]
            out["label"] = lab
            out["why"] = why
            counts[lab] = counts.get(lab, 0) + 1
            f.write(json.dumps(out, ensure_ascii=False) + "\n")
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
