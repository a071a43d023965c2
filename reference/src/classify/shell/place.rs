//! Where a path lies relative to the workspace (issue 25, items 1 and 2).
//!
//! The default rule, with no workspace root on the wire: the shell starts
//! in the workspace, so a relative path that does not climb out of it
//! (`src/x`, `./build`, `$PWD/x`) is the workspace. `~` and `$HOME` are the
//! user's home, and its dot-entries (`~/.bashrc`, `~/.config/…`,
//! `~/.ssh/…`) and `~/bin` configure or feed every later session. System
//! directories belong to the machine; temporary directories are writable
//! by anyone, so what lies there nobody vouches for. Any other absolute
//! path may be the workspace spelled absolutely or may not: it is
//! "elsewhere", neither the workspace nor a known-dangerous place.

use super::word::Arg;
use super::{elsewhere, persistent, secrets, sensitive};
use crate::classify::Inspection;
use crate::mutant::Mutant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Inside the workspace.
    Workspace,
    /// The repository's own configuration (`.git/config`, `.git/hooks/…`)
    /// and files tools run when the directory is entered (`.envrc`): what
    /// later commands run.
    RepoConfig,
    /// The home directory's configuration and program directories.
    HomeConfig,
    /// The home directory, outside its configuration.
    Home,
    /// The machine's own directories (`/etc`, `/usr`, `/boot`, …).
    System,
    /// World-writable temporary directories (`/tmp`, `/var/tmp`, `/dev/shm`).
    Temp,
    /// Another absolute path, or one above the workspace (`../x`).
    Elsewhere,
    /// A path an expansion decides.
    Unknown,
}

/// What a write of `path` adds beyond a reversible workspace edit, judged
/// from the directory the command runs in (`cwd`, `None`: the workspace):
/// escalate where later commands or sessions run what is written (system,
/// home configuration, the repository's config and hooks), soft-ack
/// anywhere else outside the workspace. `None` inside the workspace.
pub fn write(
    path: &Arg,
    cwd: Option<Place>,
    what: &str,
    mutant: Option<Mutant>,
) -> Option<Inspection> {
    let place = match (of(path), cwd) {
        (Place::Workspace, Some(cwd)) => cwd,
        (place, _) => place,
    };
    let place = match place {
        Place::HomeConfig if mutant == Some(Mutant::PersistenceBlind) => Place::Home,
        Place::RepoConfig if mutant == Some(Mutant::PersistenceBlind) => Place::Workspace,
        place => place,
    };
    let text = &path.text;
    let found = match place {
        Place::Workspace => return None,
        Place::System => persistent(format!(
            "{what} `{text}`: a system location, outside the workspace"
        )),
        Place::HomeConfig | Place::RepoConfig => persistent(format!(
            "{what} `{text}`: configuration or programs that later commands and sessions run"
        )),
        Place::Home | Place::Temp | Place::Elsewhere => {
            elsewhere(format!("{what} `{text}`: outside the workspace"))
        }
        Place::Unknown => elsewhere(format!(
            "{what} `{text}`: a path known only at run time, perhaps outside the workspace"
        )),
    };
    Some(if secrets::names_secret(path) {
        sensitive(found, format!("`{text}` holds secrets"))
    } else {
        found
    })
}

/// Top-level system directories: the machine's, not the session's.
const SYSTEM: &[&str] = &[
    "etc",
    "usr",
    "bin",
    "sbin",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "boot",
    "opt",
    "root",
    "sys",
    "proc",
    "var",
    "srv",
    "snap",
    "nix",
    "Library",
    "System",
    "Applications",
    "private",
    "dev",
    "run",
];

/// Home entries without a leading dot that later sessions run from.
const HOME_PROGRAMS: &[&str] = &["bin", "Library"];

/// The place of a path as a command names it.
pub fn of(path: &Arg) -> Place {
    let text = path.text.as_str();
    let home = ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|p| text.strip_prefix(p))
        .or_else(|| matches!(text, "~" | "$HOME" | "${HOME}").then_some(""));
    if let Some(rest) = home {
        return in_home(rest);
    }
    if text.starts_with('~') {
        // `~user/…`: another user's home.
        return Place::Elsewhere;
    }
    if let Some(rest) = text
        .strip_prefix("$PWD/")
        .or_else(|| text.strip_prefix("${PWD}/"))
    {
        return relative(rest, true);
    }
    if let Some(abs) = text.strip_prefix('/') {
        return absolute(abs);
    }
    relative(text, path.resolved || !text.starts_with('$'))
}

