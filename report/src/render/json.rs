//! `report.json` and its JSON Schema.

use crate::model::Report;
use std::io;

/// The report as pretty JSON with a final newline, through `text::json`:
/// what reads back is what was received, what a viewer shows is inert.
pub fn render(report: &Report) -> io::Result<String> {
    let mut text = serde_json::to_string_pretty(report)?;
    text.push('\n');
    Ok(crate::text::json(text))
}

/// A JSON Schema (draft 2020-12) of `report.json`.
pub fn schema() -> String {
    let schema = schemars::schema_for!(Report);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serializes");
    text.push('\n');
    text
}
