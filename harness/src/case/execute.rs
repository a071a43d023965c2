//! Running one case against a `Transport`: skip if it does not apply, load
//! its plugins, send each step, judge each answer; the first failure is the
//! verdict. Every exchange is recorded for the report.

use super::judge::{self, Missed};
use super::model::{Action, Step, Token};
use super::partial::lookup;
use super::requirements::condition_holds;
use super::steps;
use super::Case;
use crate::transport::Transport;
use crate::verdict::{ErrorKind, ErrorVerdict, FailKind, Failure, Verdict};
use rbv_protocol::{
    ApproveRequest, Capability, DiffManifestsRequest, EvaluateRequest, InvokeRequest,
    LoadPluginsRequest, RecordEventRequest, RequestBody, ResetSessionRequest, ResponseBody,
    ValidateManifestRequest,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One request and its answer, as sent and received.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// The step number: 1-based; 0 is the `load_plugins` of the case's
    /// `plugins`, sent before step 1.
    pub step: usize,
    /// The wire request as JSON text, without its envelope's `id` and
    /// `session` (with `type`; with `session` first when the step acts in
    /// a named session, so that a report shows where it went). Text, not a `Value`: only a report of a
    /// case that did not pass reads it, and building a tree for every
    /// request was a tenth of the runner's time.
    pub request: String,
    pub response: Option<Value>,
    /// The answer line as the implementation wrote it.
    pub line: Option<String>,
}

impl Exchange {
    /// The request as JSON; a raw line that is not JSON (`send_raw`) as a
    /// string.
    pub fn request_value(&self) -> Value {
        serde_json::from_str(&self.request).unwrap_or_else(|_| Value::String(self.request.clone()))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CaseRun {
    pub verdict: Verdict,
    pub exchanges: Vec<Exchange>,
}

/// The answers the implementation gave to step `step` (one per request of
/// a `concurrent` step), as received.
pub fn answers_to(exchanges: &[Exchange], step: usize) -> impl Iterator<Item = &Value> {
    exchanges
        .iter()
        .filter(move |e| e.step == step)
        .filter_map(|e| e.response.as_ref())
}

/// The `reasons` those answers give: the implementation's own account of
/// its verdict, which a failure shows beside the keys it checks.
pub fn reasons_to(exchanges: &[Exchange], step: usize) -> impl Iterator<Item = &str> {
    answers_to(exchanges, step)
        .filter_map(|a| a.get("reasons").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
}

/// An answer the engine refuses; the implementation's stderr often says why.
pub(super) fn protocol(
    step: usize,
    message: String,
    line: Option<String>,
    stderr_tail: String,
) -> Verdict {
    Verdict::Error(ErrorVerdict {
        kind: ErrorKind::Protocol,
        step: Some(step),
        message,
        line,
        stderr_tail,
    })
}

pub(super) fn failure(step: usize, what: &str, m: Missed) -> Verdict {
    let expected = serde_json::to_string_pretty(&m.expected).unwrap_or_default() + "\n";
    let observed = serde_json::to_string_pretty(&m.observed).unwrap_or_default() + "\n";
    let diff = similar::TextDiff::from_lines(&expected, &observed)
        .unified_diff()
        .header("expected", "observed")
        .to_string();
    Verdict::Fail(Failure {
        kind: m.kind,
        step,
        message: format!("step {step} ({what}): {}", m.message),
        expected,
        observed,
        diff,
    })
}

/// Why the case does not apply to this implementation, if it does not.
fn skip_reason(case: &Case, transport: &dyn Transport) -> Option<String> {
    let identity = transport.identity();
    let name = &identity.handshake.implementation.name;
    let missing: Vec<&str> = case
        .needs
        .difference(&identity.capabilities)
        .map(|c| c.as_str())
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "needs capability {} which {name} does not claim",
            missing.join(", ")
        ));
    }
    for (key, want) in &case.profile {
        let declared = identity.handshake.profile.get(key);
        let (have, how) = match declared {
            Some(v) => (Some(v), "declares"),
            None => (case.profile_defaults.get(key), "defaults to"),
        };
        if !have.is_some_and(|h| condition_holds(want, h)) {
            let have = have.map_or("nothing".to_owned(), ToString::to_string);
            return Some(format!(
                "profile {key}: {name} {how} {have}; the case applies to {want}"
            ));
        }
    }
    None
}

