//! An implementation written with `rbv-adapter`, linked in: requests go
//! through `Dispatcher::handle_line`, the very function its stdio adapter
//! runs, as text both ways, so that a case judges exactly the lines the
//! adapter binary would have written. `rbv::certify` runs the suite on it.

use crate::transport::{
    fill_raw, Identity, Observation, RawObservation, Transport, TransportError,
};
use crate::verdict::ErrorKind;
use rbv_adapter::{Dispatcher, Implementation};
use rbv_protocol::{HandshakeRequest, Request, RequestBody, Response, PROTOCOL_VERSION};
use std::sync::Arc;

/// Makes a fresh implementation: one per connection, and one for each
/// line a case sends before a handshake.
pub type Factory<I> = Arc<dyn Fn() -> I + Send + Sync>;

/// One instance of an SDK implementation, handshaken, behind `Transport`.
pub struct SdkInProcess<I: Implementation> {
    dispatcher: Dispatcher<I>,
    factory: Factory<I>,
    identity: Identity,
    next_id: u64,
}

fn protocol_error(message: String, line: Option<String>) -> TransportError {
    TransportError {
        kind: ErrorKind::Protocol,
        message,
        line,
        stderr_tail: String::new(),
    }
}

/// An answer line as the process transport would have read it.
fn observe(line: String) -> Result<Observation, TransportError> {
    let value: serde_json::Value = serde_json::from_str(&line).map_err(|e| TransportError {
        kind: ErrorKind::Garbage,
        message: format!("the answer is not JSON: {e}"),
        line: Some(line.clone()),
        stderr_tail: String::new(),
    })?;
    let response = Response::from_json(&value).map_err(|e| e.to_string());
    Ok(Observation {
        line,
        value,
        response,
    })
}

fn handshake_line(id: u64) -> String {
    Request {
        id,
        session: "handshake".into(),
        body: RequestBody::Handshake(HandshakeRequest {
            protocol_version: PROTOCOL_VERSION,
            harness: format!("rbv {} (in process)", env!("CARGO_PKG_VERSION")),
        }),
    }
    .to_line()
}

/// Sends the handshake to `dispatcher` and reads who answered.
fn shake<I: Implementation>(
    dispatcher: &mut Dispatcher<I>,
    id: u64,
) -> Result<Identity, TransportError> {
    let line = dispatcher.handle_line(&handshake_line(id));
    match observe(line.clone())?.response {
        Ok(Response {
            body: rbv_protocol::ResponseBody::Handshake(h),
            ..
        }) => Ok(Identity::from_handshake(h)),
        _ => Err(protocol_error(
            "the handshake was not answered with a handshake".into(),
            Some(line),
        )),
    }
}

impl<I: Implementation> SdkInProcess<I> {
    /// A fresh instance from `factory`, after its handshake.
    pub fn connect(factory: Factory<I>) -> Result<Self, TransportError> {
        let mut dispatcher = Dispatcher::new(factory());
        let identity = shake(&mut dispatcher, 0)?;
        Ok(SdkInProcess {
            dispatcher,
            factory,
            identity,
            next_id: 0,
        })
    }

    /// One request answered without the envelope's serialization: for a
    /// fuzzer, whose coverage guidance should see the implementation's
    /// branches rather than the JSON codec's.
    pub fn call(&mut self, session: &str, body: RequestBody) -> Response {
        let id = self.next();
        self.dispatcher.handle(Request {
            id,
            session: session.to_owned(),
            body,
        })
    }

    /// Drops every session's state: a long-running caller that never
    /// reuses a session name (a fuzzer) keeps memory flat with it.
    pub fn forget_sessions(&mut self) {
        self.dispatcher.forget_sessions();
    }

    /// The implementation served.
    pub fn implementation(&self) -> &I {
        self.dispatcher.implementation()
    }

