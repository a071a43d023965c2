//! JSON Schemas (draft 2020-12) of every wire message, and a validator that
//! checks traffic against them (`rbv run --validate-protocol`).
//!
//! The schemas are generated from the wire types, so they cannot drift from
//! what the harness parses; the copies checked in under `protocol/schema/`
//! are for adapter authors in other languages, and a test keeps them equal
//! to the generated ones. Each schema is a body schema from schemars with the
//! envelope (`id`, `session`, `type`) added: the envelope is assembled by
//! hand on the wire (see `wire.rs`), so it is added by hand here too.

use crate::wire::{RequestBody, ResponseBody};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Which side of the protocol a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    Request,
    Response,
}

impl Direction {
    fn folder(self) -> &'static str {
        match self {
            Direction::Request => "requests",
            Direction::Response => "responses",
        }
    }
}

/// The schema of one message: its body schema plus the envelope.
fn message_schema(direction: Direction, kind: &str, body: schemars::Schema) -> Value {
    let mut schema = match body.to_value() {
        Value::Object(map) => map,
        // `true`/`false` schemas do not occur for structs; keep them usable.
        other => Map::from_iter([("allOf".to_owned(), json!([other]))]),
    };
    // Only an `error` can answer a line whose id could not be read.
    let id = if direction == Direction::Response && kind == "error" {
        json!({"type": ["integer", "null"], "minimum": 0,
               "description": "The request's id; null only when it could not be read."})
    } else if direction == Direction::Request {
        json!({"type": "integer", "minimum": 0,
               "description": "Unique per child process; the answer echoes it."})
    } else {
        json!({"type": "integer", "minimum": 0, "description": "The id of the request answered."})
    };
    let envelope = [
        ("id", id),
        (
            "session",
            json!({"type": "string", "description": "The session the message acts on (echoed)."}),
        ),
        ("type", json!({"const": kind})),
    ];
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .expect("a struct schema's `properties` is an object");
    for (name, property) in envelope.iter().cloned() {
        properties.insert(name.to_owned(), property);
    }
    let required = schema
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .expect("a struct schema's `required` is an array");
    for (name, _) in envelope.iter().rev() {
        if !required.iter().any(|r| r == name) {
            required.insert(0, Value::from(*name));
        }
    }
    let side = match direction {
        Direction::Request => "request",
        Direction::Response => "response",
    };
    schema.insert(
        "title".into(),
        Value::from(format!("rbv protocol v1 {side} `{kind}`")),
    );
    schema.insert("type".into(), Value::from("object"));
    Value::Object(schema)
}

/// Every message schema, keyed by its path under `protocol/schema/`
/// (`requests/evaluate.json`, `responses/evaluation.json`, …), requests first.
pub fn all_schemas() -> Vec<(String, Value)> {
    let requests = RequestBody::body_schemas()
        .into_iter()
        .map(|(k, s)| (Direction::Request, k, s));
    let responses = ResponseBody::body_schemas()
        .into_iter()
        .map(|(k, s)| (Direction::Response, k, s));
    requests
        .chain(responses)
        .map(|(direction, kind, body)| {
            (
                format!("{}/{kind}.json", direction.folder()),
                message_schema(direction, kind, body),
            )
        })
        .collect()
}

/// Checks messages against the schemas of their `type`.
pub struct ProtocolValidator {
    requests: BTreeMap<&'static str, jsonschema::Validator>,
    responses: BTreeMap<&'static str, jsonschema::Validator>,
}

impl Default for ProtocolValidator {
    fn default() -> Self {
        Self::new()
    }
}

impl ProtocolValidator {
    /// Compiles every schema (a few milliseconds; build one and reuse it).
    pub fn new() -> Self {
        let compile = |direction, kinds: Vec<(&'static str, schemars::Schema)>| {
            kinds
                .into_iter()
                .map(|(kind, body)| {
                    let schema = message_schema(direction, kind, body);
                    // Formats are annotations in 2020-12 unless asked for:
                    // the audit `timestamp` must be RFC 3339 (`date-time`).
                    let validator = jsonschema::draft202012::options()
                        .should_validate_formats(true)
                        .build(&schema)
                        .unwrap_or_else(|e| panic!("the `{kind}` schema does not compile: {e}"));
                    (kind, validator)
                })
                .collect()
        };
        ProtocolValidator {
            requests: compile(Direction::Request, RequestBody::body_schemas()),
            responses: compile(Direction::Response, ResponseBody::body_schemas()),
        }
    }

    /// Validates a request (what the harness sends).
    pub fn validate_request(&self, value: &Value) -> Result<(), Vec<String>> {
        Self::validate(&self.requests, "request", value)
    }

    /// Validates a response (what an implementation answers), formats
    /// included (an audit `timestamp` that is not RFC 3339 is a violation).
    pub fn validate_response(&self, value: &Value) -> Result<(), Vec<String>> {
        Self::validate(&self.responses, "response", value)
    }

    /// Every violation, each as `<JSON pointer>: <message>`, with
    /// `(message)` in place of the empty pointer of the message itself.
    fn validate(
        validators: &BTreeMap<&'static str, jsonschema::Validator>,
        side: &str,
        value: &Value,
    ) -> Result<(), Vec<String>> {
        let kind = match value.get("type") {
            Some(Value::String(kind)) => kind,
            Some(other) => return Err(vec![format!("/type: {other} is not a string")]),
            None if value.is_object() => return Err(vec!["/type: missing".to_owned()]),
            None => {
                return Err(vec![format!(
                    "(message): a {side} is a JSON object, not {value}"
                )])
            }
        };
        let Some(validator) = validators.get(kind.as_str()) else {
            let known: Vec<_> = validators.keys().copied().collect();
            return Err(vec![format!(
                "/type: `{kind}` is not a {side} type of protocol v1 (known: {})",
                known.join(", ")
            )]);
        };
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| match e.instance_path().as_str() {
                "" => format!("(message): {e}"),
                path => format!("{path}: {e}"),
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}