fn resolve(
    token: &Option<Token>,
    captures: &BTreeMap<String, Value>,
) -> Result<Option<String>, String> {
    match token {
        None => Ok(None),
        Some(Token::Literal(t)) => Ok(Some(t.clone())),
        Some(Token::Capture(name)) => match captures.get(name) {
            Some(Value::String(t)) => Ok(Some(t.clone())),
            Some(other) => Err(format!(
                "capture `{name}` holds {other}, not a token string"
            )),
            None => Err(format!("capture `{name}` was not captured")),
        },
    }
}

pub(crate) fn bodies(
    action: &Action,
    captures: &BTreeMap<String, Value>,
) -> Result<Vec<RequestBody>, String> {
    Ok(vec![match action {
        Action::LoadPlugins(plugins) => RequestBody::LoadPlugins(LoadPluginsRequest {
            plugins: plugins.clone(),
        }),
        Action::ValidateManifest(plugin) => {
            RequestBody::ValidateManifest(ValidateManifestRequest {
                plugin: plugin.clone(),
            })
        }
        Action::Project(p) => RequestBody::Project(p.clone()),
        Action::RecordEvent(event) => RequestBody::RecordEvent(RecordEventRequest {
            event: event.clone(),
        }),
        Action::SetPolicy(p) => RequestBody::SetPolicy(p.clone()),
        Action::Evaluate(op) => RequestBody::Evaluate(EvaluateRequest {
            operation: op.clone(),
        }),
        Action::Approve {
            operation,
            approver,
        } => RequestBody::Approve(ApproveRequest {
            operation: operation.clone(),
            approver: approver.clone(),
        }),
        Action::Invoke { operation, token } => RequestBody::Invoke(InvokeRequest {
            operation: operation.clone(),
            token: resolve(token, captures)?,
        }),
        Action::DiffManifests { old, new } => RequestBody::DiffManifests(DiffManifestsRequest {
            old: old.clone(),
            new: new.clone(),
        }),
        Action::ResetSession => RequestBody::ResetSession(ResetSessionRequest {}),
        // Raw lines are sent by `raw::run`, never as typed bodies.
        Action::SendRaw(_) => return Err("a raw line has no typed request body".into()),
        Action::Concurrent(actions) => {
            let mut all = Vec::new();
            for a in actions {
                all.extend(bodies(a, captures)?);
            }
            return Ok(all);
        }
    }])
}

/// The requests of one step.
struct Batch {
    number: usize,
    what: &'static str,
    bodies: Vec<RequestBody>,
    /// The step expects `type: unsupported`.
    expects_unsupported: bool,
    /// What the step needs, to name in an unexpected `unsupported`.
    needs: BTreeSet<Capability>,
    /// Sent in a named session (recorded in each exchange's request).
    named: bool,
}

