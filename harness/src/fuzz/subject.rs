//! What a fuzz target talks to: the reference (or a mutant) linked in, or
//! any implementation over the protocol.

use crate::case::{execute, Case};
use crate::transport::Transport;
use crate::verdict::Verdict;
use rbv_protocol::{Capability, RequestBody, ResponseBody};
use rbv_reference::Mutant;
use serde_json::Value;

/// One implementation under fuzzing. Every exec uses a fresh session.
pub trait Subject {
    /// A session id not used before by this subject.
    fn fresh_session(&mut self) -> String;

    /// One request, one answer. `Err` is a transport failure (crash, hang,
    /// garbage): a finding of its own, never a panic of the harness.
    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String>;

    /// Requests that do not depend on each other's answers, sent at once
    /// (over a pipe: one round trip); one answer per request, in order.
    fn call_batch(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Vec<Result<ResponseBody, String>> {
        bodies
            .into_iter()
            .map(|body| self.call(session, body))
            .collect()
    }

    fn claims(&self, capability: Capability) -> bool;

    /// Sends `template` as one line exactly as written (`$ID` and
    /// `$SESSION` filled in, see `case::raw`): the line sent and the answer
    /// as JSON. `Err` is a transport failure (the implementation died, hung
    /// or wrote garbage).
    fn raw(&mut self, session: &str, template: &str) -> Result<(String, Value), String> {
        let _ = (session, template);
        Err("this subject does not send raw lines".into())
    }

    /// Called after every exec: the sessions it used are not used again.
    fn end_exec(&mut self) {}

    /// A name for findings: `rbv-reference`, `rbv-reference+mutant:NAME`, or
    /// the implementation's handshake name.
    fn name(&self) -> String;

    /// Why the implementation stopped answering (it crashed, hung or broke
    /// the protocol) since the last call, if it did. The exec that saw it
    /// judged nothing: it does not count.
    fn take_failure(&mut self) -> Option<String> {
        None
    }

    /// Starts the implementation again after a failure.
    fn restart(&mut self) -> Result<(), String> {
        Err("this subject cannot be restarted".into())
    }

    /// Runs `case` against this implementation, as `rbv run` would: a
    /// finding's case must fail where the finding was found before it is
    /// written (`promote::reproduce`). `Err`: this subject cannot run cases.
    fn run_case(&mut self, case: &Case) -> Result<Verdict, String> {
        let _ = case;
        Err("this subject cannot run cases".into())
    }
}

/// The reference linked into the fuzzer (the in-process transport's
/// server, called without the envelope's serialization, so that coverage
/// guidance sees the reference's own branches).
pub struct InProcess {
    reference: crate::transport::InProcess,
    next: u64,
}

impl InProcess {
    pub fn new(mutant: Option<Mutant>) -> Self {
        InProcess {
            reference: crate::transport::InProcess::new(mutant),
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
        Ok(self.reference.call(session, body).body)
    }

    fn claims(&self, _capability: Capability) -> bool {
        true
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<(String, Value), String> {
        let observed = self
            .reference
            .raw(session, template)
            .map_err(|e| e.message)?;
        Ok((observed.sent, observed.answer.value))
    }

    fn end_exec(&mut self) {
        self.reference.forget_sessions();
    }

    fn run_case(&mut self, case: &Case) -> Result<Verdict, String> {
        let mut reference = crate::transport::InProcess::new(self.reference.mutant());
        Ok(execute(case, &mut reference, "rbv-reproduce").verdict)
    }

    fn name(&self) -> String {
        self.reference
            .identity()
            .handshake
            .implementation
            .name
            .clone()
    }
}

/// Any implementation behind a `Transport` (a child process speaking the
/// protocol), so that users fuzz their own client.
///
/// Execs reuse a few session names, each reset in the same batch as its
/// first request: an implementation keeps state per session name, so
/// fresh names for every exec would grow its memory without bound over a
/// long run. An implementation that does not acknowledge `reset_session`
/// gets a new name for every session instead.
pub struct OverTransport {
    transport: Box<dyn Transport + Send>,
    /// How to start the implementation again (`None`: it cannot be).
    target: Option<Box<crate::transport::Target>>,
    /// The transport failure seen since the last `take_failure`.
    failure: Option<String>,
    next: u64,
    /// Sessions handed out in this exec.
    in_exec: usize,
    /// Names handed out in this exec and not yet reset.
    unreset: Vec<String>,
    reuse_names: bool,
}

impl OverTransport {
    pub fn new(transport: Box<dyn Transport + Send>) -> Self {
        OverTransport {
            transport,
            target: None,
            failure: None,
            next: 0,
            in_exec: 0,
            unreset: Vec::new(),
            reuse_names: true,
        }
    }

    /// An implementation that `target` can start again after a failure.
    pub fn restartable(
        transport: Box<dyn Transport + Send>,
        target: crate::transport::Target,
    ) -> Self {
        let mut subject = Self::new(transport);
        subject.target = Some(Box::new(target));
        subject
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Result<ResponseBody, String>>, String> {
        let answers = self.transport.exchange(session, bodies).map_err(|e| {
            let why = format!("{}: {}", e.kind.as_str(), e.message);
            self.failure.get_or_insert_with(|| why.clone());
            why
        })?;
        Ok(answers
            .into_iter()
            .map(|o| o.response.map(|r| r.body))
            .collect())
    }
}

impl Subject for OverTransport {
    fn fresh_session(&mut self) -> String {
        if !self.reuse_names {
            // A prefix of its own: never a name handed out for reuse.
            self.next += 1;
            return format!("fuzz-once-{}", self.next);
        }
        self.in_exec += 1;
        let name = format!("fuzz-{}", self.in_exec);
        self.unreset.push(name.clone());
        name
    }

    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String> {
        let mut answers = self.call_batch(session, vec![body]);
        answers.pop().unwrap_or_else(|| Err("no answer".into()))
    }

    fn call_batch(
        &mut self,
        session: &str,
        mut bodies: Vec<RequestBody>,
    ) -> Vec<Result<ResponseBody, String>> {
        let asked = bodies.len();
        let reset = match self.unreset.iter().position(|s| s == session) {
            Some(i) => {
                self.unreset.swap_remove(i);
                true
            }
            None => false,
        };
        if reset {
            bodies.insert(0, RequestBody::ResetSession(Default::default()));
        }
        let answers = match self.exchange(session, bodies) {
            Ok(answers) => answers,
            Err(e) => return vec![Err(e); asked],
        };
        let mut answers = answers.into_iter();
        if reset && !matches!(answers.next(), Some(Ok(ResponseBody::Ack(_)))) {
            // The session may still hold an earlier exec's state, so this
            // exec's answers cannot be judged; later execs get names never
            // used before.
            self.reuse_names = false;
            let refused = "the implementation did not acknowledge `reset_session`";
            return vec![Err(refused.into()); asked];
        }
        let mut answers: Vec<_> = answers.collect();
        answers.resize_with(asked, || Err("no answer".into()));
        answers
    }

    fn end_exec(&mut self) {
        self.in_exec = 0;
        self.unreset.clear();
    }

    fn claims(&self, capability: Capability) -> bool {
        self.transport.identity().capabilities.contains(&capability)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<(String, Value), String> {
        let raw = self.transport.raw(session, template).map_err(|e| {
            // The transport is broken now: recorded like an exchange's
            // failure, so that the driver restarts the implementation
            // before the next input, which would otherwise be charged.
            let why = format!("{}: {}", e.kind.as_str(), e.message);
            self.failure.get_or_insert_with(|| why.clone());
            why
        })?;
        Ok((raw.sent, raw.answer.value))
    }

    fn name(&self) -> String {
        let info = &self.transport.identity().handshake.implementation;
        format!("{} {}", info.name, info.version)
    }

    fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    fn run_case(&mut self, case: &Case) -> Result<Verdict, String> {
        self.next += 1;
        let session = format!("rbv-reproduce-{}", self.next);
        let verdict = execute(case, self.transport.as_mut(), &session).verdict;
        if matches!(verdict, Verdict::Error(_)) {
            // A crash, hang or broken protocol leaves the transport unusable
            // for what comes after (the oracles' confirmations, the next
            // finding's case); a restart that fails shows up there.
            let _ = self.restart();
        }
        Ok(verdict)
    }

    fn restart(&mut self) -> Result<(), String> {
        let Some(target) = &self.target else {
            return Err("the implementation cannot be restarted".into());
        };
        self.transport =
            crate::transport::Connect::connect(target.as_ref()).map_err(|e| e.message)?;
        self.unreset.clear();
        self.in_exec = 0;
        self.reuse_names = true;
        Ok(())
    }
}
