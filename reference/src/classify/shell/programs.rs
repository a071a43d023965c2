//! From one argument vector to its effect: resolving the program, looking
//! through wrappers, and following code that runs inside the command.

use super::argv::{after_options, has_flag};
use super::place::{self, Place};
use super::walk::{Stdin, Walker};
use super::word::{self, Arg};
use super::{
    dbclients, files, gh, git, options, privileged, read, secrets, sensitive, tools, unknown,
};
use crate::classify::Inspection;
use crate::mutant::Mutant;

/// Directories whose programs are the system's own, so that `/bin/rm` is `rm`.
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
    "/usr/libexec/",
];

/// Classifies one command: `argv[0]` is the program.
pub fn classify(w: &mut Walker, argv: &[Arg], stdin: &Stdin) -> Inspection {
    let Some((first, args)) = argv.split_first() else {
        return read("no command");
    };
    let name = match program_name(first) {
        Ok(name) => name,
        Err(found) => return found,
    };
    let mut found = by_name(w, &name, args, stdin);
    if let Some(option) = run_time_option(&name, args) {
        found = found.join(unknown(format!(
            "`{name}` gets the option `{}`, known only at run time",
            option.text
        )));
    }
    if let Some(elsewhere) = super::build::project_elsewhere(w, &name, args) {
        found = found.join(elsewhere);
    }
    if let Some(runs) = options::classify(w, &name, args) {
        found = found.join(runs);
    }
    if let Some(why) = secrets::touched(w.mutant, &name, args) {
        found = sensitive(found, why);
    }
    found
}

/// Programs none of whose options writes, runs code, reaches a host or
/// reads a file of its own choosing: an option known only at run time
/// changes only how they print what their operands name.
#[rustfmt::skip]
const PRINT_ONLY_OPTIONS: &[&str] = &[
    "echo", "printf", "ls", "cat", "head", "tail", "cut", "tr", "nl", "basename", "dirname",
    "seq", "true", "false",
];

/// An argument spelled as an option whose name is known only at run time
/// (`"-$x"`, `--$(cat mode)`, `--out$x=…`): it may be any option the
/// program has — `sort -o FILE`, `tar --to-command=CMD`, `cp -t DIR` —, so
/// the program's options are unknown (RBV-SH-021). A short option whose
/// letter is written (`-j$(nproc)`, `-o "$f"`) and a long one whose name is
/// (`--output=$f`) leave the value to the program's own reading; a word not
/// spelled as an option (`"$f"`) is an operand, as its author wrote it;
/// nothing after `--` is an option.
fn run_time_option<'a>(name: &str, args: &'a [Arg]) -> Option<&'a Arg> {
    if PRINT_ONLY_OPTIONS.contains(&name) {
        return None;
    }
    let expansion = ['$', '`'];
    args.iter()
        .take_while(|a| a.text != "--")
        .filter(|a| !a.resolved)
        .find(|a| match a.text.strip_prefix("--") {
            Some(long) => long
                .split('=')
                .next()
                .is_some_and(|n| n.contains(expansion)),
            None => a
                .text
                .strip_prefix('-')
                .is_some_and(|short| short.starts_with(expansion)),
        })
}

/// The program a word names, after quote removal; a name that expansion
/// could change, or a program outside the system directories, is unknown.
fn program_name(arg: &Arg) -> Result<String, Inspection> {
    if !arg.resolved || arg.pattern {
        return Err(unknown(format!(
            "the program name `{}` is only known at run time",
            arg.text
        )));
    }
    let text = arg.text.as_str();
    if !text.contains('/') {
        return Ok(text.to_owned());
    }
    let base = text.rsplit('/').next().unwrap_or_default();
    if SYSTEM_DIRS
        .iter()
        .any(|d| text.strip_prefix(d).is_some_and(|rest| !rest.contains('/')))
    {
        return Ok(base.to_owned());
    }
    if matches!(base, "gradlew" | "mvnw") {
        // The build wrappers projects check in run the build tool.
        return Ok(base.trim_end_matches('w').to_owned());
    }
    Err(unknown(format!(
        "runs `{text}`: a program outside the system directories"
    )))
}

fn by_name(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    let found = by_name_alone(w, name, args, stdin);
    files::with_outputs(w, name, args, found)
}

fn by_name_alone(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    if let Some(found) = wrapper(w, name, args, stdin) {
        return found;
    }
    if let Some(found) = code_runner(w, name, args, stdin) {
        return found;
    }
    if let Some(found) = files::classify(w, name, args) {
        return found;
    }
    if let Some(found) = dbclients::classify(w, name, args, stdin) {
        return found;
    }
    match name {
        "git" => git::git(w, args),
        "gh" => gh::gh(args),
        _ => tools::classify(w, name, args, stdin)
            .unwrap_or_else(|| unknown(format!("`{name}` is not a known program (fails safe)"))),
    }
}

