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

/// A format's last character pass: what each character of a whole
/// document becomes. One rule per format, used both on a document held
/// in memory ([`xml`], [`markdown`], [`json`], [`console`]) and on one
/// streamed to its file ([`Passing`]), so the two cannot differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// junit.xml, report.html, the badge: what XML forbids becomes
    /// U+FFFD, bidirectional controls and invisible marks escapes.
    Xml,
    /// summary.md: every hostile character but the newline, the tab and
    /// the zero-width space shown as an escape. The zero-width spaces are
    /// the ones [`unlinked`] put in to break links and mentions (it
    /// escaped any the text itself held).
    Markdown,
    /// report.json: every hostile character and every one XML forbids as
    /// a JSON `\uXXXX` escape. The data reads back the same; a terminal
    /// or viewer showing the file sees only escapes. (Only inside strings
    /// can such characters be; serde_json has already escaped C0 controls
    /// there, and the newline outside them is the pretty printer's.)
    Json,
    /// rbv's whole terminal output (uncolored): every hostile character
    /// but the newline and the tab shown as an escape.
    Console,
}

impl Pass {
    /// Whether the pass changes `c`.
    fn changes(self, c: char) -> bool {
        match self {
            Pass::Xml => !matches!(c, '\t' | '\n') && (!xml_allowed(c) || is_hostile(c)),
            Pass::Markdown => !matches!(c, '\n' | '\t' | '\u{200b}') && is_hostile(c),
            Pass::Json => c != '\n' && (is_hostile(c) || !xml_allowed(c)),
            Pass::Console => !matches!(c, '\n' | '\t') && is_hostile(c),
        }
    }

    /// What `c`, which the pass [`changes`](Pass::changes), is written as.
    fn replace(self, c: char, out: &mut String) {
        use std::fmt::Write;
        match self {
            Pass::Xml if !xml_allowed(c) => out.push('\u{fffd}'),
            Pass::Json => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            _ => escaped(c, out),
        }
    }

    /// `document` through the pass; moved, not copied, when it holds
    /// nothing to change (a report's documents are megabytes).
    pub fn apply(self, document: String) -> String {
        if !document.chars().any(|c| self.changes(c)) {
            return document;
        }
        let mut out = String::with_capacity(document.len() + 64);
        self.push(&document, &mut out);
        out
    }

    fn push(self, text: &str, out: &mut String) {
        for c in text.chars() {
            if self.changes(c) {
                self.replace(c, out);
            } else {
                out.push(c);
            }
        }
    }
}

/// `text` with every character XML cannot hold (controls, U+FFFE, U+FFFF,
/// …) replaced by U+FFFD, and bidirectional controls shown as escapes.
pub fn xml(text: &str) -> String {
    Pass::Xml.apply(text.to_owned())
}

/// A whole XML or HTML document through [`Pass::Xml`].
pub fn xml_document(document: String) -> String {
    Pass::Xml.apply(document)
}

/// A whole summary.md through [`Pass::Markdown`].
pub fn markdown(document: String) -> String {
    Pass::Markdown.apply(document)
}

/// rbv's whole terminal output through [`Pass::Console`].
pub fn console(document: String) -> String {
    Pass::Console.apply(document)
}

/// A whole JSON document through [`Pass::Json`].
pub fn json(document: String) -> String {
    Pass::Json.apply(document)
}

/// A writer that puts everything written through it through one
/// [`Pass`] on its way to `inner`: a report's documents are streamed to
/// their files, never held whole (with megabyte answers they are tens of
/// megabytes each), and still get the same last pass as one in memory.
/// Bytes that are not UTF-8 become U+FFFD; a character split between two
/// writes is joined first.
pub struct Passing<W: std::io::Write> {
    pass: Pass,
    inner: W,
    /// The start of a character the last write ended inside.
    pending: Vec<u8>,
    scratch: String,
}

impl<W: std::io::Write> Passing<W> {
    pub fn new(pass: Pass, inner: W) -> Self {
        Passing {
            pass,
            inner,
            pending: Vec::new(),
            scratch: String::new(),
        }
    }

    /// Writes what is pending (an unfinished character as U+FFFD) and
    /// gives the inner writer back.
    pub fn finish(mut self) -> std::io::Result<W> {
        if !self.pending.is_empty() {
            self.pending.clear();
            self.emit("\u{fffd}")?;
        }
        self.inner.flush()?;
        Ok(self.inner)
    }

    fn emit(&mut self, text: &str) -> std::io::Result<()> {
        self.scratch.clear();
        self.pass.push(text, &mut self.scratch);
        self.inner.write_all(self.scratch.as_bytes())
    }
}

impl<W: std::io::Write> std::io::Write for Passing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let joined;
        let mut bytes = buf;
        if !self.pending.is_empty() {
            let mut v = std::mem::take(&mut self.pending);
            v.extend_from_slice(buf);
            joined = v;
            bytes = &joined;
        }
        while !bytes.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.emit(text)?;
                    break;
                }
                Err(e) => {
                    let (valid, rest) = bytes.split_at(e.valid_up_to());
                    self.emit(std::str::from_utf8(valid).expect("checked"))?;
                    match e.error_len() {
                        Some(n) => {
                            self.emit("\u{fffd}")?;
                            bytes = &rest[n..];
                        }
                        None => {
                            self.pending = rest.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
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
    fn a_streamed_document_gets_the_same_pass_as_one_in_memory() {
        use std::io::Write;
        let document = "a\u{1b}[1m é\u{fffe}\u{202e}b\r\n\t\u{200b}@x 😀 \u{7f}z";
        for pass in [Pass::Xml, Pass::Markdown, Pass::Json, Pass::Console] {
            let whole = pass.apply(document.to_owned());
            assert_ne!(whole, document, "{pass:?} changes nothing");
            // Every split point, also inside a character's bytes.
            for cut in 0..=document.len() {
                let mut streamed = Passing::new(pass, Vec::new());
                streamed.write_all(&document.as_bytes()[..cut]).unwrap();
                streamed.write_all(&document.as_bytes()[cut..]).unwrap();
                let bytes = streamed.finish().unwrap();
                assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    whole,
                    "{pass:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_written_as_replacement_characters() {
        use std::io::Write;
        let mut streamed = Passing::new(Pass::Xml, Vec::new());
        streamed.write_all(b"a\xffb\xe2\x82").unwrap();
        let bytes = streamed.finish().unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), "a\u{fffd}b\u{fffd}");
    }

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
