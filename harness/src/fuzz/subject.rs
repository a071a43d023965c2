//! What a fuzz target talks to: the reference (or a mutant) linked in, or
//! any implementation over the protocol.

use crate::transport::Transport;
use rbv_protocol::{Capability, Request, RequestBody, ResponseBody};
use rbv_reference::{Mutant, Server};

/// One implementation under fuzzing. Every exec uses a fresh session.
pub trait Subject {
    /// A session id not used before by this subject.
    fn fresh_session(&mut self) -> String;

    /// One request, one answer. `Err` is a transport failure (crash, hang,
    /// garbage): a finding of its own, never a panic of the harness.
    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String>;

    fn claims(&self, capability: Capability) -> bool;

    /// A name for findings: `rbv-reference`, `rbv-reference+mutant:NAME`, or
    /// the implementation's handshake name.
    fn name(&self) -> String;
}

/// The reference linked into the fuzzer: no pipes, no serialization of the
/// envelope, so that coverage guidance sees the reference's own branches.
pub struct InProcess {
    server: Server,
    mutant: Option<Mutant>,
    next: u64,
}

impl InProcess {
    pub fn new(mutant: Option<Mutant>) -> Self {
        InProcess {
            server: Server::new(mutant),
            mutant,
            next: 0,
        }
    }

    /// The reference, or the mutant named by `RBV_MUTANT`.
    pub fn from_env() -> Result<Self, String> {
        Ok(Self::new(Mutant::from_env()?))
    }
}

impl Subject for InProcess {
    fn fresh_session(&mut self) -> String {
        self.next += 1;
        format!("fuzz-{}", self.next)
    }

    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String> {
        self.next += 1;
        let request = Request {
            id: self.next,
            session: session.to_owned(),
            body,
        };
        Ok(self.server.handle(request).body)
    }

    fn claims(&self, _capability: Capability) -> bool {
        true
    }

    fn name(&self) -> String {
        match self.mutant {
            Some(m) => format!("rbv-reference+mutant:{m}"),
            None => "rbv-reference".to_owned(),
        }
    }
}

/// Any implementation behind a `Transport` (a child process speaking the
/// protocol), so that users fuzz their own client.
pub struct OverTransport {
    transport: Box<dyn Transport + Send>,
    next: u64,
}

impl OverTransport {
    pub fn new(transport: Box<dyn Transport + Send>) -> Self {
        OverTransport { transport, next: 0 }
    }
}

impl Subject for OverTransport {
    fn fresh_session(&mut self) -> String {
        self.next += 1;
        format!("fuzz-{}", self.next)
    }

    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String> {
        let mut answers = self
            .transport
            .exchange(session, vec![body])
            .map_err(|e| format!("{:?}: {}", e.kind, e.message))?;
        let observation = answers.pop().ok_or("no answer")?;
        observation.response.map(|r| r.body)
    }

    fn claims(&self, capability: Capability) -> bool {
        self.transport.identity().capabilities.contains(&capability)
    }

    fn name(&self) -> String {
        let info = &self.transport.identity().handshake.implementation;
        format!("{} {}", info.name, info.version)
    }
}
