//! Call-time inspection of shell commands (DESIGN.md §2, proposal §4.4).
//!
//! The band of a command line is decided by the programs it actually runs
//! and their arguments, read from a real bash parse (brush-parser), never by
//! searching the text for words. Quoted text is data (`echo "rm -rf /"`,
//! `git commit -m "DROP TABLE x"`); text that executes is inspected as
//! shell in turn: `bash -c`, `$(…)` and backticks (also inside double
//! quotes), `eval`, `xargs`, `find -exec`, wrappers (`env`, `sudo`,
//! `timeout`, …), here-documents fed to a shell, `trap` and alias bodies.
//! Lists, pipelines and compound commands take the most dangerous element.
//!
//! Policy decisions (each one is tested in `shell/tests*`):
//! - **Unknown programs escalate** (fail-safe, like unparseable SQL). The
//!   noise lesson of §4.3 is answered by a broad table of known reads,
//!   workspace writes and development tools, not by trusting the unknown.
//!   Unknown subcommands of known tools (`cargo frobnicate`, `git <alias>`,
//!   `npm run deploy`, `make install`) escalate the same way: project
//!   scripts and make targets are auto only for the development loop
//!   (`build`, `test`, `lint`, `fmt`, `check`, `dev`, …).
//! - Running a script or binary by relative or non-system path (`./x.sh`,
//!   `./rm`, `bash x.sh`, `python x.py`, `source f`) is unknown code and
//!   escalates; `/bin/rm`, `/usr/bin/rm` (system directories) resolve to
//!   `rm`; `./gradlew`/`./mvnw` are the build tools. Sourcing a
//!   virtualenv's `bin/activate` or the user's own shell rc files is setup
//!   (auto). Inline code for other interpreters (`python -c`, `node -e`,
//!   `perl -e`, code on stdin or from a here-document) escalates: it cannot
//!   be inspected here.
//! - A program name whose value depends on an expansion (`$CMD`, `$(…)`,
//!   a glob or brace pattern) escalates; quote removal and escapes are
//!   resolved first (`\rm`, `r''m`, `"rm"`, `$'\x72m'` are `rm`). Unquoted
//!   glob and brace patterns in *arguments* are data; parameter and command
//!   expansions in arguments escalate only where a flag would change the
//!   band (`git push $X`, `find … $X`, `curl $URL`, a `sed` script).
//! - **Irreversible or hard-to-reverse** (the R axis, §2.1: "can the effect
//!   be undone by the actor that caused it, without out-of-band
//!   cooperation?"). An effect whose prior state the actor cannot restore
//!   is `Irreversible`: replacing or truncating a file's contents (`>`,
//!   `tee` without `-a`, `sort -o`, `uniq IN OUT`, `cp /dev/null`, a
//!   here-document into a file: RBV-SH-004, "the same effect as rm"),
//!   deleting files, recursive `chmod`/`chown`/`chgrp` (the old modes are
//!   lost), killing processes, `rsync --delete`, removing packages or
//!   containers, power and service commands, replacing the crontab,
//!   pruning git objects or the reflog, and anything run with privileges
//!   beyond the session's own (`sudo`, `doas`, `su`, …: the actor's own
//!   rights cannot put it back). `HardToReverse` is kept for effects the
//!   actor can recover by itself with effort, from git's reflog or
//!   dangling objects: `git stash drop/clear`, `git branch -D`, `git tag
//!   -d/-f`, `git update-ref -d`, `git filter-branch` (`refs/original/`),
//!   and on a shared remote `git push --force`/`--delete` (the actor's
//!   clone keeps the old tip). The distinction matters under the
//!   `hard_to_reverse_local: soft-ack` profile (RBV-PRJ-002), which lowers
//!   only the recoverable kind.
//! - Local destruction escalates: `rm` (any), `shred`, `unlink`, `dd of=`,
//!   `mkfs*`, `truncate`, `find -delete`, `git reset --hard`, `git clean`,
//!   `git checkout -- …`/`git checkout <path>`/`git restore`, `git branch
//!   -D`, `git stash drop/clear`, mode changes others inherit or the actor
//!   cannot set back (`modes`: trees, setuid/setgid, world-writable, `chown`
//!   to another owner, ACL grants, `chattr +i`; RBV-SH-012),
//!   `kill`/`pkill`/`killall` (not `kill -0`/`-l`), power commands,
//!   `crontab -r`/`-e`/file, service control, `rsync --delete`. `rmdir`
//!   removes only empty directories: a reversible local write.
//! - Redirections: `>`, `>|`, `&>`, `>&file`, `<>` to a file truncate or
//!   overwrite it in place, and the inspector cannot know whether the file
//!   exists, so they escalate (irreversible local; this includes
//!   `cat > new.txt <<EOF`). `>>` appends: a reversible local write (auto)
//!   inside the workspace (`place`, RBV-SH-019: soft-ack elsewhere,
//!   escalate into system locations and the configuration later sessions
//!   run, RBV-SH-018).
//!   `/dev/null`, `/dev/std*`, `/dev/fd/*`, `/dev/tty` and descriptor
//!   duplication (`2>&1`) have no effect. The same holds for programs that
//!   truncate their output file (`tee` without `-a`, `sort -o`, `find
//!   -fprint`, awk's `print >`, `git diff --output`).
//! - `cp`, `mv`, `ln`, `touch`, `mkdir`, `sed -i`, `patch`, archive tools
//!   are reversible local writes (auto). DESIGN calls `sed -i` on a tracked
//!   file reversible; tracked-ness is unknowable here, so workspace edits
//!   are taken as tracked. `cp`/`mv` overwrite only on a name
//!   collision (unlike `>`, whose purpose is to replace content), so they
//!   stay auto unless `/dev/null` is the destination of `mv` or the source
//!   of `cp`, or `ln -f` removes its destination; their targets are judged
//!   by the workspace boundary as redirections are. A `sed` script with
//!   `e`/`w` and an `awk` program with `system` or pipes escalate.
//! - Privileged commands (`sudo`, `doas`, `su`, `pkexec`, `chroot`, `mount`,
//!   `date -s`) escalate as irreversible local, joined with what they run.
//! - Network: `curl`/`wget` GETs of a non-loopback URL bring untrusted
//!   content in (reversible, local, untrusted → soft-ack); loopback GETs
//!   (host decided by a WHATWG URL parse: `localhost`, 127/8, `::1`) are
//!   reads; uploads (`-d`, `-F`, `-T`, `--json`, `-X` other than
//!   GET/HEAD/OPTIONS; `-G -d` is a GET) are external unless to loopback
//!   (then a local write); the hosts `--resolve`, `--connect-to` and the
//!   proxies send the connection to are judged as URLs of their own
//!   (RBV-FET-012). bash's `/dev/tcp`/`/dev/udp` redirections, lookups and
//!   probes whose name or payload is chosen at run time (`dig $(…).x`,
//!   `ping -p`) → external (RBV-SH-017). `ssh` (with or without a
//!   command), `nc`, mail → external; `scp`/`rsync` to a remote → external, from a remote →
//!   untrusted local write. A shell or interpreter reading code from a pipe
//!   (`curl … | sh`) runs code nobody inspected: unknown → escalate.
//! - Shared remotes: `git push` to a configured remote's branch → soft-ack;
//!   force, `+refspec`, `:branch`, `--delete`, `--mirror`, `--prune`, tags,
//!   a URL destination, push options or an unresolved push argument →
//!   escalate (RBV-SH-015). `gh pr create --draft` is soft-ack (not
//!   `--draft=false`); a ready PR, comments,
//!   merges, releases (they notify people), publishing, deploying and cloud
//!   writes escalate. Reading GitHub (`gh pr view`, `gh api` GET) brings in
//!   text others wrote: untrusted → soft-ack. Cloud and cluster reads
//!   (`kubectl get`, `aws … describe-*`, `terraform plan`) are auto.
//! - Package installs that add third-party code (`pip install x`, `npm
//!   install x`, `cargo install`, `docker pull`, `git clone`) are untrusted
//!   local writes (soft-ack); installing the project's declared
//!   dependencies (`npm ci`, `npm install`), builds and tests are local
//!   writes (auto) on trusted input: the workspace code they run takes the
//!   session's trust, so Rule-of-Two escalates them after untrusted input
//!   (`build`, RBV-SH-013).
//! - Sensitive data (Rule-of-Two's second boolean, `secrets`, RBV-SH-014):
//!   paths of keys and credentials (`~/.ssh`, `.env` but not
//!   `.env.example`, `/etc/shadow`, `.aws/credentials`, `*.pem`, …) as
//!   arguments, glob or brace patterns or redirection targets, printing the
//!   environment, the shell's variables or its history, credential-named
//!   variables (`$GITHUB_TOKEN`), credential commands (`aws configure`, `gh
//!   auth token`, `kubectl get secret`, `ssh-add`). Arguments of `gh`,
//!   `echo` and `printf` are messages, not paths; `git`'s are paths except
//!   the values of message and search options.
//! - Inline assignments (`RBV_BYPASS=1 rm x`, `export GATE_OFF=1`) are
//!   shell variables and never lower anything (§4.1). Variables and options
//!   that name code a program will run are that code (`options`,
//!   RBV-SH-011): `GIT_SSH_COMMAND`, `PAGER`, `EDITOR`, `rg --pre`, `man
//!   -P`, `tar --to-command`, … are inspected as commands; `LD_PRELOAD`,
//!   `BASH_ENV`, `NODE_OPTIONS=--require …` escalate. `PATH` and the other
//!   lookup paths are judged by their new directories (RBV-SH-018): a
//!   temporary directory, a climb above the workspace or an unknown one
//!   escalates. A project tool run after `cd` into a temporary or system
//!   directory, or with a project option naming one (`--manifest-path`,
//!   `-C`), runs code from outside the workspace and escalates.
//! - A workspace the client declares (PROTOCOL.md §3.1, RBV-WS-001)
//!   replaces the default rule's guess of where the workspace is: paths
//!   resolve from its cwd and are inside exactly under its root, so a
//!   project tool anywhere outside the root (the home directory, a
//!   sibling, `/srv`) escalates, and an absolute path under the root is
//!   the workspace (`make -C /srv/app` with root `/srv/app` is auto).
//! - A variable's value set on the command line is inspected where bash
//!   evaluates it (RBV-SH-020): `${x@P}` (an unknown value fails safe),
//!   arithmetic and `${!x}` (a subscript's `$(…)` runs); `mapfile`,
//!   `compgen` and `complete -C` run their code.
//! - Here-documents are data unless an interpreter reads them: a shell's
//!   body is inspected as shell; an unquoted delimiter's body expands, so
//!   its substitutions run. Function, `trap` and alias bodies count as run.
//! - Input beyond the guard (1 MiB, 1,500 nesting constructs, 24 levels of
//!   code inside code) and unparseable input escalate without inspection.