/// Sends one batch and checks the answers are well-formed answers to it;
/// returns where they stand in `run.exchanges`. `Err` is the verdict.
fn send(
    transport: &mut dyn Transport,
    session: &str,
    batch: Batch,
    run: &mut CaseRun,
) -> Result<std::ops::Range<usize>, Verdict> {
    let Batch {
        number,
        what,
        bodies,
        expects_unsupported,
        needs,
        named,
    } = batch;
    let requests: Vec<String> = bodies
        .iter()
        .map(|b| {
            let text = b.typed_json();
            match text.strip_prefix('{') {
                Some(rest) if named => format!("{{\"session\":{},{rest}", Value::from(session)),
                _ => text,
            }
        })
        .collect();
    let count = bodies.len();
    let result = transport.exchange(session, bodies);
    let observations = match result {
        Ok(o) => o,
        Err(e) => {
            run.exchanges
                .extend(requests.into_iter().map(|request| Exchange {
                    step: number,
                    request,
                    response: None,
                    line: e.line.clone(),
                }));
            return Err(Verdict::Error(ErrorVerdict {
                kind: e.kind,
                step: Some(number),
                message: e.message,
                line: e.line,
                stderr_tail: e.stderr_tail,
            }));
        }
    };
    // The answers move into the run's record (reports show them); the
    // caller judges them there, so nothing is copied.
    let start = run.exchanges.len();
    let answered = observations.len();
    let mut observations = observations.into_iter();
    let mut typed = Vec::with_capacity(answered);
    for request in requests {
        let o = observations.next();
        let (response, line) = match o {
            Some(o) => {
                typed.push(o.response);
                (Some(o.value), Some(o.line))
            }
            None => (None, None),
        };
        run.exchanges.push(Exchange {
            step: number,
            request,
            response,
            line,
        });
    }
    if answered != count {
        let message = format!("{count} requests got {answered} answers");
        return Err(protocol(number, message, None, transport.stderr_tail()));
    }
    let line = |i: usize| run.exchanges[start + i].line.clone();
    for (i, response) in typed.iter().enumerate() {
        let response = match response {
            Ok(r) => r,
            Err(why) => {
                let message = format!("step {number} ({what}): not a valid answer: {why}");
                return Err(protocol(number, message, line(i), transport.stderr_tail()));
            }
        };
        if response.session != session {
            let message = format!(
                "step {number} ({what}): answer for session `{}` to a request in session `{session}`",
                response.session
            );
            return Err(protocol(number, message, line(i), transport.stderr_tail()));
        }
        if let ResponseBody::Unsupported(u) = &response.body {
            if !expects_unsupported {
                let claimed: Vec<&str> = needs.iter().map(|c| c.as_str()).collect();
                let message = if claimed.is_empty() {
                    format!(
                        "step {number} ({what}): answered unsupported in a case that needs no capability (rbv lint refuses such a step unless it is reset_session): {}",
                        u.message
                    )
                } else {
                    format!(
                        "step {number} ({what}): claims {} but answered unsupported: {}",
                        claimed.join(", "),
                        u.message
                    )
                };
                return Err(protocol(number, message, line(i), transport.stderr_tail()));
            }
        }
    }
    Ok(start..start + count)
}

/// The answers of a batch that `send` accepted, from the run's record.
fn answers(run: &CaseRun, sent: std::ops::Range<usize>) -> Vec<&Value> {
    run.exchanges[sent]
        .iter()
        .map(|e| e.response.as_ref().expect("send checked every answer"))
        .collect()
}

/// The sessions one case acts in: its own, and the named ones its steps
/// choose with `session:`.
struct Sessions<'a> {
    own: &'a str,
    /// Named sessions already reset in this case.
    opened: BTreeSet<String>,
}

impl Sessions<'_> {
    /// The wire session of `step`. A named session's wire name is its name
    /// exactly as written, so that names like `__proto__` reach the
    /// implementation as they are; since another case on this connection
    /// may have used the same name, it is reset before its first use (as
    /// the fuzzer does with the names it reuses).
    fn enter(
        &mut self,
        step: &Step,
        number: usize,
        transport: &mut dyn Transport,
        run: &mut CaseRun,
    ) -> Result<String, Verdict> {
        let Some(name) = &step.session else {
            return Ok(self.own.to_owned());
        };
        if self.opened.contains(name) {
            return Ok(name.clone());
        }
        let batch = Batch {
            number,
            what: "reset_session",
            bodies: vec![RequestBody::ResetSession(ResetSessionRequest {})],
            expects_unsupported: false,
            needs: BTreeSet::new(),
            named: true,
        };
        let sent = send(transport, name, batch, run)?;
        let answer = answers(run, sent)[0];
        let got = answer.get("type").and_then(Value::as_str).unwrap_or("");
        if got != "ack" {
            let m = Missed {
                kind: FailKind::Mismatch,
                message: format!(
                    "resetting session `{name}` before its first use got `{got}`, not `ack`"
                ),
                expected: serde_json::json!({ "type": "ack" }),
                observed: answer.clone(),
            };
            return Err(failure(number, "reset_session", m));
        }
        self.opened.insert(name.clone());
        Ok(name.clone())
    }
}

