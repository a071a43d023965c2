//! The reference linked in: the same `Transport` seam without pipes, for
//! the mutant test and for fast checks of the suite itself.

use crate::transport::{AdapterError, Identity, Observation, Transport};
use crate::verdict::ErrorKind;
use rbv_protocol::{Request, RequestBody, Response};
use rbv_reference::{Mutant, Profile, Server};

pub struct InProcess {
    server: Server,
    identity: Identity,
    next_id: u64,
}

impl InProcess {
    pub fn new(mutant: Option<Mutant>) -> Self {
        Self::with_profile(mutant, Profile::default())
    }

    pub fn with_profile(mutant: Option<Mutant>, profile: Profile) -> Self {
        let server = Server::with_profile(mutant, profile);
        let identity = Identity::from_handshake(server.handshake());
        InProcess {
            server,
            identity,
            next_id: 0,
        }
    }
}

impl Transport for InProcess {
    fn identity(&self) -> &Identity {
        &self.identity
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
