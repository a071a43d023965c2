//! `git` and `gh`: the subcommand and its flags decide. Work that the
//! reflog or the index can undo is a reversible local write; discarding
//! uncommitted work or unreachable objects destroys; pushing lands on a
//! shared remote; forcing or deleting there is not simply undone.

use super::argv::{any_unresolved, has_flag, operands};
use super::walk::Walker;
use super::word::Arg;
use super::{destroy, external, fetched, read, sensitive, shared, shared_destroy, unknown, write};
use crate::classify::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::Reversibility::{HardToReverse, Irreversible};

/// Configuration keys whose value is a program git will run.
pub(super) fn config_runs_code(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    const EXACT: &[&str] = &[
        "core.pager",
        "core.sshcommand",
        "core.editor",
        "core.fsmonitor",
        "core.hookspath",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "sequence.editor",
        "gpg.program",
        "uploadpack.packobjectshook",
        "protocol.ext.allow",
        "credential.helper",
        "web.browser",
        "instaweb.httpd",
        "sendemail.smtpserver",
        // git-config(1): the program that lists alternates' refs, and the
        // directory whose hooks every `git init`/`clone` copies.
        "core.alternaterefscommand",
        "init.templatedir",
    ];
    // `url.<base>.insteadOf`/`pushInsteadOf` send later fetches, clones and
    // pushes to another host; `remote.<name>.uploadpack`/`receivepack` name
    // the program run for them; `submodule.<name>.update` may be `!command`.
    const NAMES_PLACE: &[&str] = &[
        ".insteadof",
        ".pushinsteadof",
        ".uploadpack",
        ".receivepack",
    ];
    if NAMES_PLACE.iter().any(|s| key.ends_with(s))
        || (key.starts_with("submodule.") && key.ends_with(".update"))
    {
        return true;
    }
    const SUFFIX: &[&str] = &[
        ".textconv",
        ".command",
        ".cmd",
        ".driver",
        ".helper",
        ".program",
        ".clean",
        ".smudge",
        ".process",
        ".path",
    ];
    EXACT.contains(&key.as_str())
        || key.starts_with("alias.")
        || key.starts_with("pager.")
        || SUFFIX.iter().any(|s| key.ends_with(s))
}

/// Configuration keys whose value git runs with `sh -c` (git-config(1)).
fn shell_valued(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    matches!(
        key.as_str(),
        "core.pager" | "core.editor" | "sequence.editor" | "core.sshcommand"
    ) || (key.starts_with("pager.") && key.len() > "pager.".len())
}

/// Subcommands whose danger depends on their flags: an unresolved
/// argument could be any flag.
#[rustfmt::skip]
const FLAG_SENSITIVE: &[&str] = &[
    "push", "checkout", "switch", "reset", "clean", "branch", "tag", "stash", "restore", "rm",
    "config", "rebase", "worktree", "reflog", "update-ref", "gc", "submodule", "grep",
];

#[rustfmt::skip]
const READS: &[&str] = &[
    "status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
    "rev-list", "ls-files", "ls-tree", "ls-remote", "cat-file", "whatchanged", "name-rev",
    "merge-base", "cherry", "count-objects", "fsck", "verify-commit", "verify-tag",
    "check-ignore", "check-attr", "check-ref-format", "var", "help", "version", "show-ref",
    "for-each-ref", "range-diff", "request-pull", "show-branch", "diff-tree", "diff-files",
    "diff-index", "hash-object", "get-tar-commit-id",
];

#[rustfmt::skip]
const WRITES: &[&str] = &[
    "add", "commit", "mv", "init", "notes", "bisect", "merge", "rebase", "cherry-pick",
    "revert", "am", "apply", "format-patch", "archive", "repack", "maintenance",
    "sparse-checkout", "fetch", "pull", "lfs", "replace", "bundle", "commit-tree", "mktag",
    "mktree", "rerere", "restore-staged", "stage", "citool", "gui", "bugreport",
];

pub fn git(w: &mut Walker, args: &[Arg]) -> Inspection {
    let mut overrides = Vec::new();
    let found = git_with(w, args, &mut overrides);
    // `-c` holds for this git command only: the names stand again for
    // what they stood for before it.
    for (name, before) in overrides.into_iter().rev() {
        w.swap_remote(&name, before);
    }
    found
}

