//! Malformed and edge request lines for an implementation's decoder: a valid
//! request template (with `$ID` and `$SESSION`, see `case::raw`) broken in
//! one known way. What the answer must be is not labeled here: the oracle
//! reads the line the way PROTOCOL.md §2 says (`protocol_decoder`), so that
//! a break that happens to leave the line valid is judged as valid.

use arbitrary::{Result, Unstructured};

/// A request line to send raw, and the families that broke it, in the
/// order they did (a break that changed nothing is not named; the last one
/// named is what the line shows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawInput {
    /// The line, with `$ID` and `$SESSION` still to fill in.
    pub template: String,
    pub families: Vec<&'static str>,
}

/// Valid requests every implementation serves (no capability needed).
const TEMPLATES: &[&str] = &[
    r#"{"id":$ID,"session":"$SESSION","type":"reset_session"}"#,
    r#"{"id":$ID,"session":"$SESSION","type":"evaluate","operation":{"id":"client:notes","arguments":{"n":18446744073709551617,"s":"caf\u00e9"},"trust":"untrusted","actor":"model"}}"#,
    r#"{"id":$ID,"session":"$SESSION","type":"record_event","event":{"kind":"untrusted_content","source":"https://example.com","content":"hi"}}"#,
    r#"{"id":$ID,"session":"$SESSION","type":"set_policy","floors":{"client:notes":"escalate"}}"#,
    r#"{"id":$ID,"session":"$SESSION","type":"invoke","operation":{"id":"client:notes","kind":"tool"}}"#,
];

/// Enumerated values and their near misses.
const MISSPELLINGS: &[(&str, &str)] = &[
    ("\"escalate\"", "\"Escalate\""),
    ("\"untrusted\"", "\"untrusted \""),
    ("\"untrusted_content\"", "\"untrusted-content\""),
    ("\"tool\"", "\"Tool\""),
    ("\"model\"", "null"),
    ("\"reset_session\"", "\"reset-session\""),
    ("\"evaluate\"", "\"evaluate_operation\""),
];

/// Ids an implementation cannot read (out of range or not integers).
const BAD_IDS: &[&str] = &[
    "18446744073709551616",
    "-1",
    "1.5",
    "\"$ID\"",
    "null",
    "true",
    "[1]",
    "99999999999999999999999",
];

/// Bytes a flip writes: JSON's structure, quotes, escapes, controls.
const FLIPS: &[&str] = &[
    "{", "}", "[", "]", ":", ",", "\"", "\\", "0", "x", " ", "\t", "\u{0}", "\u{1f}", "é",
    "\u{fffd}",
];

/// Whitespace-like characters that do not make a line blank, and the two
/// that do (so that some lines mix them).
const WHITESPACE: &[char] = &[
    '\u{b}', '\u{c}', '\u{1c}', '\u{1f}', '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2028}',
    '\u{2029}', '\u{3000}', '\u{feff}', ' ', '\t',
];

fn flip(u: &mut Unstructured, line: &mut String) -> Result<()> {
    let chars: Vec<char> = line.chars().collect();
    let at = u.choose_index(chars.len())?;
    let with = *u.choose(FLIPS)?;
    let mut out: String = chars[..at].iter().collect();
    match u.int_in_range(0..=2)? {
        0 => out.push_str(with), // replace
        1 => {
            out.push_str(with); // insert
            out.push(chars[at]);
        }
        _ => {} // delete
    }
    out.extend(&chars[at + 1..]);
    *line = out;
    Ok(())
}

