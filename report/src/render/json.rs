//! `report.json` and its JSON Schema.

use crate::model::Report;
use crate::text::{Pass, Passing};
use std::io::{self, Write};

/// The report as pretty JSON with a final newline, through `text::json`:
/// what reads back is what was received, what a viewer shows is inert.
pub fn render(report: &Report) -> io::Result<String> {
    let mut bytes = Vec::new();
    write(report, &mut bytes)?;
    Ok(String::from_utf8(bytes).expect("the pass writes UTF-8"))
}

/// [`render`], written to `out` as it is serialized.
pub fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let mut passing = Passing::new(Pass::Json, out);
    serde_json::to_writer_pretty(&mut passing, report)?;
    passing.write_all(b"\n")?;
    passing.finish().map(drop)
}

/// A JSON Schema (draft 2020-12) of `report.json`.
pub fn schema() -> String {
    let schema = schemars::schema_for!(Report);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serializes");
    text.push('\n');
    text
}