mod argv;
mod arith;
mod build;
mod dbclients;
mod deploy;
mod files;
mod gh;
mod git;
mod guard;
mod modes;
mod net;
mod options;
mod perl;
mod place;
mod positional;
mod programs;
mod scripts;
mod secrets;
mod subst;
mod syntax;
mod tools;
mod walk;
mod word;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_classes;
#[cfg(test)]
mod tests_dbclients;
#[cfg(test)]
mod tests_parts;
#[cfg(test)]
mod tests_principles;
#[cfg(test)]
mod tests_programs;

use super::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::{Reversibility, Scope, Trust};

/// Inspects one shell command line by the default workspace rule.
pub fn inspect(command: &str, mutant: Option<Mutant>) -> Inspection {
    inspect_in(command, None, mutant)
}

/// Inspects one shell command line run in `workspace`, the one the client
/// declared (`None`: the default rule).
pub fn inspect_in(
    command: &str,
    workspace: Option<&rbv_protocol::Workspace>,
    mutant: Option<Mutant>,
) -> Inspection {
    let declared = workspace
        .filter(|_| mutant != Some(Mutant::WorkspaceRootIgnored))
        .map(place::Declared::new);
    let mut found = guarded(command, declared, mutant);
    if mutant == Some(Mutant::QuotedStringBlind) {
        if let Some(word) = blind_match(command) {
            found = found.join(destroy(
                Reversibility::Irreversible,
                format!("the dangerous word `{word}` appears in the command text"),
            ));
        }
    }
    found
}