fn in_home(rest: &str) -> Place {
    let first = rest.split('/').find(|c| !c.is_empty()).unwrap_or("");
    if first.starts_with('.') || HOME_PROGRAMS.contains(&first) {
        Place::HomeConfig
    } else {
        Place::Home
    }
}

/// The components of a path with `.` and `..` resolved lexically; `None`
/// when `..` climbs above the start.
fn components(path: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(c),
        }
    }
    Some(parts)
}

fn absolute(abs: &str) -> Place {
    // `/..` is `/`.
    let parts = components(abs).unwrap_or_default();
    match parts.as_slice() {
        ["tmp", ..] | ["var", "tmp", ..] | ["dev", "shm", ..] | ["private", "tmp", ..] => {
            Place::Temp
        }
        // A path under a home directory: the user's own (`/home/me/.bashrc`)
        // or another's; its dot-entries configure sessions either way.
        ["home" | "Users", _, rest @ ..] => match rest.first() {
            Some(first) if first.starts_with('.') || HOME_PROGRAMS.contains(first) => {
                Place::HomeConfig
            }
            _ => repo_config(rest).unwrap_or(Place::Elsewhere),
        },
        [first, ..] if SYSTEM.contains(first) => Place::System,
        [] => Place::System,
        _ => repo_config(&parts).unwrap_or(Place::Elsewhere),
    }
}

/// `…/.git/config`, `…/.git/hooks/…`, `…/.envrc`: config a repository or
/// directory runs.
fn repo_config(parts: &[&str]) -> Option<Place> {
    let git = parts.iter().position(|c| *c == ".git");
    let runs = match git {
        Some(i) => matches!(
            parts.get(i + 1).copied(),
            Some("config" | "hooks" | "info" | "modules") | None
        ),
        None => parts.last().is_some_and(|c| *c == ".envrc"),
    };
    runs.then_some(Place::RepoConfig)
}

fn relative(text: &str, known: bool) -> Place {
    if !known {
        return Place::Unknown;
    }
    match components(text) {
        Some(parts) => repo_config(&parts).unwrap_or(Place::Workspace),
        None => Place::Elsewhere,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(text: &str) -> Place {
        let resolved = !text.contains('$');
        of(&Arg {
            text: text.into(),
            resolved,
            pattern: false,
        })
    }

    #[test]
    fn places() {
        for (text, want) in [
            ("src/main.rs", Place::Workspace),
            ("./build/notes.txt", Place::Workspace),
            ("a/../b", Place::Workspace),
            ("$PWD/out.txt", Place::Workspace),
            ("build/$name.log", Place::Workspace),
            ("../x", Place::Elsewhere),
            ("a/../../x", Place::Elsewhere),
            (".git/hooks/pre-commit", Place::RepoConfig),
            (".git/config", Place::RepoConfig),
            (".git/COMMIT_EDITMSG", Place::Workspace),
            ("sub/.envrc", Place::RepoConfig),
            ("~/.bashrc", Place::HomeConfig),
            ("$HOME/.config/systemd/user/x.service", Place::HomeConfig),
            ("${HOME}/.gitconfig", Place::HomeConfig),
            ("~/bin/ls", Place::HomeConfig),
            ("~/notes.txt", Place::Home),
            ("~root/.ssh/authorized_keys", Place::Elsewhere),
            ("/etc/hosts", Place::System),
            ("/usr/local/bin/x", Place::System),
            ("/var/spool/cron/crontabs/me", Place::System),
            ("/tmp/x", Place::Temp),
            ("/var/tmp/x", Place::Temp),
            ("/dev/shm/x", Place::Temp),
            ("/home/me/.profile", Place::HomeConfig),
            ("/home/me/proj/src/x.rs", Place::Elsewhere),
            ("/work/proj/.git/hooks/post-checkout", Place::RepoConfig),
            ("/work/proj/x", Place::Elsewhere),
            ("$LOG", Place::Unknown),
            ("/", Place::System),
            ("/tmp/../etc/hosts", Place::System),
            (".git/info/../COMMIT_NOTES", Place::Workspace),
        ] {
            assert_eq!(place(text), want, "{text}");
        }
    }
}
