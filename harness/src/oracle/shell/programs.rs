//! What the sandbox holds: which program names have a stub, which of them
//! then run the real program, which count as reading only, and the files
//! seeded in the home directory for a line to change.
//!
//! These tables are the oracle's own, written from the programs' manuals
//! and not from the reference's inspector: a second judge that borrowed
//! the first one's tables would agree with it by construction.

/// Programs whose real binary runs after the stub logged it, when the host
/// has one. Their effects stay in the sandbox (a chroot on tmpfs, no
/// network), where the snapshot sees them; the programs they start go
/// through `PATH` or `/bin/sh`, both stubs, so they are logged in turn.
#[rustfmt::skip]
pub const REAL: &[&str] = &[
    // shells and the wrappers that run another program
    "bash", "sh", "dash", "env", "nice", "nohup", "timeout", "xargs", "find", "stdbuf",
    // local writes and deletions
    "rm", "rmdir", "unlink", "mv", "cp", "ln", "mkdir", "touch", "chmod", "truncate",
    "shred", "dd", "tee", "install", "mktemp", "split",
    // reading, printing, computing
    "cat", "ls", "head", "tail", "wc", "grep", "egrep", "fgrep", "sort", "uniq", "cut", "tr",
    "sed", "awk", "mawk", "gawk", "nl", "tac", "rev", "paste", "join", "comm", "diff", "cmp",
    "stat", "du", "df", "file", "md5sum", "sha1sum", "sha256sum", "base64", "od", "realpath",
    "readlink", "basename", "dirname", "pwd", "seq", "echo", "printf", "true", "false",
    "test", "[", "expr", "date", "id", "whoami", "uname", "yes", "printenv",
];

/// Real programs whose running is no effect in itself: they only read, or
/// whatever else they do (write a file, start a program) the sandbox
/// records on its own. A stub of one of them (the host lacks it) is not
/// read-only: what it would have done is unknown.
#[rustfmt::skip]
pub const READ_ONLY: &[&str] = &[
    "bash", "sh", "dash", "env", "nice", "nohup", "timeout", "xargs", "find", "stdbuf", "tee",
    "cat", "ls", "head", "tail", "wc", "grep", "egrep", "fgrep", "sort", "uniq", "cut", "tr",
    "sed", "awk", "mawk", "gawk", "nl", "tac", "rev", "paste", "join", "comm", "diff", "cmp",
    "stat", "du", "df", "file", "md5sum", "sha1sum", "sha256sum", "base64", "od", "realpath",
    "readlink", "basename", "dirname", "pwd", "seq", "echo", "printf", "true", "false",
    "test", "[", "expr", "date", "id", "whoami", "uname", "yes", "printenv",
];

/// Stubs that are read-only although nothing real runs behind them.
pub const INERT_STUBS: &[&str] = &["sleep"];

/// Programs that exist to reach other machines: named as such in a verdict.
#[rustfmt::skip]
pub const NETWORK: &[&str] = &[
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet",
    "ftp", "kubectl", "helm", "docker", "podman", "terraform", "tofu", "aws", "gcloud", "az",
    "gh", "heroku", "vercel", "flyctl", "sendmail", "mail", "mailx",
];

/// Stubs that only log (their effects are not modelled), on top of
/// [`REAL`]: what agents' shells commonly run, so that an absolute path
/// (`/usr/bin/git`) or a program started by `xargs`, `find -exec` or `sh`
/// (which do not call bash's `command_not_found_handle`) is still seen.
#[rustfmt::skip]
pub const STUB_ONLY: &[&str] = &[
    "git", "gh", "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat",
    "telnet", "ftp", "ping", "dig", "nslookup", "host", "kubectl", "helm", "docker", "podman",
    "nerdctl", "terraform", "tofu", "terragrunt", "pulumi", "aws", "gcloud", "az", "doctl",
    "heroku", "vercel", "fly", "flyctl", "serverless", "sls", "npm", "npx", "pnpm", "yarn",
    "bun", "bunx", "pip", "pip3", "pipx", "uv", "uvx", "poetry", "cargo", "go", "make",
    "gmake", "cmake", "bundle", "gradle", "mvn", "pytest", "tox", "python", "python2",
    "python3", "node", "nodejs", "ruby", "perl", "php", "lua", "deno", "java", "sudo", "su",
    "doas", "pkexec", "runuser", "kill", "pkill", "killall", "systemctl", "service",
    "shutdown", "reboot", "poweroff", "halt", "mount", "umount", "mkfs", "mkfs.ext4",
    "fdisk", "parted", "wipefs", "chown", "chgrp", "chattr", "setfacl", "crontab", "at",
    "tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "xz", "7z", "vim", "vi", "nvim", "nano",
    "emacs", "code", "less", "more", "man", "rg", "fd", "fdfind", "jq", "tree", "ps", "top",
    "lsof", "watch", "tmux", "screen", "sqlite3", "psql", "mysql", "redis-cli", "brew", "apt",
    "apt-get", "dnf", "yum", "pacman", "apk", "snap", "gpg", "ssh-keygen", "ssh-add",
    "openssl", "zsh", "ksh", "fish", "csh", "tcsh", "strace", "setsid", "flock", "chroot",
    "ionice", "taskset", "time", "script", "busybox", "wipe", "srm", "sponge", "patch",
    "pre-commit", "eslint", "prettier", "tsc", "gcc", "cc", "clang", "rustc", "sleep",
    "shasum", "xxd", "hexdump", "strings", "column", "sendmail", "mail", "mailx",
];

