//! The canonical, argument-bearing form of an operation: the authorization
//! key that tokens bind to (proposal §4.2).
//!
//! The encoding is RFC 8785 (JCS) except for numbers: JCS prints numbers as
//! IEEE-754 doubles, which would merge 2^53+1 with 2^53 and
//! 0.1 with 0.10000000000000001 — distinct data approved as one. Numbers are
//! therefore bound by their exact text (serde_json keeps it with
//! `arbitrary_precision`). Keys are sorted by UTF-16 code units as JCS says;
//! strings are never Unicode-normalized and whitespace is kept.

use serde_json::{Map, Value};
use std::fmt::Write;

/// Canonical JSON text of a value.
pub fn to_canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

pub(crate) fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    out.push('{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(k, out);
        out.push(':');
        write_value(v, out);
    }
    out.push('}');
}

pub(crate) fn write_string(s: &str, out: &mut String) {
    out.push('"');
    // Runs without an escape are copied whole; only ASCII is ever escaped.
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0c => "\\f",
            b'\r' => "\\r",
            b if b < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        run = i + 1;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        to_canonical(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn key_order_is_ignored() {
        assert_eq!(
            canon(r#"{"b":1,"a":[true,null]}"#),
            canon(r#"{ "a" : [true, null], "b": 1 }"#)
        );
        assert_eq!(canon(r#"{"b":1,"a":2}"#), r#"{"a":2,"b":1}"#);
    }

    #[test]
    fn distinct_numbers_stay_distinct() {
        assert_ne!(canon("[9007199254740993]"), canon("[9007199254740992]"));
        assert_ne!(canon("[0.1]"), canon("[0.10000000000000001]"));
        assert_eq!(canon("[18446744073709551617]"), "[18446744073709551617]");
    }

    #[test]
    fn strings_are_data_verbatim() {
        // NFC "é" and NFD "e\u0301" are different data; so is whitespace.
        assert_ne!(canon("[\"\u{e9}\"]"), canon("[\"e\u{301}\"]"));
        assert_ne!(canon(r#"["a b"]"#), canon(r#"["a  b"]"#));
        assert_eq!(canon(r#"["\u0001\n\"/"]"#), r#"["\u0001\n\"/"]"#);
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+E000 sorts after U+1F600 in UTF-16 (0xD83D < 0xE000 is false:
        // the surrogate 0xD83D is smaller), so the emoji comes first.
        let text = canon("{\"\u{e000}\":1,\"\u{1f600}\":2}");
        assert!(
            text.find('\u{1f600}').unwrap() < text.find('\u{e000}').unwrap(),
            "{text}"
        );
    }
}
