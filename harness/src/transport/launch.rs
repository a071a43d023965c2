//! `rbv launch CMD`: the first process of every implementation rbv starts.
//!
//! It puts the implementation in a session of its own (no controlling
//! terminal: it cannot write to rbv's `/dev/tty`, nor get its terminal's
//! signals), becomes a child subreaper (every orphan of the implementation
//! becomes its child), and asks the kernel for SIGTERM when rbv dies, by
//! whatever means, SIGKILL included. Then it runs `sh -c CMD` on the
//! stdin, stdout and stderr it was given, and waits. When the
//! implementation's shell ends, or rbv dies, it kills every process left
//! under it and exits with the shell's status (128 + the signal's number
//! after a signal).
//!
//! rbv starts one launcher per persistent child. With `--spawn-per-case`
//! each worker starts one launcher as a fork server (`--serve`, see
//! `fork_server`) that starts every case's child, so that no case pays a
//! launcher's exec. The launcher is a binary of its own, `rbv-launch`, a
//! fraction of `rbv`'s size, and a command that `sh` would only `exec` (a
//! program named by a path, plain or single-quoted words) is started
//! without the shell. See BENCHMARKS.md.

use super::tree;
use rustix::process::{getpid, getppid, wait, Pid, WaitOptions};
use signal_hook::consts::{SIGCHLD, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode};
use std::time::{Duration, Instant};

/// The environment variable that tells the launcher rbv's pid: if its
/// parent is already another process, rbv died before it could ask to be
/// told, and it must not start anything.
pub const PARENT_ENV: &str = "RBV_LAUNCH_PARENT";

/// The launcher's hidden subcommand.
pub const SUBCOMMAND: &str = "launch";

/// The launcher's own binary, installed beside `rbv`.
pub const BINARY: &str = "rbv-launch";

/// The program rbv starts implementations under: `rbv-launch` beside the
/// running binary, or else the running binary itself (`rbv launch`).
pub fn launcher() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let small = exe.with_file_name(BINARY);
    Some(if small.is_file() { small } else { exe })
}

/// The arguments that run `command` under `launcher` (see [`launcher`]).
pub fn arguments<'a>(launcher: &Path, command: &'a str) -> Vec<&'a str> {
    if launcher.file_name().is_some_and(|n| n == BINARY) {
        vec![command]
    } else {
        vec![SUBCOMMAND, command]
    }
}

/// The arguments that run the fork server for `command` under `launcher`
/// (see [`super::fork_server`]).
pub fn serve_arguments<'a>(launcher: &Path, command: &'a str) -> Vec<&'a str> {
    let mut arguments = arguments(launcher, command);
    arguments.insert(arguments.len() - 1, SERVE);
    arguments
}

/// The flag that makes the launcher a fork server.
pub const SERVE: &str = "--serve";

/// Makes this process a session leader (no controlling terminal) and a
/// child subreaper. Both fail only when already true (a session leader)
/// or unsupported: the implementation still runs, with rbv's group kill
/// as the fallback.
pub(super) fn detach() {
    let _ = rustix::process::setsid();
    let _ = rustix::process::set_child_subreaper(Some(getpid()));
}

/// Asks for SIGTERM when rbv dies; false when rbv died already (the
/// parent is not the one rbv named), and nothing may be started. To be
/// called once SIGTERM is caught: a death in between must not be lost.
pub(super) fn tie_to_parent() -> bool {
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM));
    let expected = std::env::var(PARENT_ENV)
        .ok()
        .and_then(|p| p.parse::<i32>().ok());
    expected.is_none() || getppid().map(Pid::as_raw_nonzero).map(|p| p.get()) == expected
}

pub fn run(command: &str) -> ExitCode {
    detach();
    let mut signals = match Signals::new([SIGTERM, SIGCHLD]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rbv launch: cannot catch signals: {e}");
            return ExitCode::from(125);
        }
    };
    if !tie_to_parent() {
        return ExitCode::from(125);
    }
    let child = match start(command, |_| Ok(())) {
        Ok(child) => child,
        Err(e) => {
            eprintln!("rbv launch: cannot start `sh -c {command}`: {e}");
            return ExitCode::from(125);
        }
    };
    let shell = child.id() as i32;
    // The launcher's own copies of the pipes would keep them open after
    // the implementation closed its ends: rbv would never see its EOF.
    null_stdio();
    let mut status = None;
    'wait: for signal in signals.forever() {
        if signal == SIGTERM {
            break;
        }
        while let Ok(Some((pid, s))) = wait(WaitOptions::NOHANG) {
            if pid.as_raw_nonzero().get() == shell {
                status = Some(s);
                break 'wait;
            }
        }
    }
    clean_up();
    let code = match status {
        Some(s) => s
            .exit_status()
            .or_else(|| s.terminating_signal().map(|sig| 128 + sig))
            .unwrap_or(1),
        None => 128 + SIGTERM,
    };
    ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}

