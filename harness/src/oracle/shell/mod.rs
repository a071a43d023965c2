//! Bash as an oracle for shell findings: the line runs under `bash -c` in a
//! throwaway sandbox, and what really ran and what really changed say
//! whether the band an implementation gave it is wrong by the world, not
//! only by the reference.
//!
//! The sandbox (`sandbox.sh`, pid 1 of new mount, pid and network
//! namespaces, `unshare`): a root of its own on a capped tmpfs, entered by
//! `chroot` with every capability dropped, so the line sees no host file
//! and no network; a home directory (also the working directory) and
//! `/tmp` seeded with the files the generators name. Every program name in
//! `/usr/bin` (also `/bin`, `/sbin`) is a stub that logs its argv, then runs
//! the real program only where its effects stay local (`programs::REAL`:
//! `rm`, `sed`, `find`, `xargs`, the shells …), where the snapshot sees
//! them; the others (`git`, `curl`, `sudo`, `npm` …) only log and exit 0,
//! so their effects are not modelled, only their invocation. Bash's
//! builtins run for real: redirections write, `eval` and `source` run.
//!
//! Limits: a hard time limit (2 s) after which everything in the pid
//! namespace is killed, and the line's processes, file sizes, memory and
//! CPU capped (`ulimit`); the tmpfs caps the space. As root, no user
//! namespace (one mapping root to root would leave the process limit
//! unenforced): the line runs as a throwaway uid. Otherwise, in a user
//! namespace mapping the caller to root, the line keeps that uid without
//! capabilities.

mod confirmation;
mod observe;
mod programs;

pub use confirmation::{confirm, Confirmation};
pub use observe::{Change, ChangeKind, Observation, Run};

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

const SANDBOX: &str = include_str!("sandbox.sh");
const STUB: &str = include_str!("stub.sh");
const ENV: &str = include_str!("env.sh");

/// How long a line may run, with what it started, before all is killed.
pub const TIME_LIMIT: Duration = Duration::from_secs(2);
/// Setting the sandbox up and reading it out, on top of the time limit.
const SETUP_ALLOWANCE: Duration = Duration::from_secs(20);
/// The sandbox's output is snapshots, the log and the line's output, each
/// capped inside; more than this is a sandbox gone wrong.
const MAX_OUTPUT: usize = 32 << 20;
/// Longer than any line an agent sends, far below the kernel's limit on
/// one argument (128 KiB).
const MAX_LINE: usize = 64 << 10;
/// The mtime of every seeded file: a write sets it to now.
const SEEDED_AT: Duration = Duration::from_secs(1_000_000_000);
/// Root runs each line as a uid of its own from here up (see `run_as`).
const FIRST_UID: u64 = 1_600_000_000;
/// Lines run by this process, across sandboxes (each gets its uid).
static LINES: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// No sandbox on this machine (no `unshare`, no namespaces, no bash).
    #[error("the bash sandbox is unavailable: {0}")]
    Unavailable(String),
    /// The sandbox could not run one line.
    #[error("the bash sandbox could not run the line: {0}")]
    Run(String),
}

/// A prepared sandbox: the tree every line starts from, on the host; each
/// line gets a fresh copy of it in namespaces of its own.
pub struct Sandbox {
    dir: tempfile::TempDir,
    unshare: std::ffi::OsString,
    bash: PathBuf,
    as_root: bool,
    real: BTreeSet<String>,
    /// How long a line may run (default [`TIME_LIMIT`]).
    pub limit: Duration,
}

impl Sandbox {
    /// Prepares the tree and runs `true` in it: an error here says why this
    /// machine has no sandbox (no `unshare`, user namespaces refused …).
    /// `RBV_UNSHARE` names another `unshare` program.
    pub fn start() -> Result<Sandbox, SandboxError> {
        let bash = host_bash()?;
        let dir = tempfile::Builder::new()
            .prefix("rbv-bash-")
            .tempdir()
            .map_err(|e| SandboxError::Unavailable(format!("temp dir: {e}")))?;
        let real = prepare(dir.path(), &bash)
            .map_err(|e| SandboxError::Unavailable(format!("preparing the sandbox: {e}")))?;
        let sandbox = Sandbox {
            dir,
            unshare: std::env::var_os("RBV_UNSHARE").unwrap_or_else(|| "unshare".into()),
            bash,
            as_root: rustix::process::geteuid().is_root(),
            real,
            limit: TIME_LIMIT,
        };
        match sandbox.observe("true") {
            Ok(o) if o.exit == 0 && o.parsed && o.changes.is_empty() => Ok(sandbox),
            Ok(o) => Err(SandboxError::Unavailable(format!(
                "`true` did not run cleanly in it: {o:?}"
            ))),
            Err(SandboxError::Run(why)) => Err(SandboxError::Unavailable(why)),
            Err(e) => Err(e),
        }
    }

