//! The envelope and the line codec: splitting a line into `id`, `session`,
//! `type` and the body's fields, and writing them back in one pass.
//!
//! The envelope is assembled by hand rather than with `#[serde(tag)]` or
//! `#[serde(flatten)]`: with serde_json's `arbitrary_precision` those buffer
//! numbers into a form that numeric fields then refuse, and rbv must keep
//! every digit of argument data (see the workspace manifest).
//!
//! Lines are read and written in one pass each (no intermediate `Value` of
//! the whole message): every request and answer of a run crosses this code
//! twice, once in the harness and once in an implementation built on it.

use serde::Serialize;
use serde_json::error::Category;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Why a line is not a message of this protocol.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("missing or invalid `{0}`")]
    Envelope(&'static str),
    #[error("unknown message type `{0}`")]
    UnknownType(String),
    #[error("invalid `{kind}` message: {source}")]
    Body {
        kind: String,
        source: serde_json::Error,
    },
}

/// The envelope keys, which are not the body's.
pub(super) const ENVELOPE: [&str; 3] = ["id", "session", "type"];

/// A message's envelope and, borrowed, its object (whose other keys are
/// the body).
pub(super) type BorrowedMessage<'a> = (Option<u64>, &'a str, &'a str, &'a Map<String, Value>);

/// Reads the envelope of a message; the body is the object's other keys.
pub(super) fn split_envelope_ref(value: &Value) -> Result<BorrowedMessage<'_>, WireError> {
    let Value::Object(map) = value else {
        return Err(WireError::NotAnObject);
    };
    let id = match map.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.as_u64().ok_or(WireError::Envelope("id"))?),
        Some(_) => return Err(WireError::Envelope("id")),
    };
    let Some(Value::String(session)) = map.get("session") else {
        return Err(WireError::Envelope("session"));
    };
    let Some(Value::String(kind)) = map.get("type") else {
        return Err(WireError::Envelope("type"));
    };
    Ok((id, session, kind, map))
}

/// The fields of one line, each still JSON text.
pub(super) type RawFields<'a> = BTreeMap<String, &'a RawValue>;

/// Splits a line into the envelope and the body's fields, unparsed.
pub(super) fn split_line(
    line: &str,
) -> Result<(Option<u64>, String, String, RawFields<'_>), WireError> {
    let mut fields: RawFields = serde_json::from_str(line).map_err(|e| match e.classify() {
        // Valid JSON of another type.
        Category::Data => WireError::NotAnObject,
        _ => WireError::Json(e),
    })?;
    let id = match fields.remove("id") {
        None => None,
        Some(raw) => {
            serde_json::from_str::<Option<u64>>(raw.get()).map_err(|_| WireError::Envelope("id"))?
        }
    };
    let mut text = |key: &'static str| {
        fields
            .remove(key)
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
            .ok_or(WireError::Envelope(key))
    };
    let session = text("session")?;
    let kind = text("type")?;
    Ok((id, session, kind, fields))
}

/// One line: the envelope's keys (`id` and `session` only when given),
/// then the body's.
pub(super) fn write_line(
    envelope: Option<(Option<u64>, &str)>,
    kind: &str,
    body: &impl Serialize,
) -> String {
    let failed = "message bodies always serialize";
    let mut out = Vec::with_capacity(128);
    if let Some((id, session)) = envelope {
        out.extend_from_slice(b"{\"id\":");
        serde_json::to_writer(&mut out, &id).expect(failed);
        out.extend_from_slice(b",\"session\":");
        serde_json::to_writer(&mut out, session).expect(failed);
        out.extend_from_slice(b",\"type\":");
    } else {
        out.extend_from_slice(b"{\"type\":");
    }
    serde_json::to_writer(&mut out, kind).expect(failed);
    let start = out.len();
    serde_json::to_writer(&mut out, body).expect(failed);
    debug_assert_eq!(out.get(start), Some(&b'{'), "a body is a JSON object");
    if out[start..] == *b"{}" {
        out.truncate(start);
        out.push(b'}');
    } else {
        out[start] = b',';
    }
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

pub(super) fn join_envelope(id: Option<u64>, session: &str, kind: &str, body: Value) -> Value {
    let mut map = Map::new();
    map.insert("id".into(), id.map_or(Value::Null, Value::from));
    map.insert("session".into(), Value::String(session.to_owned()));
    map.insert("type".into(), Value::String(kind.to_owned()));
    if let Value::Object(fields) = body {
        map.extend(fields);
    }
    Value::Object(map)
}

/// Whether a line (without its `\n`) is blank, which is the one kind of line
/// that gets no answer (PROTOCOL.md §1): empty, or only spaces and tabs, with
/// one `\r` allowed at its end. Nothing wider: every other line is answered,
/// with an `error` when it is not JSON, so that a line of U+000B, U+00A0 or a
/// lone BOM (which `str::trim`, Python's `strip()` and JavaScript's `trim()`
/// each empty differently) never leaves a request unanswered.
pub fn is_blank_line(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Reads `id` and `session` from a line that may not be a valid request, so
/// that an error answer can still echo them.
pub fn salvage_envelope(line: &str) -> (Option<u64>, String) {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(line) else {
        return (None, String::new());
    };
    let id = map.get("id").and_then(Value::as_u64);
    let session = map
        .get("session")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    (id, session)
}
