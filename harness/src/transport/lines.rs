//! Reading an untrusted child's output without trusting its line lengths.
//!
//! A child may print a 100 MB line with no newline, or flood stderr; the
//! harness must neither buffer such a line whole nor stop reading (a child
//! blocked on a full pipe would look like a hang). Lines over the cap are
//! counted and discarded; only a prefix is kept for the report.

use std::collections::VecDeque;
use std::io::{self, BufRead};

/// The longest stdout line the harness accepts (1 MiB).
pub const MAX_LINE: usize = 1 << 20;

/// How much of an offending line a report shows.
pub const SHOWN_PREFIX: usize = 512;

/// One unit read from a child's stdout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line, without its newline (lossily decoded as UTF-8).
    Text(String),
    /// A line longer than the cap, reported as soon as it passes the cap
    /// (a child may never end it); the rest of it is discarded unread
    /// into memory. `prefix` is its start, for the report.
    Oversized { prefix: String },
    /// The stream ended. A final unterminated line is returned as `Text`
    /// before this.
    Eof,
    /// Reading failed.
    Failed(String),
}

/// Reads lines of at most `cap` bytes from a blocking `reader`.
pub struct LineReader<R> {
    reader: R,
    splitter: LineSplitter,
    done: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(reader: R, cap: usize) -> Self {
        LineReader {
            reader,
            splitter: LineSplitter::new(cap),
            done: false,
        }
    }

    /// The next line; `Eof` forever once the stream ended.
    pub fn next_line(&mut self) -> Line {
        loop {
            if let Some(line) = self.splitter.next_line() {
                return line;
            }
            if self.done {
                return Line::Eof;
            }
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Line::Failed(e.to_string());
                }
            };
            if chunk.is_empty() {
                self.done = true;
                self.splitter.finish();
                continue;
            }
            let len = chunk.len();
            self.splitter.push(chunk);
            self.reader.consume(len);
        }
    }
}

/// Splits a byte stream into lines of at most `cap` bytes (a `\r` before
/// the newline not counted), fed with whatever bytes a read returned:
/// complete lines come out as they arrive.
#[derive(Debug)]
pub struct LineSplitter {
    buf: Vec<u8>,
    cap: usize,
    skipping: bool,
    ready: VecDeque<Line>,
}

impl LineSplitter {
    pub fn new(cap: usize) -> Self {
        LineSplitter {
            buf: Vec::new(),
            cap,
            skipping: false,
            ready: VecDeque::new(),
        }
    }

    /// Splits `data` into lines; an oversized line is reported once, as soon
    /// as it passes the cap, and its rest is dropped as it arrives.
    pub fn push(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let (take, newline) = match memchr::memchr(b'\n', data) {
                Some(i) => (i, true),
                None => (data.len(), false),
            };
            if self.skipping {
                data = &data[take + usize::from(newline)..];
                self.skipping = !newline;
                continue;
            }
            // One byte over the cap is kept: it may be the `\r` of `\r\n`.
            let room = (self.cap + 2).saturating_sub(self.buf.len());
            let kept = take.min(room);
            self.buf.extend_from_slice(&data[..kept]);
            let ends_here = newline && take <= room;
            data = &data[kept + usize::from(ends_here)..];
            if ends_here && self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
            if too_long(&self.buf, self.cap, ends_here) {
                self.buf.truncate(SHOWN_PREFIX.min(self.cap));
                let prefix = String::from_utf8_lossy(&self.buf).into_owned();
                self.ready.push_back(Line::Oversized { prefix });
                self.buf.clear();
                self.skipping = !ends_here;
            } else if ends_here {
                self.ready.push_back(text(std::mem::take(&mut self.buf)));
            }
        }
    }

    /// The stream ended: an unterminated last line, then `Eof`.
    pub fn finish(&mut self) {
        if !self.skipping && !self.buf.is_empty() {
            self.ready.push_back(text(std::mem::take(&mut self.buf)));
        }
        self.skipping = false;
        self.ready.push_back(Line::Eof);
    }

    /// The next complete line, if one arrived.
    pub fn next_line(&mut self) -> Option<Line> {
        self.ready.pop_front()
    }

    /// Puts `line` back: it is the next again.
    pub fn unread(&mut self, line: Line) {
        self.ready.push_front(line);
    }

    /// Whether anything (a line, the end) is waiting.
    pub fn has_pending(&self) -> bool {
        !self.ready.is_empty()
    }
}

/// Whether `buf` (a line so far) can no longer be a line of at most `cap`
/// bytes: over the cap once ended, or over it by a byte that is not the
/// `\r` of a `\r\n`.
fn too_long(buf: &[u8], cap: usize, ended: bool) -> bool {
    buf.len() > cap + 1 || (buf.len() == cap + 1 && (ended || buf.last() != Some(&b'\r')))
}