/// A remote's address set by configuration (`remote.NAME.url` or
/// `remote.NAME.pushurl`): the remote's name.
pub(super) fn remote_url_key(key: &str) -> Option<&str> {
    let lower = key.to_ascii_lowercase();
    let rest = key
        .get("remote.".len()..)
        .filter(|_| lower.starts_with("remote."))?;
    [".url", ".pushurl"]
        .iter()
        .find(|s| lower.ends_with(*s))
        .and_then(|s| rest.get(..rest.len() - s.len()))
        .filter(|name| !name.is_empty())
}

fn git_with(
    w: &mut Walker,
    args: &[Arg],
    overrides: &mut Vec<(String, Option<Arg>)>,
) -> Inspection {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.resolved {
            return unknown(format!("`git` gets `{}`, known only at run time", a.text));
        }
        let t = a.text.as_str();
        match t {
            "--version" | "--help" | "-h" => return read("`git --version`"),
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => i += 2,
            _ if t == "--config-env" || t.starts_with("--config-env=") => {
                // `--config-env=KEY=ENVVAR`: like `-c`, from a variable.
                let spec = match t.strip_prefix("--config-env=") {
                    Some(spec) => Some(spec),
                    None => args.get(i + 1).map(|v| v.text.as_str()),
                };
                let key = spec.map_or("", |s| s.split('=').next().unwrap_or(""));
                if config_runs_code(key) && !w.planted(Mutant::ProgramOptionsAsData) {
                    return unknown(format!(
                        "`git --config-env {key}` configures a program for git to run"
                    ));
                }
                if let Some(name) = remote_url_key(key) {
                    // The address comes from a variable: known at run time.
                    let address = Arg {
                        resolved: false,
                        ..Arg::literal(format!("${{{key}}}"))
                    };
                    overrides.push((name.to_owned(), w.swap_remote(name, Some(address))));
                }
                i += if t == "--config-env" { 2 } else { 1 };
            }
            "-c" => {
                let key = args
                    .get(i + 1)
                    .map_or("", |v| v.text.split('=').next().unwrap_or(""));
                let value = args
                    .get(i + 1)
                    .and_then(|a| a.text.split_once('=').map(|(_, v)| (v, a.resolved)));
                if let Some(found) = value
                    .filter(|_| proxy_key(key) && !w.planted(Mutant::ResolveBlind))
                    .and_then(|(v, resolved)| super::programs::proxy(key, v, resolved))
                {
                    return found;
                }
                // The keys whose value git runs through the shell, as it
                // runs GIT_PAGER, GIT_EDITOR and their kin (git-config(1):
                // core.pager, pager.<cmd>, core.editor, sequence.editor,
                // core.sshCommand): for this one command the value is the
                // code, judged as the variable's is (`-c core.pager=less`
                // runs less).
                if let Some((code, true)) = value.filter(|_| shell_valued(key)) {
                    if !w.planted(Mutant::ProgramOptionsAsData) {
                        let mut found = w.nested(code);
                        found.reasons.push(format!("(run through `git -c {key}`)"));
                        found = found.join(git_with(w, &args[i + 2..], overrides));
                        return found;
                    }
                }
                if args.get(i + 1).is_some_and(|v| !v.resolved) || config_runs_code(key) {
                    return unknown(format!(
                        "`git -c {key}` configures a program for git to run"
                    ));
                }
                if let (Some(name), Some((address, _))) = (remote_url_key(key), value) {
                    let address = Some(Arg::literal(address));
                    overrides.push((name.to_owned(), w.swap_remote(name, address)));
                }
                i += 2;
            }
            "--exec-path" | "--upload-pack" | "--receive-pack" => {
                return unknown(format!("`git {t}` chooses a program to run"));
            }
            _ if t.starts_with("--exec-path=") => {
                return unknown("`git --exec-path=` chooses where git's programs come from");
            }
            _ if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return read("`git` prints its help");
    };
    let rest = &args[i + 1..];
    let sub = sub.text.as_str();
    if FLAG_SENSITIVE.contains(&sub) && any_unresolved(rest) {
        if sub == "push" {
            return shared_destroy(
                HardToReverse,
                "`git push` gets arguments known only at run time: it may force or delete",
            );
        }
        return unknown(format!("`git {sub}` gets arguments known only at run time"));
    }
    if let Some(program) =
        program_option(sub, rest).filter(|_| !w.planted(Mutant::ProgramOptionsAsData))
    {
        return unknown(format!(
            "`git {sub} {program}` names a program to run (locally for a path remote)"
        ));
    }
    subcommand(w, sub, rest)
}