fn run_step(
    step: &Step,
    number: usize,
    transport: &mut dyn Transport,
    sessions: &mut Sessions,
    captures: &mut BTreeMap<String, Value>,
    run: &mut CaseRun,
) -> Result<(), Verdict> {
    let session = sessions.enter(step, number, transport, run)?;
    let session = session.as_str();
    let what = step.action.key();
    if let Action::SendRaw(line) = &step.action {
        return super::raw::run(step, line, number, transport, session, captures, run);
    }
    let batch = bodies(&step.action, captures).map_err(|message| {
        failure(
            number,
            what,
            Missed {
                kind: FailKind::Mismatch,
                message,
                expected: Value::String("a token captured from an earlier answer".into()),
                observed: Value::Null,
            },
        )
    })?;
    let unsupported = step.expect.answer_type.as_deref() == Some("unsupported");
    let mut needs = BTreeSet::new();
    steps::action_needs(&step.action, &mut needs);
    let batch = Batch {
        number,
        what,
        bodies: batch,
        expects_unsupported: unsupported,
        needs,
        named: step.session.is_some(),
    };
    let sent = send(transport, session, batch, run)?;
    let answers = answers(run, sent);
    if let Some(m) = judge::judge(step, &answers, captures) {
        return Err(failure(number, what, m));
    }
    for (name, path) in &step.capture {
        match answers.first().and_then(|a| lookup(a, path)) {
            Some(v) if !v.is_null() => {
                captures.insert(name.clone(), v.clone());
            }
            _ => {
                let m = Missed {
                    kind: FailKind::Mismatch,
                    message: format!("capture `{name}`: the answer has no `{path}`"),
                    expected: serde_json::json!({ "capture": path }),
                    observed: answers.first().map_or(Value::Null, |a| (*a).clone()),
                };
                return Err(failure(number, what, m));
            }
        }
    }
    Ok(())
}

/// Runs `case` in `session` (and the sessions its steps name). The session
/// should be fresh (or reset).
pub fn execute(case: &Case, transport: &mut dyn Transport, session: &str) -> CaseRun {
    let mut run = CaseRun {
        verdict: Verdict::Pass,
        exchanges: Vec::new(),
    };
    if let Some(reason) = skip_reason(case, transport) {
        run.verdict = Verdict::Skip { reason };
        return run;
    }
    transport.begin_case();
    if !case.plugins.is_empty() {
        let body = RequestBody::LoadPlugins(LoadPluginsRequest {
            plugins: case.plugins.clone(),
        });
        let batch = Batch {
            number: 0,
            what: "plugins",
            bodies: vec![body],
            expects_unsupported: false,
            needs: BTreeSet::from([Capability::Manifest]),
            named: false,
        };
        match send(transport, session, batch, &mut run) {
            Ok(sent) => {
                let answer = answers(&run, sent)[0];
                let got = answer.get("type").and_then(Value::as_str).unwrap_or("");
                if got != "loaded" {
                    let m = Missed {
                        kind: FailKind::Mismatch,
                        message: format!("loading the case's plugins got `{got}`, not `loaded`"),
                        expected: serde_json::json!({ "type": "loaded" }),
                        observed: answer.clone(),
                    };
                    run.verdict = failure(0, "load_plugins", m);
                    return run;
                }
            }
            Err(verdict) => {
                run.verdict = verdict;
                return run;
            }
        }
    }
    let mut captures = BTreeMap::new();
    let mut sessions = Sessions {
        own: session,
        opened: BTreeSet::new(),
    };
    for (i, step) in case.steps.iter().enumerate() {
        let number = i + 1;
        if let Err(verdict) = run_step(
            step,
            number,
            transport,
            &mut sessions,
            &mut captures,
            &mut run,
        ) {
            run.verdict = verdict;
            return run;
        }
    }
    run
}
