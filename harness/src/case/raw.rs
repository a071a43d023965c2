//! `send_raw`: one line sent exactly as written, to test the protocol's own
//! rules (PROTOCOL.md §2, §5) — bad JSON, a broken envelope, an unknown
//! field or type, ids at the edge of the range, a request before the
//! handshake.
//!
//! A raw line goes alone, so its answer is the next line the implementation
//! writes, whatever id it carries. The engine then checks that the answer
//! echoes what can be read of the line (PROTOCOL.md §2): its `id` when the
//! line is a JSON object whose `id` is an integer in 0..2^64, else `null`;
//! its `session` when that is a string, else `""`.

use super::execute::{failure, protocol, CaseRun, Exchange};
use super::judge;
use super::model::Step;
use super::node::{Kind, Node, NodeError};
use crate::transport::{fill_raw, Transport};
use crate::verdict::{ErrorVerdict, Verdict};
use rbv_protocol::{is_blank_line, salvage_envelope};
use serde_json::Value;
use std::collections::BTreeMap;

/// A `send_raw` action: `send_raw: LINE` or
/// `send_raw: {line: LINE, before_handshake: true}`. `$ID` and `$SESSION`
/// in the line become the id rbv would use next and the case's session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLine {
    pub line: String,
    /// Sent as the first line of a fresh instance, before its handshake;
    /// the handshake that follows must still succeed.
    pub before_handshake: bool,
}

impl RawLine {
    pub(crate) fn from_node(node: &Node) -> Result<Self, NodeError> {
        let (line, before_handshake, pos) = match &node.kind {
            Kind::Map(_) => {
                let mut line = None;
                let mut before = false;
                for (k, v) in node.as_map().expect("a map") {
                    match k.as_str().unwrap_or_default() {
                        "line" => line = Some((v.parse::<String>()?, v.pos)),
                        "before_handshake" => before = v.parse()?,
                        other => {
                            return Err(NodeError::at(
                                k.pos,
                                format!(
                                    "unknown key `{other}` in `send_raw` (expected one of: before_handshake, line)"
                                ),
                            ))
                        }
                    }
                }
                let Some((line, pos)) = line else {
                    return Err(NodeError::at(node.pos, "`send_raw` lacks `line`"));
                };
                (line, before, pos)
            }
            _ => (node.parse::<String>()?, false, node.pos),
        };
        if line.contains('\n') {
            return Err(NodeError::at(
                pos,
                "a raw line cannot contain a newline (it would be two lines)",
            ));
        }
        if is_blank_line(line.as_bytes()) {
            return Err(NodeError::at(
                pos,
                "a raw line cannot be blank: only spaces and tabs (implementations skip blank lines unanswered)",
            ));
        }
        Ok(RawLine {
            line,
            before_handshake,
        })
    }

    /// The id written literally in the line (not `$ID`), if it has one.
    pub fn literal_id(&self) -> Option<u64> {
        salvage_envelope(&fill_raw(&self.line, 0, "s"))
            .0
            .filter(|_| !self.line.contains("$ID"))
    }
}

/// Sends one raw line and judges its answer. `Err` is the verdict.
pub(super) fn run(
    step: &Step,
    raw: &RawLine,
    number: usize,
    transport: &mut dyn Transport,
    session: &str,
    captures: &BTreeMap<String, Value>,
    run: &mut CaseRun,
) -> Result<(), Verdict> {
    let result = if raw.before_handshake {
        transport.before_handshake(session, &raw.line)
    } else {
        transport.raw(session, &raw.line)
    };
    let observed = match result {
        Ok(o) => o,
        Err(e) => {
            run.exchanges.push(Exchange {
                step: number,
                request: raw.line.clone(),
                response: None,
                line: e.line.clone(),
            });
            return Err(Verdict::Error(ErrorVerdict {
                kind: e.kind,
                step: Some(number),
                message: format!("step {number} (send_raw): {}", e.message),
                line: e.line,
                stderr_tail: e.stderr_tail,
            }));
        }
    };
    let answer = observed.answer;
    run.exchanges.push(Exchange {
        step: number,
        request: observed.sent.clone(),
        response: Some(answer.value.clone()),
        line: Some(answer.line.clone()),
    });
    let refuse = |message: String| {
        protocol(
            number,
            format!("step {number} (send_raw): {message}"),
            Some(answer.line.clone()),
            transport.stderr_tail(),
        )
    };
    if let Err(why) = &answer.response {
        return Err(refuse(format!("not a valid answer: {why}")));
    }
    let (id, line_session) = salvage_envelope(&observed.sent);
    let answered_id = answer.value.get("id").cloned().unwrap_or(Value::Null);
    let want_id = id.map_or(Value::Null, Value::from);
    if answered_id != want_id {
        let why = match id {
            Some(_) => "the line's id",
            None => "null: the line's id cannot be read",
        };
        return Err(refuse(format!(
            "answered with id {answered_id}; expected {want_id} ({why})"
        )));
    }
    let answered_session = answer.value.get("session").and_then(Value::as_str);
    if answered_session != Some(line_session.as_str()) {
        return Err(refuse(format!(
            "answered in session {answered_session:?}; expected {line_session:?} (what the line's `session` reads, or \"\")"
        )));
    }
    // Without `expect: {type}`, any answer type is accepted: the step then
    // only proves the line was answered and the implementation lived.
    let got_type = answer.value.get("type").and_then(Value::as_str);
    let step = match (&step.expect.answer_type, got_type) {
        (None, Some(t)) => {
            let mut s = step.clone();
            s.expect.answer_type = Some(t.to_owned());
            std::borrow::Cow::Owned(s)
        }
        _ => std::borrow::Cow::Borrowed(step),
    };
    match judge::judge(&step, &[&answer.value], captures) {
        Some(m) => Err(failure(number, "send_raw", m)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_literal_id_counts_as_literal() {
        let raw = |line: &str| RawLine {
            line: line.into(),
            before_handshake: false,
        };
        assert_eq!(
            raw(r#"{"id":18446744073709551615,"session":"$SESSION","type":"x"}"#).literal_id(),
            Some(u64::MAX)
        );
        assert_eq!(
            raw(r#"{"id":$ID,"session":"$SESSION","type":"x"}"#).literal_id(),
            None
        );
        assert_eq!(raw(r#"{"id":18446744073709551616}"#).literal_id(), None);
        assert_eq!(raw("{not json").literal_id(), None);
    }
}
