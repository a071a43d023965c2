//! Text that rbv did not write (an implementation's answers, names and
//! stderr; a contributed case file) made safe for the places people read:
//! a terminal or CI log, XML, Markdown. Applied at the edges, where the
//! text is written out; the model keeps what was received (capped).
//!
//! Two layers. Where a field is placed, its context decides (a line of its
//! own, a table cell, a code span): [`terminal`], [`one_line`],
//! [`unlinked`]. Then every output format's whole document goes through
//! one character pass of its own ([`xml`] for junit.xml, report.html and
//! the badge; [`markdown`], [`json`], [`console`]), so that a field a
//! renderer forgot, or one added later, still cannot carry a character
//! the format forbids or a control that acts.

/// Whether `c` changes how a terminal or a viewer shows what follows it
/// rather than showing itself: C0 and C1 controls, DEL, the bidirectional
/// embeddings, overrides and isolates, and the invisible marks that can
/// hide or reorder text.
pub fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{061c}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

/// `c` as a visible escape: `\x1b` for a byte-sized control, `\u{202e}`
/// for the rest.
fn escaped(c: char, out: &mut String) {
    use std::fmt::Write;
    let n = u32::from(c);
    let _ = if n < 0x80 {
        write!(out, "\\x{n:02x}")
    } else {
        write!(out, "\\u{{{n:x}}}")
    };
}

