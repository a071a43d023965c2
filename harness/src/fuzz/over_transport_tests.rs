//! `OverTransport` driven by the real driver: session names and resets.

use super::driver::{drive, Options};
use super::subject::OverTransport;
use super::targets::by_name;
use crate::transport::InProcess as LinkedIn;
use crate::transport::Transport;
use crate::transport::{Identity, Observation, TransportError};
use rbv_protocol::{RequestBody, ResponseBody};
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
    ) -> Result<Vec<Observation>, TransportError> {
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

fn fuzz(target: &str, refuse_reset: bool, execs: u64) -> Vec<(String, Vec<&'static str>)> {
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
    let outcome = drive(by_name(target).unwrap(), &mut subject, &options);
    assert_eq!(outcome.execs, execs);
    assert!(outcome.found.is_empty(), "the reference has no finding");
    let batches = batches.lock().unwrap().clone();
    batches
}

#[test]
fn execs_reuse_session_names_each_reset_with_its_first_request() {
    // A target with one session per exec, or two for a Rule-of-Two probe
    // (its calibration, then the probe): every exec reuses the same names.
    let batches = fuzz("sql_bypass", false, 50);
    let names: std::collections::BTreeSet<&str> = batches.iter().map(|(s, _)| s.as_str()).collect();
    let names: Vec<&str> = names.into_iter().collect();
    assert!(
        names == ["fuzz-1"] || names == ["fuzz-1", "fuzz-2"],
        "{names:?}"
    );
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
    let batches = fuzz("sql_bypass", true, 20);
    let names: std::collections::BTreeSet<&str> = batches.iter().map(|(s, _)| s.as_str()).collect();
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

#[test]
fn sequences_over_two_sessions_reuse_two_names() {
    let batches = fuzz("token_binding", false, 200);
    let names: std::collections::BTreeSet<&str> = batches.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(names.into_iter().collect::<Vec<_>>(), ["fuzz-1", "fuzz-2"]);
    // A reset the target asks for goes out alone, besides the implicit
    // ones that open each session of an exec.
    assert!(batches.iter().any(|(_, k)| k == &["reset_session"]));
}
