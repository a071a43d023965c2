//! Comments anywhere a lexer accepts them: between tokens outside literals,
//! comments and dollar quotes, in the spellings of the payload's dialect.
//! Inserted comments are whitespace to the server, so they never change a
//! payload's truth; a client that strips comments greedily, or only the
//! first one, misreads the result.

use super::Dialect;
use arbitrary::{Result, Unstructured};

/// Where a comment may go: byte offsets at a token boundary in code.
fn boundaries(text: &str, dialect: Dialect) -> Vec<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Code,
        Quote(u8),
        Line,
        Block(usize),
        Dollar(usize),
    }
    let bytes = text.as_bytes();
    let mut state = State::Code;
    let mut spots = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        match state {
            State::Code => match c {
                b'\'' | b'"' | b'`' => state = State::Quote(c),
                b'-' if next == Some(b'-') => state = State::Line,
                b'#' if dialect == Dialect::Mysql => state = State::Line,
                b'/' if next == Some(b'*') => {
                    state = State::Block(1);
                    i += 1;
                }
                b'$' if dialect == Dialect::Postgresql => {
                    // A dollar-quote opener `$tag$`: its tag is letters or `_`.
                    let tag_end = bytes[i + 1..]
                        .iter()
                        .position(|b| !(b.is_ascii_alphabetic() || *b == b'_'))
                        .map(|n| i + 1 + n);
                    if let Some(end) = tag_end.filter(|&e| bytes[e] == b'$') {
                        state = State::Dollar(i);
                        i = end;
                    }
                }
                b' ' | b'\t' | b'\n' => spots.push(i),
                b'(' | b',' | b';' => spots.push(i + 1),
                b')' => spots.push(i),
                _ => {}
            },
            State::Quote(q) => {
                if c == b'\\' && dialect == Dialect::Mysql && q != b'`' {
                    i += 1;
                } else if c == q {
                    state = State::Code;
                }
            }
            State::Line => {
                if c == b'\n' {
                    state = State::Code;
                    spots.push(i + 1);
                }
            }
            State::Block(depth) => {
                if c == b'*' && next == Some(b'/') {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::Block(depth - 1)
                    };
                    i += 1;
                    if state == State::Code {
                        spots.push(i + 1);
                    }
                } else if c == b'/' && next == Some(b'*') && dialect == Dialect::Postgresql {
                    state = State::Block(depth + 1);
                    i += 1;
                }
            }
            State::Dollar(open) => {
                let tag_len = bytes[open + 1..]
                    .iter()
                    .position(|b| *b == b'$')
                    .unwrap_or(0)
                    + 2;
                let tag = &bytes[open..open + tag_len];
                if bytes[i..].starts_with(tag) {
                    i += tag_len - 1;
                    state = State::Code;
                }
            }
        }
        i += 1;
    }
    if state == State::Code {
        spots.push(bytes.len());
    }
    spots.dedup();
    spots
}

/// Words a comment may hold: harmless, or dangerous (data all the same).
const WORDS: &[&str] = &[
    "note",
    "DROP TABLE users",
    "; DELETE FROM users",
    "TRUNCATE t;",
    "SELECT 1",
    "'",
    "\"",
    "$$",
];

fn comment(u: &mut Unstructured, dialect: Dialect) -> Result<String> {
    let word = *u.choose(WORDS)?;
    Ok(match (u.int_in_range(0..=3)?, dialect) {
        (0, _) => format!("-- {word}\n"),
        (1, Dialect::Mysql) => format!("# {word}\n"),
        (2, Dialect::Postgresql) => format!("/* {word} /* {word} */ */"),
        _ => format!("/* {word} */"),
    })
}

/// The text with up to `max` comments at random token boundaries. The
/// family names the insertion for findings.
pub(super) fn sprinkle(u: &mut Unstructured, text: &str, dialect: Dialect) -> Result<String> {
    let spots = boundaries(text, dialect);
    if spots.is_empty() {
        return Ok(text.to_owned());
    }
    let mut chosen: Vec<usize> = Vec::new();
    // Everywhere at once, or a few places.
    if u.ratio(1, 4)? {
        chosen.clone_from(&spots);
    } else {
        for _ in 0..u.int_in_range(1..=3)? {
            chosen.push(*u.choose(&spots)?);
        }
    }
    chosen.sort_unstable();
    chosen.dedup();
    let mut out = String::with_capacity(text.len() + chosen.len() * 16);
    let mut last = 0;
    for spot in chosen {
        out.push_str(&text[last..spot]);
        out.push(' ');
        out.push_str(&comment(u, dialect)?);
        out.push(' ');
        last = spot;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_go_between_tokens_of_code_only() {
        let at = |t: &str, d| {
            boundaries(t, d)
                .into_iter()
                .map(|i| i.min(t.len()))
                .collect::<Vec<_>>()
        };
        // Inside the string, the line comment and the dollar quote: nowhere.
        assert_eq!(
            at("SELECT 'a b' -- c d\n", Dialect::Postgresql),
            vec![6, 12, 20]
        );
        assert_eq!(
            at("SELECT $q$a b$q$ x", Dialect::Postgresql),
            vec![6, 16, 18]
        );
        // MySQL: `#` is a comment, a backslash escapes the quote.
        assert_eq!(at("SELECT 'a\\' b' # c d", Dialect::Mysql), vec![6, 14]);
        // Nested block comments nest only in PostgreSQL.
        assert_eq!(at("/* a /* b */ c */ x", Dialect::Postgresql), vec![17, 19]);
        assert_eq!(at("/* a /* b */ x", Dialect::Sqlite), vec![12, 14]);
    }
}
