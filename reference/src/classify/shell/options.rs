//! Options that name a program (RBV-SH-011): a search tool's preprocessor,
//! an archiver's filter, a pager, an editor's startup commands. What the
//! option names runs, so it is inspected as a command of its own and
//! joined with the program's own effect; a script file, whose text is not
//! here, is unknown code.

use super::argv::{after_options, has_flag, option_arg, option_positions, option_values};
use super::programs;
use super::unknown;
use super::walk::{Stdin, Walker};
use super::word::Arg;
use crate::classify::Inspection;
use crate::mutant::Mutant;

/// The code that options of `name` run, if any.
pub fn classify(w: &mut Walker, name: &str, args: &[Arg]) -> Option<Inspection> {
    if w.planted(Mutant::ProgramOptionsAsData) {
        return None;
    }
    let mut found = Vec::new();
    let mut run = |w: &mut Walker, opt: Option<Arg>, what: &str| {
        if let Some(code) = opt {
            found.push(code_of(w, &code, what));
        }
    };
    match name {
        "rg" => run(w, option_arg(name, args, None, Some("--pre")), "`rg --pre`"),
        "tar" | "gtar" | "bsdtar" => {
            for long in ["--to-command", "--use-compress-program", "--rsh-command"] {
                run(
                    w,
                    option_arg(name, args, None, Some(long)),
                    &format!("`tar {long}`"),
                );
            }
            run(w, option_arg(name, args, Some("-I"), None), "`tar -I`");
            let action = option_arg(name, args, None, Some("--checkpoint-action"));
            let exec = action.and_then(|a| {
                let code = a.text.strip_prefix("exec=")?.to_owned();
                Some(Arg { text: code, ..a })
            });
            run(w, exec, "`tar --checkpoint-action=exec`");
            if has_flag(name, args, Some('F'), &["info-script", "new-volume-script"]) {
                return Some(unknown("`tar` runs a volume-change script"));
            }
        }
        "zip" => {
            let tt = option_arg(name, args, Some("-TT"), Some("--unzip-command")).map(|a| Arg {
                text: a.text.strip_prefix('=').unwrap_or(&a.text).to_owned(),
                ..a
            });
            run(w, tt, "`zip -TT`");
        }
        "split" => run(
            w,
            option_arg(name, args, None, Some("--filter")),
            "`split --filter`",
        ),
        "sort" => run(
            w,
            option_arg(name, args, None, Some("--compress-program")),
            "`sort --compress-program`",
        ),
        "man" => {
            run(
                w,
                option_arg(name, args, Some("-P"), Some("--pager")),
                "`man -P`",
            );
            run(
                w,
                option_arg(name, args, Some("-H"), Some("--html")),
                "`man -H`",
            );
        }
        "less" | "more" if args.iter().any(|a| a.text.starts_with("+!")) => {
            return Some(unknown(format!("`{name} +!` runs a command")));
        }
        "fd" | "fdfind" => {
            let at = option_positions(name, args, &["-x", "--exec", "-X", "--exec-batch"]);
            if let Some(&(at, inline)) = at.first() {
                // `--exec=cmd` starts the command in the option's own word.
                let first: Vec<Arg> = inline
                    .map(|v| Arg {
                        text: v.to_owned(),
                        ..args[at].clone()
                    })
                    .into_iter()
                    .collect();
                let rest = [first.as_slice(), &args[at + 1..]].concat();
                let end = rest
                    .iter()
                    .position(|a| a.text == ";")
                    .unwrap_or(rest.len());
                let mut inner =
                    w.per_file(|w| programs::classify(w, &rest[..end], &Stdin::Inherited));
                inner.reasons.push(format!("(run by `{name} -x`)"));
                found.push(inner);
            }
        }
        "rsync" => {
            // `-e` may end a cluster: `-avze ssh`.
            let rsh = option_arg(name, args, Some("-e"), Some("--rsh"));
            run(w, rsh, "`rsync -e`");
        }
        "scp" | "sftp" | "ssh" => {
            // `ssh -S` is a control socket; scp's and sftp's `-S` a program.
            let program = (name != "ssh").then_some("-S");
            let set = |opt: &str| option_arg(name, args, Some(opt), None).is_some();
            let commands = option_values(name, args, Some("-o"), None);
            let command = commands.iter().find(|v| {
                let v = v.text.to_ascii_lowercase();
                ["proxycommand", "localcommand", "knownhostscommand"]
                    .iter()
                    .any(|k| v.starts_with(k))
            });
            let runs = [Some("-F"), program]
                .into_iter()
                .flatten()
                .find(|opt| set(opt))
                .or(command.map(|_| "-o"));
            if let Some(opt) = runs {
                return Some(unknown(format!(
                    "`{name} {opt}` names a program, or a configuration that may run one"
                )));
            }
        }
        "vim" | "vi" | "nvim" | "view" | "vimdiff" | "ex" | "gvim" => {
            let plus_command = args.iter().any(|a| {
                let t = a.text.as_str();
                let line_number = t.len() > 1 && t[1..].chars().all(|c| c.is_ascii_digit());
                t.starts_with('+') && t.len() > 1 && !line_number
            });
            let runs = plus_command
                || has_flag(name, args, Some('c'), &["cmd"])
                || ['S', 'u', 's']
                    .into_iter()
                    .any(|letter| has_flag(name, args, Some(letter), &[]));
            if runs {
                return Some(unknown(format!(
                    "`{name}` runs editor commands from its arguments (`:!` runs programs)"
                )));
            }
        }
        "emacs" | "emacsclient" => {
            let runs = has_flag(
                name,
                args,
                None,
                &[
                    "eval", "execute", "e", "l", "load", "f", "funcall", "script", "batch", "x",
                ],
            );
            if runs {
                return Some(unknown(format!(
                    "`{name}` evaluates Lisp given on the command line"
                )));
            }
        }
        "npm" | "pnpm" | "yarn" => run(
            w,
            option_arg(name, args, None, Some("--script-shell")),
            "`--script-shell`",
        ),
        "make" | "gmake" => {
            if has_flag(name, args, None, &["eval"]) {
                return Some(unknown("`make --eval` adds rules and recipes"));
            }
            for a in args {
                match programs::env_assignment(&a.text) {
                    Some((var, value)) if MAKE_PROGRAMS.contains(&var) => {
                        let code = Arg {
                            text: value.to_owned(),
                            ..a.clone()
                        };
                        run(w, Some(code), &format!("`make {var}=…`"));
                    }
                    _ => {}
                }
            }
        }
        "cargo" => {
            let configs = option_values(name, args, None, Some("--config"));
            for v in configs.iter().map(|a| a.text.as_str()) {
                if cargo_config_runs(v) {
                    return Some(unknown(format!(
                        "`cargo --config {v}` names a program or a file cargo reads"
                    )));
                }
            }
        }
        "go" => {
            // Go's flag package takes `-flag` and `--flag` alike.
            for opt in ["-exec", "-toolexec", "-vettool"] {
                run(
                    w,
                    option_arg(name, args, None, Some(opt)),
                    &format!("`go {opt}`"),
                );
            }
        }
        "ssh-agent" => {
            let rest = after_options(name, args, &["-a", "-E", "-P", "-t"]);
            if !rest.is_empty() {
                found.push(programs::classify(w, rest, &Stdin::Inherited));
            }
        }
        _ => {}
    }
    super::join_all(found)
}

/// Variables that make recipes run another program.
#[rustfmt::skip]
const MAKE_PROGRAMS: &[&str] = &[
    "SHELL", "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "MAKE", "RUSTC", "GO", "PYTHON",
    "INSTALL", "LEX", "YACC",
];

/// A `--config` value that names a program (a runner, a wrapper, a
/// linker, an alias) or a file whose content is not here.
fn cargo_config_runs(value: &str) -> bool {
    let Some((key, _)) = value.split_once('=') else {
        return true;
    };
    let key = key.to_ascii_lowercase();
    [
        "runner",
        "wrapper",
        "rustc",
        "rustdoc",
        "linker",
        "alias",
        "credential-provider",
        "ar",
    ]
    .iter()
    .any(|k| {
        key.split('.')
            .any(|part| part == *k || part.ends_with(&format!("-{k}")))
    })
}

/// The code an option names, inspected as a command line of its own;
/// unknown when the option's value depends on an expansion.
fn code_of(w: &mut Walker, code: &Arg, what: &str) -> Inspection {
    let Some(text) = code.value() else {
        return unknown(format!("{what} names a program known only at run time"));
    };
    let mut found = w.nested(text);
    found.reasons.push(format!("(run by {what})"));
    found
}