/// Transport options that name the program run at the other end, which
/// for a remote given as a path is this machine.
fn program_option<'a>(sub: &str, rest: &'a [Arg]) -> Option<&'a str> {
    let transport = matches!(
        sub,
        "fetch" | "pull" | "clone" | "ls-remote" | "push" | "archive" | "send-pack" | "fetch-pack"
    );
    // `git clone -u` is --upload-pack; fetch's `-u` is --update-head-ok.
    let short = (sub == "clone").then_some('u');
    rest.iter().map(|a| a.text.as_str()).find(|t| {
        transport
            && has_flag(
                "git",
                &[Arg::literal(*t)],
                short,
                &["upload-pack", "receive-pack", "exec"],
            )
    })
}

/// Options of the subcommands that contact a repository whose value is the
/// next word when not attached (git-fetch(1), git-clone(1), git-archive(1),
/// git-push(1)): skipped so that the repository operand is found after
/// them. Only options that take a value in every one of them: a short
/// option one subcommand reads as a flag (`-u` is fetch's
/// `--update-head-ok`, push's `--set-upstream`, clone's `--upload-pack`)
/// is the caller's (`repository`'s `own`).
const VALUED: &[&str] = &[
    "--depth",
    "--deepen",
    "--shallow-since",
    "--shallow-exclude",
    "-j",
    "--jobs",
    "-b",
    "--branch",
    "-o",
    "--origin",
    "--template",
    "--reference",
    "--reference-if-able",
    "--separate-git-dir",
    "-c",
    "--config",
    "--filter",
    "--negotiation-tip",
    "--server-option",
    "--refmap",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--prefix",
    "--format",
    "--output",
    "--repo",
    "--push-option",
    "--bundle-uri",
];

/// The operands of a subcommand that contacts a repository, without the
/// values of its valued options; `own` are the subcommand's own short
/// options that take a value.
fn contact_operands<'a>(rest: &'a [Arg], own: &[&str]) -> Vec<&'a Arg> {
    let mut out = Vec::new();
    let mut iter = rest.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if t == "--" {
            out.extend(iter.by_ref());
        } else if VALUED.contains(&t) || own.contains(&t) {
            iter.next();
        } else if !t.starts_with('-') {
            out.push(a);
        }
    }
    out
}

/// The repository a contacting subcommand names: `--remote=`/`--repo=`
/// when given, else its first operand.
fn repository(rest: &[Arg], option: Option<&str>, own: &[&str]) -> Option<Arg> {
    option
        .and_then(|o| {
            super::argv::option_values("git", rest, None, Some(o))
                .into_iter()
                .next()
        })
        .or_else(|| contact_operands(rest, own).first().map(|a| (*a).clone()))
}

/// A subcommand that contacts the repository it names (git-ls-remote(1),
/// git-fetch(1), git-pull(1), git-clone(1), git-archive(1) `--remote`,
/// git-push(1)): a repository given as an address, or as a remote this
/// command line added with that address, is a request to that host,
/// judged by the fetch rules whatever transport git uses ("GIT URLS":
/// `ssh://`, `git://`, `http(s)://`, scp-like `[user@]host:path`); data
/// put into the address leaves with it, and a push sends the repository's
/// commits. `None` for a configured remote or a path: the repository's
/// own setting, judged as before.
fn contacted(w: &Walker, sub: &str, repository: Option<&Arg>, sends: bool) -> Option<Inspection> {
    let who = format!("git {sub}");
    let repository = repository?;
    if !repository.resolved {
        return Some(external(format!(
            "`{who}` contacts a repository known only at run time: its address may carry data out"
        )));
    }
    let repository = w.remote_address(&repository.text).unwrap_or(repository);
    if !repository.resolved {
        return Some(external(format!(
            "`{who}` contacts a remote whose address is known only at run time: it may carry data out"
        )));
    }
    let url = remote_host_url(&repository.text)?;
    let upload = sends.then(|| "the repository's commits".to_owned());
    Some(super::net::transfer(&who, &[url], upload, false))
}

/// [`contacted`] for each repository, joined: the most dangerous decides.
fn contacted_each(w: &Walker, sub: &str, repositories: &[Arg], sends: bool) -> Option<Inspection> {
    repositories
        .iter()
        .filter_map(|r| contacted(w, sub, Some(r), sends))
        .reduce(Inspection::join)
}