/// Points stdin, stdout and stderr at /dev/null.
pub(super) fn null_stdio() {
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = rustix::stdio::dup2_stdin(&null);
        let _ = rustix::stdio::dup2_stdout(&null);
        let _ = rustix::stdio::dup2_stderr(&null);
    }
}

/// Kills everything under the launcher and reaps what becomes its child.
/// When nothing is left (the usual end: the implementation was one
/// process, or one process group, killed and reaped already) this costs
/// one `waitpid` and no walk of /proc.
pub(super) fn clean_up() {
    let me = getpid().as_raw_nonzero().get();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match wait(WaitOptions::NOHANG) {
            Ok(Some(_)) => continue,
            // No children left at all: no descendant either, since a
            // descendant whose parent died is re-parented to this
            // subreaper.
            Err(_) => return,
            Ok(None) => {}
        }
        if Instant::now() >= deadline {
            return;
        }
        tree::kill_tree_below(me);
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Starts `command` as `sh -c` would: the program itself when the shell
/// would only exec it, else the shell. A program that cannot be started
/// directly (missing, not executable, a script without `#!`) goes to the
/// shell too, which then says why or runs it as `sh` does. `prepare` sets
/// up each attempt (its stdio, its group).
pub(super) fn start(
    command: &str,
    mut prepare: impl FnMut(&mut Command) -> std::io::Result<()>,
) -> std::io::Result<Child> {
    if let Some(words) = exec_only(command) {
        let mut direct = Command::new(&words[0]);
        direct.args(&words[1..]).env_remove(PARENT_ENV);
        prepare(&mut direct)?;
        if let Ok(child) = direct.spawn() {
            return Ok(child);
        }
    }
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(command).env_remove(PARENT_ENV);
    prepare(&mut shell)?;
    shell.spawn()
}

/// The words of `command` when `sh -c command` would do nothing but exec
/// them: words of plain characters and single-quoted strings only (no
/// expansion, redirection, operator, comment or tilde), an optional
/// leading `exec`, and a program named by a path (with a `/`, which the
/// shell runs as it is: no builtin, function or `PATH` lookup) that
/// cannot read as an assignment (no `=`). Anything else: `None`.
fn exec_only(command: &str) -> Option<Vec<String>> {
    const BLANK: [char; 2] = [' ', '\t'];
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:+@%=".contains(c);
    let mut words = Vec::new();
    let mut rest = command.trim_start_matches(BLANK);
    while !rest.is_empty() {
        let mut word = String::new();
        loop {
            match rest.chars().next() {
                None | Some(' ' | '\t') => break,
                Some('\'') => {
                    let end = rest[1..].find('\'')? + 1;
                    word.push_str(&rest[1..end]);
                    rest = &rest[end + 1..];
                }
                Some(c) if plain(c) => {
                    word.push(c);
                    rest = &rest[1..];
                }
                Some(_) => return None,
            }
        }
        words.push(word);
        rest = rest.trim_start_matches(BLANK);
    }
    if words.first().is_some_and(|w| w == "exec") {
        words.remove(0);
    }
    let program = words.first()?;
    (program.contains('/') && !program.contains('=')).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::{arguments, exec_only, serve_arguments};
    use std::path::Path;

    #[test]
    fn rbv_launch_takes_the_command_alone_and_rbv_the_subcommand_first() {
        assert_eq!(arguments(Path::new("/bin/rbv-launch"), "x y"), ["x y"]);
        assert_eq!(arguments(Path::new("/bin/rbv"), "x y"), ["launch", "x y"]);
        assert_eq!(
            serve_arguments(Path::new("/bin/rbv-launch"), "x y"),
            ["--serve", "x y"]
        );
        assert_eq!(
            serve_arguments(Path::new("/bin/rbv"), "x y"),
            ["launch", "--serve", "x y"]
        );
    }

    #[test]
    fn what_sh_would_only_exec_is_split_into_its_words() {
        let split = |w: &[&str]| Some(w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            exec_only("exec '/a b/rbv' serve --profile x=y"),
            split(&["/a b/rbv", "serve", "--profile", "x=y"])
        );
        assert_eq!(
            exec_only("  ./impl\t'' a'b'c  "),
            split(&["./impl", "", "abc"])
        );
        assert_eq!(exec_only("/bin/echo 'it''s'"), split(&["/bin/echo", "its"]));
    }

    #[test]
    fn anything_the_shell_would_interpret_goes_to_the_shell() {
        for command in [
            "python3 impl.py", // PATH lookup, or a builtin
            "exit 0",
            "exec",
            "",
            "A=/x ./impl", // an assignment
            "exec A=/x",
            "./impl $HOME",
            "./impl \"a b\"",
            "./impl 'unclosed", // a syntax error: sh says so
            "./impl > out",
            "./impl; ./other",
            "./impl | ./other",
            "./impl &",
            "./impl # comment",
            "~/impl",
            "./impl *",
            "./impl\n./other",
            "exec -a name /bin/sh",
            "./impl a\\ b",
            "./imp\u{e9}",
        ] {
            assert_eq!(exec_only(command), None, "{command:?}");
        }
    }
}
