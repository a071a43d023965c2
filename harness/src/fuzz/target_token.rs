//! The token target: an approval, then redemptions that the rule allows or
//! refuses, in one session or across two and their resets.
//!
//! The case format has one session per case, so a finding that needs two
//! writes the second session's steps after a `# session b` comment: the
//! case documents the sequence; `rbv fuzz --impl` reproduces it.

use super::finding::{CaseDraft, Finding};
use super::gen::token::{input, same_data, Probe, TokenInput};
use super::req;
use super::steps::{op_json, plugins_yaml};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::json;

/// An operation the plugins declare auto: it needs no token.
fn auto_op() -> Operation {
    Operation {
        plugin: Some("status-tools".into()),
        id: "mcp:status/read_status".into(),
        kind: None,
        arguments: Default::default(),
        trust: Some(Trust::Trusted),
        actor: None,
        dialect: None,
        workspace: None,
    }
}

/// A plugin named `name` declaring `operations` (in the 1.0.0 placement).
pub(super) fn bundle(name: &str, operations: serde_json::Value) -> PluginBundle {
    PluginBundle {
        manifest: json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": name,
            "version": "1.0.0",
            "permissions": {"operations": operations},
        })
        .into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}

/// Every plugin operation of A and B declared escalate (so that each needs
/// an approval in any implementation), plus the auto operation.
fn plugins(ops: &[&Operation]) -> Vec<PluginBundle> {
    let mut names: Vec<&str> = ops.iter().filter_map(|o| o.plugin.as_deref()).collect();
    names.sort();
    names.dedup();
    let mut ids: Vec<&str> = ops.iter().map(|o| o.id.as_str()).collect();
    ids.retain(|id| id.starts_with("mcp:"));
    ids.sort();
    ids.dedup();
    let operations: Vec<serde_json::Value> = ids
        .iter()
        .map(|id| json!({"id": id, "band": "escalate", "reversibility": "irreversible", "scope": "external"}))
        .collect();
    let mut out: Vec<PluginBundle> = names
        .into_iter()
        .map(|name| bundle(name, json!(operations)))
        .collect();
    out.push(bundle(
        "status-tools",
        json!([{"id": "mcp:status/read_status", "band": "auto", "reversibility": "reversible",
                "scope": "local", "trust": "trusted"}]),
    ));
    out
}

fn human() -> Approver {
    Approver {
        kind: ApproverKind::Human,
        name: "user".into(),
    }
}

/// A step sent, kept as data: its case text is written only for a finding
/// (serializing every exec's operations would cost more than the exec).
enum Logged {
    Load,
    Approve {
        op: Operation,
        approver: Option<ApproverKind>,
        capture: &'static str,
    },
    Invoke {
        op: Operation,
        /// A capture name, or a quoted literal (a forgery).
        token: Option<String>,
        times: usize,
        expect: &'static str,
    },
    Reset,
    Evaluate(Operation),
}

/// One exec's sessions and what was sent in each.
struct Run<'s> {
    subject: &'s mut dyn Subject,
    plugins: Vec<PluginBundle>,
    /// Sessions whose plugins are loaded.
    loaded: Vec<String>,
    /// Each step with its session (`true`: the first session).
    log: Vec<(bool, Logged)>,
    first: String,
}

impl<'s> Run<'s> {
    fn new(subject: &'s mut dyn Subject, plugins: Vec<PluginBundle>) -> Self {
        let first = subject.fresh_session();
        Run {
            subject,
            plugins,
            loaded: vec![],
            log: vec![],
            first,
        }
    }

    fn session(&mut self) -> String {
        self.subject.fresh_session()
    }

    fn step(&mut self, session: &str, step: Logged) {
        self.log.push((session == self.first, step));
    }

