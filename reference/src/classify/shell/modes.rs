//! Permission and ownership changes (RBV-SH-012): `chmod`, `chown`,
//! `chgrp`, `setfacl`, `chattr`, and the modes `install`/`mkdir -m` set.
//!
//! The R axis asks whether the actor can undo the effect alone. Setting a
//! plain mode back (`chmod 644`, `chmod +x`, `chgrp` to one of the actor's
//! groups) is that: a reversible local edit, auto. Not so:
//! - a tree of modes (`-R`, or `chmod` run per file by `find -exec`,
//!   `xargs`, `fd -x`): the old modes of every file are lost;
//! - setuid/setgid bits and world-writable modes: they hand the owner's
//!   rights, or the file's content, to every local user and process; what
//!   those do meanwhile cannot be taken back by resetting the bits;
//! - giving a file to another owner (`chown`): only that owner or root can
//!   give it back, and an unprivileged session cannot do it at all;
//! - ACL grants to other principals and dropping ACLs (`setfacl -m/-b`);
//! - the immutable and append-only attributes (`chattr +i/+a`): root only.

use super::argv::operands;
use super::walk::Walker;
use super::word::Arg;
use super::{destroy, privileged, write};
use crate::classify::Inspection;
use crate::mutant::Mutant;
use rbv_protocol::Reversibility::Irreversible;

/// A mode, owner, ACL or attribute change by `name`.
pub fn classify(w: &Walker, name: &str, args: &[Arg]) -> Inspection {
    let recursive = super::argv::has_flag(name, args, Some('R'), &["recursive"]);
    if recursive {
        return destroy(
            Irreversible,
            format!("`{name} -R` changes a whole tree; the old modes are lost"),
        );
    }
    if w.planted(Mutant::ModeChangeAsEdit) {
        return write(format!("`{name}` changes a file's mode or owner"));
    }
    if w.many_files {
        return destroy(
            Irreversible,
            format!(
                "`{name}` runs once per file found: a whole tree changes; the old modes are lost"
            ),
        );
    }
    let ops = operands(args);
    let first = || options_end(args).first().copied();
    match name {
        "chmod" => match first() {
            _ if super::argv::has_flag(name, args, None, &["reference"]) => destroy(
                Irreversible,
                "`chmod --reference` copies a mode that is only known at run time",
            ),
            Some(mode) => mode_change(name, mode),
            None => write("`chmod` without a mode"),
        },
        "chown" => match ops.first() {
            _ if super::argv::has_flag(name, args, None, &["reference"]) => destroy(
                Irreversible,
                "`chown --reference` gives files an owner known only at run time",
            ),
            Some(spec)
                if spec.resolved && (spec.text.starts_with(':') || spec.text.starts_with('.')) =>
            {
                write("`chown :group` changes only the group, which the owner can set back")
            }
            Some(_) => destroy(
                Irreversible,
                "`chown` gives a file to another owner: only that owner or root can give it back",
            ),
            None => write("`chown` without an owner"),
        },
        "chgrp" => write("`chgrp` changes the group, which the owner can set back"),
        "setfacl" => setfacl(args),
        "chattr" => chattr(args),
        _ => write(format!("`{name}` changes a file's mode or owner")),
    }
}

/// The mode an `install -m`/`mkdir -m`/`mkfifo -m` gives the files it creates.
pub fn created_with_mode(name: &str, mode: Option<&Arg>) -> Option<Inspection> {
    let mode = mode?;
    let found = mode_change(name, mode);
    (found.reversibility != rbv_protocol::Reversibility::Reversible).then_some(found)
}

/// The arguments after `chmod`'s own options. A leading `-w` or `-x` is a
/// mode, not an option, as GNU chmod reads it.
fn options_end(args: &[Arg]) -> Vec<&Arg> {
    let mut out = Vec::new();
    let mut done = false;
    for a in args {
        let t = a.text.as_str();
        let option = !done
            && (t.starts_with("--")
                || (t.starts_with('-')
                    && t.len() > 1
                    && t[1..].chars().all(|c| "cfvRHLP".contains(c))));
        if t == "--" && !done {
            done = true;
        } else if !option {
            out.push(a);
        }
    }
    out
}