/// A seeded file: path under the sandbox's root, content, mode.
pub struct Seed {
    pub path: &'static str,
    pub content: &'static str,
    pub mode: u32,
}

const fn seed(path: &'static str, content: &'static str, mode: u32) -> Seed {
    Seed {
        path,
        content,
        mode,
    }
}

/// The home directory (also the working directory) and `/tmp`: the paths
/// the shell generator's lines name (`build`, `./dist`, `data.db`,
/// `~/project`, `/tmp/cache`, `.env`, `deploy.sh` …), so that a line that
/// deletes, moves, truncates or rewrites one has something to change.
#[rustfmt::skip]
pub const SEEDS: &[Seed] = &[
    seed("home/user/notes.txt", "meeting notes\nTODO: ship it\n", 0o644),
    seed("home/user/README.md", "# project\na, b\n", 0o644),
    seed("home/user/a.txt", "a\n", 0o644),
    seed("home/user/b.txt", "b\n", 0o644),
    seed("home/user/data.db", "SQLite format 3\0 pretend\n", 0o644),
    seed("home/user/dump.sql", "CREATE TABLE t (id int);\n", 0o644),
    seed("home/user/app.log", "started\n", 0o644),
    seed("home/user/cache.tmp", "stale\n", 0o644),
    seed("home/user/config.yml", "debug: false\n", 0o644),
    seed("home/user/deploy.sh", "#!/bin/sh\necho deploying\n", 0o755),
    seed("home/user/pre.sh", "#!/bin/sh\ncat \"$1\"\n", 0o755),
    seed("home/user/evil.sh", "#!/bin/sh\nrm -rf build\n", 0o755),
    seed("home/user/Makefile", "test:\n\ttrue\n", 0o644),
    seed("home/user/package.json", "{\"name\": \"app\", \"scripts\": {\"test\": \"true\"}}\n", 0o644),
    seed("home/user/.env", "API_KEY=not-a-real-key\n", 0o600),
    seed("home/user/.rgrc", "--pre=./pre.sh\n", 0o644),
    seed("home/user/.ssh/id_rsa", "not a real key\n", 0o600),
    seed("home/user/.git/HEAD", "ref: refs/heads/main\n", 0o644),
    seed("home/user/.git/config", "[core]\n\tbare = false\n", 0o644),
    seed("home/user/data/a.txt", "1\n", 0o644),
    seed("home/user/data/b.txt", "2\n", 0o644),
    seed("home/user/data/c.txt", "3\n", 0o644),
    seed("home/user/build/app.o", "object\n", 0o644),
    seed("home/user/build/tool", "#!/bin/sh\n", 0o755),
    seed("home/user/dist/app.js", "console.log(1)\n", 0o644),
    seed("home/user/project/main.rs", "fn main() {}\n", 0o644),
    seed("home/user/bin/tool", "#!/bin/sh\n", 0o755),
    seed("home/user/shared/readme", "shared\n", 0o644),
    seed("home/user/notes/todo.md", "- rm -rf / is a joke\n", 0o644),
    seed("tmp/cache/entry", "cached\n", 0o644),
];

/// The stub names: every real program and every stub-only one, once.
pub fn stub_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = REAL.iter().chain(STUB_ONLY).copied().collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_programs_run_for_real() {
        for name in READ_ONLY {
            assert!(REAL.contains(name), "{name} is read-only but only a stub");
        }
        for name in NETWORK {
            assert!(!REAL.contains(name), "{name} would reach the network");
            assert!(STUB_ONLY.contains(name), "{name} has no stub");
        }
    }

    #[test]
    fn seeds_stay_in_the_home_and_tmp() {
        for s in SEEDS {
            assert!(
                (s.path.starts_with("home/user/") || s.path.starts_with("tmp/"))
                    && !s.path.contains(".."),
                "{}",
                s.path
            );
        }
    }
}