fn text(buf: Vec<u8>) -> Line {
    // Valid UTF-8, the usual case, is moved rather than copied.
    Line::Text(
        String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// `text` cut to at most `max` bytes (on a character boundary), marked when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// The last lines a child wrote to stderr: at most `max_lines` lines and
/// `max_bytes` bytes, however much it wrote.
#[derive(Debug)]
pub struct Tail {
    lines: VecDeque<String>,
    bytes: usize,
    max_lines: usize,
    max_bytes: usize,
    dropped: u64,
}

impl Tail {
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Tail {
            lines: VecDeque::new(),
            bytes: 0,
            max_lines,
            max_bytes,
            dropped: 0,
        }
    }

    pub fn push(&mut self, line: &str) {
        // One line may take at most a quarter of the tail, so that a single
        // huge line cannot evict everything before it.
        let line = truncate(line, self.max_bytes / 4);
        self.bytes += line.len();
        self.lines.push_back(line);
        while self.lines.len() > self.max_lines || self.bytes > self.max_bytes {
            let Some(old) = self.lines.pop_front() else {
                break;
            };
            self.bytes -= old.len();
            self.dropped += 1;
        }
    }

    /// The kept lines, newline-joined, after a note of how many were dropped.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.dropped > 0 {
            out.push_str(&format!(
                "[{} earlier stderr lines dropped]\n",
                self.dropped
            ));
        }
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    fn all(input: &[u8], cap: usize) -> Vec<Line> {
        // A tiny buffer forces lines to span many fill_buf calls.
        let mut r = LineReader::new(
            BufReader::with_capacity(7, Cursor::new(input.to_vec())),
            cap,
        );
        let mut out = Vec::new();
        loop {
            let line = r.next_line();
            let end = line == Line::Eof;
            out.push(line);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn splits_lines_and_keeps_an_unterminated_last_line() {
        assert_eq!(
            all(b"ab\r\ncd\n\nlast", 100),
            vec![
                Line::Text("ab".into()),
                Line::Text("cd".into()),
                Line::Text(String::new()),
                Line::Text("last".into()),
                Line::Eof
            ]
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_not_refused() {
        assert_eq!(
            all(b"ok\n\xffx\xe2\x82\n\xc3\xa9", 100),
            vec![
                Line::Text("ok".into()),
                Line::Text("\u{fffd}x\u{fffd}".into()),
                Line::Text("é".into()),
                Line::Eof
            ]
        );
    }

    #[test]
    fn an_oversized_line_is_reported_at_the_cap_and_reading_resumes_after_it() {
        let mut input = vec![b'x'; 5000];
        input.extend_from_slice(b"\nok\n");
        let lines = all(&input, 100);
        match &lines[0] {
            Line::Oversized { prefix } => assert_eq!(prefix.len(), 100),
            other => panic!("{other:?}"),
        }
        assert_eq!(lines[1..], [Line::Text("ok".into()), Line::Eof]);
        // Exactly at the cap is still a line, also with a CR before the newline.
        assert_eq!(all(b"12345\n", 5)[0], Line::Text("12345".into()));
        assert_eq!(
            all(b"12345\r\nz", 5)[..2],
            [Line::Text("12345".into()), Line::Text("z".into())]
        );
        assert_eq!(
            all(b"123456\nz", 5)[1..],
            [Line::Text("z".into()), Line::Eof]
        );
        assert!(matches!(all(b"123456\n", 5)[0], Line::Oversized { .. }));
    }

    #[test]
    fn a_line_that_never_ends_is_reported_without_waiting_for_its_end() {
        // A reader that would block after the first megabyte: the report must
        // come from what was read, before the stream ends.
        let endless = io::Read::chain(Cursor::new(vec![b'y'; 300]), Blocking);
        let mut r = LineReader::new(BufReader::with_capacity(64, endless), 100);
        assert!(matches!(r.next_line(), Line::Oversized { .. }));
    }

    #[test]
    fn the_splitter_agrees_with_the_reader_however_the_bytes_are_cut() {
        let mut input = b"ab\r\ncd\n\n".to_vec();
        input.extend(vec![b'x'; 250]);
        input.extend_from_slice(b"\n12345\r\n123456\nlast");
        for chunk in [1, 2, 3, 7, 64, 1000] {
            let mut splitter = LineSplitter::new(5);
            let mut got = Vec::new();
            for piece in input.chunks(chunk) {
                splitter.push(piece);
                got.extend(std::iter::from_fn(|| splitter.next_line()));
            }
            splitter.finish();
            got.extend(std::iter::from_fn(|| splitter.next_line()));
            let x = "x".repeat(5);
            let expected = vec![
                Line::Text("ab".into()),
                Line::Text("cd".into()),
                Line::Text(String::new()),
                Line::Oversized { prefix: x },
                Line::Text("12345".into()),
                Line::Oversized {
                    prefix: "12345".into(),
                },
                Line::Text("last".into()),
                Line::Eof,
            ];
            assert_eq!(got, expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn the_splitter_reports_an_endless_line_before_it_ends() {
        let mut splitter = LineSplitter::new(100);
        splitter.push(&[b'z'; 60]);
        assert_eq!(splitter.next_line(), None);
        splitter.push(&[b'z'; 60]);
        assert!(
            matches!(splitter.next_line(), Some(Line::Oversized { prefix }) if prefix.len() == 100)
        );
        splitter.push(&[b'z'; 100_000]);
        assert_eq!(
            splitter.next_line(),
            None,
            "the rest of the line is dropped"
        );
        splitter.push(b"z\n{}\n");
        assert_eq!(splitter.next_line(), Some(Line::Text("{}".into())));
    }

    /// Panics if read: proves the reader stopped before it.
    struct Blocking;
    impl io::Read for Blocking {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            panic!("read past the point where the oversized line was already known")
        }
    }

    #[test]
    fn the_tail_is_bounded_in_lines_and_bytes() {
        let mut tail = Tail::new(3, 100);
        for i in 0..10 {
            tail.push(&format!("line {i}"));
        }
        assert_eq!(
            tail.render(),
            "[7 earlier stderr lines dropped]\nline 7\nline 8\nline 9\n"
        );
        let mut tail = Tail::new(20, 100);
        tail.push("before");
        tail.push(&"y".repeat(1000));
        assert_eq!(
            tail.render(),
            "before\nyyyyyyyyyyyyyyyyyyyyyyyyy… (1000 bytes)\n"
        );
        assert_eq!(truncate("héllo", 2), "h… (6 bytes)");
    }
}
