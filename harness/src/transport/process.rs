//! A persistent child process speaking the protocol on stdin/stdout.
//!
//! The calling thread writes requests and reads answers itself, on
//! non-blocking pipes with `poll`, so that a round trip costs no thread
//! hand-off, and nothing the child does can block the harness past the
//! timeout: a child that never reads its stdin stalls the write only until
//! the deadline, and answers are read while a large batch is still being
//! written. Lines are capped (see `lines`). A thread drains stderr into a
//! bounded tail, so that a child flooding stderr never blocks on a full
//! pipe. The child runs in its own process group, so that `sh -c` and
//! whatever it starts die together; the group is registered with
//! `interrupt`, which kills it when rbv is interrupted. A child started by
//! a fork server (`--spawn-per-case`) is that server's to end
//! (`started`).

mod off_script;
use off_script::{EARLY, LATE};
mod started;

use super::fork_server::ForkServer;
use super::interrupt;
use super::lines::{truncate, Line, LineReader, LineSplitter, Tail, MAX_LINE, SHOWN_PREFIX};
use crate::transport::{Identity, Observation, RawObservation, Transport, TransportError};
use crate::verdict::ErrorKind;
use crossbeam_channel::{bounded, Receiver};
use rbv_protocol::{HandshakeRequest, Request, RequestBody, Response, ResponseBody};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use serde_json::Value;
use started::Started;
use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Checks one message the implementation sent; `Err` lists the violations.
pub type Validate = Arc<dyn Fn(&Value) -> Result<(), Vec<String>> + Send + Sync>;

/// The session named in the handshake request.
pub const HANDSHAKE_SESSION: &str = "handshake";

/// How long to wait, after a crash, for the rest of the child's stderr.
const STDERR_GRACE: Duration = Duration::from_millis(300);

/// Bytes read from stdout per `read`.
const READ_CHUNK: usize = 64 * 1024;

/// How to start and talk to an implementation.
#[derive(Clone)]
pub struct ProcessConfig {
    /// A shell command line, run with `sh -c`.
    pub command: String,
    /// How long one answer may take.
    pub timeout: Duration,
    /// Sent in the handshake.
    pub harness: String,
    /// Validates every message received (`--validate-protocol`).
    pub validate: Option<Validate>,
    /// The launcher (`launch::launcher`: `rbv-launch`, or `rbv launch`) to
    /// start the implementation under (a session of its own, killed when
    /// rbv dies; see `launch`). `None`
    /// starts `sh -c` directly, in a process group of its own.
    pub launcher: Option<PathBuf>,
    /// When the whole run must end: no answer is awaited past it.
    pub deadline: Option<Instant>,
}

impl ProcessConfig {
    pub fn new(command: impl Into<String>) -> Self {
        ProcessConfig {
            command: command.into(),
            timeout: Duration::from_secs(5),
            harness: format!("rbv {}", env!("CARGO_PKG_VERSION")),
            validate: None,
            launcher: None,
            deadline: None,
        }
    }
}

impl std::fmt::Debug for ProcessConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessConfig")
            .field("command", &self.command)
            .field("timeout", &self.timeout)
            .field("validate", &self.validate.is_some())
            .field("launcher", &self.launcher)
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// One running child. Dropping it kills its process group and reaps it.
pub struct ProcessTransport {
    child: Started,
    /// `None` once the child closed its end.
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    splitter: LineSplitter,
    chunk: Vec<u8>,
    stderr: Arc<Mutex<Tail>>,
    stderr_done: Receiver<()>,
    identity: Identity,
    next_id: u64,
    timeout: Duration,
    deadline: Option<Instant>,
    validate: Option<Validate>,
    /// Set after any error: the stream may be out of step, so the child is
    /// not asked again.
    broken: Option<TransportError>,
    /// A line that answered no request in flight was read (`Transport::stray`).
    stray: bool,
    /// Answers read since the case began (`Transport::begin_case`).
    case_answers: usize,
    /// The child had ended before the case's first request reached it
    /// (`Transport::unreached`).
    unreached: bool,
    /// How it was started, to start a fresh one (`before_handshake`).
    config: ProcessConfig,
}