    fn next(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

impl<I: Implementation> Transport for SdkInProcess<I> {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        let mut answers = Vec::with_capacity(bodies.len());
        for body in bodies {
            let id = self.next();
            let request = Request {
                id,
                session: session.to_owned(),
                body,
            };
            let answer = observe(self.dispatcher.handle_line(&request.to_line()))?;
            // The checks the process transport makes of every answer.
            if let Ok(r) = &answer.response {
                if r.id != Some(id) || r.session != session {
                    return Err(protocol_error(
                        format!("an answer to request {id} in session `{session}` came back under another id or session"),
                        Some(answer.line),
                    ));
                }
            }
            answers.push(answer);
        }
        Ok(answers)
    }

    fn raw(&mut self, session: &str, template: &str) -> Result<RawObservation, TransportError> {
        let sent = fill_raw(template, self.next(), session);
        let answer = observe(self.dispatcher.handle_line(&sent))?;
        Ok(RawObservation { sent, answer })
    }

    fn before_handshake(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        let mut fresh = Dispatcher::new((self.factory)());
        let sent = fill_raw(template, 1, session);
        let answer = observe(fresh.handle_line(&sent))?;
        shake(&mut fresh, 2).map_err(|mut e| {
            e.message = format!("after a request before the handshake: {}", e.message);
            e
        })?;
        Ok(RawObservation { sent, answer })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{execute, load_files};
    use crate::verdict::Verdict;

    /// The least an implementation can be: it claims no capability,
    /// acknowledges events and policies and escalates every call (fail
    /// safe); every other request type is left `unsupported`.
    struct Bare;

    impl Implementation for Bare {
        type Session = ();
        fn name(&self) -> String {
            "bare".into()
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn record_event(
            &mut self,
            _: &mut (),
            _: rbv_protocol::RecordEventRequest,
        ) -> rbv_adapter::Answer<rbv_protocol::AckResponse> {
            Ok(rbv_protocol::AckResponse {})
        }
        fn set_policy(
            &mut self,
            _: &mut (),
            _: rbv_protocol::SetPolicyRequest,
        ) -> rbv_adapter::Answer<rbv_protocol::AckResponse> {
            Ok(rbv_protocol::AckResponse {})
        }
        fn evaluate(
            &mut self,
            _: &mut (),
            _: rbv_protocol::EvaluateRequest,
        ) -> rbv_adapter::Answer<rbv_protocol::EvaluationResponse> {
            Ok(rbv_protocol::EvaluationResponse {
                band: rbv_protocol::Band::Escalate,
                decision: rbv_protocol::Decision::Ask,
                declared: None,
                reasons: Vec::new(),
                signature: None,
                audit: None,
            })
        }
    }

    /// The protocol area (bad lines, unknown types, ids up to 2^64, a line
    /// before the handshake) is the SDK's work: an implementation gets it
    /// right without writing any of it.
    #[test]
    fn a_bare_implementation_passes_the_protocol_area() {
        let suite = load_files(&crate::embedded::files()).expect("the corpus loads");
        let factory: Factory<Bare> = Arc::new(|| Bare);
        let mut transport = SdkInProcess::connect(factory).expect("handshake");
        assert_eq!(transport.identity().handshake.implementation.name, "bare");
        let protocol: Vec<_> = suite
            .cases
            .iter()
            .filter(|c| c.area() == "protocol")
            .collect();
        assert!(protocol.len() > 10, "{} protocol cases", protocol.len());
        let failed: Vec<String> = protocol
            .into_iter()
            .enumerate()
            .filter_map(|(n, case)| {
                let run = execute(case, &mut transport, &format!("s{n}"));
                (run.verdict != Verdict::Pass).then(|| format!("{}: {:?}", case.id, run.verdict))
            })
            .collect();
        assert!(failed.is_empty(), "{}", failed.join("\n"));
        // And a case of a capability it does not claim is skipped, not run.
        let projection = suite
            .cases
            .iter()
            .find(|c| c.area() == "projection")
            .unwrap();
        let run = execute(projection, &mut transport, "p");
        assert!(
            matches!(run.verdict, Verdict::Skip { .. }),
            "{:?}",
            run.verdict
        );
    }
}
