//! One renderer per format; [`write_all`] writes them all.

pub mod badge;
pub mod campaign;
pub mod facts;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;

use crate::model::Report;
use std::io;
use std::path::Path;

pub const REPORT_JSON: &str = "report.json";
pub const SCHEMA_JSON: &str = "report.schema.json";
pub const JUNIT_XML: &str = "junit.xml";
pub const SUMMARY_MD: &str = "summary.md";
pub const REPORT_HTML: &str = "report.html";
pub const BADGE_SVG: &str = "badge.svg";

/// Writes `report.json`, `report.schema.json`, `junit.xml`, `summary.md`,
/// `report.html` and `badge.svg` into `dir` (created if missing), as one
/// unit and never through a link (see [`crate::files::write_unit`]).
pub fn write_all(report: &Report, dir: &Path) -> io::Result<()> {
    let names = [
        REPORT_JSON,
        SCHEMA_JSON,
        JUNIT_XML,
        SUMMARY_MD,
        REPORT_HTML,
        BADGE_SVG,
    ];
    // The large documents are streamed to their files: with megabyte
    // answers each is tens of megabytes, which rbv never holds whole.
    crate::files::write_unit_with(dir, &names, |name, out| match name {
        REPORT_JSON => json::write(report, out),
        JUNIT_XML => junit::write(report, out),
        REPORT_HTML => html::write(report, out),
        SCHEMA_JSON => out.write_all(json::schema().as_bytes()),
        SUMMARY_MD => out.write_all(markdown::render(report).as_bytes()),
        _ => out.write_all(badge::render(report).as_bytes()),
    })
}

/// Escapes text for HTML and XML content and attribute values. Beyond the
/// five markup characters it breaks `://` and `=`, so that data quoted in
/// a report (a URL from a fetch case, an `src=` in a payload) can never
/// read as a reference in the file's source; browsers show it unchanged.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '=' => out.push_str("&#61;"),
            ':' if chars.peek() == Some(&'/') => out.push_str("&#58;"),
            // Control characters other than tab and newline are invalid in
            // XML and invisible in HTML; show where they were.
            c if (c.is_control() && c != '\n' && c != '\t') || !crate::text::xml_allowed(c) => {
                out.push('\u{fffd}');
            }
            // Bidi controls and invisible marks: shown, not obeyed.
            c if crate::text::is_hostile(c) && c != '\n' && c != '\t' => {
                out.push_str(&crate::text::terminal(c.encode_utf8(&mut [0; 4])));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_leaves_no_markup_and_no_reference() {
        let e = escape("<a href='x' src=\"http://evil\">&\u{1b}[1m</a>");
        for bad in ["<", ">", "'", "\"", "src=", "http://", "\u{1b}"] {
            assert!(!e.contains(bad), "{bad} in {e}");
        }
        assert_eq!(escape("a: b\nc\td"), "a: b\nc\td");
    }
}