fn spawn_error(command: &str, e: io::Error) -> TransportError {
    TransportError {
        kind: ErrorKind::Crash,
        message: format!("cannot start `sh -c {command}`: {e}"),
        line: None,
        stderr_tail: String::new(),
    }
}

impl ProcessTransport {
    /// Starts the child and performs the handshake.
    pub fn spawn(config: &ProcessConfig) -> Result<Self, TransportError> {
        let mut transport = Self::start(config)?;
        transport.identity = transport.handshake(&config.harness)?;
        Ok(transport)
    }

    /// Starts the child through a fork server (`--spawn-per-case`) and
    /// performs the handshake.
    pub fn spawn_served(
        config: &ProcessConfig,
        server: &Arc<Mutex<ForkServer>>,
    ) -> Result<Self, TransportError> {
        let (served, stdin, stdout, stderr) =
            ForkServer::spawn(server).map_err(|e| spawn_error(&config.command, e))?;
        let mut transport = Self::attach(config, Started::Served(served), stdin, stdout, stderr)?;
        transport.identity = transport.handshake(&config.harness)?;
        Ok(transport)
    }

    /// Starts the child; no handshake yet.
    fn start(config: &ProcessConfig) -> Result<Self, TransportError> {
        let mut command = match &config.launcher {
            Some(launcher) => {
                // The launcher makes itself a session (and group) leader.
                let mut command = Command::new(launcher);
                command
                    .args(super::launch::arguments(launcher, &config.command))
                    .env(super::launch::PARENT_ENV, std::process::id().to_string());
                command
            }
            None => {
                let mut command = Command::new("sh");
                command.arg("-c").arg(&config.command).process_group(0);
                command
            }
        };
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child =
            interrupt::spawn(&mut command).map_err(|e| spawn_error(&config.command, e))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        Self::attach(config, Started::Own(child), stdin, stdout, stderr)
    }

    /// Wraps a started child and its pipes; no handshake yet.
    fn attach(
        config: &ProcessConfig,
        child: Started,
        stdin: ChildStdin,
        stdout: ChildStdout,
        stderr: ChildStderr,
    ) -> Result<Self, TransportError> {
        let abandon = |mut child: Started, e: io::Error| {
            child.end();
            spawn_error(&config.command, e)
        };
        for nonblocking in [
            rustix::io::ioctl_fionbio(&stdin, true),
            rustix::io::ioctl_fionbio(&stdout, true),
        ] {
            if let Err(e) = nonblocking {
                return Err(abandon(child, e.into()));
            }
        }

        let tail = Arc::new(Mutex::new(Tail::new(20, 4096)));
        let (done_tx, stderr_done) = bounded::<()>(0);
        let sink = Arc::clone(&tail);
        let drain = thread::Builder::new()
            .name("rbv-stderr".into())
            .spawn(move || {
                let _done = done_tx; // dropped at end of file: the tail is final
                let mut reader = LineReader::new(BufReader::new(stderr), 4096);
                loop {
                    let text = match reader.next_line() {
                        Line::Text(t) => t,
                        Line::Oversized { prefix } => format!("{prefix}… (line over 4 KiB)"),
                        Line::Eof | Line::Failed(_) => return,
                    };
                    sink.lock().unwrap_or_else(|e| e.into_inner()).push(&text);
                }
            });
        // An implementation that used up the process limit can make this
        // fail: a verdict like any failure to start, never a panic.
        if let Err(e) = drain {
            return Err(abandon(child, e));
        }

        Ok(ProcessTransport {
            child,
            stdin: Some(stdin),
            stdout,
            splitter: LineSplitter::new(MAX_LINE),
            chunk: vec![0; READ_CHUNK],
            stderr: tail,
            stderr_done,
            identity: placeholder_identity(),
            next_id: 0,
            timeout: config.timeout,
            deadline: config.deadline,
            validate: config.validate.clone(),
            broken: None,
            stray: false,
            case_answers: 0,
            unreached: false,
            config: config.clone(),
        })
    }

