//! The server's side: `rbv-launch --serve CMD` (or `rbv launch --serve`).

use super::{MAX_MESSAGE, MAX_WAIT_MILLIS};
use crate::transport::launch;
use rustix::event::{poll, PollFd, PollFlags};
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendFlags};
use rustix::process::{kill_process, kill_process_group, waitpid, Pid, Signal, WaitOptions};
use signal_hook::consts::SIGTERM;
use std::collections::{BTreeMap, BTreeSet};
use std::io::IoSliceMut;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

/// Serves rbv on the socket it gave as stdin until rbv closes it, dies,
/// or sends SIGTERM; then kills everything left under the server.
pub fn serve(command: &str) -> ExitCode {
    launch::detach();
    // SIGTERM writes to a pipe that the request loop polls beside the
    // socket: a death of rbv is noticed while waiting for a request.
    let Ok((alarm, alarm_in)) = UnixStream::pair() else {
        return ExitCode::from(125);
    };
    let caught = alarm_in.set_nonblocking(true).is_ok()
        && signal_hook::low_level::pipe::register(SIGTERM, alarm_in).is_ok();
    if !caught || !launch::tie_to_parent() {
        return ExitCode::from(125);
    }
    let Ok(socket) = rustix::io::fcntl_dupfd_cloexec(std::io::stdin(), 3) else {
        return ExitCode::from(125);
    };
    // Nothing of rbv's stdio stays open here: the socket is held once.
    launch::null_stdio();
    let mut server = Server {
        command,
        socket,
        alarm,
        running: BTreeSet::new(),
        reaped: BTreeMap::new(),
    };
    server.serve();
    launch::clean_up();
    ExitCode::SUCCESS
}

struct Server<'a> {
    command: &'a str,
    socket: OwnedFd,
    alarm: UnixStream,
    /// The children started and not yet ended.
    running: BTreeSet<i32>,
    /// Wait statuses of children reaped before they were ended.
    reaped: BTreeMap<i32, i32>,
}

impl Server<'_> {
    fn serve(&mut self) {
        loop {
            let mut fds = [
                PollFd::new(&self.socket, PollFlags::IN),
                PollFd::new(&self.alarm, PollFlags::IN),
            ];
            match poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return,
            }
            if !fds[1].revents().is_empty() {
                return;
            }
            let Some((request, fds)) = self.receive() else {
                return;
            };
            let answer = self.answer(&request, fds);
            let sent = rustix::net::send(&self.socket, answer.as_bytes(), SendFlags::NOSIGNAL);
            if sent.is_err() {
                return;
            }
        }
    }

    /// The next request and the descriptors attached; `None` at the end
    /// of the socket (rbv closed it or died).
    fn receive(&self) -> Option<(String, Vec<OwnedFd>)> {
        let mut bytes = [0u8; MAX_MESSAGE];
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let received = loop {
            match rustix::net::recvmsg(
                &self.socket,
                &mut [IoSliceMut::new(&mut bytes)],
                &mut control,
                RecvFlags::CMSG_CLOEXEC,
            ) {
                Err(rustix::io::Errno::INTR) => continue,
                other => break other.ok()?,
            }
        };
        let mut fds = Vec::new();
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(rights) = message {
                fds.extend(rights);
            }
        }
        if received.bytes == 0 {
            return None;
        }
        let request = String::from_utf8_lossy(&bytes[..received.bytes]).into_owned();
        Some((request, fds))
    }

    fn answer(&mut self, request: &str, fds: Vec<OwnedFd>) -> String {
        let words: Vec<&str> = request.split(' ').collect();
        let child = |word: &str| {
            word.parse::<i32>()
                .ok()
                .filter(|p| self.running.contains(p))
        };
        match words[..] {
            ["spawn"] => match <[OwnedFd; 3]>::try_from(fds) {
                Ok(stdio) => self.spawn(stdio),
                Err(_) => "error spawn needs stdin, stdout and stderr".into(),
            },
            ["wait", pid, millis] => match (child(pid), millis.parse::<u64>()) {
                (Some(pid), Ok(millis)) => {
                    self.wait(pid, Duration::from_millis(millis.min(MAX_WAIT_MILLIS)))
                }
                _ => format!("error no child {pid}"),
            },
            ["end", pid] => match child(pid) {
                Some(pid) => self.end(pid),
                None => format!("error no child {pid}"),
            },
            _ => "error unknown request".into(),
        }
    }

    fn spawn(&mut self, stdio: [OwnedFd; 3]) -> String {
        let [stdin, stdout, stderr] = &stdio;
        let started = launch::start(self.command, |command| {
            command
                .stdin(Stdio::from(stdin.try_clone()?))
                .stdout(Stdio::from(stdout.try_clone()?))
                .stderr(Stdio::from(stderr.try_clone()?))
                .process_group(0);
            Ok(())
        });
        match started {
            Ok(child) => {
                let pid = child.id() as i32;
                self.running.insert(pid);
                format!("pid {pid}")
            }
            Err(e) => format!("error {e}"),
        }
    }

    fn wait(&mut self, pid: i32, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.reaped.get(&pid) {
                return format!("exited {status}");
            }
            match waitpid(Pid::from_raw(pid), WaitOptions::NOHANG) {
                Ok(Some((_, status))) => {
                    self.reaped.insert(pid, status.as_raw());
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Ok(None) => return "running".into(),
                Err(e) => return format!("error {e}"),
            }
        }
    }

    fn end(&mut self, pid: i32) -> String {
        self.running.remove(&pid);
        let mut status = self.reaped.remove(&pid);
        if status.is_none() {
            // Not reaped: the id still names this child and its group.
            if let Some(id) = Pid::from_raw(pid) {
                let _ = kill_process_group(id, Signal::KILL);
                let _ = kill_process(id, Signal::KILL);
                if let Ok(Some((_, s))) = waitpid(Some(id), WaitOptions::empty()) {
                    status = Some(s.as_raw());
                }
            }
        }
        // Whatever left the group, and what the child's group started.
        launch::clean_up();
        self.running.clear();
        self.reaped.clear();
        match status {
            Some(raw) => format!("ended {raw}"),
            None => "ended -".into(),
        }
    }
}