/// The remote git contacts when a command names none: `origin`, unless
/// the branch has an upstream (git-fetch(1), git-push(1)); a remote this
/// command line pointed elsewhere under that name is where it goes.
const DEFAULT_REMOTE: &str = "origin";

/// The repositories a fetch or pull contacts (git-fetch(1)): every remote
/// with `--all`, every operand with `--multiple` (remotes and groups),
/// else the first operand, or the default remote when there is none.
fn fetch_repositories(w: &Walker, sub: &str, rest: &[Arg]) -> Vec<Arg> {
    let program = format!("git {sub}");
    let operands = contact_operands(rest, &[]);
    if has_flag(&program, rest, None, &["all"]) {
        return w.remote_names().into_iter().map(Arg::literal).collect();
    }
    if sub == "fetch" && has_flag(&program, rest, None, &["multiple"]) {
        return operands.into_iter().cloned().collect();
    }
    vec![operands
        .first()
        .map_or_else(|| Arg::literal(DEFAULT_REMOTE), |a| (*a).clone())]
}

/// `git ls-remote REPOSITORY` asks that repository's host for its refs.
fn ls_remote(w: &Walker, rest: &[Arg]) -> Inspection {
    contacted(w, "ls-remote", repository(rest, None, &[]).as_ref(), false)
        .unwrap_or_else(|| read("`git ls-remote` reads a configured remote or a path"))
}

/// The address of a git repository as an http(s) URL of the same host and
/// path, for judging where the request goes; `None` for a remote's name
/// or a local path.
fn remote_host_url(text: &str) -> Option<String> {
    if let Some((scheme, rest)) = text.split_once("://") {
        return match scheme.to_ascii_lowercase().as_str() {
            "file" => None,
            "http" | "https" => Some(text.to_owned()),
            _ => Some(format!("https://{rest}")),
        };
    }
    // scp-like: a colon before any slash (git-clone(1), "GIT URLS").
    let (host, path) = text.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let host = host.rsplit('@').next().unwrap_or(host);
    Some(format!("https://{host}/{}", path.trim_start_matches('/')))
}