    fn handshake(&mut self, harness: &str) -> Result<Identity, TransportError> {
        let body = RequestBody::Handshake(HandshakeRequest {
            protocol_version: rbv_protocol::PROTOCOL_VERSION,
            harness: harness.to_owned(),
        });
        let mut answers = self.exchange(HANDSHAKE_SESSION, vec![body])?;
        let obs = answers.pop().expect("one answer per request");
        match obs.response {
            Ok(Response {
                body: ResponseBody::Handshake(h),
                ..
            }) => {
                if h.protocol_version != rbv_protocol::PROTOCOL_VERSION {
                    let message = format!(
                        "handshake: protocol version {} (rbv speaks {})",
                        h.protocol_version,
                        rbv_protocol::PROTOCOL_VERSION
                    );
                    return Err(self.fail(ErrorKind::Protocol, message, Some(&obs.line)));
                }
                Ok(Identity::from_handshake(h))
            }
            Ok(other) => {
                let message = format!("handshake answered with `{}`", other.body.kind());
                Err(self.fail(ErrorKind::Protocol, message, Some(&obs.line)))
            }
            Err(why) => {
                let message = format!("handshake answer is not valid: {why}");
                Err(self.fail(ErrorKind::Protocol, message, Some(&obs.line)))
            }
        }
    }

