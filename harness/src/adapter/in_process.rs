//! The reference linked in: the same `Transport` seam without pipes, for
//! the mutant test and for fast checks of the suite itself.

use crate::transport::{fill_raw, AdapterError, Identity, Observation, RawObservation, Transport};
use crate::verdict::ErrorKind;
use rbv_protocol::{Request, RequestBody, Response};
use rbv_reference::{server, Mutant, Profile, Server};

pub struct InProcess {
    server: Server,
    /// What a fresh server (`before_handshake`) is made of.
    mutant: Option<Mutant>,
    profile: Profile,
    identity: Identity,
    next_id: u64,
}

impl InProcess {
    pub fn new(mutant: Option<Mutant>) -> Self {
        Self::with_profile(mutant, Profile::default())
    }

    pub fn with_profile(mutant: Option<Mutant>, profile: Profile) -> Self {
        let server = server(mutant, profile);
        let identity = Identity::from_handshake(server.handshake());
        InProcess {
            server,
            mutant,
            profile,
            identity,
            next_id: 0,
        }
    }

    /// One request answered without the envelope's serialization: for a
    /// fuzzer, whose coverage guidance should see the reference's branches
    /// rather than the JSON codec's.
    pub fn call(&mut self, session: &str, body: RequestBody) -> Response {
        self.next_id += 1;
        self.server.handle(Request {
            id: self.next_id,
            session: session.to_owned(),
            body,
        })
    }

    /// Drops every session's state: a long-running caller that never
    /// reuses a session name (a fuzzer) keeps memory flat with it.
    pub fn forget_sessions(&mut self) {
        self.server.forget_sessions();
    }

    pub fn mutant(&self) -> Option<Mutant> {
        self.mutant
    }
}

/// One answer line of the reference, observed as a child's would be.
fn observe(line: String) -> Observation {
    let value: serde_json::Value = serde_json::from_str(&line).expect("the reference writes JSON");
    let response = Response::from_json(&value).map_err(|e| e.to_string());
    Observation {
        line,
        value,
        response,
    }
}

impl Transport for InProcess {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, AdapterError> {
        self.next_id += 1;
        let sent = fill_raw(template, self.next_id, session);
        let answer = observe(self.server.handle_line(&sent));
        Ok(RawObservation { sent, answer })
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, AdapterError> {
        let mut fresh = server(self.mutant, self.profile);
        let sent = fill_raw(template, 1, session);
        let answer = observe(fresh.handle_line(&sent));
        let handshake = Request {
            id: 2,
            session: "handshake".into(),
            body: RequestBody::Handshake(rbv_protocol::HandshakeRequest {
                protocol_version: rbv_protocol::PROTOCOL_VERSION,
                harness: "rbv (in process)".into(),
            }),
        };
        let after = fresh.handle_line(&handshake.to_line());
        if !matches!(
            observe(after.clone()).response.map(|r| r.body.kind()),
            Ok("handshake")
        ) {
            return Err(AdapterError {
                kind: ErrorKind::Protocol,
                message: "the handshake after a request before it did not succeed".into(),
                line: Some(after),
                stderr_tail: String::new(),
            });
        }
        Ok(RawObservation { sent, answer })
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, AdapterError> {
        let mut answers = Vec::with_capacity(bodies.len());
        for body in bodies {
            self.next_id += 1;
            let request = Request {
                id: self.next_id,
                session: session.to_owned(),
                body,
            };
            // Through text and back, so that the case engine sees exactly
            // what a child process would have sent.
            let line = self.server.handle(request).to_line();
            let value: serde_json::Value =
                serde_json::from_str(&line).expect("the reference writes JSON");
            let response = Response::from_line(&line).map_err(|e| AdapterError {
                kind: ErrorKind::Protocol,
                message: format!("the reference sent an invalid answer: {e}"),
                line: Some(line.clone()),
                stderr_tail: String::new(),
            })?;
            answers.push(Observation {
                line,
                value,
                response: Ok(response),
            });
        }
        Ok(answers)
    }
}