/// One broken line.
pub fn input(u: &mut Unstructured) -> Result<RawInput> {
    let mut line = (*u.choose(TEMPLATES)?).to_owned();
    let mut families = Vec::new();
    let breaks = u.int_in_range(1..=2)?;
    for _ in 0..breaks {
        // A break that left the line as it was names no family of it.
        let (before, named) = (line.clone(), families.len());
        match u.int_in_range(0..=9)? {
            // A line already cut to one character cannot be cut again.
            0 if line.len() > 1 => {
                let cut = u.int_in_range(1..=line.len() - 1)?;
                // At least the first character, whatever its width.
                let first = line.chars().next().map_or(0, char::len_utf8);
                let cut = (first..=cut.max(first))
                    .rev()
                    .find(|i| line.is_char_boundary(*i))
                    .unwrap_or(first);
                line.truncate(cut);
                families.push("truncated");
            }
            1 => {
                for _ in 0..u.int_in_range(1..=3)? {
                    flip(u, &mut line)?;
                }
                families.push("byte-flip");
            }
            2 => {
                // An unknown key, at the top or inside the first object.
                let key = *u.choose(&["force", "colour", "Type", "ID", "operation_id"])?;
                let at = if u.ratio(1, 2)? {
                    line.find(',').unwrap_or(1)
                } else {
                    line.rfind('}').unwrap_or(line.len())
                };
                // Earlier breaks may have left an empty line or a
                // multi-byte character at 1.
                let at = (0..=at.min(line.len()))
                    .rev()
                    .find(|i| line.is_char_boundary(*i))
                    .unwrap_or(0);
                line.insert_str(at, &format!(",\"{key}\":true"));
                families.push("unknown-key");
            }
            3 => {
                let present: Vec<&(&str, &str)> = MISSPELLINGS
                    .iter()
                    .filter(|(good, _)| line.contains(good))
                    .collect();
                if let Some((good, bad)) = present.get(u.choose_index(present.len().max(1))?) {
                    line = line.replacen(good, bad, 1);
                    families.push("misspelled-enum");
                }
            }
            4 => {
                let word =
                    *u.choose(&["teleport", "handshake2", "evaluation", "RESET_SESSION", ""])?;
                if let Some(start) = line.find("\"type\":\"") {
                    let from = start + 8;
                    let end = from + line[from..].find('"').unwrap_or(0);
                    line.replace_range(from..end, word);
                    families.push("unknown-type");
                }
            }
            5 => {
                line = line.replacen("$ID", u.choose(BAD_IDS)?, 1);
                families.push("envelope-id");
            }
            6 => {
                let (from, to) = *u.choose(&[
                    ("\"session\":\"$SESSION\",", ""),
                    ("\"$SESSION\"", "7"),
                    ("\"type\":", "\"kind\":"),
                    ("\"id\":$ID,", ""),
                ])?;
                line = line.replacen(from, to, 1);
                families.push("envelope");
            }
            7 => {
                line = match u.int_in_range(0..=2)? {
                    0 => format!("[{line}]"),
                    1 => format!("\"{}\"", line.replace('"', "\\\"")),
                    _ => format!("{line}{line}"),
                };
                families.push("not-an-object");
            }
            8 => {
                // A line that `trim()` or `strip()` empties but that is not
                // blank (PROTOCOL.md §1): it must get an `error`.
                // It replaces the whole line: earlier breaks are gone.
                line.clear();
                families.clear();
                for _ in 0..u.int_in_range(1..=3)? {
                    line.push(*u.choose(WHITESPACE)?);
                }
                families.push("not-blank-whitespace");
            }
            _ => {
                // Below serde_json's recursion limit (128), which is rbv's
                // reading and not a rule of the protocol.
                let depth = u.int_in_range(1..=100)?;
                let nest = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                line = line.replacen(":\"client:notes\"", &format!(":{nest}"), 1);
                families.push("deep-nesting");
            }
        }
        // Nor does one that leaves a line of whitespace whitespace (a
        // doubled or cut `\u{b}`): the line still shows the first.
        let whitespace = |l: &str| l.chars().all(|c| WHITESPACE.contains(&c));
        if line == before || (whitespace(&before) && whitespace(&line)) {
            families.truncate(named);
        }
    }
    // One line: a newline would make two, and a blank line gets no answer.
    line = line.replace(['\n', '\r'], " ");
    if rbv_protocol::is_blank_line(line.as_bytes()) {
        line = "}".into();
    }
    Ok(RawInput {
        template: line,
        families,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// libFuzzer found `input` panicking on a line an earlier break had cut
    /// to one character; any bytes must give an input or an error.
    #[test]
    fn no_bytes_make_it_panic() {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in 0..64usize {
            for _ in 0..400 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state as u8
                    })
                    .collect();
                let _ = input(&mut Unstructured::new(&bytes));
            }
        }
        // Two cuts in a row, the second on a one-character line.
        let _ = input(&mut Unstructured::new(&[0, 1, 0, 0, 0, 0, 0, 0, 0]));
    }
}