    /// How the sandbox runs lines, for provenance.
    pub fn mode(&self) -> &'static str {
        if self.as_root {
            "mount, pid and network namespaces; each line as a uid of its own"
        } else {
            "a user namespace with mount, pid and network namespaces"
        }
    }

    /// A uid no other line of this process or of a concurrent one runs as:
    /// the process limit counts a uid's processes machine-wide, and a fork
    /// bomb in one sandbox must not starve the next.
    fn run_as(&self) -> String {
        if !self.as_root {
            return String::new();
        }
        let n = LINES.fetch_add(1, Ordering::Relaxed) % 1000;
        let uid = FIRST_UID + u64::from(std::process::id() % 100_000) * 1000 + n;
        uid.to_string()
    }

    /// Runs `line` in a fresh copy of the sandbox and reports what it did.
    pub fn observe(&self, line: &str) -> Result<Observation, SandboxError> {
        if line.contains('\0') {
            return Err(SandboxError::Run("the line holds a NUL byte".into()));
        }
        if line.len() > MAX_LINE {
            return Err(SandboxError::Run(format!(
                "the line is {} bytes, over the sandbox's {MAX_LINE}",
                line.len()
            )));
        }
        let mut cmd = Command::new(&self.unshare);
        if !self.as_root {
            cmd.args(["--user", "--map-root-user"]);
        }
        cmd.args(["--mount", "--net", "--pid", "--fork", "--kill-child", "--"])
            .arg(&self.bash)
            .args(["-p", "-c", SANDBOX, "rbv-sandbox"])
            .arg(self.dir.path())
            .arg(self.run_as())
            .arg(self.limit.as_millis().to_string())
            .arg(&self.bash)
            .arg(line)
            .env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd.spawn().map_err(|e| {
            SandboxError::Unavailable(format!("cannot run {:?}: {e}", self.unshare))
        })?;
        let stdout = read_capped(child.stdout.take().expect("piped"), MAX_OUTPUT);
        let stderr = read_capped(child.stderr.take().expect("piped"), 64 << 10);
        let deadline = Instant::now() + self.limit + SETUP_ALLOWANCE;
        let status = loop {
            if let Some(status) = child
                .try_wait()
                .map_err(|e| SandboxError::Run(e.to_string()))?
            {
                break status;
            }
            if Instant::now() > deadline {
                // unshare's --kill-child takes pid 1, and with it the whole
                // pid namespace, down with it.
                if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                return Err(SandboxError::Run(format!(
                    "the sandbox did not finish within {} s",
                    (self.limit + SETUP_ALLOWANCE).as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let out = stdout.join().unwrap_or_default();
        let err = stderr.join().unwrap_or_default();
        let why = || {
            let said = rbv_report::text::one_line(&String::from_utf8_lossy(&err), 600);
            let said = if said.is_empty() {
                String::new()
            } else {
                format!(": {said}")
            };
            format!("{:?} exited with {status}{said}", self.unshare)
        };
        if out.is_empty() {
            return Err(SandboxError::Run(why()));
        }
        if out.len() >= MAX_OUTPUT {
            return Err(SandboxError::Run(format!(
                "the sandbox wrote more than {MAX_OUTPUT} bytes"
            )));
        }
        let mut o =
            observe::parse(&out).map_err(|e| SandboxError::Run(format!("{e} ({})", why())))?;
        for run in &mut o.ran {
            run.real = run.installed && self.real.contains(&run.program);
        }
        Ok(o)
    }
}

/// The sandbox's word on a shell_bypass finding: the implementation gave
/// `band` to `line`.
pub fn judge(
    sandbox: &Sandbox,
    line: &str,
    band: rbv_protocol::Band,
) -> Result<Confirmation, SandboxError> {
    Ok(confirm(&sandbox.observe(line)?, band))
}

fn read_capped(
    mut pipe: impl Read + Send + 'static,
    cap: usize,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 64 << 10];
        // Past the cap the pipe is drained, so the writer never blocks.
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = cap.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        kept
    })
}

/// The host's bash, which runs the sandbox's first process and, from the
/// read-only bind of `/usr` (or `/bin`), the line.
fn host_bash() -> Result<PathBuf, SandboxError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/bin")])
        .map(|d| d.join("bash"))
        .find(|p| p.is_file())
        .ok_or_else(|| SandboxError::Unavailable("no bash on this machine".into()))?;
    let bash = fs::canonicalize(&found)
        .map_err(|e| SandboxError::Unavailable(format!("{}: {e}", found.display())))?;
    if bash.starts_with("/usr") || bash.starts_with("/bin") {
        Ok(bash)
    } else {
        Err(SandboxError::Unavailable(format!(
            "bash is {}; the sandbox holds only /usr and /bin",
            bash.display()
        )))
    }
}

