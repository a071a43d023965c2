//! rbv's side of the fork server.

use super::{MAX_MESSAGE, MAX_WAIT_MILLIS};
use crate::transport::{interrupt, launch, tree};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::net::{
    AddressFamily, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketFlags,
    SocketType,
};
use rustix::pipe::{pipe_with, PipeFlags};
use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
use std::io::{self, IoSlice};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long the server may take to answer, beyond a wait asked of it. Its
/// work is a spawn or a kill: only a server stopped or killed by the
/// implementation (which runs under it, as the same user) takes longer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a server told to end may take to clean up before it is killed.
const END_GRACE: Duration = Duration::from_secs(2);

/// A running fork server (see the module above). Dropping it ends the
/// server and everything under it.
pub struct ForkServer {
    process: Child,
    /// `None` once the server was shut down.
    socket: Option<OwnedFd>,
}

/// A child started by a fork server. Dropping it ends the child.
pub struct Served {
    pid: i32,
    server: Arc<Mutex<ForkServer>>,
    status: Option<ExitStatus>,
    ended: bool,
}

/// A served child and rbv's ends of its stdin, stdout and stderr.
pub type Spawned = (Served, ChildStdin, ChildStdout, ChildStderr);

fn lock(server: &Mutex<ForkServer>) -> MutexGuard<'_, ForkServer> {
    server.lock().unwrap_or_else(|e| e.into_inner())
}

impl ForkServer {
    /// Starts `launcher` as the fork server of `command`.
    pub fn start(launcher: &Path, command: &str) -> io::Result<Arc<Mutex<Self>>> {
        let (ours, theirs) = rustix::net::socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )?;
        let mut server = Command::new(launcher);
        server
            .args(launch::serve_arguments(launcher, command))
            .env(launch::PARENT_ENV, std::process::id().to_string())
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // The server makes itself a session (and group) leader.
        let process = interrupt::spawn(&mut server)?;
        Ok(Arc::new(Mutex::new(ForkServer {
            process,
            socket: Some(ours),
        })))
    }

    /// False once the server failed to answer (and was killed) or ended.
    pub fn is_running(&self) -> bool {
        self.socket.is_some()
    }

    /// The server's pid (for tests).
    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    /// Starts the command once more.
    pub fn spawn(server: &Arc<Mutex<Self>>) -> io::Result<Spawned> {
        // (read end, write end): the child reads its stdin, rbv the rest.
        let (stdin_far, stdin) = pipe_with(PipeFlags::CLOEXEC)?;
        let (stdout, stdout_far) = pipe_with(PipeFlags::CLOEXEC)?;
        let (stderr, stderr_far) = pipe_with(PipeFlags::CLOEXEC)?;
        let far = [stdin_far.as_fd(), stdout_far.as_fd(), stderr_far.as_fd()];
        let answer = lock(server).ask("spawn", &far, Duration::ZERO)?;
        // The far ends are the child's alone from here: rbv's copies would
        // keep its stdout open after it closed it.
        drop((stdin_far, stdout_far, stderr_far));
        let pid = match answer.split_once(' ') {
            Some(("pid", pid)) => pid.parse::<i32>().map_err(|_| garbled(&answer))?,
            Some(("error", why)) => return Err(io::Error::other(why.to_owned())),
            _ => return Err(garbled(&answer)),
        };
        let served = Served {
            pid,
            server: Arc::clone(server),
            status: None,
            ended: false,
        };
        Ok((served, stdin.into(), stdout.into(), stderr.into()))
    }

    /// Sends `request` with `fds` and returns the answer; waits for it at
    /// most `wait` and [`ANSWER_TIMEOUT`]. A server that fails to answer
    /// is shut down: it will not be asked again.
    fn ask(&mut self, request: &str, fds: &[BorrowedFd<'_>], wait: Duration) -> io::Result<String> {
        let Some(socket) = self.socket.as_ref() else {
            return Err(io::Error::other("the fork server is gone"));
        };
        let answer = exchange(socket, request, fds, wait + ANSWER_TIMEOUT);
        if answer.is_err() {
            self.shut_down(Duration::ZERO);
        }
        answer
    }

    /// Closes the socket (the server then kills everything under it and
    /// exits), waits at most `grace` for the server to end, then kills
    /// what is left and reaps the server.
    fn shut_down(&mut self, grace: Duration) {
        if self.socket.take().is_none() {
            return;
        }
        let pid = Pid::from_child(&self.process);
        // Whether the server ended, without reaping it: until it is
        // reaped its id (and its group's) cannot name another process.
        let ended = || {
            let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
            matches!(waitid(WaitId::Pid(pid), options), Ok(Some(_)))
        };
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && !ended() {
            std::thread::sleep(Duration::from_millis(1));
        }
        // A server stopped or killed by what it runs: its tree, and what
        // its death left to rbv (a subreaper), are killed here.
        tree::kill_tree(pid.as_raw_nonzero().get());
        interrupt::unregister(pid);
        let _ = self.process.kill();
        let _ = self.process.wait();
        interrupt::reap_orphans(Duration::from_millis(100));
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        self.shut_down(END_GRACE);
    }
}

impl Served {
    /// The child's pid.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The child's exit status, waiting at most `within` for its end.
    pub fn exit_status(&mut self, within: Duration) -> Option<ExitStatus> {
        if self.status.is_none() && !self.ended {
            let millis = within.as_millis().min(u128::from(MAX_WAIT_MILLIS));
            let request = format!("wait {} {millis}", self.pid);
            let answer = lock(&self.server).ask(&request, &[], within).ok()?;
            self.status = exit_status(answer.strip_prefix("exited ")?);
        }
        self.status
    }

    /// Kills the child and everything it left; reaps it.
    pub fn end(&mut self) {
        if !std::mem::replace(&mut self.ended, true) {
            let answer = lock(&self.server).ask(&format!("end {}", self.pid), &[], Duration::ZERO);
            if let Some(raw) = answer
                .ok()
                .as_deref()
                .and_then(|a| a.strip_prefix("ended "))
            {
                self.status = self.status.or(exit_status(raw));
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.end();
    }
}

fn exit_status(raw: &str) -> Option<ExitStatus> {
    raw.parse::<i32>().ok().map(ExitStatus::from_raw)
}

fn garbled(answer: &str) -> io::Error {
    io::Error::other(format!("the fork server answered {answer:?}"))
}

fn exchange(
    socket: &OwnedFd,
    request: &str,
    fds: &[BorrowedFd<'_>],
    wait: Duration,
) -> io::Result<String> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(io::Error::other("too many descriptors for one message"));
    }
    rustix::net::sendmsg(
        socket,
        &[IoSlice::new(request.as_bytes())],
        &mut control,
        SendFlags::NOSIGNAL,
    )?;
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the fork server did not answer",
            ));
        }
        let timeout = Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let mut ready = [PollFd::new(socket, PollFlags::IN)];
        match poll(&mut ready, Some(&timeout)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => break,
            Err(e) => return Err(e.into()),
        }
    }
    let mut bytes = [0u8; MAX_MESSAGE];
    let (received, _) = rustix::net::recv(socket, &mut bytes[..], RecvFlags::DONTWAIT)?;
    if received == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the fork server ended",
        ));
    }
    Ok(String::from_utf8_lossy(&bytes[..received.min(MAX_MESSAGE)]).into_owned())
}
