//! The `protocol_decoder` target's property: the implementation's own decoder
//! against malformed and edge request lines (PROTOCOL.md §2, §5), and rbv's
//! answer decoder against the same text.

use super::finding::{CaseDraft, Finding};
use super::gen;
use super::subject::Subject;
use super::targets::req;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::{salvage_envelope, Request, RequestBody, Response, ResponseBody, WireError};
use serde_json::Value;

/// Hostile answers never panic rbv's own decoder.
fn decode_answer(line: &str) {
    if let Ok(response) = Response::from_line(line) {
        // What decodes must encode and decode to the same message.
        let again =
            Response::from_line(&response.to_line()).expect("a decoded response re-decodes");
        assert_eq!(again, response, "decode(encode(x)) != x for {line:?}");
    }
    let _ = salvage_envelope(line);
}

/// The subject's decoder (PROTOCOL.md §2, §5): a malformed or edge request
/// line gets `error` (`unsupported` for an unknown type; a line that is
/// still a valid request, any answer), echoing the id and session when
/// they can be read; then the subject still answers an ordinary request.
/// rbv's own answer decoder is fed the same bytes.
pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let input = gen::line::input(u)?;
    decode_answer(&input.template);
    let session = subject.fresh_session();
    let families = input.families.join(" + ");
    let finding = |requirement, difference: String, summary: String, expect: &str| Finding {
        target: "protocol_decoder",
        requirement,
        kind: FailKind::Mismatch,
        summary,
        // The last break is the one the line shows (an earlier one may be
        // gone: cut off, or replaced with the whole line).
        family: input.families.last().copied().unwrap_or("none").to_owned(),
        payload: Some(input.template.clone()),
        difference,
        case: CaseDraft {
            area: "protocol",
            title: format!("{families}: a malformed line is answered and survived"),
            tags: vec!["protocol"],
            steps: format!(
                "  - send_raw: {}\n{expect}  - reset_session: {{}}\n",
                super::finding::yaml_string(&input.template)
            ),
        },
    };
    let (sent, answer) = match subject.raw(&session, &input.template) {
        Ok(a) => a,
        Err(e) => {
            let summary = format!("no answer to {:?} ({families}): {e}", input.template);
            let difference = "no answer".to_owned();
            return Ok(Some(finding(
                req::PROTOCOL_SURVIVAL,
                difference,
                summary,
                "",
            )));
        }
    };
    let want_type = match Request::from_line(&sent) {
        Ok(_) => None,
        Err(WireError::UnknownType(_)) => Some("unsupported"),
        Err(_) => Some("error"),
    };
    let expect = want_type.map_or(String::new(), |t| format!("    expect: {{type: {t}}}\n"));
    let (id, line_session) = salvage_envelope(&sent);
    let want_id = id.map_or(Value::Null, Value::from);
    let got_id = answer.get("id").cloned().unwrap_or(Value::Null);
    if got_id != want_id {
        let summary = format!("answered {sent:?} ({families}) with id {got_id}, not {want_id}");
        let difference = format!("{} id for {} id", json_kind(&got_id), json_kind(&want_id));
        return Ok(Some(finding(
            req::PROTOCOL_ECHO,
            difference,
            summary,
            &expect,
        )));
    }
    let got_session = answer.get("session").and_then(Value::as_str);
    if got_session != Some(line_session.as_str()) {
        let summary = format!(
            "answered {sent:?} ({families}) in session {got_session:?}, not {line_session:?}"
        );
        let difference = "another session".to_owned();
        return Ok(Some(finding(
            req::PROTOCOL_ECHO,
            difference,
            summary,
            &expect,
        )));
    }
    let got_type = answer.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some(want) = want_type.filter(|w| *w != got_type) {
        let requirement = if want == "unsupported" {
            req::PROTOCOL_UNKNOWN_TYPE
        } else {
            req::PROTOCOL_ERROR
        };
        let summary = format!("answered {sent:?} ({families}) with `{got_type}`, not `{want}`");
        // The answer's type is the implementation's text: only a type rbv
        // reads names the difference.
        let got = Response::from_json(&answer).map_or("another type", |r| r.body.kind());
        let difference = format!("`{got}` for `{want}`");
        return Ok(Some(finding(requirement, difference, summary, &expect)));
    }
    match subject.call(&session, RequestBody::ResetSession(Default::default())) {
        Ok(ResponseBody::Ack(_)) => Ok(None),
        other => {
            let (difference, got) = match other {
                Ok(body) => {
                    let got = format!("`{}`", body.kind());
                    (format!("then {got} for `ack`"), got)
                }
                Err(e) => ("then no answer".to_owned(), e),
            };
            let summary = format!("after {sent:?} ({families}), `reset_session` got {got}");
            Ok(Some(finding(
                req::PROTOCOL_SURVIVAL,
                difference,
                summary,
                &expect,
            )))
        }
    }
}

/// What kind of JSON value an id is, for a difference that does not depend
/// on the input.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Number(_) => "a number",
        _ => "a non-number",
    }
}
