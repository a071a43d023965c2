//! The loop: lines from stdin, answers on stdout, one flush per answer.

use crate::{Dispatcher, Implementation};
use rbv_protocol::{is_blank_line, Response};
use std::io::{self, BufRead, Write};

/// The longest request line read whole (16 MiB, far above anything rbv
/// sends). A longer line is answered with `error` and skipped, so that a
/// runaway line cannot exhaust memory.
pub const MAX_LINE: usize = 16 << 20;

/// Serves `implementation` on stdin and stdout until end-of-file.
/// Log to stderr: anything else on stdout breaks the protocol.
pub fn serve_stdio<I: Implementation>(implementation: I) -> io::Result<()> {
    serve(
        implementation,
        io::stdin().lock(),
        io::stdout().lock(),
        MAX_LINE,
    )
}

/// Serves `implementation` on any reader and writer, lines up to `max_line`
/// bytes (see [`MAX_LINE`]). Every line is answered in order and the output
/// flushed after each answer, so that pipelined requests (several sent
/// before any answer is read) are all answered. Blank lines (only spaces
/// and tabs: [`is_blank_line`]) are skipped, every other line is answered;
/// a `\r` before the newline is tolerated.
pub fn serve<I: Implementation>(
    implementation: I,
    input: impl BufRead,
    output: impl Write,
    max_line: usize,
) -> io::Result<()> {
    let mut dispatcher = Dispatcher::new(implementation);
    serve_lines(input, output, max_line, |line| dispatcher.handle_line(line))
}

/// The loop of [`serve`] around any line handler: `answer` gets each line
/// that is not blank, UTF-8 and at most `max_line` bytes (without its
/// newline or a `\r` before it) and returns the answer line; every other
/// line is answered with an `error` here. For a server that rewrites what a
/// [`Dispatcher`] answers (a reduced claim, a canned answer) without a loop
/// of its own.
pub fn serve_lines(
    mut input: impl BufRead,
    mut output: impl Write,
    max_line: usize,
    mut answer: impl FnMut(&str) -> String,
) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut buf, max_line)? {
            Line::Eof => return Ok(()),
            Line::TooLong(len) => rejected(
                "too-long",
                format!("a line of more than {max_line} bytes ({len} read) is not read"),
            ),
            Line::Complete => {
                if is_blank_line(&buf) {
                    continue;
                }
                let line = buf.strip_suffix(b"\r").unwrap_or(&buf);
                match std::str::from_utf8(line) {
                    Ok(text) => answer(text),
                    Err(e) => rejected("bad-json", format!("the line is not UTF-8: {e}")),
                }
            }
        };
        output.write_all(answer.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

/// The `error` answer to a line that cannot be read at all: neither its id
/// nor its session is readable, so they are `null` and `""` (§2).
fn rejected(code: &str, message: String) -> String {
    Response::error(None, "", code, message).to_line()
}

enum Line {
    /// `buf` holds the line, without its `\n`.
    Complete,
    /// The line was longer than the limit and was skipped; how many bytes.
    TooLong(usize),
    Eof,
}

/// Reads one line into `buf`, keeping at most `max` bytes of it; the rest
/// of a longer line is consumed and dropped.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    buf.clear();
    let mut len = 0usize;
    let mut seen_any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            // A last line without a newline is still a line.
            return Ok(match (seen_any, len > max) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong(len),
                (true, false) => Line::Complete,
            });
        }
        seen_any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (chunk.len(), false),
        };
        if len + take <= max {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            buf.clear();
        }
        len += take;
        input.consume(take + usize::from(done));
        if done {
            return Ok(if len > max {
                Line::TooLong(len)
            } else {
                Line::Complete
            });
        }
    }
}