fn subcommand(w: &mut Walker, sub: &str, rest: &[Arg]) -> Inspection {
    let ops = operands(rest);
    let program = format!("git {sub}");
    let flag = |short: Option<char>, long: &[&str]| has_flag(&program, rest, short, long);
    match sub {
        "push" => push(w, rest),
        "clone" => {
            let cloned = fetched(
                true,
                "`git clone` brings in a repository nobody vouched for",
            );
            match contacted(w, sub, repository(rest, None, &["-u"]).as_ref(), false) {
                Some(request) => request.join(cloned),
                None => cloned,
            }
        }
        "fetch" | "pull" => {
            let updated = write(format!(
                "`git {sub}` updates refs from the remote (the reflog keeps the old ones)"
            ));
            match contacted_each(w, sub, &fetch_repositories(w, sub, rest), false) {
                Some(request) => request.join(updated),
                None => updated,
            }
        }
        "archive" if has_flag("git archive", rest, None, &["remote"]) => {
            let archived = write("`git archive` writes an archive");
            match contacted(
                w,
                sub,
                repository(rest, Some("--remote"), &[]).as_ref(),
                false,
            ) {
                Some(request) => request.join(archived),
                None => archived,
            }
        }
        "send-email" | "daemon" | "instaweb" => {
            external(format!("`git {sub}` reaches other people or hosts"))
        }
        "credential" | "credential-store" | "credential-cache" => sensitive(
            read(format!("`git {sub}` handles credentials")),
            "git credentials",
        ),
        "checkout" => checkout(rest),
        "switch" if flag(Some('f'), &["force", "discard-changes"]) => destroy(
            Irreversible,
            "`git switch --discard-changes` drops uncommitted work",
        ),
        "switch" => write("`git switch` changes branch; git refuses to lose local changes"),
        "restore" if flag(Some('S'), &["staged"]) && !flag(Some('W'), &["worktree"]) => {
            write("`git restore --staged` only unstages")
        }
        "restore" => destroy(
            Irreversible,
            "`git restore` discards uncommitted changes to files",
        ),
        "reset" if flag(None, &["hard", "merge"]) => {
            destroy(Irreversible, "`git reset --hard` discards uncommitted work")
        }
        "reset" => write("`git reset` moves HEAD; the working tree and the reflog keep the work"),
        "clean" if flag(Some('n'), &["dry-run"]) => read("`git clean -n` only lists"),
        "clean" => destroy(Irreversible, "`git clean` deletes untracked files"),
        "rm" if flag(Some('f'), &["force"]) => destroy(
            Irreversible,
            "`git rm -f` deletes files with uncommitted changes",
        ),
        "rm" => write("`git rm` removes tracked files; the last commit keeps them"),
        "branch" => branch(rest, &ops),
        "tag" if flag(Some('d'), &["delete"]) || flag(Some('f'), &["force"]) => {
            destroy(HardToReverse, "`git tag -d`/`-f` deletes or moves a tag")
        }
        "tag"
            if ops.is_empty() || flag(Some('l'), &["list", "contains", "points-at", "merged"]) =>
        {
            read("`git tag` lists")
        }
        "tag" => write("`git tag` creates a tag"),
        "stash" => match ops.first().map_or("push", |a| a.text.as_str()) {
            "drop" | "clear" => destroy(
                HardToReverse,
                "`git stash drop`/`clear` discards stashed work",
            ),
            "list" | "show" => read("`git stash list`/`show` reads"),
            _ => write("`git stash` shelves work; it can be applied again"),
        },
        "reflog"
            if matches!(
                ops.first().map(|a| a.text.as_str()),
                Some("expire" | "delete")
            ) =>
        {
            destroy(
                Irreversible,
                "`git reflog expire`/`delete` removes the safety net of the reflog",
            )
        }
        "reflog" => read("`git reflog` reads"),
        "lfs" if ops.first().is_some_and(|a| a.text == "push") => {
            shared("`git lfs push` uploads large files to the shared LFS store")
        }
        "filter-branch" => filter_branch(w, rest),
        "bisect" if ops.first().is_some_and(|a| a.text == "run") => {
            let at = rest
                .iter()
                .position(|a| a.text == "run")
                .map_or(0, |p| p + 1);
            let mut inner =
                super::programs::classify(w, &rest[at..], &super::walk::Stdin::Inherited);
            inner
                .reasons
                .push("(run by `git bisect run` on every step)".into());
            inner.join(write(
                "`git bisect` moves HEAD; `git bisect reset` restores it",
            ))
        }
        "prune" | "filter-repo" => destroy(
            Irreversible,
            format!("`git {sub}` removes or rewrites objects for good"),
        ),
        "prune-packed" => write("`git prune-packed` drops loose copies of packed objects"),
        "gc" if has_flag("git", rest, None, &["prune"]) => {
            destroy(Irreversible, "`git gc --prune` removes unreachable objects")
        }
        "gc" => write("`git gc` packs objects"),
        "update-ref" if flag(Some('d'), &[]) => {
            destroy(HardToReverse, "`git update-ref -d` deletes a ref")
        }
        "update-ref" | "symbolic-ref" | "update-index" | "read-tree" | "write-tree" => {
            write(format!("`git {sub}` writes refs or the index"))
        }
        "config" => config(w, rest, &ops),
        "remote" => match ops.first().map(|a| a.text.as_str()) {
            None | Some("show" | "get-url") => read("`git remote` lists remotes"),
            Some(edit @ ("add" | "set-url")) => {
                // The name now stands for the address in what follows.
                if let [_, name, address, ..] = ops.as_slice() {
                    w.add_remote(name, address, edit == "add");
                }
                write("`git remote` edits the local remote configuration")
            }
            Some("update") => {
                // git-remote(1): fetches the remotes or groups named, or
                // every remote.
                let named: Vec<Arg> = ops[1..].iter().map(|a| (*a).clone()).collect();
                let remotes = if named.is_empty() {
                    w.remote_names().into_iter().map(Arg::literal).collect()
                } else {
                    named
                };
                let updated = write("`git remote update` fetches the remotes' refs");
                match contacted_each(w, "remote update", &remotes, false) {
                    Some(request) => request.join(updated),
                    None => updated,
                }
            }
            Some(_) => write("`git remote` edits the local remote configuration"),
        },
        "worktree" => match ops.first().map(|a| a.text.as_str()) {
            Some("remove") if flag(Some('f'), &["force"]) => destroy(
                Irreversible,
                "`git worktree remove --force` deletes a worktree with changes",
            ),
            Some("list") => read("`git worktree list`"),
            _ => write("`git worktree` manages worktrees"),
        },
        "submodule" if ops.first().is_some_and(|a| a.text == "foreach") => {
            let code = ops[1..]
                .iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            w.nested(&code)
        }
        "submodule" if ops.first().is_some_and(|a| a.text == "add") => {
            let added = fetched(
                true,
                "`git submodule add` brings in a repository nobody vouched for",
            );
            let at = rest
                .iter()
                .position(|a| a.text == "add")
                .map_or(0, |p| p + 1);
            match contacted(
                w,
                "submodule add",
                repository(&rest[at..], None, &[]).as_ref(),
                false,
            ) {
                Some(request) => request.join(added),
                None => added,
            }
        }
        "submodule" => write("`git submodule` updates submodules"),
        "rebase" => match exec_option(rest) {
            Some(code) => w.nested(&code).join(write(
                "`git rebase` rewrites local history (the reflog keeps it)",
            )),
            None => write("`git rebase` rewrites local history (the reflog keeps it)"),
        },
        "grep"
            if rest.iter().any(|a| {
                has_flag(
                    "git",
                    std::slice::from_ref(a),
                    Some('O'),
                    &["open-files-in-pager"],
                )
            }) =>
        {
            unknown("`git grep -O` runs a pager program")
        }
        // The files these write lie where their option names
        // (git-format-patch(1) `-o <dir>`, git-archive(1) `-o <file>`):
        // judged as a redirection's file is, outside the workspace too.
        "format-patch" | "archive" => {
            let long = if sub == "archive" {
                "--output"
            } else {
                "--output-directory"
            };
            let found = write(format!("`git {sub}` writes workspace files"));
            match super::argv::option_arg(&format!("git {sub}"), rest, Some("-o"), Some(long)) {
                Some(out) => {
                    super::files::writes_to(w, &format!("`git {sub}` writes"), &[&out], found)
                }
                None => found,
            }
        }
        _ if READS.contains(&sub) && has_flag("git", rest, None, &["output"]) => destroy(
            Irreversible,
            format!("`git {sub} --output` replaces a file"),
        ),
        "ls-remote" => ls_remote(w, rest),
        _ if READS.contains(&sub) => read(format!("`git {sub}` reads")),
        _ if WRITES.contains(&sub) => write(format!(
            "`git {sub}` is undone from the reflog or the index"
        )),
        _ => unknown(format!(
            "`git {sub}` is not a known subcommand (it may be an alias)"
        )),
    }
}

