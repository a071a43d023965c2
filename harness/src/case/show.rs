//! `rbv show`: one case as the engine runs it, after table expansion and
//! fixture resolution, as YAML. Every value is written in JSON's flow
//! style (valid YAML), so that argument numbers keep every digit.

use super::execute::bodies;
use super::{Case, Catalogue, Step};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("\"(unprintable: {e})\""))
}

/// The case as YAML, headed by where it was written (`file:line`).
pub fn render(case: &Case, catalogue: &Catalogue) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", case.origin);
    let _ = writeln!(out, "id: {}", json(&case.id));
    if let Some(title) = &case.title {
        let _ = writeln!(out, "title: {}", json(title));
    }
    out.push_str("requirements:\n");
    for id in &case.requirements {
        let level = catalogue.requirement(id).map_or_else(
            || "not in the catalogue".to_owned(),
            |r| r.level.to_string(),
        );
        let _ = writeln!(out, "  - {id}  # {level}");
    }
    let _ = writeln!(out, "source: {}", json(&case.source));
    if !case.tags.is_empty() {
        let _ = writeln!(out, "tags: {}", json(&case.tags));
    }
    let needs: Vec<&str> = case.needs.iter().map(|c| c.as_str()).collect();
    let _ = writeln!(out, "needs: {}  # derived from the steps", json(&needs));
    if !case.profile.is_empty() {
        let _ = writeln!(out, "profile: {}", json(&case.profile));
    }
    if let Some(reason) = &case.reason {
        let _ = writeln!(out, "reason: {}", json(reason));
    }
    let g = case.guards();
    let _ = writeln!(
        out,
        "# guards: {}",
        match (g.unsafe_side, g.precision) {
            (true, true) => "the unsafe side and precision",
            (true, false) => "the unsafe side",
            (false, true) => "precision",
            (false, false) => "neither side",
        }
    );
    if !case.plugins.is_empty() {
        out.push_str("plugins:  # fixtures resolved; sent as load_plugins before step 1\n");
        for p in &case.plugins {
            let _ = writeln!(out, "  - {}", json(p));
        }
    }
    // A token captured from an earlier answer is shown by name.
    let captures: BTreeMap<String, Value> = case
        .steps
        .iter()
        .flat_map(|s| s.capture.keys())
        .map(|name| (name.clone(), Value::from(format!("<captured {name}>"))))
        .collect();
    out.push_str("steps:\n");
    for (i, step) in case.steps.iter().enumerate() {
        write_step(&mut out, i + 1, step, &case.origin.file, &captures);
    }
    out
}

fn write_step(
    out: &mut String,
    number: usize,
    step: &Step,
    file: &str,
    captures: &BTreeMap<String, Value>,
) {
    let _ = writeln!(out, "  # step {number}, {file}:{}", step.line);
    let key = step.action.key();
    if let crate::case::model::Action::SendRaw(raw) = &step.action {
        let shown = serde_json::json!({"line": raw.line, "before_handshake": raw.before_handshake});
        let _ = writeln!(out, "  - {key}: {shown}");
    } else {
        write_bodies(out, key, &step.action, captures);
    }
    let _ = writeln!(out, "    expect: {}", json(&step.expect));
    if !step.capture.is_empty() {
        let _ = writeln!(out, "    capture: {}", json(&step.capture));
    }
    if let Some(note) = &step.note {
        let _ = writeln!(out, "    note: {}", json(note));
    }
}

/// The request bodies a step sends, one line each.
fn write_bodies(
    out: &mut String,
    key: &str,
    action: &crate::case::model::Action,
    captures: &BTreeMap<String, Value>,
) {
    match bodies(action, captures) {
        Ok(sent) if sent.len() == 1 && key != "concurrent" => {
            let _ = writeln!(out, "  - {key}: {}", body(&sent[0]));
        }
        Ok(sent) => {
            let _ = writeln!(out, "  - {key}:");
            for b in &sent {
                let _ = writeln!(out, "      - {}", body(b));
            }
        }
        Err(e) => {
            let _ = writeln!(out, "  - {key}: null  # {e}");
        }
    }
}

/// A request body without its `type` (the step's key says it).
fn body(b: &rbv_protocol::RequestBody) -> String {
    let mut value: Value = serde_json::from_str(&b.typed_json()).unwrap_or(Value::Null);
    if let Some(o) = value.as_object_mut() {
        o.remove("type");
    }
    json(&value)
}