    /// The case's `steps:` text.
    fn steps(&self) -> String {
        let mut out = String::new();
        let mut in_first = true;
        for (first, step) in &self.log {
            if *first != in_first {
                in_first = *first;
                out.push_str(if in_first {
                    "  # session a\n"
                } else {
                    "  # session b\n"
                });
            }
            out.push_str(&match step {
                Logged::Load => format!("  - load_plugins:\n{}", plugins_yaml(&self.plugins)),
                Logged::Approve {
                    op,
                    approver,
                    capture,
                } => {
                    let who = approver.map_or(String::new(), |k| {
                        format!(
                            ", approver: {{kind: {k}, name: {k}-approver}}",
                            k = k.as_str()
                        )
                    });
                    format!(
                        "  - approve: {{operation: {}{who}}}\n    capture: {{{capture}: token}}\n",
                        op_json(op)
                    )
                }
                Logged::Invoke {
                    op,
                    token,
                    times,
                    expect,
                } => {
                    let tok = match token {
                        Some(name) if name.starts_with('"') => format!(", token: {name}"),
                        Some(name) => format!(", token: {{capture: {name}}}"),
                        None => String::new(),
                    };
                    let line = format!("{{operation: {}{tok}}}", op_json(op));
                    if *times == 1 {
                        format!("  - invoke: {line}\n    expect: {expect}\n")
                    } else {
                        let items = vec![format!("      - invoke: {line}\n"); *times].concat();
                        format!("  - concurrent:\n{items}    expect: {expect}\n")
                    }
                }
                Logged::Reset => "  - reset_session: {}\n".to_owned(),
                Logged::Evaluate(op) => {
                    format!(
                        "  - evaluate: {}\n    expect: {{band: escalate}}\n",
                        op_json(op)
                    )
                }
            });
        }
        out
    }

    /// Sends `bodies` after the plugins, if `session` has not loaded them.
    fn send(&mut self, session: &str, mut bodies: Vec<RequestBody>) -> Vec<Option<ResponseBody>> {
        let asked = bodies.len();
        let load = !self.loaded.iter().any(|s| s == session);
        if load {
            bodies.insert(
                0,
                RequestBody::LoadPlugins(LoadPluginsRequest {
                    plugins: self.plugins.clone(),
                }),
            );
            self.loaded.push(session.to_owned());
            // Before the step this batch carries, logged by the caller.
            let at = if asked == 0 {
                self.log.len()
            } else {
                self.log.len() - 1
            };
            self.log.insert(at, (session == self.first, Logged::Load));
        }
        let answers = self.subject.call_batch(session, bodies);
        let mut answers: Vec<Option<ResponseBody>> = answers.into_iter().map(Result::ok).collect();
        if load && !answers.is_empty() {
            answers.remove(0);
        }
        answers.resize_with(asked, || None);
        answers
    }

    fn approve(
        &mut self,
        session: &str,
        op: &Operation,
        approver: Approver,
        capture: &'static str,
    ) -> Option<String> {
        let kind = approver.kind;
        let body = RequestBody::Approve(ApproveRequest {
            operation: op.clone(),
            approver,
        });
        self.step(
            session,
            Logged::Approve {
                op: op.clone(),
                approver: (kind != ApproverKind::Human).then_some(kind),
                capture,
            },
        );
        match self.send(session, vec![body]).pop().flatten() {
            Some(ResponseBody::Approval(a)) if a.granted => a.token,
            _ => None,
        }
    }

    /// `times` redemptions in one batch; how many were allowed (None: an
    /// answer that was not an invocation).
    fn invoke(
        &mut self,
        session: &str,
        op: &Operation,
        token: Option<(&str, &str)>,
        times: usize,
        expect: &'static str,
    ) -> Option<usize> {
        let body = RequestBody::Invoke(InvokeRequest {
            operation: op.clone(),
            token: token.map(|(t, _)| t.to_owned()),
        });
        self.step(
            session,
            Logged::Invoke {
                op: op.clone(),
                token: token.map(|(_, name)| name.to_owned()),
                times,
                expect,
            },
        );
        let answers = self.send(session, vec![body; times]);
        let mut allowed = 0;
        for a in answers {
            match a {
                Some(ResponseBody::Invocation(i)) => allowed += usize::from(i.allowed),
                _ => return None,
            }
        }
        Some(allowed)
    }

    /// Whether `op` is refused without a token (else a redemption that is
    /// allowed proves nothing about the token).
    fn needs_token(&mut self, session: &str, op: &Operation) -> bool {
        self.invoke(session, op, None, 1, REFUSED) == Some(0)
    }

    fn reset(&mut self, session: &str) -> bool {
        self.step(session, Logged::Reset);
        self.loaded.retain(|s| s != session);
        matches!(
            self.subject
                .call(session, RequestBody::ResetSession(Default::default())),
            Ok(ResponseBody::Ack(_))
        )
    }