/// Most levels of code inside code the walker inspects (`$(…)` inside
/// `$(…)` …); deeper text fails safe.
pub const MAX_NESTED: usize = guard::MAX_DEPTH;

/// The program `command` parses to, as the walker parses it, handed to `f`
/// on a stack with room for its nesting. `None` where the inspector fails
/// safe without a program: the guard refuses the text, it does not parse,
/// or the parser panics. For readers of what a command line exercises
/// (rbv's grammar coverage), which must see the parse the inspector sees.
pub fn with_program<R>(
    command: &str,
    f: impl FnOnce(&brush_parser::ast::Program) -> R,
) -> Option<R> {
    let openers = guard::check(command).ok()?;
    let needed = guard::stack_needed(openers);
    let parse = std::panic::AssertUnwindSafe(|| {
        stacker::maybe_grow(needed, needed, || {
            let options = brush_parser::ParserOptions::default();
            let mut parser =
                brush_parser::Parser::new(std::io::Cursor::new(command.as_bytes()), &options);
            parser.parse_program().ok().map(|program| f(&program))
        })
    });
    std::panic::catch_unwind(parse).ok().flatten()
}

/// Parses and walks in the caller's thread (the walker grows the stack
/// where the nesting needs it); a panic inside the parser fails safe.
fn guarded(command: &str, declared: Option<place::Declared>, mutant: Option<Mutant>) -> Inspection {
    let walk = std::panic::AssertUnwindSafe(|| {
        let how = match mutant {
            Some(Mutant::OptionPrefixExact) => syntax::Spelling::PrefixExact,
            Some(Mutant::OptionFamilyBlind) => syntax::Spelling::FamilyBlind,
            _ => syntax::Spelling::Family,
        };
        syntax::spelled(how, || {
            walk::Walker::in_workspace(declared, mutant).source(command)
        })
    });
    std::panic::catch_unwind(walk)
        .unwrap_or_else(|_| Inspection::unknown("the shell parser failed on this command"))
}