/// `git filter-branch` runs its `--*-filter` options as shell code on
/// every commit; the rewrite itself is recoverable from `refs/original/`.
fn filter_branch(w: &mut Walker, rest: &[Arg]) -> Inspection {
    let mut found = vec![destroy(
        HardToReverse,
        "`git filter-branch` rewrites history; `refs/original/` keeps the old refs",
    )];
    let mut iter = rest.iter();
    while let Some(a) = iter.next() {
        let (option, inline) = match a.text.split_once('=') {
            Some((o, v)) => (o, Some(v)),
            None => (a.text.as_str(), None),
        };
        let runs_code = (option.starts_with("--")
            && option.ends_with("-filter")
            && option != "--subdirectory-filter")
            || option == "--setup";
        if !runs_code {
            continue;
        }
        let code = match inline {
            Some(v) => a.resolved.then(|| v.to_owned()),
            None => iter.next().and_then(|v| v.value().map(str::to_owned)),
        };
        found.push(code.map_or_else(
            || unknown("`git filter-branch` runs a filter known only at run time"),
            |c| w.nested(&c),
        ));
    }
    super::join_all(found).unwrap_or_else(|| unknown("`git filter-branch`"))
}

fn exec_option(rest: &[Arg]) -> Option<String> {
    super::argv::option_value("git", rest, Some("-x"), Some("--exec"))
}

