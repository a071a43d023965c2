//! What a fuzz target talks to: the reference (or a mutant) linked in, or
//! any implementation over the protocol.

use crate::adapter::Connect;
use crate::transport::Transport;
use rbv_protocol::{Capability, Request, RequestBody, ResponseBody};
use rbv_reference::{Mutant, Server};
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
    fn raw(&mut self, session: &str, template: &str) -> Result<(String, Value), String>;

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

    fn raw(&mut self, session: &str, template: &str) -> Result<(String, Value), String> {
        self.next += 1;
        let sent = crate::transport::fill_raw(template, self.next, session);
        let answer = self.server.handle_line(&sent);
        let value = serde_json::from_str(&answer).map_err(|e| format!("not JSON: {e}"))?;
        Ok((sent, value))
    }

    fn end_exec(&mut self) {
        self.server.forget_sessions();
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
///
/// Execs reuse a few session names, each reset in the same batch as its
/// first request: an implementation keeps state per session name, so
/// fresh names for every exec would grow its memory without bound over a
/// long run. An implementation that does not acknowledge `reset_session`
/// gets a new name for every session instead.
pub struct OverTransport {
    transport: Box<dyn Transport + Send>,
    /// How to start the implementation again (`None`: it cannot be).
    target: Option<Box<crate::adapter::Target>>,
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
        target: crate::adapter::Target,
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
        let raw = self
            .transport
            .raw(session, template)
            .map_err(|e| format!("{:?}: {}", e.kind, e.message))?;
        Ok((raw.sent, raw.answer.value))
    }

    fn name(&self) -> String {
        let info = &self.transport.identity().handshake.implementation;
        format!("{} {}", info.name, info.version)
    }

    fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    fn restart(&mut self) -> Result<(), String> {
        let Some(target) = &self.target else {
            return Err("the implementation cannot be restarted".into());
        };
        self.transport = target.connect().map_err(|e| e.message)?;
        self.unreset.clear();
        self.in_exec = 0;
        self.reuse_names = true;
        Ok(())
    }
}

/// What a cargo-fuzz binary fuzzes, chosen once per run from the
/// environment: `RBV_IMPL` names an implementation (one child for the whole
/// run, its sessions reused and reset), else the reference or the mutant
/// `RBV_MUTANT` names, linked in and fresh for every input (see
/// `targets::libfuzzer_target`).
pub enum LibFuzzerSubject {
    Implementation(std::sync::Mutex<OverTransport>),
    Reference(Option<Mutant>),
}

impl LibFuzzerSubject {
    /// Panics on a setting the run cannot mean anything with (libFuzzer
    /// reports the panic's message as its crash).
    pub fn from_env(needs: &[Capability]) -> Self {
        let mutant = Mutant::from_env().unwrap_or_else(|e| panic!("RBV_MUTANT: {e}"));
        let command = std::env::var("RBV_IMPL").ok();
        Self::new(command.filter(|c| !c.trim().is_empty()), mutant, needs)
    }

    pub fn new(command: Option<String>, mutant: Option<Mutant>, needs: &[Capability]) -> Self {
        let Some(command) = command else {
            return LibFuzzerSubject::Reference(mutant);
        };
        assert!(
            mutant.is_none(),
            "RBV_IMPL and RBV_MUTANT name two subjects: set one"
        );
        // Before the spawn, so that the child shares the CPU (see
        // `adapter::affinity`).
        crate::adapter::affinity::pin_current_thread_here();
        let transport =
            crate::adapter::Target::Process(crate::adapter::ProcessConfig::new(command.clone()))
                .connect()
                .unwrap_or_else(|e| panic!("RBV_IMPL: cannot start `{command}`: {}", e.message));
        let subject = OverTransport::new(transport);
        if let Some(missing) = needs.iter().find(|c| !subject.claims(**c)) {
            panic!(
                "RBV_IMPL: `{command}` does not claim `{}`, which this target needs",
                missing.as_str()
            );
        }
        LibFuzzerSubject::Implementation(std::sync::Mutex::new(subject))
    }

