//! Realistic bug families nobody planted in the reference, written as a
//! subject that rewrites requests before they reach a correct
//! implementation (in-process or over the protocol): what a client with
//! that bug would have decided. Test and bench code only.

use rbv::fuzz::Subject;
use rbv_protocol::*;
use serde_json::{Map, Value};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    LossyNumbers,
    UnicodeNormalization,
    CaseFolding,
    ArrayAsSet,
    PayloadOnly,
    CrossSession,
    FirstStatementSql,
    GreedyCommentStripping,
    PrefixLoopback,
    SkillBandWins,
}

pub const ALL: &[(Bug, &str, &str)] = &[
    (Bug::LossyNumbers, "lossy number binding", "token_binding"),
    (
        Bug::UnicodeNormalization,
        "Unicode normalization",
        "token_binding",
    ),
    (Bug::CaseFolding, "case folding of keys", "token_binding"),
    (Bug::ArrayAsSet, "array-as-set", "token_binding"),
    (Bug::PayloadOnly, "payload-only binding", "token_binding"),
    (Bug::CrossSession, "cross-session tokens", "token_binding"),
    (Bug::FirstStatementSql, "first-statement SQL", "sql_bypass"),
    (
        Bug::GreedyCommentStripping,
        "greedy comment stripping",
        "sql_bypass",
    ),
    (Bug::PrefixLoopback, "prefix loopback", "url_loopback"),
    (
        Bug::SkillBandWins,
        "the skill's band for its tool calls",
        "sql_bypass",
    ),
];

pub struct Buggy<S: Subject> {
    pub inner: S,
    pub bug: Bug,
    /// Token → (session, operation it was approved for).
    tokens: HashMap<String, (String, Operation)>,
}

impl<S: Subject> Buggy<S> {
    pub fn new(inner: S, bug: Bug) -> Self {
        Buggy {
            inner,
            bug,
            tokens: HashMap::new(),
        }
    }

    /// The binding key the buggy client compares instead of the data.
    fn key(&self, op: &Operation) -> Value {
        let mut v = serde_json::to_value(op).expect("operations serialize");
        match self.bug {
            Bug::PayloadOnly => {
                let payload = ["sql", "command", "url"];
                if let Some(Value::Object(args)) = v.get_mut("arguments") {
                    args.retain(|k, _| payload.contains(&k.as_str()));
                }
            }
            _ => canon(&mut v, self.bug),
        }
        v
    }

    fn rewrite(&self, session: &str, body: RequestBody) -> (String, RequestBody) {
        match body {
            RequestBody::Invoke(mut i) => {
                if let Some((minted_in, approved)) =
                    i.token.as_ref().and_then(|t| self.tokens.get(t))
                {
                    if self.bug == Bug::CrossSession
                        && minted_in != session
                        && *approved == i.operation
                    {
                        return (minted_in.clone(), RequestBody::Invoke(i));
                    }
                    if self.bug != Bug::CrossSession && self.key(approved) == self.key(&i.operation)
                    {
                        i.operation = approved.clone();
                    }
                }
                (session.to_owned(), RequestBody::Invoke(i))
            }
            RequestBody::Evaluate(mut e) => {
                inspect_rewrite(&mut e.operation, self.bug);
                (session.to_owned(), RequestBody::Evaluate(e))
            }
            other => (session.to_owned(), other),
        }
    }
}

fn canon(v: &mut Value, bug: Bug) {
    match v {
        Value::Number(n) if bug == Bug::LossyNumbers => {
            if let Some(f) = n.as_f64() {
                *v = Value::String(format!("{f:?}"));
            }
        }
        Value::String(s) if bug == Bug::UnicodeNormalization => {
            // NFC of the combining accents the generator uses.
            *s = s.replace("e\u{301}", "é").replace("e\u{300}", "è");
        }
        Value::Array(items) => {
            items.iter_mut().for_each(|i| canon(i, bug));
            if bug == Bug::ArrayAsSet {
                items.sort_by_key(|i| i.to_string());
                items.dedup();
            }
        }
        Value::Object(map) => {
            let old = std::mem::take(map);
            *map = old
                .into_iter()
                .map(|(k, mut v)| {
                    canon(&mut v, bug);
                    (
                        if bug == Bug::CaseFolding {
                            k.to_lowercase()
                        } else {
                            k
                        },
                        v,
                    )
                })
                .collect::<Map<String, Value>>();
        }
        _ => {}
    }
}

/// What a buggy inspector would have looked at.
fn inspect_rewrite(op: &mut Operation, bug: Bug) {
    if bug == Bug::SkillBandWins {
        if let Some(skill) = op.actor.take().filter(|a| a.starts_with("skill:")) {
            *op = Operation {
                id: skill,
                kind: None,
                arguments: Map::new(),
                ..op.clone()
            };
        }
        return;
    }
    let field = match bug {
        Bug::FirstStatementSql | Bug::GreedyCommentStripping => "sql",
        Bug::PrefixLoopback => "url",
        _ => return,
    };
    let Some(Value::String(text)) = op.arguments.get_mut(field) else {
        return;
    };
    match bug {
        Bug::FirstStatementSql => {
            if let Some(i) = text.find(';') {
                text.truncate(i);
            }
        }
        Bug::GreedyCommentStripping => {
            if let (Some(a), Some(b)) = (text.find("/*"), text.rfind("*/")) {
                if a < b {
                    text.replace_range(a..b + 2, " ");
                }
            }
        }
        _ => {
            let lower = text.to_ascii_lowercase();
            if lower.starts_with("http://localhost") || lower.starts_with("http://127.") {
                *text = "http://127.0.0.1/".into();
            }
        }
    }
}

impl<S: Subject> Subject for Buggy<S> {
    fn fresh_session(&mut self) -> String {
        self.inner.fresh_session()
    }

    fn call(&mut self, session: &str, body: RequestBody) -> Result<ResponseBody, String> {
        let mut answers = self.call_batch(session, vec![body]);
        answers.pop().unwrap_or_else(|| Err("no answer".into()))
    }

    fn call_batch(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Vec<Result<ResponseBody, String>> {
        let sent: Vec<(String, RequestBody)> = bodies
            .into_iter()
            .map(|b| self.rewrite(session, b))
            .collect();
        let approvals: Vec<Option<Operation>> = sent
            .iter()
            .map(|(_, b)| match b {
                RequestBody::Approve(a) => Some(a.operation.clone()),
                _ => None,
            })
            .collect();
        let answers = if sent.iter().all(|(s, _)| s == session) {
            self.inner
                .call_batch(session, sent.into_iter().map(|(_, b)| b).collect())
        } else {
            sent.into_iter()
                .map(|(s, b)| self.inner.call(&s, b))
                .collect()
        };
        for (op, answer) in approvals.into_iter().zip(&answers) {
            if let (Some(op), Ok(ResponseBody::Approval(a))) = (op, answer) {
                if let Some(t) = &a.token {
                    self.tokens.insert(t.clone(), (session.to_owned(), op));
                }
            }
        }
        answers
    }

    fn claims(&self, capability: Capability) -> bool {
        self.inner.claims(capability)
    }

    fn end_exec(&mut self) {
        self.tokens.clear();
        self.inner.end_exec();
    }

    fn name(&self) -> String {
        format!("{} with {:?}", self.inner.name(), self.bug)
    }
}
