//! Where a path lies relative to the workspace.
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
//!
//! A declared workspace (capability `workspace`) replaces that guess:
//! every path resolves lexically against the directory the shell is in
//! (the declared `cwd`, then where `cd` and `pushd` went), and is inside
//! exactly when it lies under the declared `root`. `~` is the declared
//! `home`; without one it stays a name, never inside the root. The places
//! outside the root keep their default reading (system, temporary, home
//! configuration), so the band of a write there does not change.

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

/// What a write of `path`, which lies at `place`, adds beyond a reversible
/// workspace edit: escalate where later commands or sessions run what is
/// written (system, home configuration, the repository's config and
/// hooks), soft-ack anywhere else outside the workspace. `None` inside the
/// workspace.
pub fn write(path: &Arg, place: Place, what: &str, mutant: Option<Mutant>) -> Option<Inspection> {
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

/// The place of a path by the default rule, from the directory the shell
/// entered (`cwd`, `None`: the workspace).
pub fn from(path: &Arg, cwd: Option<Place>) -> Place {
    match (of(path), cwd) {
        (Place::Workspace, Some(cwd)) => cwd,
        (place, _) => place,
    }
}

/// The rest of `text` after the user's home (`~/x`, `$HOME/x`, `${HOME}/x`,
/// or the home itself: ""), if it starts there.
fn under_home(text: &str) -> Option<&str> {
    ["~/", "$HOME/", "${HOME}/"]
        .iter()
        .find_map(|p| text.strip_prefix(p))
        .or_else(|| matches!(text, "~" | "$HOME" | "${HOME}").then_some(""))
}

/// The place of a path as a command names it, by the default rule.
pub fn of(path: &Arg) -> Place {
    let text = path.text.as_str();
    let home = under_home(text);
    if let Some(rest) = home {
        return in_home(rest);
    }
    match tilde(text) {
        Some(Tilde::Pwd(rest)) => return relative(rest, true),
        Some(Tilde::User(user, rest)) => return other_home(user, rest),
        Some(Tilde::Unknown) => return Place::Unknown,
        None => {}
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

/// A tilde-prefix other than the user's own `~` (bash manual, "Tilde
/// Expansion"): `~+` is `$PWD`, `~-` is `$OLDPWD`, `~N`, `~+N` and `~-N`
/// are entries of the directory stack, and `~login` is that user's home
/// directory.
enum Tilde<'t> {
    /// `~+` and what follows it, relative to the current directory.
    Pwd(&'t str),
    /// `~login` and what follows it in that home.
    User(&'t str, &'t str),
    /// `~-` and the stack entries: a directory this reading does not follow.
    Unknown,
}

fn tilde(text: &str) -> Option<Tilde<'_>> {
    let after = text.strip_prefix('~')?;
    let (prefix, rest) = after.split_once('/').unwrap_or((after, ""));
    if prefix.is_empty() {
        return None;
    }
    let digits = prefix.trim_start_matches(['+', '-']);
    Some(match prefix {
        "+" => Tilde::Pwd(rest),
        "-" => Tilde::Unknown,
        _ if digits.chars().all(|c| c.is_ascii_digit()) => Tilde::Unknown,
        // A login name (POSIX portable user names: letters, digits, `.`,
        // `_`, `-`); anything else is no tilde-prefix bash expands.
        _ if prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) =>
        {
            Tilde::User(prefix, rest)
        }
        _ => return None,
    })
}

/// A path in another user's home directory (`~login/rest`). Its
/// dot-entries configure that user's sessions just as the user's own do
/// (`~root/.bashrc` runs in every root shell); root's home is `/root`, a
/// system directory; any other entry is outside the workspace.
fn other_home(user: &str, rest: &str) -> Place {
    if user == "root" {
        return absolute(&format!("root/{rest}"));
    }
    match in_home(rest) {
        Place::Home => Place::Elsewhere,
        place => place,
    }
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

/// Project-level configuration files that package managers and build
/// tools read at every start, whose keys name a program to run, code to
/// load or where packages come from (npm-config(7) `.npmrc`: script-shell,
/// node-options, registry; Yarn's `.yarnrc`/`.yarnrc.yml`: yarnPath,
/// registry; the Cargo Book, Configuration: `.cargo/config.toml`'s
/// rustc-wrapper, runners and linkers; Maven's `.mvn/jvm.config` and
/// `.mvn/maven.config`), by the directory they sit in (`""`: any) and
/// their name. A write there is the file spelling of `npm config set` or
/// RUSTC_WRAPPER: the next install or build runs what it names.
const TOOL_CONFIG: &[(&str, &str)] = &[
    ("", ".npmrc"),
    ("", ".yarnrc"),
    ("", ".yarnrc.yml"),
    (".cargo", "config.toml"),
    (".cargo", "config"),
    (".mvn", "jvm.config"),
    (".mvn", "maven.config"),
];

/// `…/.git/config`, `…/.git/hooks/…`, `…/.envrc`, a tool's project
/// configuration (`TOOL_CONFIG`): config a repository, a directory or a
/// tool runs.
fn repo_config(parts: &[&str]) -> Option<Place> {
    let git = parts.iter().position(|c| *c == ".git");
    let runs = match git {
        Some(i) => matches!(
            parts.get(i + 1).copied(),
            Some("config" | "hooks" | "info" | "modules") | None
        ),
        None => parts.last().is_some_and(|c| *c == ".envrc"),
    };
    // Python's `site` module (python docs, "site — Site-specific
    // configuration hook") executes the `import` lines of every `.pth` file
    // in a site-packages directory and imports `sitecustomize` and
    // `usercustomize` at every interpreter start: a virtualenv's
    // site-packages inside the workspace is start-up code all the same.
    let site = parts
        .iter()
        .rev()
        .nth(1)
        .is_some_and(|d| matches!(*d, "site-packages" | "dist-packages"))
        && parts.last().is_some_and(|f| {
            f.ends_with(".pth") || matches!(*f, "sitecustomize.py" | "usercustomize.py")
        });
    let tool = parts.split_last().is_some_and(|(file, dirs)| {
        let dir = dirs.last().copied().unwrap_or("");
        TOOL_CONFIG
            .iter()
            .any(|(d, f)| f == file && (d.is_empty() || *d == dir))
    });
    (runs || site || tool).then_some(Place::RepoConfig)
}

/// A declared workspace as the walk follows the shell through it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    root: Vec<String>,
    home: Option<Vec<String>>,
    /// The directory the shell is in; `None` once it went where only run
    /// time knows (`cd "$DIR"`, a `popd` past what the line pushed).
    dir: Option<Vec<String>>,
    /// The directory stack and `OLDPWD` as this command line built them.
    dirs: Dirs<Option<Vec<String>>>,
}

impl Declared {
    pub fn new(ws: &rbv_protocol::Workspace) -> Self {
        let abs = |p: &rbv_protocol::AbsolutePath| join(&[], p.as_str());
        Declared {
            root: abs(&ws.root),
            home: ws.home.as_ref().map(abs),
            dir: Some(abs(ws.cwd())),
            dirs: Dirs::default(),
        }
    }

    /// `cd DIR`, `pushd DIR`; `None`: `cd` alone, which goes home.
    pub fn enter(&mut self, dir: Option<&Arg>) {
        self.dir = self.target(dir);
    }

    /// Where `cd DIR` goes (`None`: `cd` alone, home).
    fn target(&self, dir: Option<&Arg>) -> Option<Vec<String>> {
        match dir {
            None => self.home.clone(),
            Some(dir) => self.resolve(dir).ok(),
        }
    }

    /// `cd`, `pushd` or `popd` with these arguments, followed through the
    /// directory stack.
    pub fn builtin(&mut self, name: &str, args: &[&Arg]) {
        let op = DirOp::read(name, args);
        let to = match &op {
            DirOp::Cd(dir) | DirOp::Push(dir, _) => self.target(*dir),
            _ => None,
        };
        self.dirs.apply(&op, &mut self.dir, to);
    }

    /// The place of the directory the shell is in.
    pub fn here(&self) -> Place {
        self.dir.as_ref().map_or(Place::Unknown, |d| self.judge(d))
    }

    /// The place of `path`, resolved from the directory the shell is in.
    pub fn place(&self, path: &Arg) -> Place {
        match self.resolve(path) {
            Ok(abs) => self.judge(&abs),
            Err(place) => place,
        }
    }

    /// Whether code at `path` lies outside the root, where the places in
    /// `vouched` (the user's own setup, the machine's programs) do not
    /// count as outside.
    pub fn runs_outside(&self, path: &Arg, vouched: &[Place]) -> bool {
        match self.resolve(path) {
            Ok(abs) if abs.starts_with(&self.root) => false,
            Ok(abs) => !vouched.contains(&self.judge(&abs)),
            Err(place) => !vouched.contains(&place),
        }
    }

    /// `path` as absolute components, or, when it cannot be resolved, the
    /// place the default rule gives the name (`~` without a declared
    /// home, `~user`, an expansion).
    fn resolve(&self, path: &Arg) -> Result<Vec<String>, Place> {
        let text = path.text.as_str();
        let home = under_home(text);
        if let Some(rest) = home {
            return match &self.home {
                Some(home) => Ok(join(home, rest)),
                None => Err(in_home(rest)),
            };
        }
        let pwd = match tilde(text) {
            Some(Tilde::Pwd(rest)) => Some(rest),
            Some(Tilde::User(user, rest)) => return Err(other_home(user, rest)),
            Some(Tilde::Unknown) => return Err(Place::Unknown),
            None => ["$PWD/", "${PWD}/"]
                .iter()
                .find_map(|p| text.strip_prefix(p))
                .or_else(|| matches!(text, "$PWD" | "${PWD}").then_some("")),
        };
        let (rest, known) = match pwd {
            Some(rest) => (rest, true),
            None => (text, path.resolved || !text.starts_with('$')),
        };
        if let Some(abs) = rest.strip_prefix('/') {
            return Ok(join(&[], abs));
        }
        match (&self.dir, known) {
            (Some(dir), true) => Ok(join(dir, rest)),
            _ => Err(Place::Unknown),
        }
    }

    fn judge(&self, abs: &[String]) -> Place {
        let parts: Vec<&str> = abs.iter().map(String::as_str).collect();
        if abs.starts_with(&self.root) {
            return repo_config(&parts).unwrap_or(Place::Workspace);
        }
        if let Some(rest) = self
            .home
            .as_ref()
            .and_then(|h| abs.strip_prefix(h.as_slice()))
        {
            let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
            return match in_home(&rest.join("/")) {
                Place::Home => repo_config(&rest).unwrap_or(Place::Home),
                place => place,
            };
        }
        absolute(&parts.join("/"))
    }
}

/// What `cd`, `pushd` or `popd` does to the directory stack (bash manual,
/// "The Directory Stack" and "Bourne Shell Builtins": `cd -` is `cd
/// "$OLDPWD"`; `pushd` alone exchanges the top two entries; `pushd +N`
/// and `-N` rotate the Nth entry, counted from the left or the right of
/// the list `dirs` prints, to the top; `popd` removes the top entry and
/// enters the new top, `popd +N`/`-N` the Nth; `-n` changes the stack but
/// not the directory). Every change of directory sets `OLDPWD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirOp<'a> {
    /// `cd DIR` (`None`: `cd` alone).
    Cd(Option<&'a Arg>),
    /// `cd -`, `cd "$OLDPWD"`, `cd ~-`.
    Back,
    /// `pushd DIR`, and whether `-n` keeps the directory.
    Push(Option<&'a Arg>, bool),
    /// `pushd` alone.
    Swap,
    /// `pushd +N` (from the left) or `-N` (from the right).
    Rotate(bool, usize),
    /// `popd`, `popd +N`/`-N` (`None`: the top), and `-n`.
    Pop(Option<(bool, usize)>, bool),
}

impl<'a> DirOp<'a> {
    pub fn read(name: &str, args: &[&'a Arg]) -> DirOp<'a> {
        let keep = args.iter().any(|a| a.text == "-n");
        let rest: Vec<&'a Arg> = args
            .iter()
            .copied()
            .filter(|a| !matches!(a.text.as_str(), "-n" | "-L" | "-P" | "-e" | "-@" | "--"))
            .collect();
        let first = rest.first().copied();
        let nth = first.and_then(|a| {
            let (left, n) = match a.text.as_bytes().first() {
                Some(b'+') => (true, &a.text[1..]),
                Some(b'-') => (false, &a.text[1..]),
                _ => return None,
            };
            n.parse::<usize>().ok().map(|n| (left, n))
        });
        let back =
            first.is_some_and(|a| matches!(a.text.as_str(), "-" | "$OLDPWD" | "${OLDPWD}" | "~-"));
        match name {
            "cd" if back => DirOp::Back,
            "cd" => DirOp::Cd(first),
            "pushd" => match (first, nth) {
                (None, _) => DirOp::Swap,
                (_, Some((left, n))) => DirOp::Rotate(left, n),
                (Some(_), None) if back => DirOp::Push(None, keep),
                (Some(dir), None) => DirOp::Push(Some(dir), keep),
            },
            _ => DirOp::Pop(nth, keep),
        }
    }
}

/// The directory stack (below the current directory) and `OLDPWD` as one
/// command line built them. What the line did not show (the stack and
/// `OLDPWD` a persistent shell had before it) is `unknown`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dirs<T> {
    stack: Vec<T>,
    old: Option<T>,
}

impl<T: Clone + Default> Dirs<T> {
    /// Applies `op` to the directory `here`; `to` is where `cd DIR` or
    /// `pushd DIR` goes. An entry the line did not show is `T::default()`.
    pub fn apply(&mut self, op: &DirOp, here: &mut T, to: T) {
        let unknown = T::default;
        match *op {
            DirOp::Cd(_) => self.go(here, to),
            DirOp::Back => {
                let old = self.old.clone().unwrap_or_else(unknown);
                self.go(here, old);
            }
            DirOp::Push(dir, keep) => {
                // `pushd -` pushes `OLDPWD`.
                let to = if dir.is_none() {
                    self.old.clone().unwrap_or_else(unknown)
                } else {
                    to
                };
                if keep {
                    self.stack.insert(0, to);
                } else {
                    self.stack.insert(0, here.clone());
                    self.go(here, to);
                }
            }
            DirOp::Swap => {
                let top = if self.stack.is_empty() {
                    unknown()
                } else {
                    self.stack.remove(0)
                };
                let was = here.clone();
                self.go(here, top);
                self.stack.insert(0, was);
            }
            DirOp::Rotate(left, n) => {
                // The list `dirs` prints: here, then the stack.
                let mut list = vec![here.clone()];
                list.extend(self.stack.iter().cloned());
                // Counted from the right, the entries come from before the
                // line, which it does not show.
                if left && n < list.len() {
                    list.rotate_left(n);
                    let top = list.remove(0);
                    self.stack = list;
                    self.go(here, top);
                } else {
                    self.stack.clear();
                    self.go(here, unknown());
                }
            }
            DirOp::Pop(None | Some((true, 0)), keep) => {
                let top = if self.stack.is_empty() {
                    unknown()
                } else {
                    self.stack.remove(0)
                };
                if !keep {
                    self.go(here, top);
                }
            }
            DirOp::Pop(Some((true, n)), _) if n <= self.stack.len() => {
                self.stack.remove(n - 1);
            }
            DirOp::Pop(Some(_), _) => {
                // `-N`, or past what the line pushed: the removed entry may
                // be the current directory.
                self.stack.clear();
                self.go(here, unknown());
            }
        }
    }

    fn go(&mut self, here: &mut T, to: T) {
        self.old = Some(std::mem::replace(here, to));
    }
}

/// `path` resolved lexically from `base` (absolute components): `..`
/// above `/` stays at `/`, as the kernel has it.
fn join(base: &[String], path: &str) -> Vec<String> {
    let mut parts: Vec<String> = if path.starts_with('/') {
        Vec::new()
    } else {
        base.to_vec()
    };
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(c.to_owned()),
        }
    }
    parts
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
            (".cargo/config.toml", Place::RepoConfig),
            ("web/.npmrc", Place::RepoConfig),
            (".mvn/jvm.config", Place::RepoConfig),
            ("config.toml", Place::Workspace),
            ("docs/.cargo.md", Place::Workspace),
            ("~/.bashrc", Place::HomeConfig),
            ("$HOME/.config/systemd/user/x.service", Place::HomeConfig),
            ("${HOME}/.gitconfig", Place::HomeConfig),
            ("~/bin/ls", Place::HomeConfig),
            ("~/notes.txt", Place::Home),
            ("~root/.ssh/authorized_keys", Place::System),
            ("~root/notes.txt", Place::System),
            ("~alice/.profile", Place::HomeConfig),
            ("~alice/shared/x", Place::Elsewhere),
            ("~+/src/x", Place::Workspace),
            ("~-/Makefile", Place::Unknown),
            ("~2/x", Place::Unknown),
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

    fn arg(text: &str) -> Arg {
        Arg {
            text: text.into(),
            resolved: !text.contains('$'),
            pattern: false,
        }
    }

    fn declared(root: &str, cwd: &str, home: Option<&str>) -> Declared {
        let path = |p: &str| rbv_protocol::AbsolutePath::new(p).unwrap();
        Declared::new(&rbv_protocol::Workspace {
            root: path(root),
            cwd: Some(path(cwd)),
            home: home.map(path),
        })
    }

    #[test]
    fn a_declared_root_decides_inside_and_outside() {
        let d = declared(
            "/home/me/projects/app",
            "/home/me/projects/app/web",
            Some("/home/me"),
        );
        for (text, want) in [
            ("src/x", Place::Workspace),
            ("../README.md", Place::Workspace),
            ("../../other/x", Place::Home),
            ("~/projects/app/x", Place::Workspace),
            ("$HOME/projects/app", Place::Workspace),
            ("~/Downloads/Makefile", Place::Home),
            ("../../../.bashrc", Place::HomeConfig),
            ("~/.ssh/config", Place::HomeConfig),
            ("../.git/hooks/pre-commit", Place::RepoConfig),
            ("/home/me/projects/app/.git/config", Place::RepoConfig),
            ("/srv/app/x", Place::System),
            ("/tmp/x", Place::Temp),
            ("/work/other/x", Place::Elsewhere),
            ("/../../etc/hosts", Place::System),
            ("~other/x", Place::Elsewhere),
            ("$LOG", Place::Unknown),
            ("$PWD/x", Place::Workspace),
        ] {
            assert_eq!(d.place(&arg(text)), want, "{text}");
        }
        // Without a declared home, `~` is a name, never inside the root.
        let homeless = declared("/home/me/projects/app", "/home/me/projects/app", None);
        assert_eq!(homeless.place(&arg("~/projects/app/x")), Place::Home);
        assert_eq!(homeless.place(&arg("~/.bashrc")), Place::HomeConfig);
    }

    #[test]
    fn the_declared_directory_follows_cd() {
        let mut d = declared("/srv/app", "/srv/app", Some("/home/me"));
        assert_eq!(d.here(), Place::Workspace);
        d.enter(Some(&arg("..")));
        assert_eq!(d.here(), Place::System);
        assert_eq!(d.place(&arg("app/x")), Place::Workspace);
        d.enter(None);
        assert_eq!(d.here(), Place::Home);
        d.enter(Some(&arg("$DIR")));
        assert_eq!(
            (d.here(), d.place(&arg("x"))),
            (Place::Unknown, Place::Unknown)
        );
        assert_eq!(d.place(&arg("/srv/app/x")), Place::Workspace);
        d.enter(Some(&arg("/srv/app/sub")));
        assert_eq!(d.here(), Place::Workspace);
        // `popd` past what the line pushed: only run time knows.
        d.builtin("popd", &[]);
        assert_eq!(d.here(), Place::Unknown);
    }

    fn dir_op(name: &str, words: &[&str]) -> (Vec<Arg>, String) {
        (words.iter().map(|w| arg(w)).collect(), name.to_owned())
    }

    /// Runs `cd`/`pushd`/`popd` lines through the default rule's stack
    /// (`None`: the workspace) and returns where the shell ends up.
    fn stack(lines: &[(&str, &[&str])]) -> Option<Place> {
        let mut dirs = Dirs::default();
        let mut here: Option<Place> = None;
        for (name, words) in lines {
            let (args, name) = dir_op(name, words);
            let refs: Vec<&Arg> = args.iter().collect();
            let op = DirOp::read(&name, &refs);
            let to = match op {
                DirOp::Cd(Some(d)) | DirOp::Push(Some(d), _) => match of(d) {
                    Place::Workspace => here,
                    p => Some(p),
                },
                _ => None,
            };
            dirs.apply(&op, &mut here, to);
        }
        here
    }

    #[test]
    fn the_directory_stack_is_followed() {
        let tmp: &[&str] = &["/tmp/x"];
        let sys: &[&str] = &["/etc/x"];
        // popd returns to where pushd left.
        assert_eq!(
            stack(&[("pushd", tmp), ("pushd", &["src"]), ("popd", &[])]),
            Some(Place::Temp)
        );
        assert_eq!(stack(&[("pushd", tmp), ("popd", &[])]), None);
        // cd - and cd "$OLDPWD" go back once.
        assert_eq!(
            stack(&[("cd", tmp), ("cd", sys), ("cd", &["-"])]),
            Some(Place::Temp)
        );
        assert_eq!(
            stack(&[("cd", tmp), ("cd", sys), ("cd", &["$OLDPWD"])]),
            Some(Place::Temp)
        );
        assert_eq!(stack(&[("cd", tmp), ("cd", &["-"])]), None);
        // pushd alone swaps; pushd +1 rotates the second entry to the top.
        assert_eq!(
            stack(&[("pushd", tmp), ("pushd", sys), ("pushd", &[])]),
            Some(Place::Temp)
        );
        assert_eq!(
            stack(&[("pushd", tmp), ("pushd", sys), ("pushd", &["+1"])]),
            Some(Place::Temp)
        );
        assert_eq!(
            stack(&[("pushd", tmp), ("pushd", sys), ("pushd", &["+2"])]),
            None
        );
        // popd +1 removes an entry and stays; -n changes only the stack.
        assert_eq!(
            stack(&[("cd", sys), ("pushd", tmp), ("popd", &["+1"])]),
            Some(Place::Temp)
        );
        assert_eq!(stack(&[("pushd", &["-n", "/tmp/x"])]), None);
        assert_eq!(
            stack(&[("pushd", &["-n", "/tmp/x"]), ("popd", &[])]),
            Some(Place::Temp)
        );
    }

    #[test]
    fn the_declared_stack_is_followed() {
        let mut d = declared("/work/app", "/work/app", Some("/home/me"));
        let run = |d: &mut Declared, name: &str, words: &[&str]| {
            let args: Vec<Arg> = words.iter().map(|w| arg(w)).collect();
            d.builtin(name, &args.iter().collect::<Vec<_>>());
            d.here()
        };
        assert_eq!(run(&mut d, "pushd", &["/srv/x"]), Place::System);
        assert_eq!(run(&mut d, "pushd", &["/work/app/src"]), Place::Workspace);
        assert_eq!(run(&mut d, "popd", &[]), Place::System);
        assert_eq!(run(&mut d, "popd", &[]), Place::Workspace);
        // Past what the line pushed: a directory only run time knows.
        assert_eq!(run(&mut d, "popd", &[]), Place::Unknown);
        let mut d = declared("/work/app", "/work/app", Some("/home/me"));
        assert_eq!(run(&mut d, "cd", &["/tmp/x"]), Place::Temp);
        assert_eq!(run(&mut d, "cd", &["-"]), Place::Workspace);
        assert_eq!(run(&mut d, "cd", &["~-"]), Place::Temp);
    }

    #[test]
    fn code_outside_the_root_is_outside_unless_vouched() {
        let d = declared("/work/p", "/work/p", Some("/home/me"));
        let outside = |text: &str, vouched: &[Place]| d.runs_outside(&arg(text), vouched);
        assert!(!outside("Makefile", &[]));
        assert!(!outside("/work/p/sub/../Makefile", &[]));
        assert!(outside("/work/p2/Makefile", &[]));
        assert!(outside("../Makefile", &[]));
        assert!(outside("/usr/local/bin", &[]));
        assert!(!outside("/usr/local/bin", &[Place::System]));
        assert!(!outside("~/.cargo/env", &[Place::HomeConfig]));
        assert!(outside("~/venv/bin/activate", &[Place::HomeConfig]));
        assert!(outside("$X/bin", &[Place::HomeConfig, Place::System]));
    }
}
