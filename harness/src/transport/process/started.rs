//! The child behind a `ProcessTransport`: rbv's own (started under a
//! launcher, or `sh -c` in a group of its own), or one a fork server
//! started for it (`--spawn-per-case`).

use crate::transport::fork_server::Served;
use crate::transport::{interrupt, tree};
use rustix::process::{kill_process_group, Pid, Signal};
use std::process::{Child, ExitStatus};
use std::thread;
use std::time::{Duration, Instant};

pub(super) enum Started {
    Own(Child),
    Served(Served),
}

impl Started {
    /// The child's exit status, waiting at most `wait` for its end.
    pub(super) fn exit_status(&mut self, wait: Duration) -> Option<ExitStatus> {
        let child = match self {
            Started::Own(child) => child,
            Started::Served(served) => return served.exit_status(wait),
        };
        let deadline = Instant::now() + wait;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    // Reaped: the group's id may be reused from now on.
                    interrupt::unregister(Pid::from_child(child));
                    return Some(status);
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// Kills the child and everything it started, and reaps it.
    pub(super) fn end(&mut self) {
        let child = match self {
            Started::Own(child) => child,
            Started::Served(served) => return served.end(),
        };
        let pgid = Pid::from_child(child);
        // Whatever left the group (`setsid`, `setpgid`) but still has its
        // parent is found through /proc; orphans are reaped below.
        tree::kill_tree(pgid.as_raw_nonzero().get());
        let _ = kill_process_group(pgid, Signal::KILL);
        interrupt::unregister(pgid);
        let _ = child.kill();
        let _ = child.wait();
        // Without waiting: what is still dying is reaped by a later call.
        interrupt::reap_orphans(Duration::ZERO);
    }
}