    fn evaluate_band(&mut self, session: &str, op: &Operation) -> Option<Band> {
        self.step(session, Logged::Evaluate(op.clone()));
        let body = RequestBody::Evaluate(EvaluateRequest {
            operation: op.clone(),
        });
        match self.send(session, vec![body]).pop().flatten() {
            Some(ResponseBody::Evaluation(e)) => Some(e.band),
            _ => None,
        }
    }

    fn finding(
        self,
        requirement: &'static str,
        kind: FailKind,
        summary: String,
        title: String,
        family: String,
    ) -> Option<Finding> {
        let tag = if kind == FailKind::Over {
            "precision"
        } else {
            "bypass"
        };
        Some(Finding {
            target: "token_binding",
            requirement,
            kind,
            summary,
            family,
            payload: None,
            difference: String::new(),
            case: CaseDraft {
                area: "tokens",
                title,
                tags: vec!["tokens", tag],
                steps: self.steps(),
            },
        })
    }
}

const REFUSED: &str = "{allowed: false}";
const ALLOWED: &str = "{allowed: true}";

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let t = input(u)?;
    let mut run = Run::new(subject, plugins(&[&t.a, &t.b]));
    // Findings are told apart by what the generator did: the mutation of
    // a binding probe, the approver of a minting probe, else the probe.
    let family = match t.probe {
        Probe::Binding => format!("binding/{}", t.mutation.name()),
        Probe::Minting(kind) => format!("minting/{}", kind.as_str()),
        other => other.name().trim_start_matches("probe:").to_owned(),
    };
    Ok(probe(&mut run, &t)
        .and_then(|(req, kind, summary, title)| run.finding(req, kind, summary, title, family)))
}

