//! A transport that puts one simulated client bug between the case engine
//! and the in-process reference: the bug sees every request (its JSON, with
//! `type`) and may rewrite it, answer it itself, send the reference other
//! requests first, or edit the reference's answer.

use rbv::transport::InProcess;
use rbv::transport::{Identity, Observation, RawObservation, Transport, TransportError};
use rbv_protocol::{Request, Response};
use serde_json::{json, Value};

/// The correct implementation behind the bug.
pub struct Inner {
    reference: InProcess,
}

impl Inner {
    /// Sends `request` (a body with `type`) in `session`; returns the answer.
    pub fn call(&mut self, session: &str, request: &Value) -> Value {
        let mut envelope = request.clone();
        envelope["id"] = json!(1);
        envelope["session"] = json!(session);
        let body = Request::from_json(&envelope)
            .unwrap_or_else(|e| panic!("a rewritten request parses: {e}: {envelope}"))
            .body;
        let o = self
            .reference
            .exchange(session, vec![body])
            .expect("the reference answers")
            .remove(0);
        o.value
    }
}

/// One simulated bug: what the buggy client answers to `request` in
/// `session`, with a correct implementation at hand.
pub trait Bug: Send {
    /// A profile value the client really implements, whatever its
    /// handshake says (the handshake stays the reference's).
    fn profile(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    fn handle(&mut self, inner: &mut Inner, session: &str, request: Value) -> Value {
        inner.call(session, &request)
    }
}

/// No bug at all.
pub struct Correct;
impl Bug for Correct {}

/// A stateless bug made of a request rewrite and an answer edit.
pub struct Simple {
    pub rewrite: fn(&mut Value),
    pub edit: fn(&Value, &mut Value),
}
impl Bug for Simple {
    fn handle(&mut self, inner: &mut Inner, session: &str, mut request: Value) -> Value {
        (self.rewrite)(&mut request);
        let mut answer = inner.call(session, &request);
        (self.edit)(&request, &mut answer);
        answer
    }
}

/// A stateful bug written as a closure over its own state.
pub struct Stateful<F: FnMut(&mut Inner, &str, Value) -> Value>(pub F);
impl<F: FnMut(&mut Inner, &str, Value) -> Value + Send> Bug for Stateful<F> {
    fn handle(&mut self, inner: &mut Inner, session: &str, request: Value) -> Value {
        (self.0)(inner, session, request)
    }
}

/// A bug whose client implements another profile value than it claims.
pub struct Claims(pub &'static str, pub &'static str);
impl Bug for Claims {
    fn profile(&self) -> Option<(&'static str, &'static str)> {
        Some((self.0, self.1))
    }
}

pub struct Proxy {
    inner: Inner,
    identity: Identity,
    bug: Box<dyn Bug>,
}

impl Proxy {
    pub fn new(bug: Box<dyn Bug>) -> Self {
        let claimed = InProcess::new(None);
        let identity = claimed.identity().clone();
        let reference = match bug.profile() {
            Some((key, value)) => {
                let mut profile = rbv_reference::Profile::default();
                profile.set(key, value).expect("a known profile value");
                InProcess::with_profile(None, profile)
            }
            None => claimed,
        };
        Proxy {
            inner: Inner { reference },
            identity,
            bug,
        }
    }
}

impl Transport for Proxy {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, TransportError> {
        self.inner.reference.raw(session, template)
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        self.inner.reference.before_handshake(session, template)
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<rbv_protocol::RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        let mut out = Vec::new();
        for body in bodies {
            let request: Value = serde_json::from_str(&body.typed_json()).unwrap();
            let mut value = self.bug.handle(&mut self.inner, session, request);
            value["session"] = Value::from(session);
            out.push(Observation {
                line: value.to_string(),
                response: Response::from_json(&value).map_err(|e| e.to_string()),
                value,
            });
        }
        Ok(out)
    }
}