    /// The child's stderr tail so far.
    pub fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .render()
    }

    /// Records an error: the child will not be asked again.
    fn fail(&mut self, kind: ErrorKind, message: String, line: Option<&str>) -> TransportError {
        let mut message = message;
        if kind == ErrorKind::Crash {
            // The stderr of a dying child is the most useful part of its report.
            let _ = self.stderr_done.recv_timeout(STDERR_GRACE);
            if let Some(status) = self.exit_status(STDERR_GRACE) {
                message.push_str(&format!(" ({status})"));
            }
        }
        let error = TransportError {
            kind,
            message,
            line: line.map(|l| truncate(l, SHOWN_PREFIX)),
            stderr_tail: self.stderr_tail(),
        };
        self.broken = Some(error.clone());
        error
    }

    fn exit_status(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        self.child.exit_status(wait)
    }

    /// One received line as JSON, checked against the protocol's schema
    /// when `--validate-protocol` asks for it.
    fn parse_answer(&mut self, text: &str) -> Result<Value, TransportError> {
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                return Err(self.fail(ErrorKind::Garbage, format!("not JSON: {e}"), Some(text)))
            }
        };
        if let Some(validate) = self.validate.clone() {
            if let Err(violations) = validate(&value) {
                let message = format!("protocol violation: {}", violations.join("; "));
                return Err(self.fail(ErrorKind::Protocol, message, Some(text)));
            }
        }
        Ok(value)
    }

    /// Judges one received line against the requests still waiting.
    fn accept(
        &mut self,
        text: String,
        session: &str,
        pending: &HashMap<u64, usize>,
    ) -> Result<(usize, Observation), TransportError> {
        let value = self.parse_answer(&text)?;
        let id = value.get("id").and_then(Value::as_u64);
        let Some(index) = id.and_then(|id| pending.get(&id).copied()) else {
            self.stray = true;
            let mut waiting: Vec<_> = pending.keys().copied().collect();
            waiting.sort_unstable();
            let waiting = Value::from(waiting);
            let message = match id {
                Some(id) => format!("answer to id {id}, but rbv waits for {waiting}"),
                None => format!("answer without a readable id (rbv waits for {waiting})"),
            };
            return Err(self.fail(ErrorKind::Protocol, message, Some(&text)));
        };
        let answered = value.get("session").and_then(Value::as_str);
        if answered != Some(session) {
            // A request in flight is its id in its session: this answers none.
            self.stray = true;
            let message = format!(
                "answer for session {}, asked in session {}",
                answered.map_or_else(|| "(none)".to_owned(), |a| Value::from(a).to_string()),
                Value::from(session)
            );
            return Err(self.fail(ErrorKind::Protocol, message, Some(&text)));
        }
        let response = Response::from_json(&value).map_err(|e| e.to_string());
        Ok((
            index,
            Observation {
                line: text,
                value,
                response,
            },
        ))
    }

    /// Writes `batch` and returns the next line the child answers (raw
    /// lines go one at a time, so the next line is the answer).
    fn next_answer(&mut self, batch: &[u8]) -> Result<String, TransportError> {
        let mut sent = 0;
        let deadline = Instant::now() + self.timeout;
        self.write_some(batch, &mut sent);
        loop {
            match self.splitter.next_line() {
                Some(Line::Text(text)) => return Ok(text),
                Some(Line::Oversized { prefix }) => {
                    let message = format!("a line longer than {MAX_LINE} bytes");
                    let line = format!("{prefix}…");
                    return Err(self.fail(ErrorKind::Garbage, message, Some(&line)));
                }
                Some(Line::Eof) => {
                    self.unreached = self.case_answers == 0 && self.never_read(sent);
                    let message = "the child closed stdout instead of answering".to_owned();
                    return Err(self.fail(ErrorKind::Crash, message, None));
                }
                Some(Line::Failed(e)) => {
                    return Err(self.fail(ErrorKind::Crash, format!("reading stdout: {e}"), None))
                }
                None => {}
            }
            self.write_some(batch, &mut sent);
            match self.read_some() {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    return Err(self.fail(ErrorKind::Crash, format!("reading stdout: {e}"), None))
                }
            }
            if !self.wait(sent < batch.len() && self.stdin.is_some(), deadline) {
                let message = format!("no answer within {} ms", self.timeout.as_millis());
                return Err(self.fail(ErrorKind::Timeout, message, None));
            }
        }
    }

    /// Writes what it can of `batch[*sent..]` without blocking. A child
    /// that closed its stdin is not an error here: its stdout says why.
    fn write_some(&mut self, batch: &[u8], sent: &mut usize) {
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        while *sent < batch.len() {
            match stdin.write(&batch[*sent..]) {
                Ok(n) => *sent += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.stdin = None;
                    return;
                }
            }
        }
    }

    /// Waits until stdout is readable (or stdin writable, while `writing`),
    /// at most until `deadline`; false on timeout.
    fn wait(&self, writing: bool, deadline: Instant) -> bool {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            let timeout = Timespec {
                tv_sec: left.as_secs() as i64,
                tv_nsec: i64::from(left.subsec_nanos()),
            };
            let mut fds = vec![PollFd::new(&self.stdout, PollFlags::IN)];
            if let (true, Some(stdin)) = (writing, self.stdin.as_ref()) {
                fds.push(PollFd::new(stdin, PollFlags::OUT));
            }
            match poll(&mut fds, Some(&timeout)) {
                Ok(0) => continue,
                Ok(_) => return true,
                // EINTR, or a poll failure: try again until the deadline.
                Err(_) => continue,
            }
        }
    }

    /// Reads what stdout has now into the splitter; false when nothing was
    /// there. End of file ends the splitter (its `Eof` line).
    fn read_some(&mut self) -> Result<bool, io::Error> {
        loop {
            match self.stdout.read(&mut self.chunk) {
                Ok(0) => {
                    self.splitter.finish();
                    return Ok(true);
                }
                Ok(n) => {
                    self.splitter.push(&self.chunk[..n]);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(e),
            }
        }
    }
}

fn placeholder_identity() -> Identity {
    Identity::from_handshake(rbv_protocol::HandshakeResponse {
        protocol_version: 0,
        implementation: rbv_protocol::ImplementationInfo {
            name: String::new(),
            version: String::new(),
        },
        capabilities: Vec::new(),
        profile: Default::default(),
    })
}

