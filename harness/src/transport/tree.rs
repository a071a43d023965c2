//! Finding and killing every process an implementation started.
//!
//! A process group is not enough: a child may call `setsid` or `setpgid`
//! and leave it. The kernel lists each task's children in
//! `/proc/PID/task/TID/children`; walking those finds every descendant
//! that still has its parent. Descendants whose parent died are
//! re-parented to the nearest *child subreaper*: rbv and its launcher
//! (`launch`) are subreapers, so they become the parents of such orphans
//! and kill and reap them (`reap_orphans`).

use rustix::process::{kill_process, waitpid, Pid, Signal, WaitOptions};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The children of process `pid` (every thread's), per /proc; empty when
/// /proc cannot say.
pub fn children_of(pid: i32) -> Vec<i32> {
    let tasks = format!("/proc/{pid}/task");
    let Ok(entries) = std::fs::read_dir(&tasks) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path().join("children");
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    out
}

/// Every descendant of `pid` that /proc can reach (parents before children).
pub fn descendants_of(pid: i32) -> Vec<i32> {
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    let mut pending = children_of(pid);
    while let Some(p) = pending.pop() {
        if seen.insert(p) {
            order.push(p);
            pending.extend(children_of(p));
        }
    }
    order
}

/// SIGKILLs `pid`'s descendants and then `pid` itself; twice, so that a
/// child forked between the listing and the kill dies too.
pub fn kill_tree(pid: i32) {
    kill_tree_below(pid);
    kill(pid);
}

/// SIGKILLs `pid`'s descendants (not `pid`).
pub fn kill_tree_below(pid: i32) {
    for _ in 0..2 {
        for p in descendants_of(pid) {
            kill(p);
        }
    }
}

/// Waits at most `within` until every one of `pids` has died (a zombie,
/// or gone): by then the kernel has handed its children to the nearest
/// subreaper. Polls /proc.
pub fn wait_until_dead(pids: &[i32], within: Duration) {
    let deadline = Instant::now() + within;
    while pids.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Running or stopped (not a zombie), per /proc.
fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesized name, which may hold anything.
    stat.rsplit_once(')')
        .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']))
}

fn kill(raw: i32) {
    if let Some(pid) = Pid::from_raw(raw) {
        let _ = kill_process(pid, Signal::KILL);
    }
}

/// Kills and reaps this process's children that are not in `keep` (the
/// implementations still in use): orphans re-parented to a subreaper.
/// Waits at most `wait` for them to die; returns how many were killed.
pub fn reap_orphans(keep: &BTreeSet<i32>, wait: Duration) -> usize {
    let me = std::process::id() as i32;
    let orphans: Vec<i32> = children_of(me)
        .into_iter()
        .filter(|p| !keep.contains(p))
        .collect();
    for &p in &orphans {
        kill_tree(p);
    }
    let deadline = Instant::now() + wait;
    for &p in &orphans {
        let Some(pid) = Pid::from_raw(p) else {
            continue;
        };
        loop {
            match waitpid(Some(pid), WaitOptions::NOHANG) {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Ok(None) => break,
            }
        }
    }
    orphans.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_child_is_dead_once_waited_for_and_a_live_one_is_waited_for_no_longer_than_asked() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep");
        let pid = child.id() as i32;
        assert!(alive(pid));
        let started = Instant::now();
        wait_until_dead(&[pid], Duration::from_millis(50));
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert!(alive(pid), "still running: the wait gave up");
        kill(pid);
        wait_until_dead(&[pid], Duration::from_secs(5));
        assert!(!alive(pid), "a zombie is dead");
        assert!(!child.wait().expect("reaped").success());
        assert!(!alive(pid), "gone");
    }

    #[test]
    fn a_child_is_listed_and_its_tree_killed() {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg("sleep 30 & sleep 30")
            .spawn()
            .expect("sh");
        let pid = child.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(5);
        while descendants_of(pid).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(children_of(std::process::id() as i32).contains(&pid));
        let grandchildren = descendants_of(pid);
        assert!(!grandchildren.is_empty());
        kill_tree(pid);
        assert!(!child.wait().expect("reaped").success());
    }
}
