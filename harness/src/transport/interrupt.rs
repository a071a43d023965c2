//! Stops the implementations when rbv is interrupted.
//!
//! Every child runs in a process group of its own (see `process`), out of
//! reach of the terminal's SIGINT, so rbv dying on Ctrl-C, a CI timeout's
//! SIGTERM or a hangup would leave a hung child running forever. `install`
//! catches those signals, kills every live group and exits with the
//! shell's status for a death by that signal (128 + its number).

use rustix::process::{kill_process_group, test_kill_process_group, Pid, Signal};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once, RwLock};
use std::thread;

const HANDLED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The process groups of the children not yet reaped (raw ids: `Pid` has
/// no order).
static LIVE: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Shared while a child is started and registered, exclusive from a signal
/// until the exit: a child started in between would escape the kill.
static STARTING: RwLock<()> = RwLock::new(());

/// Held while a report is written (see [`defer_exit`]).
static WRITING: Mutex<()> = Mutex::new(());

/// Until the guard is dropped, an interrupt kills the implementations but
/// waits to exit: a report directory holds one run's report whole, never
/// the previous run's files beside some of the new one's, nor a staging
/// directory left behind.
pub fn defer_exit() -> MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|e| e.into_inner())
}

fn live() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts `command`, which must make its child a process group leader,
/// and registers that group.
pub fn spawn(command: &mut Command) -> io::Result<Child> {
    let _starting = STARTING.read().unwrap_or_else(|e| e.into_inner());
    let child = command.spawn()?;
    register(Pid::from_child(&child));
    Ok(child)
}

pub fn register(pgid: Pid) {
    live().insert(pgid.as_raw_nonzero().get());
}

/// To be called before the group's leader is reaped: after that its id
/// may be reused by an unrelated process.
pub fn unregister(pgid: Pid) {
    live().remove(&pgid.as_raw_nonzero().get());
}

/// Handles SIGINT, SIGTERM and SIGHUP from now on (once per process). A
/// signal that rbv was started ignoring stays ignored: `nohup rbv …` must
/// survive the hangup.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let ignored = ignored_signals();
        let wanted = HANDLED.iter().filter(|s| !ignored.contains(s));
        let mut signals = match Signals::new(wanted) {
            Ok(signals) => signals,
            Err(e) => {
                eprintln!("rbv: warning: cannot catch interrupts: {e}");
                return;
            }
        };
        thread::Builder::new()
            .name("rbv-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    stop(signal);
                }
            })
            .expect("spawn signal handler");
    });
}

/// Whether rbv is a child subreaper (see [`become_subreaper`]).
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Makes this process the parent of every orphan its implementations
/// leave (a child that called `setsid` and outlived its parent), so that
/// [`reap_orphans`] can kill them. Only for a process whose children are
/// all implementations (the `rbv` binary): the library in another program
/// must not kill that program's children.
pub fn become_subreaper() {
    let me = rustix::process::getpid();
    if rustix::process::set_child_subreaper(Some(me)).is_ok() {
        SUBREAPER.store(true, Ordering::SeqCst);
    }
}

/// Kills and reaps this process's children that are not live
/// implementations: orphans of implementations, re-parented to rbv.
/// Does nothing unless [`become_subreaper`] succeeded. Waits at most
/// `wait` for the killed to be reaped; the rest is reaped by a later call.
pub fn reap_orphans(wait: std::time::Duration) -> usize {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return 0;
    }
    // No child is started (and not yet registered) meanwhile.
    let _starting = STARTING.write().unwrap_or_else(|e| e.into_inner());
    let keep = live().clone();
    super::tree::reap_orphans(&keep, wait)
}

/// Kills every live group, says so, and exits as the signal would have.
fn stop(signal: i32) -> ! {
    // Held until the exit: no child starts after the kill.
    let _starting = STARTING.write().unwrap_or_else(|e| e.into_inner());
    let groups = std::mem::take(&mut *live());
    // A group counts as it was when the signal came: killing a leader's
    // descendants can end the leader (a shell waiting on its command), and
    // a worker may reap it before its group is killed.
    let stopped = groups
        .iter()
        .filter(|&&g| {
            let existed = group_exists(g);
            super::tree::kill_tree_below(g);
            kill_group(g) || existed
        })
        .count();
    // A child a leader started in a group of its own as it was killed (a
    // fork server's spawn in flight) escaped both the walk and the group
    // kill; it reaches rbv, a subreaper, once the leader has died.
    let leaders: Vec<i32> = groups.into_iter().collect();
    super::tree::wait_until_dead(&leaders, std::time::Duration::from_millis(500));
    // Whatever else runs under rbv: orphans, and escapees of any group.
    super::tree::kill_tree_below(std::process::id() as i32);
    let name = signal_hook::low_level::signal_name(signal).unwrap_or("a signal");
    let noun = if stopped == 1 { "process" } else { "processes" };
    eprintln!("rbv: interrupted ({name}); stopped {stopped} implementation {noun}");
    let _writing = defer_exit();
    std::process::exit(128 + signal)
}

fn group_exists(raw: i32) -> bool {
    Pid::from_raw(raw).is_some_and(|pgid| test_kill_process_group(pgid).is_ok())
}

/// True when the group existed and was sent SIGKILL.
fn kill_group(raw: i32) -> bool {
    Pid::from_raw(raw).is_some_and(|pgid| kill_process_group(pgid, Signal::KILL).is_ok())
}

/// The signals this process ignores, per /proc (Linux); none where that
/// cannot be read.
fn ignored_signals() -> Vec<i32> {
    std::fs::read_to_string("/proc/self/status")
        .map(|status| ignored_in(&status))
        .unwrap_or_default()
}

/// The signals of the `SigIgn:` mask of a /proc status (bit n-1 is signal n).
fn ignored_in(status: &str) -> Vec<i32> {
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    (1..=64).filter(|s| mask & (1u64 << (s - 1)) != 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(raw: i32) -> Pid {
        Pid::from_raw(raw).expect("non-zero")
    }

    #[test]
    fn registered_groups_are_live_until_unregistered() {
        // Ids no real child of this test process has (above pid_max).
        let (a, b) = (pid(i32::MAX - 1), pid(i32::MAX - 2));
        register(a);
        register(b);
        assert!(live().contains(&(i32::MAX - 1)) && live().contains(&(i32::MAX - 2)));
        unregister(a);
        assert!(!live().contains(&(i32::MAX - 1)));
        assert!(live().contains(&(i32::MAX - 2)));
        unregister(b);
        unregister(b); // twice is harmless (a reaped child's Drop)
        assert!(!live().contains(&(i32::MAX - 2)));
    }

    #[test]
    fn the_ignored_mask_reads_bit_n_minus_1_as_signal_n() {
        let status = "Name:\trbv\nSigBlk:\t0000000000000002\nSigIgn:\t0000000000000005\n";
        assert_eq!(ignored_in(status), [SIGHUP, 3]);
        assert_eq!(ignored_in("Name:\trbv\n"), Vec::<i32>::new());
    }
}