/// The `quoted-string-blind` mutant (§4.4's false positive): a dangerous
/// word anywhere in the raw text, quotes ignored.
fn blind_match(command: &str) -> Option<&'static str> {
    const WORDS: &[&str] = &[
        "rm", "rmdir", "drop", "delete", "truncate", "mkfs", "dd", "shred", "kill", "destroy",
        "wipe", "format",
    ];
    let lower = command.to_ascii_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find_map(|w| WORDS.iter().find(|d| **d == w).copied())
}

// ---- the axes of the outcomes the inspector distinguishes ----

fn with(
    reversibility: Reversibility,
    scope: Scope,
    trust: Trust,
    changes_state: bool,
    reason: String,
) -> Inspection {
    Inspection {
        reversibility,
        scope,
        trust,
        changes_state,
        touches_sensitive: false,
        reasons: vec![reason],
    }
}

/// No effect: reads, listings, shell bookkeeping.
fn read(reason: impl Into<String>) -> Inspection {
    Inspection::read_only(reason)
}

/// A reversible write in the local workspace.
fn write(reason: impl Into<String>) -> Inspection {
    with(
        Reversibility::Reversible,
        Scope::Local,
        Trust::Trusted,
        true,
        reason.into(),
    )
}

/// Local destruction.
fn destroy(reversibility: Reversibility, reason: impl Into<String>) -> Inspection {
    with(
        reversibility,
        Scope::Local,
        Trust::Trusted,
        true,
        reason.into(),
    )
}

/// An undoable change on shared infrastructure.
fn shared(reason: impl Into<String>) -> Inspection {
    with(
        Reversibility::Reversible,
        Scope::SharedRemote,
        Trust::Trusted,
        true,
        reason.into(),
    )
}

/// A change on shared infrastructure that is not simply undone.
fn shared_destroy(reversibility: Reversibility, reason: impl Into<String>) -> Inspection {
    with(
        reversibility,
        Scope::SharedRemote,
        Trust::Trusted,
        true,
        reason.into(),
    )
}

/// Changes what later commands or sessions run, or the machine itself:
/// the workspace's undo does not reach it, and what it sets up runs with
/// the user's rights in sessions nobody inspects.
fn persistent(reason: impl Into<String>) -> Inspection {
    destroy(Reversibility::Irreversible, reason)
}

/// A reversible write outside the workspace: the session shares the place
/// with other programs and users, so it is noted (soft-ack), not auto —
/// the axes of an undoable change on shared infrastructure.
fn elsewhere(reason: impl Into<String>) -> Inspection {
    shared(reason)
}

/// Reaches people, production or third parties.
fn external(reason: impl Into<String>) -> Inspection {
    with(
        Reversibility::Irreversible,
        Scope::External,
        Trust::Trusted,
        true,
        reason.into(),
    )
}

/// Brings content nobody vouches for into the session.
fn fetched(changes_state: bool, reason: impl Into<String>) -> Inspection {
    with(
        Reversibility::Reversible,
        Scope::Local,
        Trust::Untrusted,
        changes_state,
        reason.into(),
    )
}

/// Runs with privileges beyond the session's own: what it changes lies
/// outside what the actor's own rights can put back.
fn privileged(reason: impl Into<String>) -> Inspection {
    destroy(Reversibility::Irreversible, reason)
}

fn unknown(reason: impl Into<String>) -> Inspection {
    Inspection::unknown(reason)
}

fn sensitive(mut found: Inspection, reason: impl Into<String>) -> Inspection {
    found.touches_sensitive = true;
    found.reasons.push(reason.into());
    found
}

/// Orders inspections most dangerous first, so that joined reasons read
/// most important first.
fn severity(i: &Inspection) -> (u8, Scope, Reversibility, Trust, bool) {
    let band = if i.scope == Scope::External || i.reversibility != Reversibility::Reversible {
        2
    } else if i.scope == Scope::SharedRemote || i.trust == Trust::Untrusted {
        1
    } else {
        0
    };
    (band, i.scope, i.reversibility, i.trust, i.changes_state)
}

/// The join of many inspections; `None` when there were none.
fn join_all(mut found: Vec<Inspection>) -> Option<Inspection> {
    found.sort_by_key(|i| std::cmp::Reverse(severity(i)));
    let mut iter = found.into_iter();
    let first = iter.next()?;
    let mut joined = iter.fold(first, Inspection::join);
    let mut seen = std::collections::HashSet::new();
    joined.reasons.retain(|r| seen.insert(r.clone()));
    Some(joined)
}