/// `git push` (RBV-SH-015). New commits on a branch of a configured
/// remote are a reversible shared-remote change (the actor reverts or
/// deletes what it pushed): soft-ack. Not simply undone, so escalate:
/// forcing or deleting remote refs; tags, which clones never update and
/// release pipelines act on; a destination given as a URL, which is not
/// the project's configured remote but any host; server-side push options
/// whose effects (merging, deploying) the inspector cannot read.
fn push(w: &Walker, rest: &[Arg]) -> Inspection {
    if has_flag("git push", rest, Some('n'), &["dry-run"]) {
        return read("`git push --dry-run` sends nothing");
    }
    let forced = has_flag(
        "git push",
        rest,
        Some('f'),
        &["force", "force-with-lease", "force-if-includes"],
    );
    let deleting = has_flag("git push", rest, Some('d'), &["delete", "mirror", "prune"]);
    if forced {
        return shared_destroy(
            HardToReverse,
            "`git push --force` rewrites the remote branch",
        );
    }
    if deleting {
        return shared_destroy(HardToReverse, "`git push`: the push deletes remote refs");
    }
    if w.planted(Mutant::PushFlagsOnly) {
        return shared("`git push` publishes commits to a branch (revertible)");
    }
    // The destination as the command gave it: one known only at run time
    // is judged as such, not as the text it was written with.
    let dest = repository(rest, Some("--repo"), &[]).or_else(|| Some(Arg::literal(DEFAULT_REMOTE)));
    let ops = contact_operands(rest, &[]);
    let repo = super::argv::option_value("git", rest, None, Some("--repo"));
    if let Some(request) = contacted(w, "push", dest.as_ref(), true) {
        let shown = dest.as_ref().map_or("", |a| a.text.as_str());
        return request.join(external(format!(
            "`git push {shown}` sends the repository to a host named in the command, not a configured remote"
        )));
    }
    if has_flag("git push", rest, Some('o'), &["push-option"]) {
        return external(
            "`git push -o` gives the server instructions (merge, deploy) that are not inspected",
        );
    }
    if has_flag("git push", rest, None, &["tags", "follow-tags"]) {
        return shared_destroy(
            Irreversible,
            "`git push --tags` publishes tags: clones keep a tag once fetched, releases act on it",
        );
    }
    let refspecs = ops.iter().skip(usize::from(repo.is_none()));
    for spec in refspecs.clone() {
        let t = spec.text.as_str();
        if t.starts_with('+') {
            return shared_destroy(
                HardToReverse,
                format!("`git push`: the refspec `{t}` forces"),
            );
        }
        if t.starts_with(':') {
            return shared_destroy(
                HardToReverse,
                format!("`git push`: the refspec `{t}` deletes a remote ref"),
            );
        }
    }
    let tag = refspecs.clone().any(|a| a.text == "tag")
        || refspecs.clone().any(|a| {
            let dst = a.text.rsplit(':').next().unwrap_or(&a.text);
            dst.starts_with("refs/tags/") || looks_like_version(dst)
        });
    if tag {
        return shared_destroy(
            Irreversible,
            "`git push` publishes a tag: clones keep a tag once fetched, releases act on it",
        );
    }
    shared("`git push` publishes commits to a branch (revertible)")
}

/// `v1.2.0`, `1.4`, `release-2.0`'s tail: names of the kind tags get.
fn looks_like_version(name: &str) -> bool {
    let name = name.trim_start_matches("refs/heads/");
    let digits = name.strip_prefix('v').unwrap_or(name);
    digits.starts_with(|c: char| c.is_ascii_digit()) && digits.contains('.')
}

/// Directory names that `git checkout NAME` more likely means as a path.
#[rustfmt::skip]
const WORKSPACE_DIRS: &[&str] = &[
    "src", "lib", "test", "tests", "docs", "doc", "app", "bin", "include", "pkg", "cmd",
    "internal", "scripts", "config", "public", "assets", "static", "components", "spec",
    "examples", "benches", "target", "build", "dist", "vendor", "crates", "packages",
];

/// `git checkout`: creating or switching a branch is safe (git refuses to
/// lose local changes); naming paths discards their uncommitted changes.
/// A single operand that looks like a path (`.`, a glob, a file extension,
/// a slash prefix, a usual source directory) counts as a path; a bare name
/// (`main`, `feature/x`, `v1.2`) is taken as a branch or tag.
fn checkout(rest: &[Arg]) -> Inspection {
    if has_flag("git", rest, Some('b'), &["orphan"]) || has_flag("git", rest, Some('B'), &[]) {
        return write("`git checkout -b` creates a branch");
    }
    let discard = rest.iter().any(|a| a.text == "--")
        || has_flag(
            "git",
            rest,
            Some('f'),
            &["force", "theirs", "ours", "patch", "merge"],
        )
        || has_flag("git", rest, Some('p'), &[]);
    let ops = operands(rest);
    let pathlike = |t: &str| {
        let base = t.rsplit('/').next().unwrap_or(t);
        let version_tag = base
            .strip_prefix('v')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        t == "."
            || t == ".."
            || t.starts_with("./")
            || t.starts_with('/')
            || t.contains(['*', '?', '['])
            || (base.contains('.') && !version_tag)
            || WORKSPACE_DIRS.contains(&t.trim_end_matches('/'))
    };
    if discard || ops.len() > 1 || ops.iter().any(|a| pathlike(&a.text)) {
        destroy(
            Irreversible,
            "`git checkout` of paths discards their uncommitted changes",
        )
    } else {
        write("`git checkout` switches branch; git refuses to lose local changes")
    }
}

