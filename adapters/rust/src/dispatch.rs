//! One line in, one line out: the protocol around an [`Implementation`].
//! `serve_stdio` and rbv's in-process certification both call
//! [`Dispatcher::handle_line`], so a client certified in its own
//! `cargo test` answers exactly as its adapter binary does.

use crate::{Implementation, Refusal};
use rbv_protocol::*;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// An [`Implementation`] and the state of each of its sessions.
pub struct Dispatcher<I: Implementation> {
    implementation: I,
    sessions: HashMap<String, I::Session>,
}

impl<I: Implementation> Dispatcher<I> {
    pub fn new(implementation: I) -> Self {
        Dispatcher {
            implementation,
            sessions: HashMap::new(),
        }
    }

    pub fn implementation(&self) -> &I {
        &self.implementation
    }

    /// The handshake this implementation answers (`PROTOCOL.md` §5).
    pub fn handshake(&self) -> HandshakeResponse {
        let i = &self.implementation;
        HandshakeResponse {
            protocol_version: PROTOCOL_VERSION,
            implementation: ImplementationInfo {
                name: i.name(),
                version: i.version(),
            },
            capabilities: i
                .capabilities()
                .iter()
                .map(|c| c.as_str().to_owned())
                .collect(),
            profile: i.profile(),
        }
    }

    /// Answers one line (without its newline). Never fails: a line that is
    /// not a valid request gets an `error` echoing whatever `id` and
    /// `session` can be read of it (`RBV-PRO-003`), and an unknown `type`
    /// gets `unsupported` (`RBV-PRO-004`).
    pub fn handle_line(&mut self, line: &str) -> String {
        match Request::from_line(line) {
            Ok(request) => self.handle(request).to_line(),
            Err(e) => {
                let (id, session) = salvage_envelope(line);
                let body = match &e {
                    WireError::UnknownType(kind) => {
                        ResponseBody::Unsupported(UnsupportedResponse {
                            message: format!(
                                "`{kind}` is not a request type of protocol version {PROTOCOL_VERSION}"
                            ),
                        })
                    }
                    WireError::Json(_) => error_body("bad-json", e.to_string()),
                    _ => error_body("bad-request", e.to_string()),
                };
                Response { id, session, body }.to_line()
            }
        }
    }

    /// Answers one parsed request.
    pub fn handle(&mut self, request: Request) -> Response {
        let Request { id, session, body } = request;
        let kind = body.kind();
        // A panic in the implementation is its failure on this request
        // (`RBV-PRO-002`): answered with `error`, and the loop keeps serving
        // the following lines (`RBV-PRO-001`).
        let answer = catch_unwind(AssertUnwindSafe(|| self.dispatch(&session, body)));
        let body = answer.unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            error_body(
                "internal",
                format!("the implementation panicked on `{kind}`: {why}"),
            )
        });
        Response {
            id: Some(id),
            session,
            body,
        }
    }

    /// Forgets every session's state: for a long-lived caller that never
    /// reuses a session name.
    pub fn forget_sessions(&mut self) {
        self.sessions.clear();
    }

    fn dispatch(&mut self, session: &str, body: RequestBody) -> ResponseBody {
        use RequestBody as Rq;
        use ResponseBody as Rs;
        match body {
            Rq::Handshake(h) if h.protocol_version != PROTOCOL_VERSION => error_body(
                "protocol-version",
                format!(
                    "protocol version {} is not supported (this is {PROTOCOL_VERSION})",
                    h.protocol_version
                ),
            ),
            Rq::Handshake(_) => Rs::Handshake(self.handshake()),
            Rq::LoadPlugins(r) => {
                let state = self.sessions_and(session);
                answer(state.0.load_plugins(state.1, r), Rs::Loaded)
            }
            Rq::ValidateManifest(r) => {
                answer(self.implementation.validate_manifest(r), Rs::Validation)
            }
            Rq::Project(r) => answer(self.implementation.project(r), Rs::Projection),
            Rq::RecordEvent(r) => {
                let state = self.sessions_and(session);
                answer(state.0.record_event(state.1, r), Rs::Ack)
            }
            Rq::SetPolicy(r) => {
                let state = self.sessions_and(session);
                answer(state.0.set_policy(state.1, r), Rs::Ack)
            }
            Rq::Evaluate(r) => {
                let state = self.sessions_and(session);
                answer(state.0.evaluate(state.1, r), Rs::Evaluation)
            }
            Rq::Approve(r) => {
                let state = self.sessions_and(session);
                answer(state.0.approve(state.1, r), Rs::Approval)
            }
            Rq::Invoke(r) => {
                let state = self.sessions_and(session);
                answer(state.0.invoke(state.1, r), Rs::Invocation)
            }
            Rq::DiffManifests(r) => answer(self.implementation.diff_manifests(r), Rs::Diff),
            Rq::ResetSession(_) => {
                // The tokens, events and plugins of the old state go with it
                // (`RBV-R2-006`, `RBV-TOK-008`).
                self.sessions.remove(session);
                answer(self.implementation.reset_session(session), Rs::Ack)
            }
        }
    }

    /// The implementation and a session's state, borrowed together.
    /// The state is created on the session's first request; looked up
    /// first, so that the name is copied once per session.
    fn sessions_and(&mut self, session: &str) -> (&mut I, &mut I::Session) {
        if !self.sessions.contains_key(session) {
            self.sessions
                .insert(session.to_owned(), I::Session::default());
        }
        let state = self.sessions.get_mut(session).expect("inserted above");
        (&mut self.implementation, state)
    }
}

fn error_body(code: &str, message: String) -> ResponseBody {
    ResponseBody::Error(ErrorResponse {
        code: code.to_owned(),
        message,
    })
}

fn answer<T>(result: Result<T, Refusal>, wrap: fn(T) -> ResponseBody) -> ResponseBody {
    match result {
        Ok(body) => wrap(body),
        Err(Refusal::Unsupported(message)) => {
            ResponseBody::Unsupported(UnsupportedResponse { message })
        }
        Err(Refusal::Error { code, message }) => error_body(&code, message),
    }
}
