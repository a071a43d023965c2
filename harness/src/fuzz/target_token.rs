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
    }
}

fn bundle(name: &str, operations: serde_json::Value) -> PluginBundle {
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

/// One exec's sessions and the case text of what was sent.
struct Run<'s> {
    subject: &'s mut dyn Subject,
    plugins: Vec<PluginBundle>,
    /// Sessions whose plugins are loaded.
    loaded: Vec<String>,
    steps: String,
    /// The session the last step was written for.
    current: String,
    first: String,
}

impl<'s> Run<'s> {
    fn new(subject: &'s mut dyn Subject, plugins: Vec<PluginBundle>) -> Self {
        let first = subject.fresh_session();
        Run {
            subject,
            plugins,
            loaded: vec![],
            steps: String::new(),
            current: first.clone(),
            first,
        }
    }

    fn session(&mut self) -> String {
        self.subject.fresh_session()
    }

    fn step(&mut self, session: &str, text: String) {
        if session != self.current {
            let name = if session == self.first { "a" } else { "b" };
            self.steps.push_str(&format!("  # session {name}\n"));
            self.current = session.to_owned();
        }
        self.steps.push_str(&text);
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
            let text = format!("  - load_plugins:\n{}", plugins_yaml(&self.plugins));
            self.step(session, text);
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
        capture: &str,
    ) -> Option<String> {
        let body = RequestBody::Approve(ApproveRequest {
            operation: op.clone(),
            approver: approver.clone(),
        });
        let who = if approver.kind == ApproverKind::Human {
            String::new()
        } else {
            format!(
                ", approver: {{kind: {k}, name: {k}-approver}}",
                k = approver.kind.as_str()
            )
        };
        self.step(
            session,
            format!(
                "  - approve: {{operation: {}{who}}}\n    capture: {{{capture}: token}}\n",
                op_json(op)
            ),
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
        expect: &str,
    ) -> Option<usize> {
        let body = RequestBody::Invoke(InvokeRequest {
            operation: op.clone(),
            token: token.map(|(t, _)| t.to_owned()),
        });
        let tok = match token {
            Some((_, name)) if name.starts_with('"') => format!(", token: {name}"),
            Some((_, name)) => format!(", token: {{capture: {name}}}"),
            None => String::new(),
        };
        let line = format!("{{operation: {}{tok}}}", op_json(op));
        if times == 1 {
            self.step(
                session,
                format!("  - invoke: {line}\n    expect: {expect}\n"),
            );
        } else {
            let items = vec![format!("      - invoke: {line}\n"); times].concat();
            self.step(
                session,
                format!("  - concurrent:\n{items}    expect: {expect}\n"),
            );
        }
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
        self.step(session, "  - reset_session: {}\n".into());
        self.loaded.retain(|s| s != session);
        matches!(
            self.subject
                .call(session, RequestBody::ResetSession(Default::default())),
            Ok(ResponseBody::Ack(_))
        )
    }

    fn evaluate_band(&mut self, session: &str, op: &Operation) -> Option<Band> {
        self.step(
            session,
            format!(
                "  - evaluate: {}\n    expect: {{band: escalate}}\n",
                op_json(op)
            ),
        );
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
            payload: None,
            case: CaseDraft {
                area: "tokens",
                title,
                tags: vec!["tokens", tag],
                steps: self.steps,
            },
        })
    }
}

const REFUSED: &str = "{allowed: false}";
const ALLOWED: &str = "{allowed: true}";

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let t = input(u)?;
    let mut run = Run::new(subject, plugins(&[&t.a, &t.b]));
    Ok(probe(&mut run, &t)
        .and_then(|(req, kind, summary, title)| run.finding(req, kind, summary, title)))
}

type Verdict = (&'static str, FailKind, String, String);

fn probe(run: &mut Run, t: &TokenInput) -> Option<Verdict> {
    let a = run.first.clone();
    let under = FailKind::Under;
    let op = op_json(&t.a);
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
                        t.mutation.name()
                    ),
                    format!(
                        "A token for one call does not authorize a call changed by {}",
                        t.mutation.name()
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
                    format!("a human's token for exactly {op} was refused"),
                    "An exact human-approved operation is allowed".into(),
                ));
            }
            (run.invoke(&a, &t.a, Some((&token, "tok")), 1, REFUSED)? > 0).then(|| {
                (
                    req::TOKEN_SINGLE_USE,
                    under,
                    format!("a token was redeemed twice for {op}"),
                    "A token is single-use: the second redemption is refused".into(),
                )
            })
        }
        Probe::Concurrent => {
            let token = run.approve(&a, &t.a, human(), "tok")?;
            (run.invoke(&a, &t.a, Some((&token, "tok")), 3, "{allowed_count: 1}")? > 1).then(|| {
                (req::TOKEN_CONCURRENT, under, format!("three pipelined redemptions of one token for {op} were allowed more than once"), "Concurrent redemptions of one token succeed at most once".into())
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
            let hash: String = Sha256::digest(op.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
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
                    format!("a model-computable token {literal} authorized {op}"),
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
                    format!("after one redemption, {op} was lowered or allowed without a token"),
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
                    format!("a token minted in one session authorized {op} in another"),
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
                    format!("a token minted before reset_session authorized {op} after it"),
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
                    format!("resetting another session voided a token for {op}"),
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
                    format!("interleaved redemptions refused an exact approved call ({op})"),
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
                (req::TOKEN_BINDING, under, format!("a token for {op}, shown to an auto call, then authorized another call ({})", t.mutation.name()), "A token shown to an auto call still authorizes only its own call".into())
            })
        }
    }
}