/// Runs `rest` as a command; an empty `rest` is `none`.
fn then_run(
    w: &mut Walker,
    rest: &[Arg],
    stdin: &Stdin,
    none: impl FnOnce() -> Inspection,
) -> Inspection {
    if rest.is_empty() {
        none()
    } else {
        classify(w, rest, stdin)
    }
}

/// Programs that run another program given in their arguments.
fn wrapper(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Option<Inspection> {
    let found = match name {
        "env" => {
            let mut rest = args;
            let mut effects = Vec::new();
            loop {
                rest = after_options(
                    name,
                    rest,
                    // GNU env's value-taking options (coreutils 9.7 env(1);
                    // -a/--argv0 names the program's argv[0], not the program).
                    &[
                        "-u",
                        "--unset",
                        "-C",
                        "--chdir",
                        "-S",
                        "--split-string",
                        "-a",
                        "--argv0",
                    ],
                );
                match rest.first() {
                    Some(a) if env_assignment(&a.text).is_some() => {
                        effects.extend(assignment(w, a));
                        rest = &rest[1..];
                    }
                    _ => break,
                }
            }
            if let Some(effect) = super::join_all(effects) {
                let inner = then_run(w, rest, stdin, || read("`env` sets variables"));
                return Some(effect.join(inner));
            }
            if let Some(split) = split_string(args) {
                return Some(split.map_or_else(
                    || unknown("`env -S` splits a string that is only known at run time"),
                    |argv| classify(w, &argv, stdin),
                ));
            }
            let dumps = !w.planted(Mutant::SensitiveReadsOnly);
            then_run(w, rest, stdin, || {
                let found = read("`env` prints the environment");
                if dumps {
                    sensitive(found, "the environment holds tokens")
                } else {
                    found
                }
            })
        }
        "command" => {
            if has_flag(name, args, Some('v'), &[]) || has_flag(name, args, Some('V'), &[]) {
                return Some(read("`command -v` looks a program up"));
            }
            then_run(w, after_options(name, args, &[]), stdin, || {
                read("no command")
            })
        }
        "builtin" | "exec" | "nohup" | "setsid" | "unbuffer" | "stdbuf" | "nice" | "ionice"
        | "time" | "taskset" | "chrt" | "numactl" | "xvfb-run" | "caffeinate" | "strace"
        | "ltrace" | "catchsegv" => {
            let with_value: &[&str] = match name {
                "exec" => &["-a"],
                "stdbuf" => &["-i", "-o", "-e"],
                "nice" => &["-n", "--adjustment"],
                "ionice" => &["-c", "-n", "--class", "--classdata"],
                "time" => &["-f", "--format", "-o", "--output"],
                // util-linux's taskset(1): -a, -c (--cpu-list) and -p
                // (--pid) are flags, and the mask is the first operand;
                // chrt(1) takes values only for its deadline timings, the
                // priority is the first operand. numactl(8) has no mask
                // operand: its policies take the nodes or CPUs as values.
                "taskset" => &[],
                "chrt" => &[
                    "-T",
                    "--sched-runtime",
                    "-P",
                    "--sched-period",
                    "-D",
                    "--sched-deadline",
                ],
                "numactl" => &[
                    "-i",
                    "--interleave",
                    "-N",
                    "--cpunodebind",
                    "-c",
                    "--cpubind",
                    "-C",
                    "--physcpubind",
                    "-m",
                    "--membind",
                    "-p",
                    "--preferred",
                    "-P",
                    "--preferred-many",
                    "-w",
                    "--weighted-interleave",
                ],
                "caffeinate" => &["-t", "-w"],
                "strace" | "ltrace" => &["-o", "-e", "-p", "-s", "-u", "-E", "-P", "-a", "-I"],
                _ => &[],
            };
            let mut rest = after_options(name, args, with_value);
            let options = &args[..args.len() - rest.len()];
            if matches!(name, "taskset" | "chrt") && has_flag(name, options, Some('p'), &["pid"]) {
                // `-p [MASK|PRIO] PID` acts on a running process: with the
                // one operand it prints that process's setting.
                return Some(if rest.len() <= 1 {
                    read(format!("`{name} -p` prints a process's setting"))
                } else {
                    privileged(format!(
                        "`{name} -p` changes a running process's scheduling"
                    ))
                });
            }
            if matches!(name, "taskset" | "chrt") && !rest.is_empty() {
                rest = &rest[1..]; // the mask or the priority
            }
            if name == "ionice" && has_flag(name, args, Some('p'), &["pid"]) {
                return Some(privileged(
                    "`ionice -p` changes a running process's priority",
                ));
            }
            then_run(w, rest, stdin, || {
                read(format!("`{name}` without a command"))
            })
        }
        "timeout" | "gtimeout" => {
            let rest = after_options(name, args, &["-s", "--signal", "-k", "--kill-after"]);
            then_run(w, rest.get(1..).unwrap_or(&[]), stdin, || {
                read("`timeout` without a command")
            })
        }
        "watch" => {
            let rest = after_options(name, args, &["-n", "--interval", "-d", "-g", "-q"]);
            if has_flag(name, args, Some('x'), &["exec"]) {
                then_run(w, rest, stdin, || read("`watch` without a command"))
            } else {
                // watch joins its arguments and runs them with `sh -c`.
                joined_code(w, rest, "watch")
            }
        }
        "flock" => {
            if let Some(code) = option_code(name, args, "-c", Some("--command")) {
                return Some(code.map_or_else(
                    || unknown("`flock -c` runs code known only at run time"),
                    |c| w.nested(&c),
                ));
            }
            let rest = after_options(
                name,
                args,
                &["-w", "--timeout", "-E", "--conflict-exit-code"],
            );
            then_run(w, rest.get(1..).unwrap_or(&[]), stdin, || {
                read("`flock` on a descriptor")
            })
        }
        "sudo" | "doas" | "pkexec" | "runuser" => {
            let rest = after_options(
                name,
                args,
                &[
                    "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
                ],
            );
            let inner = then_run(w, rest, stdin, || {
                unknown(format!("`{name}` opens a privileged shell"))
            });
            inner.join(privileged(format!(
                "`{name}` runs with elevated privileges"
            )))
        }
        "su" => {
            let inner = match option_code(name, args, "-c", Some("--command")) {
                Some(Some(code)) => w.nested(&code),
                _ => unknown("`su` opens a shell as another user"),
            };
            inner.join(privileged("`su` runs as another user"))
        }
        "chroot" => {
            let rest = after_options(name, args, &["--userspec", "--groups"]);
            let inner = then_run(w, rest.get(1..).unwrap_or(&[]), stdin, || {
                unknown("`chroot` starts a shell in another root")
            });
            inner.join(privileged("`chroot` needs root privileges"))
        }
        "xargs" => {
            let rest = after_options(
                name,
                args,
                &[
                    // `-i[R]`, `-e[EOF]`, `-l[N]`, `--replace[=R]`, `--eof[=EOF]`
                    // and `--max-lines[=N]` take their value attached only
                    // (xargs(1)): the next word is the command.
                    "-I",
                    "-d",
                    "-E",
                    "-L",
                    "-n",
                    "-P",
                    "-s",
                    "-a",
                    "--arg-file",
                    "--delimiter",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
            );
            // Arguments read from stdin are data appended to the command,
            // or with `-I R`/`-i[R]`/`--replace[=R]` put in place of R
            // (default `{}`) inside its arguments.
            let own = &args[..args.len() - rest.len()];
            let replaced = super::argv::option_value(name, own, Some("-I"), None).or_else(|| {
                own.iter().find_map(|a| {
                    let t = a.text.as_str();
                    let r = t
                        .strip_prefix("--replace")
                        .map(|r| r.strip_prefix('=').unwrap_or(r))
                        .or_else(|| t.strip_prefix("-i"))?;
                    Some(if r.is_empty() {
                        "{}".to_owned()
                    } else {
                        r.to_owned()
                    })
                })
            });
            w.replacing(replaced, |w| {
                w.per_file(|w| {
                    then_run(w, rest, &Stdin::Inherited, || {
                        read("`xargs` echoes its input")
                    })
                })
            })
        }
        "script" => match option_code(name, args, "-c", Some("--command")) {
            Some(Some(code)) => w.nested(&code),
            Some(None) => unknown("`script -c` runs code known only at run time"),
            None => unknown("`script` records an interactive shell"),
        },
        "busybox" => then_run(w, args, stdin, || read("`busybox` lists its applets")),
        _ => return None,
    };
    Some(found)
}

/// `env -S "a b"` / `--split-string=…`: the string splits into words.
fn split_string(args: &[Arg]) -> Option<Option<Vec<Arg>>> {
    let value = super::argv::option_value("env", args, Some("-S"), Some("--split-string"))?;
    let resolved = args.iter().all(|a| a.resolved);
    Some(resolved.then(|| value.split_whitespace().map(Arg::literal).collect()))
}

/// The value of a `-c CODE` style option of `program`, in any spelling
/// its parser accepts: `None` when absent, `Some(None)` when it is only
/// known at run time.
fn option_code(
    program: &str,
    args: &[Arg],
    short: &str,
    long: Option<&str>,
) -> Option<Option<String>> {
    let code = super::argv::option_arg(program, args, Some(short), long)?;
    Some(code.value().map(str::to_owned))
}

/// Code formed by joining arguments with spaces (`eval`, `watch`).
fn joined_code(w: &mut Walker, args: &[Arg], who: &str) -> Inspection {
    if args.iter().any(|a| !a.resolved) {
        return unknown(format!("`{who}` runs code that is only known at run time"));
    }
    let code = args
        .iter()
        .map(|a| a.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    w.nested(&code)
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "rbash", "posh",
];

/// Shells and interpreters: inline code is inspected for shells and
/// escalates for other languages; scripts are unknown code.
fn code_runner(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Option<Inspection> {
    let found = match name {
        "eval" => joined_code(w, args, "eval"),
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            for a in args {
                w.set_var(a);
            }
            let effects: Vec<Inspection> = args.iter().filter_map(|a| assignment(w, a)).collect();
            super::join_all(effects)
                .unwrap_or_else(|| read(format!("`{name}` sets shell variables")))
        }
        "source" | "." => match args.first() {
            Some(arg)
                if arg.resolved && sourced_setup(&arg.text) && !code_outside(w, arg, SETUP) =>
            {
                read(format!(
                    "`{name} {}` sets up the shell environment",
                    arg.text
                ))
            }
            _ => unknown(format!("`{name}` runs the code of a file")),
        },
        // `-C CODE`: mapfile runs it every `-c` lines read, compgen runs it
        // now, complete at every later completion.
        "mapfile" | "readarray" | "compgen" | "complete"
            if has_flag(name, args, Some('C'), &[]) =>
        {
            match option_code(name, args, "-C", None) {
                Some(Some(code)) => w.nested(&code),
                _ => unknown(format!("`{name} -C` runs code known only at run time")),
            }
        }
        // bash manual, "Programmable Completion Builtins": the `-W`
        // wordlist "is split using the characters in the IFS special
        // variable as delimiters, and each resultant word is expanded", so
        // a `$(…)` in it runs: now for `compgen`, at every later
        // completion for `complete`.
        "compgen" | "complete" if has_flag(name, args, Some('W'), &[]) => {
            match option_code(name, args, "-W", None) {
                Some(Some(words)) => w.expanded_text(&words).into_iter().fold(
                    read(format!("`{name} -W` expands its wordlist")),
                    Inspection::join,
                ),
                _ => unknown(format!(
                    "`{name} -W` expands a wordlist known only at run time"
                )),
            }
        }
        "trap" => {
            // bash's builtins end their options at `--` (bash(1), SHELL
            // BUILTIN COMMANDS): the code is the word after it.
            let args = match args.split_first() {
                Some((a, rest)) if a.text == "--" => rest,
                _ => args,
            };
            match args.first() {
                // `trap - SIGNAL…` resets the signals' handlers (bash(1)).
                Some(a) if a.text == "-p" || a.text == "-l" || a.text == "-" || args.len() == 1 => {
                    read("`trap` lists or resets")
                }
                Some(a) => match a.value() {
                    Some(code) => w.nested(code),
                    None => unknown("`trap` installs code known only at run time"),
                },
                None => read("`trap` lists handlers"),
            }
        }
        "alias" => {
            // Aliases may expand later; their bodies count as run.
            let mut found = read("`alias` defines or lists aliases");
            for a in args {
                if let Some((_, body)) = a.text.split_once('=') {
                    found = found.join(if a.resolved {
                        w.nested(body)
                    } else {
                        unknown("an alias body known only at run time")
                    });
                }
            }
            found
        }
        _ if SHELLS.contains(&name) => shell(w, name, args, stdin),
        "fish" | "csh" | "tcsh" | "nu" | "elvish" | "xonsh" => unknown(format!(
            "`{name}` runs code in a syntax this inspector does not read"
        )),
        _ => return None,
    };
    Some(found)
}

/// `bash -c CODE`, `bash script`, `bash` reading stdin.
fn shell(w: &mut Walker, name: &str, args: &[Arg], stdin: &Stdin) -> Inspection {
    let mut inline = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if !a.resolved {
            break;
        }
        if t == "--" || t == "-" {
            i += 1;
            break;
        }
        if t == "--version" || t == "--help" {
            return read(format!("`{name} {t}`"));
        }
        if let Some(long) = t.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if let Some(cluster) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) {
            inline |= t.starts_with('-') && cluster.contains('c');
            i += if cluster.contains('o') || cluster.contains('O') {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    let operands = args.get(i..).unwrap_or(&[]);
    if inline {
        return match operands.first() {
            Some(code) => match code.value() {
                Some(code) => w.nested(code),
                None => unknown(format!("`{name} -c` runs code known only at run time")),
            },
            None => unknown(format!("`{name} -c` without code")),
        };
    }
    if let Some(script) = operands.first() {
        return unknown(format!(
            "`{name}` runs the script or options `{}`",
            script.text
        ));
    }
    match stdin {
        Stdin::Text(Some(code)) => w.nested(code),
        Stdin::Text(None) => unknown(format!(
            "`{name}` runs a here-document known only at run time"
        )),
        Stdin::Pipe => unknown(format!(
            "`{name}` runs code read from a pipe (e.g. `curl … | {name}`)"
        )),
        Stdin::File => unknown(format!("`{name}` runs code read from a file")),
        Stdin::Inherited => unknown(format!("`{name}` starts an interactive shell")),
    }
}

/// Files that only set up the environment: a virtualenv's activate script
/// and the user's own shell startup files.
fn sourced_setup(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    path.ends_with("/bin/activate")
        || path == "bin/activate"
        || matches!(
            base,
            ".bashrc" | ".zshrc" | ".profile" | ".bash_profile" | ".zprofile"
        )
        || path.ends_with(".cargo/env")
}

/// What sourcing may run from outside a declared root: the user's own
/// shell setup (`~/.bashrc`, `~/.cargo/env`).
pub const SETUP: &[Place] = &[Place::HomeConfig];
/// Where a lookup path may point outside a declared root: the user's and
/// the machine's program directories, where the session's programs
/// already come from.
pub const PROGRAMS: &[Place] = &[Place::HomeConfig, Place::System];
/// A project's code (build files, package scripts, a repository's hooks):
/// only the root vouches for it.
pub const PROJECT: &[Place] = &[];

/// Whether code at `path` lies outside the workspace. With a declared
/// workspace: not under its root, unless in one of the `vouched` places.
/// By the default rule, where it knows the path is outside and not the
/// user's own setup: a temporary or system directory written by others, a
/// climb above the workspace, another user's home, a path known only at
/// run time, or a relative path after `cd` into such a place.
pub fn code_outside(w: &Walker, path: &Arg, vouched: &[Place]) -> bool {
    if w.planted(Mutant::OutsideCodeBlind) {
        return false;
    }
    if let Some(d) = &w.declared {
        return d.runs_outside(path, vouched);
    }
    match place::of(path) {
        Place::Workspace | Place::RepoConfig => w.cwd.is_some(),
        Place::Temp | Place::Unknown => true,
        Place::Elsewhere => !path.text.starts_with('/'),
        Place::Home | Place::HomeConfig | Place::System => false,
    }
}

/// Variables that list where later commands look programs, modules and
/// libraries up: each directory is judged as code that later commands run.
/// The loader's library paths (ld.so(8) `LD_LIBRARY_PATH`, dyld(1)
/// `DYLD_LIBRARY_PATH`, `DYLD_FALLBACK_LIBRARY_PATH`,
/// `DYLD_FRAMEWORK_PATH`), Perl's and Ruby's module paths (perlrun(1)
/// `PERL5LIB`, ruby(1) `RUBYLIB`) and git's program directory
/// (`GIT_EXEC_PATH`) are lookup paths too; the variables that name the
/// code itself (`LD_PRELOAD`, `LD_AUDIT`, …) are `LOADS_CODE`.
#[rustfmt::skip]
const LOOKUP_PATHS: &[&str] = &[
    "PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "NODE_PATH", "GEM_PATH", "GEM_HOME",
    "CLASSPATH", "FPATH", "GOPATH", "GOBIN", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
    "DYLD_FALLBACK_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH", "PERL5LIB", "RUBYLIB", "GIT_EXEC_PATH",
];

/// A lookup path's new directories: the workspace's own, the user's home
/// and the system's are where the session's programs already come from; a
/// temporary directory, a climb above the workspace, another user's home
/// or a directory known only at run time makes every later command that
/// looks a name up run code nobody vouches for (in a persistent shell,
/// every later command line of the session).
fn lookup_path(w: &Walker, name: &str, value: &str) -> Option<Inspection> {
    if w.planted(Mutant::PersistenceBlind) {
        return None;
    }
    let own = [format!("${name}"), format!("${{{name}}}")];
    let outside: Vec<&str> = value
        .split(':')
        .filter(|d| !d.is_empty() && !own.iter().any(|o| d.starts_with(o.as_str())))
        .filter(|d| {
            let arg = Arg {
                text: (*d).to_owned(),
                resolved: !d.contains('$') && !word::may_execute(d),
                pattern: false,
            };
            code_outside(w, &arg, PROGRAMS)
        })
        .collect();
    if outside.is_empty() {
        return None;
    }
    Some(unknown(format!(
        "`{name}` makes later commands look programs up in `{}`: outside the workspace",
        outside.join(":")
    )))
}

/// `NAME=value` with a literal variable name.
pub fn env_assignment(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some((name, value))
}

/// Variables that name the project, repository or configuration a tool
/// runs, like its project options (`project_options`): git(1) ENVIRONMENT
/// (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_COMMON_DIR`: the repository whose
/// config and hooks run), the GNU make manual §3.4 (`MAKEFILES`: read
/// before the makefile), Bundler's `BUNDLE_GEMFILE`, cargo's `CARGO_HOME`
/// (its config.toml names the rustc wrapper and runners), npm's and pip's
/// configuration files (`npm_config_userconfig`, `PIP_CONFIG_FILE`). Set
/// to a place outside the workspace, the tool runs code nobody vouches for.
#[rustfmt::skip]
const PROJECT_VARS: &[&str] = &[
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "MAKEFILES", "BUNDLE_GEMFILE", "CARGO_HOME",
    "npm_config_userconfig", "NPM_CONFIG_USERCONFIG", "npm_config_globalconfig",
    "NPM_CONFIG_GLOBALCONFIG", "PIP_CONFIG_FILE",
];

/// Variables that name where programs read their start-up files and
/// configuration, which name programs in turn: the bash manual §6.2 (`HOME`:
/// `~/.bashrc`, `~/.profile`) and zsh's `ZDOTDIR`; the XDG Base Directory
/// specification (`XDG_CONFIG_HOME`: git, pip, systemd user units,
/// autostart); git(1) `GIT_TEMPLATE_DIR` (the hooks every new repository
/// gets); kubectl's `KUBECONFIG` (a user's `exec` credential plugin runs a
/// command); the AWS CLI's `AWS_CONFIG_FILE` (`credential_process` runs
/// one); docker's `DOCKER_CONFIG` (credential helpers); rustup's
/// `RUSTUP_HOME` (the toolchains that run as `cargo` and `rustc`). Judged
/// like a project option: outside the workspace, code nobody vouches for.
#[rustfmt::skip]
const CONFIG_HOME_VARS: &[&str] = &[
    "HOME", "ZDOTDIR", "XDG_CONFIG_HOME", "GIT_TEMPLATE_DIR", "KUBECONFIG", "AWS_CONFIG_FILE",
    "DOCKER_CONFIG", "RUSTUP_HOME",
    // Start-up files of other programs: readline's init file (bash manual,
    // "Readline Init File": INPUTRC; `bind -x` lines in it run commands),
    // curl(1)'s `.curlrc` directory CURL_HOME and wget(1)'s WGETRC (their
    // options name proxies, output files and uploads), OpenSSL's
    // OPENSSL_CONF (config(5): it loads engines and providers, shared
    // code), glibc's GCONV_PATH (iconv(3) loads the gconv modules found
    // there).
    "INPUTRC", "CURL_HOME", "WGETRC", "OPENSSL_CONF", "GCONV_PATH",
    // The certificate authorities later TLS connections trust (OpenSSL's
    // SSL_CERT_FILE/SSL_CERT_DIR, curl's CURL_CA_BUNDLE, Python requests'
    // REQUESTS_CA_BUNDLE, node's NODE_EXTRA_CA_CERTS, git's GIT_SSL_CAINFO,
    // pip's PIP_CERT): a CA from outside the workspace lets whoever holds
    // its key answer for any host, also for the code later installs fetch.
    "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "PIP_CERT",
];

/// The proxy variables curl(1) ENVIRONMENT and wget(1) "Proxies" read (and
/// pip, git, npm with them): every later request of those programs goes to
/// the proxy, with what it carries, so the proxy is judged like a request
/// that sends data, by its address (item 4: a mapping is judged
/// by the address it maps to), as curl's `--proxy` is.
#[rustfmt::skip]
const PROXY_VARS: &[&str] = &[
    "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy",
    "ftp_proxy", "FTP_PROXY",
];

/// Setting a proxy variable: loopback (a local debugging proxy) is a local
/// write; any other host receives every later request.
pub(super) fn proxy(name: &str, value: &str, resolved: bool) -> Option<Inspection> {
    if !resolved {
        return Some(unknown(format!(
            "`{name}` sends later requests to a proxy known only at run time"
        )));
    }
    if value.is_empty() {
        return None;
    }
    let url = if value.contains("://") {
        value.to_owned()
    } else {
        format!("http://{value}")
    };
    let loopback = url::Url::parse(&url).is_ok_and(|u| {
        u.host_str().is_some_and(|h| {
            crate::classify::fetch::reach_of_text(h, None)
                == crate::classify::fetch::Reach::Loopback
        })
    });
    if loopback {
        return None;
    }
    let mut found = crate::classify::fetch::inspect(&url, "POST", None);
    found.reasons.push(format!(
        "(`{name}`: every later request goes through `{value}`)"
    ));
    Some(found)
}

/// The environment spelling of a package manager's configuration: npm reads
/// every `npm_config_<key>` as the config `<key>` (npm docs "config":
/// environment variables, `_` for `-`); pip every `PIP_<OPTION>` as its
/// long option (pip docs "Configuration": environment variables); uv its
/// `UV_INDEX_URL`, `UV_EXTRA_INDEX_URL`, `UV_FIND_LINKS`; yarn
/// `YARN_NPM_REGISTRY_SERVER`. The key, not the spelling, decides
/// (`package_config_names_code`).
fn package_env_key(name: &str) -> Option<String> {
    let key = name
        .strip_prefix("npm_config_")
        .or_else(|| name.strip_prefix("NPM_CONFIG_"))
        .or_else(|| name.strip_prefix("PIP_"))
        .or_else(|| name.strip_prefix("UV_"))
        .or_else(|| name.strip_prefix("YARN_"))?;
    Some(key.to_ascii_lowercase().replace('_', "-"))
}

/// Go's module sources and their verification (`go help environment`,
/// `go help module-auth`): `GOPROXY` names where modules come from,
/// `GOSUMDB=off`, `GONOSUMCHECK`, `GONOSUMDB`, `GOINSECURE` and `GOFLAGS=-insecure`
/// turn the checksum check off, so later builds run code nobody verified.
fn go_source(name: &str, value: &str) -> bool {
    match name {
        "GOPROXY" => value
            .split([',', '|'])
            .any(|p| !matches!(p, "" | "direct" | "off" | "https://proxy.golang.org")),
        "GOSUMDB" => value == "off",
        "GONOSUMCHECK" | "GONOSUMDB" | "GOINSECURE" => !value.is_empty(),
        "GOFLAGS" => value.contains("-insecure"),
        _ => false,
    }
}

/// A source of code a package manager is given: loopback, the workspace's
/// own directory, and the registries the tools name as their defaults
/// (npm `https://registry.npmjs.org/`, pip `https://pypi.org/simple`) are
/// where the session's packages already come from.
pub fn vouched_source(w: &Walker, value: &str) -> bool {
    const DEFAULTS: &[&str] = &["https://registry.npmjs.org", "https://pypi.org/simple"];
    value.split([' ', ',']).filter(|v| !v.is_empty()).all(|v| {
        let v = v.trim_end_matches('/');
        if DEFAULTS.contains(&v) || matches!(v, "true" | "false") {
            return true;
        }
        use crate::classify::fetch::{reach_of_text, Reach};
        if v.contains("://") {
            return url::Url::parse(v).is_ok_and(|u| {
                u.host_str()
                    .is_some_and(|h| reach_of_text(h, None) == Reach::Loopback)
            });
        }
        if !v.starts_with(['/', '.', '~', '$']) && !v.contains('/') {
            // A bare name is a host (`PIP_TRUSTED_HOST`, `GOINSECURE`).
            return crate::classify::fetch::reach_of_text(v, None) == Reach::Loopback;
        }
        let place = Arg::literal(v);
        !code_outside(w, &place, PROJECT)
            && !matches!(place::of(&place), Place::Temp | Place::Unknown)
    })
}

/// Variables whose value a program runs as a command.
#[rustfmt::skip]
const RUNS_VALUE: &[&str] = &[
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "PAGER", "MANPAGER", "GIT_EDITOR", "EDITOR",
    "VISUAL", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS",
    "SUDO_ASKPASS", "GIT_PROXY_COMMAND", "PROMPT_COMMAND", "BROWSER", "LESSOPEN", "LESSCLOSE",
    "FCEDIT", "RSYNC_RSH", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTC", "RUSTDOC",
    "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_BUILD_RUSTC", "CC", "CXX", "npm_config_script_shell",
    "NPM_CONFIG_SCRIPT_SHELL", "DIFFPROG",
];

/// Variables that make programs load code at start-up.
#[rustfmt::skip]
const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
    "BASH_ENV", "ENV", "PERL5OPT", "RUBYOPT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "SHELLOPTS", "BASHOPTS", "GIT_CONFIG",
    "RIPGREP_CONFIG_PATH",
    // python(1) ENVIRONMENT: a file executed before the first prompt, and
    // the callable `breakpoint()` imports and calls.
    "PYTHONSTARTUP", "PYTHONBREAKPOINT",
    // perlrun(1): the code of the debugger `-d` loads.
    "PERL5DB",
    // vim's and ex's start-up commands (vim `:help VIMINIT`, POSIX ex
    // EXINIT): Ex commands, `!cmd` among them, run at every start.
    "VIMINIT", "EXINIT",
];

/// Variables a Java launcher or build tool adds to every JVM's options
/// (the `java` tool's reference: `JDK_JAVA_OPTIONS`, the JVM TI
/// specification: `JAVA_TOOL_OPTIONS`; Maven's and Gradle's launch
/// scripts), and the JVM options among them that load or run other code:
/// an agent (`-javaagent:`, `-agentlib:`, `-agentpath:`), a boot class
/// path, and the commands `-XX:OnError`/`-XX:OnOutOfMemoryError` run.
const JVM_OPTIONS_VARS: &[&str] = &[
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "JAVA_OPTS",
    "MAVEN_OPTS",
    "GRADLE_OPTS",
];
const JVM_LOADS_CODE: &[&str] = &[
    "-javaagent",
    "-agentlib",
    "-agentpath",
    "-Xbootclasspath",
    "-XX:OnError",
    "-XX:OnOutOfMemoryError",
];

/// bash manual §6.9 Controlling the Prompt: `PS0`, `PS1`, `PS2` and `PS4`
/// are expanded as prompts (`promptvars`), so a command substitution in
/// their value runs at every prompt or traced command.
const PROMPT_VARS: &[&str] = &["PS0", "PS1", "PS2", "PS4"];

/// The effect of setting a variable. Assignments never lower anything
/// (§4.1); a few variables name code that programs will run, so setting
/// them runs that code (`GIT_SSH_COMMAND='rm x' git fetch`). `None`: the
/// assignment only sets a variable.
pub fn assignment(w: &mut Walker, arg: &Arg) -> Option<Inspection> {
    let (name, value) = env_assignment(&arg.text)?;
    if w.planted(Mutant::ProgramOptionsAsData) {
        return None;
    }
    // `CARGO_TARGET_<triple>_RUNNER`/`_LINKER` name what runs the build's output.
    let cargo_target = name.starts_with("CARGO_TARGET_")
        && (name.ends_with("_RUNNER") || name.ends_with("_LINKER"));
    if LOOKUP_PATHS.contains(&name) {
        return lookup_path(w, name, value);
    }
    if PROJECT_VARS.contains(&name) || CONFIG_HOME_VARS.contains(&name) {
        // `KUBECONFIG` is a list, like a lookup path.
        let outside = value.split(':').filter(|v| !v.is_empty()).any(|v| {
            let place = Arg {
                text: v.to_owned(),
                resolved: arg.resolved,
                pattern: false,
            };
            code_outside(w, &place, PROJECT)
        });
        return outside.then(|| {
            unknown(format!(
                "`{name}` names the project or configuration a tool runs from `{value}`: outside the workspace"
            ))
        });
    }
    if PROXY_VARS.contains(&name) && !w.planted(Mutant::ResolveBlind) {
        return proxy(name, value, arg.resolved);
    }
    if let Some(server) = dbclients::server_variable(name, value, arg.resolved) {
        return Some(server);
    }
    let package_key = package_env_key(name).filter(|k| package_config_key(k));
    if (package_key.is_some() && !RUNS_VALUE.contains(&name) || go_source(name, value))
        && !w.planted(Mutant::PersistenceBlind)
        && (!arg.resolved || go_source(name, value) || !vouched_source(w, value))
    {
        return Some(unknown(format!(
            "`{name}` changes what the package manager runs or where its code comes from: `{value}`"
        )));
    }
    if RUNS_VALUE.contains(&name) || cargo_target {
        return Some(if arg.resolved {
            let mut found = w.nested(value);
            found.reasons.push(format!("(run through `{name}`)"));
            found
        } else {
            unknown(format!("`{name}` names a command known only at run time"))
        });
    }
    let loads = LOADS_CODE.contains(&name)
        || (name == "NODE_OPTIONS"
            && [
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
            ]
            .iter()
            .any(|o| value.contains(o)))
        || (JVM_OPTIONS_VARS.contains(&name) && JVM_LOADS_CODE.iter().any(|o| value.contains(o)))
        || (PROMPT_VARS.contains(&name) && super::word::may_execute(value))
        // `GIT_CONFIG_KEY_<n>` pairs with `GIT_CONFIG_VALUE_<n>` like `git -c`;
        // a remote's address or a proxy set that way is where git connects,
        // judged without its value (the pair is not followed).
        || (name.starts_with("GIT_CONFIG_KEY_")
            && (!arg.resolved
                || git::config_runs_code(value)
                || git::remote_url_key(value).is_some()
                || git::proxy_key(value)))
        || (name == "GOFLAGS" && ["exec", "toolexec", "vettool"].iter().any(|o| value.contains(o)));
    loads.then(|| unknown(format!("`{name}` makes programs load or run other code")))
}

/// [`tools::package_config_names_code`], for the environment's spelling.
fn package_config_key(key: &str) -> bool {
    tools::package_config_names_code(key)
}
