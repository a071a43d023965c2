//! The seam between executing a case and reaching an implementation.
//! `case::execute` speaks to a `Transport`; the process adapter, the
//! spawn-per-case adapter and the in-process reference implement it.

use crate::verdict::ErrorKind;
use rbv_protocol::{Capability, HandshakeResponse, RequestBody, Response};
use serde_json::Value;
use std::collections::BTreeSet;

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

/// A failure to get answers at all. It becomes the case's error verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterError {
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
    ) -> Result<Vec<Observation>, AdapterError>;

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
    fn drain(&mut self) -> Result<(), AdapterError> {
        Ok(())
    }
}