type Verdict = (&'static str, FailKind, String, String);

fn probe(run: &mut Run, t: &TokenInput) -> Option<Verdict> {
    let a = run.first.clone();
    let under = FailKind::Under;
    // Only a finding needs the text.
    let op = || op_json(&t.a);
    match t.probe {
        Probe::Binding => {
            if same_data(&t.a, &t.b) {
                return None;
            }
            let token = run.approve(&a, &t.a, human(), "tok")?;
            if !run.needs_token(&a, &t.b) {
                return None;
            }
            (run.invoke(&a, &t.b, Some((&token, "tok")), 1, REFUSED)? > 0).then(|| {
                (
                    if t.mutation.requirements().contains(&req::TOKEN_SCOPE) {
                        req::TOKEN_SCOPE
                    } else {
                        req::TOKEN_BINDING
                    },
                    under,
                    format!(
                        "a token approved for {op} also authorized a call that differs by {}",
                        t.mutation.name(),
                        op = op()
                    ),
                    format!(
                        "A token for one call does not authorize a call changed by {}",
                        t.mutation.describe()
                    ),
                )
            })
        }
        Probe::Replay => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            if run.invoke(&a, &t.a, Some((&token, "tok")), 1, ALLOWED)? == 0 {
                return Some((
                    req::TOKEN_EXACT,
                    FailKind::Over,
                    format!("a human's token for exactly {op} was refused", op = op()),
                    "An exact human-approved operation is allowed".into(),
                ));
            }
            (run.invoke(&a, &t.a, Some((&token, "tok")), 1, REFUSED)? > 0).then(|| {
                (
                    req::TOKEN_SINGLE_USE,
                    under,
                    format!("a token was redeemed twice for {op}", op = op()),
                    "A token is single-use: the second redemption is refused".into(),
                )
            })
        }
        Probe::Concurrent => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            (run.invoke(&a, &t.a, Some((&token, "tok")), 3, "{allowed_count: 1}")? > 1).then(|| {
                (req::TOKEN_CONCURRENT, under, format!("three pipelined redemptions of one token for {op} were allowed more than once", op = op()), "Concurrent redemptions of one token succeed at most once".into())
            })
        }
        Probe::Minting(kind) => {
            let approver = Approver {
                kind,
                name: format!("{}-approver", kind.as_str()),
            };
            run.approve(&a, &t.a, approver, "tok")?;
            Some((
                req::TOKEN_HUMAN_ONLY,
                under,
                format!("a token was minted for a {} approver", kind.as_str()),
                format!("No token is minted for a {} approver", kind.as_str()),
            ))
        }
        Probe::Forged => {
            use sha2::{Digest, Sha256};
            let hash = hex::encode(Sha256::digest(op().as_bytes()));
            let forged = [
                "".to_owned(),
                "rbv1".to_owned(),
                hash,
                "approved".to_owned(),
            ];
            let token = &forged[t.a.arguments.len() % forged.len()];
            let literal = crate::fuzz::finding::yaml_string(token);
            (run.invoke(&a, &t.a, Some((token, &literal)), 1, REFUSED)? > 0).then(|| {
                (
                    req::TOKEN_FORGED,
                    under,
                    format!(
                        "a model-computable token {literal} authorized {op}",
                        op = op()
                    ),
                    "A token the model can compute authorizes nothing".into(),
                )
            })
        }
        Probe::StandingGrant => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            run.invoke(&a, &t.a, Some((&token, "tok")), 1, ALLOWED)?;
            if run.evaluate_band(&a, &t.a)? < Band::Escalate
                || run.invoke(&a, &t.a, None, 1, REFUSED)? > 0
            {
                return Some((
                    req::TOKEN_STANDING,
                    under,
                    format!(
                        "after one redemption, {op} was lowered or allowed without a token",
                        op = op()
                    ),
                    "A redeemed token is not a standing grant".into(),
                ));
            }
            None
        }
        Probe::CrossSession => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            let b = run.session();
            (run.invoke(&b, &t.a, Some((&token, "tok")), 1, REFUSED)? > 0).then(|| {
                (
                    req::TOKEN_STANDING,
                    under,
                    format!(
                        "a token minted in one session authorized {op} in another",
                        op = op()
                    ),
                    "A token minted in one session authorizes nothing in another".into(),
                )
            })
        }
        Probe::ResetVoids => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            if !run.reset(&a) {
                return None;
            }
            (run.invoke(&a, &t.a, Some((&token, "tok")), 1, REFUSED)? > 0).then(|| {
                (
                    req::TOKEN_RESET,
                    under,
                    format!(
                        "a token minted before reset_session authorized {op} after it",
                        op = op()
                    ),
                    "A session reset voids its tokens".into(),
                )
            })
        }
        Probe::ResetOther => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            let b = run.session();
            // Session b exists (its plugins loaded) before it is reset.
            run.send(&b, vec![]);
            if !run.reset(&b) {
                return None;
            }
            (run.invoke(&a, &t.a, Some((&token, "tok")), 1, ALLOWED)? == 0).then(|| {
                (
                    req::TOKEN_EXACT,
                    FailKind::Over,
                    format!(
                        "resetting another session voided a token for {op}",
                        op = op()
                    ),
                    "Resetting one session leaves another session's tokens valid".into(),
                )
            })
        }
        Probe::Interleaved => {
            if same_data(&t.a, &t.b) {
                return None;
            }
            let ta = run.approve(&a, &t.a, human(), "ta")?;
            let tb = run.approve(&a, &t.b, human(), "tb")?;
            if run.needs_token(&a, &t.b) && run.invoke(&a, &t.b, Some((&ta, "ta")), 1, REFUSED)? > 0
            {
                return Some((
                    req::TOKEN_BINDING,
                    under,
                    format!(
                        "with two tokens outstanding, A's token authorized B ({})",
                        t.mutation.name()
                    ),
                    "With two approvals outstanding, each token authorizes only its own call"
                        .into(),
                ));
            }
            let both = run.invoke(&a, &t.a, Some((&ta, "ta")), 1, ALLOWED)?
                + run.invoke(&a, &t.b, Some((&tb, "tb")), 1, ALLOWED)?;
            (both < 2).then(|| {
                (
                    req::TOKEN_EXACT,
                    FailKind::Over,
                    format!(
                        "interleaved redemptions refused an exact approved call ({op})",
                        op = op()
                    ),
                    "Interleaved approvals each redeem their own call".into(),
                )
            })
        }
        Probe::AutoThenEscalating => {
            if same_data(&t.a, &t.b) {
                return None;
            }
            let token = run.approve(&a, &t.a, human(), "tok")?;
            run.invoke(&a, &auto_op(), Some((&token, "tok")), 1, ALLOWED)?;
            if !run.needs_token(&a, &t.b) {
                return None;
            }
            (run.invoke(&a, &t.b, Some((&token, "tok")), 1, REFUSED)? > 0).then(|| {
                (req::TOKEN_BINDING, under, format!("a token for {op}, shown to an auto call, then authorized another call ({})", t.mutation.name(), op = op()), "A token shown to an auto call still authorizes only its own call".into())
            })
        }
    }
}