fn mode_change(name: &str, mode: &Arg) -> Inspection {
    let Some(text) = mode.value() else {
        return destroy(
            Irreversible,
            format!("`{name}` sets a mode known only at run time"),
        );
    };
    match widening(text) {
        Some(why) => destroy(Irreversible, format!("`{name} {text}` {why}")),
        None => write(format!(
            "`{name} {text}` sets a mode the owner can set back"
        )),
    }
}

/// Why a mode widens access beyond the owner, if it does.
pub fn widening(mode: &str) -> Option<&'static str> {
    const SETID: &str = "sets the setuid/setgid bit: whoever runs the file gets its owner's rights";
    const WORLD: &str = "makes the file writable by every local user and process";
    if !mode.is_empty() && mode.len() <= 5 && mode.chars().all(|c| ('0'..='7').contains(&c)) {
        let bits = u32::from_str_radix(mode, 8).unwrap_or(0);
        return if bits & 0o6000 != 0 {
            Some(SETID)
        } else if bits & 0o002 != 0 {
            Some(WORLD)
        } else {
            None
        };
    }
    for clause in mode.split(',') {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let mut rest = &clause[who.len()..];
        let others = who.is_empty() || who.contains(['o', 'a']);
        while let Some(op) = rest.chars().next() {
            if !"+-=".contains(op) {
                return Some("is a mode this inspector does not read (fails safe)");
            }
            let perms: String = rest[1..]
                .chars()
                .take_while(|c| !"+-=".contains(*c))
                .collect();
            rest = &rest[1 + perms.len()..];
            if !perms.chars().all(|c| "rwxXstugo".contains(c)) {
                return Some("is a mode this inspector does not read (fails safe)");
            }
            if op == '-' {
                continue;
            }
            // Without `who`, `+w` is filtered by the umask (`u+w` under the
            // usual 022); the setuid/setgid bits are not.
            if perms.contains('s') && (who.is_empty() || who.contains(['u', 'g', 'a'])) {
                return Some(SETID);
            }
            let copies = perms.contains(['u', 'g', 'o']);
            if !who.is_empty() && others && (perms.contains('w') || copies) {
                return Some(WORLD);
            }
        }
    }
    None
}

fn setfacl(args: &[Arg]) -> Inspection {
    let has = |opts: &[&str]| {
        args.iter().any(|a| {
            opts.iter().any(|o| {
                a.text == *o
                    || (o.starts_with("--") && a.text.starts_with(&format!("{o}=")))
                    || (!o.starts_with("--")
                        && a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains(&o[1..]))
            })
        })
    };
    if has(&[
        "-m",
        "-M",
        "--modify",
        "--modify-file",
        "--set",
        "--set-file",
        "--restore",
    ]) {
        return destroy(
            Irreversible,
            "`setfacl` grants other users or groups access to the file",
        );
    }
    if has(&["-b", "-k", "--remove-all", "--remove-default"]) {
        return destroy(
            Irreversible,
            "`setfacl -b/-k` drops ACL entries; their old values are lost",
        );
    }
    write("`setfacl -x` removes a named entry, which the owner can add back")
}

fn chattr(args: &[Arg]) -> Inspection {
    // Options are `-R`, `-V`, `-f` (clusters), `-v N`, `-p N`; any other
    // word starting with `+`, `-` or `=` is an attribute change.
    let mut skip = false;
    for a in args {
        let t = a.text.as_str();
        if skip {
            skip = false;
            continue;
        }
        if t == "-v" || t == "-p" {
            skip = true;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 && t[1..].chars().all(|c| "RVf".contains(c)) {
            continue;
        }
        let Some(attrs) = t.strip_prefix(['+', '-', '=']) else {
            continue;
        };
        if !a.resolved || t.starts_with('=') || attrs.contains(['i', 'a']) {
            return privileged(
                "`chattr` sets or clears the immutable or append-only attribute (root only)",
            );
        }
    }
    write("`chattr` changes a file attribute the owner can set back")
}