impl Transport for ProcessTransport {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        if let Some(error) = &self.broken {
            let mut error = error.clone();
            error.message = format!("the implementation failed earlier: {}", error.message);
            return Err(error);
        }
        let mut pending = HashMap::new();
        let mut batch = String::new();
        for (index, body) in bodies.into_iter().enumerate() {
            self.next_id += 1;
            pending.insert(self.next_id, index);
            let request = Request {
                id: self.next_id,
                session: session.to_owned(),
                body,
            };
            batch.push_str(&request.to_line());
            batch.push('\n');
        }
        let batch = batch.into_bytes();
        let mut sent = 0;
        let mut answers: Vec<Option<Observation>> = vec![None; pending.len()];
        // The timeout runs per answer: a pipelined batch of n requests may
        // take n timeouts only if every answer is slow.
        let mut deadline = self.answer_deadline();
        // A line there before the requests are written answers none of them.
        self.unsolicited(EARLY)?;
        self.write_some(&batch, &mut sent);
        while !pending.is_empty() {
            match self.splitter.next_line() {
                Some(Line::Text(text)) => {
                    let (index, obs) = self.accept(text, session, &pending)?;
                    pending.retain(|_, i| *i != index);
                    answers[index] = Some(obs);
                    self.case_answers += 1;
                    deadline = self.answer_deadline();
                    continue;
                }
                Some(Line::Oversized { prefix }) => {
                    let message = format!("a line longer than {MAX_LINE} bytes");
                    return Err(self.fail(
                        ErrorKind::Garbage,
                        message,
                        Some(&format!("{prefix}…")),
                    ));
                }
                Some(Line::Eof) => {
                    self.unreached = self.case_answers == 0 && self.never_read(sent);
                    let message = format!(
                        "the child closed stdout with {} answers missing",
                        pending.len()
                    );
                    return Err(self.fail(ErrorKind::Crash, message, None));
                }
                Some(Line::Failed(e)) => {
                    return Err(self.fail(ErrorKind::Crash, format!("reading stdout: {e}"), None))
                }
                None => {}
            }
            self.write_some(&batch, &mut sent);
            match self.read_some() {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    return Err(self.fail(ErrorKind::Crash, format!("reading stdout: {e}"), None))
                }
            }
            if !self.wait(sent < batch.len() && self.stdin.is_some(), deadline) {
                let message = if self.deadline.is_some_and(|d| d <= deadline) {
                    "no answer before the run's deadline (--deadline)".to_owned()
                } else {
                    format!("no answer within {} ms", self.timeout.as_millis())
                };
                return Err(self.fail(ErrorKind::Timeout, message, None));
            }
        }
        Ok(answers
            .into_iter()
            .map(|a| a.expect("every pending answer arrived"))
            .collect())
    }

    fn stderr_tail(&self) -> String {
        ProcessTransport::stderr_tail(self)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, TransportError> {
        self.raw_line(session, template)
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        let config = self.config.clone();
        ProcessTransport::probe_before_handshake(&config, session, template)
    }

    fn drain(&mut self) -> Result<(), TransportError> {
        self.unsolicited(LATE)
    }

    fn stray(&self) -> bool {
        self.stray
    }

    fn begin_case(&mut self) {
        self.case_answers = 0;
    }

    fn unreached(&self) -> bool {
        self.unreached
    }

    fn settle(&mut self) -> Result<(), TransportError> {
        self.settle_output()
    }
}

impl ProcessTransport {
    /// Whether the child ended without reading any of the `sent` bytes
    /// just written: they are all still in its stdin pipe (or the pipe was
    /// closed before any could be written). It died before the request
    /// reached it, not of it.
    fn never_read(&self, sent: usize) -> bool {
        match &self.stdin {
            Some(stdin) => {
                sent > 0 && rustix::io::ioctl_fionread(stdin).is_ok_and(|n| n >= sent as u64)
            }
            None => sent == 0,
        }
    }

    /// When the next answer is due: one timeout from now, and never after
    /// the run's deadline.
    fn answer_deadline(&self) -> Instant {
        let due = Instant::now() + self.timeout;
        self.deadline.map_or(due, |d| d.min(due))
    }
}

impl Drop for ProcessTransport {
    fn drop(&mut self) {
        // Closing stdin first lets a well-behaved child see the end; the
        // kill covers children that ignore it, and anything `sh` started.
        self.stdin = None;
        self.child.end();
    }
}