/// Writes the tree every line starts from under `dir/tree` (and the empty
/// `dir/root` the sandbox mounts its tmpfs on); returns the programs that
/// run for real.
fn prepare(dir: &Path, bash: &Path) -> std::io::Result<BTreeSet<String>> {
    let tree = dir.join("tree");
    fs::create_dir(dir.join("root"))?;
    for d in [
        "usr/bin",
        "usr/local",
        "rbv/log",
        "rbv/host",
        "rbv/real",
        "etc",
        "dev",
        "home/user",
        "tmp",
    ] {
        fs::create_dir_all(tree.join(d))?;
    }
    for (link, target) in [
        ("bin", "usr/bin"),
        ("sbin", "usr/bin"),
        ("usr/sbin", "bin"),
        ("usr/local/bin", "../bin"),
    ] {
        symlink(target, tree.join(link))?;
    }
    for name in programs::stub_names() {
        symlink("/rbv/stub", tree.join("usr/bin").join(name))?;
    }
    let mut real = BTreeSet::new();
    for name in programs::REAL {
        let Some(program) = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(name))
            .find(|p| {
                p.metadata()
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
        else {
            continue;
        };
        // Alternatives (awk) are symlinks into /etc, which the sandbox lacks.
        let resolved = fs::canonicalize(program)?;
        if resolved.starts_with("/usr") || resolved.starts_with("/bin") {
            let inside =
                Path::new("/rbv/host").join(resolved.strip_prefix("/").unwrap_or(&resolved));
            symlink(inside, tree.join("rbv/real").join(name))?;
            real.insert((*name).to_owned());
        }
    }
    let bash_inside = Path::new("/rbv/host").join(bash.strip_prefix("/").unwrap_or(bash));
    let stub = STUB.replace("@BASH@", &bash_inside.to_string_lossy());
    write(&tree.join("rbv/stub"), &stub, 0o755)?;
    write(&tree.join("rbv/env.sh"), ENV, 0o644)?;
    write(&tree.join("rbv/out"), "", 0o644)?;
    fs::set_permissions(tree.join("tmp"), fs::Permissions::from_mode(0o1777))?;
    for seed in programs::SEEDS {
        let path = tree.join(seed.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        write(&path, seed.content, seed.mode)?;
        fs::File::open(&path)?.set_modified(SystemTime::UNIX_EPOCH + SEEDED_AT)?;
    }
    Ok(real)
}

fn write(path: &Path, text: &str, mode: u32) -> std::io::Result<()> {
    fs::write(path, text)?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_holds_stubs_real_programs_and_old_seeds() {
        let dir = tempfile::tempdir().unwrap();
        let Ok(bash) = host_bash() else {
            eprintln!("WARNING: SKIPPED: no bash under /usr or /bin");
            return;
        };
        let real = prepare(dir.path(), &bash).unwrap();
        let tree = dir.path().join("tree");
        for name in ["rm", "git", "curl", "["] {
            let target = fs::read_link(tree.join("usr/bin").join(name)).unwrap();
            assert_eq!(target, Path::new("/rbv/stub"), "{name}");
        }
        assert!(real.contains("rm") && real.contains("bash"), "{real:?}");
        assert!(!real.contains("git") && !real.contains("curl"));
        for name in &real {
            let target = fs::read_link(tree.join("rbv/real").join(name)).unwrap();
            // Inside the sandbox, under the read-only bind of the host.
            let on_host = Path::new("/").join(target.strip_prefix("/rbv/host").unwrap());
            assert!(on_host.is_file(), "{name} -> {}", target.display());
        }
        let stub = fs::read_to_string(tree.join("rbv/stub")).unwrap();
        assert!(stub.starts_with("#!/rbv/host/"), "{stub}");
        let seeded = fs::metadata(tree.join("home/user/notes.txt"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(seeded, SystemTime::UNIX_EPOCH + SEEDED_AT);
        let tmp = fs::metadata(tree.join("tmp")).unwrap().permissions().mode();
        assert_eq!(tmp & 0o7777, 0o1777);
    }
}
