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

use super::tree;
use rustix::process::{getpid, getppid, waitpid, Pid, WaitOptions};
use signal_hook::consts::{SIGCHLD, SIGTERM};
use signal_hook::iterator::Signals;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// The environment variable that tells the launcher rbv's pid: if its
/// parent is already another process, rbv died before it could ask to be
/// told, and it must not start anything.
pub const PARENT_ENV: &str = "RBV_LAUNCH_PARENT";

/// The launcher's hidden subcommand.
pub const SUBCOMMAND: &str = "launch";

pub fn run(command: &str) -> ExitCode {
    // Both fail only when already true (a session leader) or unsupported:
    // the implementation still runs, with rbv's group kill as the fallback.
    let _ = rustix::process::setsid();
    let _ = rustix::process::set_child_subreaper(Some(getpid()));
    let mut signals = match Signals::new([SIGTERM, SIGCHLD]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rbv launch: cannot catch signals: {e}");
            return ExitCode::from(125);
        }
    };
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM));
    let expected = std::env::var(PARENT_ENV)
        .ok()
        .and_then(|p| p.parse::<i32>().ok());
    if expected.is_some() && getppid().map(Pid::as_raw_nonzero).map(|p| p.get()) != expected {
        return ExitCode::from(125);
    }
    let child = match Command::new("sh")
        .arg("-c")
        .arg(command)
        .env_remove(PARENT_ENV)
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("rbv launch: cannot start `sh -c {command}`: {e}");
            return ExitCode::from(125);
        }
    };
    let shell = child.id() as i32;
    // The launcher's own copies of the pipes would keep them open after
    // the implementation closed its ends: rbv would never see its EOF.
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = rustix::stdio::dup2_stdin(&null);
        let _ = rustix::stdio::dup2_stdout(&null);
        let _ = rustix::stdio::dup2_stderr(&null);
    }
    let mut status = None;
    'wait: for signal in signals.forever() {
        if signal == SIGTERM {
            break;
        }
        while let Ok(Some((pid, s))) = waitpid(None, WaitOptions::NOHANG) {
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

/// Kills everything under the launcher and reaps what becomes its child.
fn clean_up() {
    let me = getpid().as_raw_nonzero().get();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        tree::kill_tree_below(me);
        match waitpid(None, WaitOptions::NOHANG) {
            Ok(Some(_)) => continue,
            // No children left at all.
            Err(_) => return,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => return,
        }
    }
}