/// `text` for one line of a terminal or CI log: every hostile character
/// (newlines included) shown as an escape, so that nothing it holds can
/// move the cursor, recolour, link, reorder or start a line of its own.
pub fn terminal(text: &str) -> String {
    if !text.chars().any(|c| is_hostile(c) && c != '\t') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\t' => out.push('\t'),
            c if is_hostile(c) => escaped(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// `text` on one line for a terminal: line breaks shown as `⏎`, the rest
/// as [`terminal`], at most `max` bytes (marked when cut).
pub fn one_line(text: &str, max: usize) -> String {
    let joined = text.trim().replace("\r\n", "⏎").replace('\n', "⏎");
    let mut shown = terminal(&joined);
    cap(&mut shown, max);
    shown
}

/// The lines of `text` for a terminal, each escaped by [`terminal`]; the
/// caller puts its own prefix before each, so that none starts a line.
pub fn terminal_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(terminal)
}

/// `text` with every hostile character but the newline and the tab shown
/// as an escape: for blocks of several lines (a fenced block, a diff).
pub fn visible(text: &str) -> String {
    text.split('\n')
        .map(terminal)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with nothing a Markdown renderer (GitHub's) would make live:
/// a zero-width space after each `@` (mentions, e-mail addresses) and in
/// `://` and `www.` (bare links), hostile characters escaped.
pub fn unlinked(text: &str) -> String {
    visible(text)
        .replace('@', "@\u{200b}")
        .replace("://", ":\u{200b}//")
        .replace("www.", "www\u{200b}.")
}

/// Whether XML 1.0 allows `c` in a document at all.
pub fn xml_allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// `text` with every character XML cannot hold (controls, U+FFFE, U+FFFF,
/// …) replaced by U+FFFD, and bidirectional controls shown as escapes.
pub fn xml(text: &str) -> String {
    if xml_clean(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' | '\n' => out.push(c),
            c if !xml_allowed(c) => out.push('\u{fffd}'),
            c if is_hostile(c) => escaped(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// The last pass over a whole summary.md: every hostile character but the
/// newline, the tab and the zero-width space shown as an escape. The
/// zero-width spaces are the ones [`unlinked`] put in to break links and
/// mentions (it escaped any the text itself held).
pub fn markdown(document: String) -> String {
    passed(
        document,
        |c| !matches!(c, '\n' | '\t' | '\u{200b}') && is_hostile(c),
        escaped,
    )
}

/// The last pass over rbv's whole terminal output (uncolored): every
/// hostile character but the newline and the tab shown as an escape.
pub fn console(document: String) -> String {
    passed(
        document,
        |c| !matches!(c, '\n' | '\t') && is_hostile(c),
        escaped,
    )
}

/// `document` with every character `bad` says is hostile written by
/// `escape`; moved, not copied, when it holds none.
fn passed(
    document: String,
    bad: impl Fn(char) -> bool,
    escape: impl Fn(char, &mut String),
) -> String {
    if !document.chars().any(&bad) {
        return document;
    }
    let mut out = String::with_capacity(document.len() + 64);
    for c in document.chars() {
        if bad(c) {
            escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// The last pass over a whole JSON document: every hostile character and
/// every one XML forbids, written as a JSON `\uXXXX` escape. The data
/// reads back the same; a terminal or viewer showing the file sees only
/// escapes. (Only inside strings can such characters be; serde_json has
/// already escaped C0 controls there, and the newline outside them is
/// the pretty printer's.)
pub fn json(document: String) -> String {
    use std::fmt::Write;
    passed(
        document,
        |c| c != '\n' && (is_hostile(c) || !xml_allowed(c)),
        |c, out| {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        },
    )
}

fn xml_clean(text: &str) -> bool {
    text.chars()
        .all(|c| xml_allowed(c) && !is_hostile(c) || matches!(c, '\t' | '\n'))
}

/// A whole XML or HTML document through [`xml`]; moved, not copied, when
/// it holds nothing to change (a report's documents are megabytes).
pub fn xml_document(document: String) -> String {
    if xml_clean(&document) {
        document
    } else {
        xml(&document)
    }
}

/// The marker [`cap`] leaves: `… [N bytes cut of M]`.
pub fn cut_marker(cut: usize, total: usize) -> String {
    format!("… [{cut} bytes cut of {total}]")
}

/// Cuts `text` to at most `max` bytes (on a character boundary) plus a
/// marker naming how much was cut and the full length. True when cut.
pub fn cap(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let total = text.len();
    text.truncate(end);
    text.push_str(&cut_marker(total - end, total));
    // Truncating keeps the capacity: the point is to free the memory.
    text.shrink_to_fit();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_text_cannot_escape_its_line() {
        let evil = "a\x1b[2J\x1b]8;;http://x\x07b\u{202e}c\nrbv: 9 passed\r::warning::x\u{9b}";
        let shown = terminal(evil);
        assert!(
            !shown.chars().any(|c| is_hostile(c) && c != '\t'),
            "{shown}"
        );
        assert!(shown.contains("\\x1b[2J") && shown.contains("\\u{202e}"));
        assert!(!shown.contains('\n'));
        assert_eq!(terminal("plain\ttext é"), "plain\ttext é");
        assert_eq!(one_line("a\nb", 100), "a⏎b");
    }

    #[test]
    fn markdown_text_mentions_and_links_nobody() {
        let shown = unlinked("@octocat see https://evil.example and www.evil.example\u{202e}");
        assert!(!shown.contains("@o") && !shown.contains("https://") && !shown.contains("www."));
        assert!(shown.contains("\\u{202e}"));
        assert_eq!(visible("a\n\u{1b}b"), "a\n\\x1bb");
    }

    #[test]
    fn xml_text_holds_only_what_xml_allows() {
        let shown = xml("n\u{fffe}a\u{ffff}m\u{1}e\u{202e}\n");
        assert!(shown.chars().all(xml_allowed));
        assert_eq!(shown, "n\u{fffd}a\u{fffd}m\u{fffd}e\\u{202e}\n");
    }

    #[test]
    fn document_passes_leave_nothing_that_acts() {
        let evil = "a\u{1b}[2J\u{9b}\u{202e}\u{200b}\u{fffe}\n\tb";
        assert_eq!(
            markdown(evil.to_owned()),
            "a\\x1b[2J\\u{9b}\\u{202e}\u{200b}\u{fffe}\n\tb"
        );
        assert_eq!(
            console(evil.to_owned()),
            "a\\x1b[2J\\u{9b}\\u{202e}\\u{200b}\u{fffe}\n\tb"
        );
        let doc = format!("{{\n  \"k\": {}\n}}", serde_json::to_string(evil).unwrap());
        let safe = json(doc);
        assert!(!safe
            .chars()
            .any(|c| c != '\n' && is_hostile(c) || !xml_allowed(c)));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["k"], evil);
    }

    #[test]
    fn a_cut_says_how_much_and_of_what() {
        let mut s = "é".repeat(10);
        assert!(cap(&mut s, 5));
        assert_eq!(s, "éé… [16 bytes cut of 20]");
        let mut short = "ok".to_owned();
        assert!(!cap(&mut short, 5));
    }
}