fn branch(rest: &[Arg], ops: &[&Arg]) -> Inspection {
    let force = has_flag("git branch", rest, Some('f'), &["force"]);
    if has_flag("git branch", rest, Some('D'), &[])
        || has_flag("git branch", rest, Some('M'), &[])
        || has_flag("git branch", rest, Some('C'), &[])
        || (force && !ops.is_empty())
    {
        return destroy(
            HardToReverse,
            "`git branch -D`/`-f` deletes or resets an unmerged branch",
        );
    }
    if has_flag("git branch", rest, Some('d'), &["delete"]) {
        return write("`git branch -d` deletes a merged branch; its commits stay reachable");
    }
    let listing = ops.is_empty()
        || has_flag(
            "git branch",
            rest,
            Some('l'),
            &[
                "list",
                "contains",
                "merged",
                "no-merged",
                "points-at",
                "show-current",
            ],
        )
        || has_flag("git branch", rest, Some('a'), &["all"])
        || has_flag("git branch", rest, Some('r'), &["remotes"]);
    if listing {
        read("`git branch` lists branches")
    } else {
        write("`git branch` creates or renames a branch")
    }
}

/// git-config(1)'s options that take a value in the next word: the file
/// (`--file`/`-f`, `--blob`), the type, the default and the comment are
/// not the key (`git config -f .gitmodules submodule.x.update …`).
const CONFIG_VALUED: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];

/// git-config(1): `http.proxy`, `http.<url>.proxy` and `https.proxy` send
/// every later HTTP request of git through the proxy, which is judged by
/// its address, as the proxy variables are.
pub(super) fn proxy_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "https.proxy" || (key.starts_with("http.") && key.ends_with(".proxy"))
}

fn config(w: &mut Walker, rest: &[Arg], ops: &[&Arg]) -> Inspection {
    let persistence_blind = w.planted(Mutant::PersistenceBlind);
    let values: Vec<&Arg> = rest
        .windows(2)
        .filter(|p| CONFIG_VALUED.contains(&p[0].text.as_str()))
        .map(|p| &p[1])
        .collect();
    let own: Vec<&Arg> = ops
        .iter()
        .copied()
        .filter(|a| !values.iter().any(|v| std::ptr::eq(*v, *a)))
        .collect();
    let ops = own.as_slice();
    let getting = has_flag(
        "git",
        rest,
        Some('l'),
        &["list", "get", "get-all", "get-regexp", "show-origin"],
    ) || matches!(ops.first().map(|a| a.text.as_str()), Some("get" | "list"))
        || (ops.len() == 1
            && !has_flag(
                "git",
                rest,
                None,
                &["unset", "unset-all", "add", "replace-all"],
            ));
    let key = ops
        .iter()
        .map(|a| a.text.as_str())
        .find(|t| !matches!(*t, "get" | "set" | "list" | "unset"))
        .unwrap_or("");
    if getting {
        if key.starts_with("credential") || key.contains("token") || key.contains("password") {
            return sensitive(
                read("`git config` reads a credential setting"),
                "git credentials",
            );
        }
        return read("`git config` reads settings");
    }
    if config_runs_code(key) && !persistence_blind {
        return unknown(format!(
            "`git config {key}` installs a program for git to run"
        ));
    }
    let value = ops.iter().skip_while(|a| a.text != key).nth(1);
    if let (Some(name), Some(address)) = (remote_url_key(key), value) {
        // The name now stands for the address in what follows, as after
        // `git remote set-url`.
        w.add_remote(&Arg::literal(name), address, false);
    }
    if let Some(found) = value
        .filter(|_| proxy_key(key) && !persistence_blind)
        .and_then(|v| super::programs::proxy(key, &v.text, v.resolved))
    {
        return found;
    }
    write("`git config` edits settings")
}