    /// Runs one check on this input's subject.
    pub fn check(
        &self,
        check: super::targets::Check,
        data: &[u8],
    ) -> arbitrary::Result<Option<super::finding::Finding>> {
        let mut u = arbitrary::Unstructured::new(data);
        match self {
            LibFuzzerSubject::Implementation(subject) => {
                let mut subject = subject.lock().unwrap_or_else(|e| e.into_inner());
                let found = check(&mut u, &mut *subject);
                subject.end_exec();
                found
            }
            LibFuzzerSubject::Reference(mutant) => check(&mut u, &mut InProcess::new(*mutant)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::InProcess as LinkedIn;
    use crate::fuzz::driver::{drive, Options};
    use crate::fuzz::targets::by_name;
    use crate::transport::{AdapterError, Identity, Observation};
    use rbv_protocol::{Response, UnsupportedResponse};
    use std::sync::{Arc, Mutex};

    type Batches = Arc<Mutex<Vec<(String, Vec<&'static str>)>>>;

    /// The reference behind the transport seam, recording every batch;
    /// with `refuse_reset` it answers `reset_session` with `unsupported`.
    struct Recording {
        inner: LinkedIn,
        batches: Batches,
        refuse_reset: bool,
    }

    impl Transport for Recording {
        fn identity(&self) -> &Identity {
            self.inner.identity()
        }

        fn exchange(
            &mut self,
            session: &str,
            bodies: Vec<RequestBody>,
        ) -> Result<Vec<Observation>, AdapterError> {
            let kinds = bodies.iter().map(RequestBody::kind).collect();
            self.batches
                .lock()
                .unwrap()
                .push((session.to_owned(), kinds));
            if !self.refuse_reset {
                return self.inner.exchange(session, bodies);
            }
            let (resets, rest): (Vec<_>, Vec<_>) = bodies
                .into_iter()
                .partition(|b| matches!(b, RequestBody::ResetSession(_)));
            let mut answers: Vec<Observation> = resets
                .iter()
                .map(|_| Observation {
                    line: String::new(),
                    value: serde_json::Value::Null,
                    response: Ok(Response {
                        id: None,
                        session: session.to_owned(),
                        body: ResponseBody::Unsupported(UnsupportedResponse {
                            message: "no".into(),
                        }),
                    }),
                })
                .collect();
            answers.extend(self.inner.exchange(session, rest)?);
            Ok(answers)
        }

        fn stderr_tail(&self) -> String {
            self.inner.stderr_tail()
        }
    }

    fn fuzz(refuse_reset: bool, execs: u64) -> Vec<(String, Vec<&'static str>)> {
        let batches = Batches::default();
        let mut subject = OverTransport::new(Box::new(Recording {
            inner: LinkedIn::new(None),
            batches: Arc::clone(&batches),
            refuse_reset,
        }));
        let options = Options {
            max_execs: execs,
            ..Options::default()
        };
        let outcome = drive(by_name("token_binding").unwrap(), &mut subject, &options);
        assert_eq!(outcome.execs, execs);
        assert!(outcome.found.is_empty(), "the reference has no finding");
        let batches = batches.lock().unwrap().clone();
        batches
    }

    #[test]
    fn execs_reuse_session_names_each_reset_with_its_first_request() {
        let batches = fuzz(false, 50);
        let names: std::collections::BTreeSet<&str> =
            batches.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["fuzz-1"]);
        // An exec's first batch loads its plugins (and approves) in a session
        // reset in that same batch; no other batch resets.
        let firsts = batches.iter().filter(|(_, k)| k.contains(&"load_plugins"));
        assert!(firsts
            .clone()
            .all(|(_, kinds)| kinds[..2] == ["reset_session", "load_plugins"]));
        let resets = batches.iter().filter(|(_, k)| k.contains(&"reset_session"));
        assert_eq!(resets.count(), firsts.clone().count());
        assert!(firsts.count() >= 25, "most execs reach the implementation");
    }

    #[test]
    fn without_reset_every_session_gets_a_new_name() {
        let batches = fuzz(true, 20);
        let names: std::collections::BTreeSet<&str> =
            batches.iter().map(|(s, _)| s.as_str()).collect();
        let execs = batches
            .iter()
            .filter(|(_, k)| k.contains(&"load_plugins"))
            .count();
        // The first exec is lost to the refused reset; then a name of its
        // own for each, none of them the first one again.
        assert_eq!(names.len(), execs);
        let once = names.iter().filter(|n| n.starts_with("fuzz-once-")).count();
        assert_eq!(once, execs - 1);
        let resets = batches.iter().filter(|(_, k)| k.contains(&"reset_session"));
        assert_eq!(resets.count(), 1);
    }
}
