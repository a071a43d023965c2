//! The seam between executing a case and reaching an implementation, and
//! every way to reach one: `case::execute` speaks to a [`Transport`]; a
//! persistent child ([`process`]), a child per case ([`spawn_per_case`]),
//! the fork server and an implementation linked in ([`sdk`], of which the
//! reference's [`in_process`] is one) implement it.

pub mod affinity;
pub mod fork_server;
pub mod in_process;
pub mod interrupt;
pub mod launch;
pub mod lines;
pub mod process;
pub mod sdk;
pub mod spawn_per_case;
pub mod tree;

pub use in_process::InProcess;
pub use process::{ProcessConfig, ProcessTransport, Validate};
pub use sdk::SdkInProcess;
pub use spawn_per_case::SpawnPerCase;

use crate::verdict::ErrorKind;
use rbv_protocol::{Capability, HandshakeResponse, RequestBody, Response};
use rbv_reference::{Mutant, Profile};
use serde_json::Value;
use std::collections::BTreeSet;

/// What the runner connects each worker to.
#[derive(Clone, Debug)]
pub enum Target {
    /// One persistent child per worker, restarted after an error.
    Process(ProcessConfig),
    /// A fresh child for every case.
    SpawnPerCase(ProcessConfig),
    /// The reference (or a mutant) linked in, with a profile.
    InProcess(Option<Mutant>, Profile),
}

/// A fresh connection, one per worker (and again after an error).
pub trait Connect: Sync {
    fn connect(&self) -> Result<Box<dyn Transport + Send>, TransportError>;

    /// What is connected to, for messages.
    fn describe(&self) -> String;
}

impl Connect for Target {
    fn connect(&self) -> Result<Box<dyn Transport + Send>, TransportError> {
        Ok(match self {
            Target::Process(config) => Box::new(ProcessTransport::spawn(config)?),
            Target::SpawnPerCase(config) => Box::new(SpawnPerCase::spawn(config)?),
            Target::InProcess(mutant, profile) => {
                Box::new(InProcess::with_profile(*mutant, *profile))
            }
        })
    }

    fn describe(&self) -> String {
        match self {
            Target::Process(c) => c.command.clone(),
            Target::SpawnPerCase(c) => format!("{} (a child per case)", c.command),
            Target::InProcess(None, _) => "rbv-reference (in process)".into(),
            Target::InProcess(Some(m), _) => format!("rbv-reference+mutant:{m} (in process)"),
        }
    }
}

/// What an implementation said about itself in its handshake.
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    pub handshake: HandshakeResponse,
    /// The capabilities it claims that rbv knows.
    pub capabilities: BTreeSet<Capability>,
}

impl Identity {
    pub fn from_handshake(handshake: HandshakeResponse) -> Self {
        let capabilities = handshake
            .capabilities
            .iter()
            .filter_map(|c| c.parse().ok())
            .collect();
        let mut identity = Identity {
            handshake,
            capabilities,
        };
        crate::bounds::bound_identity(&mut identity);
        identity
    }
}

/// One answer as received: the raw line is kept for reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// The line as the implementation wrote it (possibly truncated).
    pub line: String,
    /// The line as JSON.
    pub value: Value,
    /// The typed response, or why the JSON is not one (a verdict of the
    /// case, never a harness error).
    pub response: Result<Response, String>,
}

/// A line sent as written (a `send_raw` step) and its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct RawObservation {
    /// The line sent, its placeholders filled in.
    pub sent: String,
    pub answer: Observation,
}

/// `template` with `$ID` replaced by `id` and `$SESSION` by `session`, so
/// that a raw line can carry the envelope rbv would have used (ids stay
/// unique per child).
pub fn fill_raw(template: &str, id: u64, session: &str) -> String {
    template
        .replace("$ID", &id.to_string())
        .replace("$SESSION", session)
}

fn no_raw(what: &str) -> TransportError {
    TransportError {
        kind: ErrorKind::Protocol,
        message: format!("this connection cannot send {what}"),
        line: None,
        stderr_tail: String::new(),
    }
}

/// A failure to get answers at all. It becomes the case's error verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct TransportError {
    pub kind: ErrorKind,
    pub message: String,
    pub line: Option<String>,
    pub stderr_tail: String,
}

/// A connection to one implementation.
pub trait Transport {
    /// The implementation's handshake.
    fn identity(&self) -> &Identity;

    /// Sends every request of `bodies` in `session`, then waits for all of
    /// their answers; more than one request is pipelined (the
    /// implementation may answer out of order; answers are matched by id).
    /// Returns the answers in the order of `bodies`.
    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError>;

    /// A new case starts: the requests that follow belong to it (in its own
    /// session and the sessions it names). Only a transport that gives each
    /// case a fresh implementation acts on it.
    fn begin_case(&mut self) {}

    /// Sends `template` (placeholders filled by [`fill_raw`] with the next
    /// id and `session`) as one line, exactly as written, and returns the
    /// next line the implementation answers, whatever its id: nothing else
    /// is in flight. The caller judges the answer's envelope.
    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, TransportError> {
        let _ = (session, template);
        Err(no_raw("raw lines"))
    }

    /// Starts a fresh instance of the implementation, sends `template` as
    /// its first line (before any handshake), reads the answer, then checks
    /// that a handshake still succeeds; the fresh instance is then dropped.
    /// This connection is not touched.
    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        let _ = (session, template);
        Err(no_raw("a line before the handshake"))
    }

    /// The tail of the implementation's stderr so far (its last lines,
    /// bounded), empty when it has none. The case engine attaches it to the
    /// error verdicts it makes itself, such as a malformed answer, whose
    /// cause the implementation often printed there just before.
    fn stderr_tail(&self) -> String {
        // In-process implementations have no stderr.
        String::new()
    }

    /// Called after each case: an answer that arrived since the case's
    /// last one (a duplicate, or one nobody asked for) is that case's
    /// protocol error. Never waits.
    fn drain(&mut self) -> Result<(), TransportError> {
        Ok(())
    }

    /// Whether a line was read that answered no request in flight (late,
    /// duplicate, early or foreign). Such a line may belong to the case
    /// before the one that read it: the worker charges both (see
    /// `worker::run_pool`).
    fn stray(&self) -> bool {
        false
    }

    /// Whether the implementation had ended before the current case's
    /// first request reached it (it read none of it): the case's crash is
    /// then no fault of the case, which the worker runs again on a fresh
    /// connection (see `worker::run_pool`).
    fn unreached(&self) -> bool {
        false
    }

    /// The connection's last case is over: whatever the implementation
    /// writes from now until its output ends (bounded in time) answers
    /// nothing, and is that case's protocol error.
    fn settle(&mut self) -> Result<(), TransportError> {
        Ok(())
    }
}
