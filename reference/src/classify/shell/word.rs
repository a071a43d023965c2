//! One shell word after quote removal: its literal value when the shell's
//! expansions cannot change it, and the code it runs while being expanded.
//!
//! Quoting decides what is data: the text of `'…'`, `"…"`, `$'…'` and `\x`
//! is literal, but `$(…)` and backticks execute, also inside double quotes,
//! and a parameter or arithmetic expansion makes the value unknowable here.

use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;

/// A word as the command will receive it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// The value after quote removal; unresolved parts keep their source text.
    pub text: String,
    /// False when an expansion (parameters, substitutions, arithmetic) may
    /// change the value, so that the text is not what runs.
    pub resolved: bool,
    /// Unquoted glob or brace syntax: the shell may replace the word with
    /// file names or several words. Harmless for most arguments, but a
    /// program name that is a pattern is not known.
    pub pattern: bool,
}

impl Arg {
    pub fn literal(text: impl Into<String>) -> Self {
        Arg {
            text: text.into(),
            resolved: true,
            pattern: false,
        }
    }

    /// The literal value, or `None` if expansion may change it.
    pub fn value(&self) -> Option<&str> {
        self.resolved.then_some(self.text.as_str())
    }
}

/// Code a word runs while it is expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Embedded {
    /// The body of `$(…)` or of backticks (unescaped), to inspect as shell.
    Substitution(String),
    /// Executing text that could not be taken apart (fails safe).
    Opaque(String),
    /// The value of a variable, evaluated where bash evaluates it (issue
    /// 25, item 3): text that arrives through a variable runs there too.
    Evaluated(String, Evaluation),
}

/// How bash evaluates a variable's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// `${x@P}`: the value is expanded as a prompt string, so its command
    /// substitutions run.
    Prompt,
    /// Arithmetic (`$((x))`, `((x))`) and indirection (`${!x}`): the value
    /// is read as an expression or a name, and an array subscript in it
    /// is expanded, so a `$(…)` in it runs.
    Expression,
}

/// The variables an arithmetic expression evaluates: every name in it,
/// with or without `$` (bash evaluates a name's value as an expression in
/// turn).
pub fn arithmetic_names(expr: &str) -> Vec<Embedded> {
    let mut names = Vec::new();
    let mut chars = expr.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_ascii_alphabetic() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let name = &expr[i..end];
            if !names
                .iter()
                .any(|e| matches!(e, Embedded::Evaluated(n, _) if n == name))
            {
                names.push(Embedded::Evaluated(name.to_owned(), Evaluation::Expression));
            }
        } else if c.is_ascii_digit() {
            // A number (`0x1f`, `16#ff`): its letters are digits, not names.
            while chars
                .peek()
                .is_some_and(|&(_, d)| d.is_ascii_alphanumeric() || d == '#' || d == '_')
            {
                chars.next();
            }
        }
    }
    names
}

/// The arithmetic a `${…}` expansion evaluates, from its inside text. The
/// bash manual (§3.5.3 Shell Parameter Expansion, §6.7 Arrays) makes two
/// parts of it arithmetic expressions: an indexed array's subscript
/// (`${a[i]}`: "the subscript is treated as an arithmetic expression") and
/// the offset and length of a substring (`${s:off:len}`: "length and
/// offset are arithmetic expressions"). The names in them are evaluated
/// as expressions in turn, so a value holding `a[$(…)]` runs there.
fn arithmetic_parts(inner: &str) -> Vec<Embedded> {
    let rest = inner.strip_prefix(['!', '#']).unwrap_or(inner);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    if end == 0 {
        return Vec::new();
    }
    let mut after = &rest[end..];
    let mut parts = Vec::new();
    if let Some(sub) = after.strip_prefix('[') {
        // The subscript ends at its matching `]`.
        let mut depth = 1usize;
        let close = sub.char_indices().find_map(|(i, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        });
        let Some(close) = close else {
            return Vec::new();
        };
        let subscript = &sub[..close];
        if !matches!(subscript, "@" | "*") {
            parts.extend(arithmetic_names(subscript));
        }
        after = &sub[close + 1..];
    }
    // `${x:-w}`, `${x:=w}`, `${x:+w}`, `${x:?w}` hold words, not offsets.
    if let Some(range) = after.strip_prefix(':') {
        if !range.starts_with(['-', '=', '+', '?']) {
            parts.extend(arithmetic_names(range));
        }
    }
    parts
}

/// The variable a `${…}` expansion evaluates, from its inside text:
/// `x@P`, `arr[0]@P` (prompt) and `!x` (indirection; not `!prefix*` or
/// `!arr[@]`, which list names).
fn evaluated(inner: &str) -> Option<Embedded> {
    let (indirect, rest) = match inner.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let after = &rest[end..];
    if after.ends_with("@P") {
        return Some(Embedded::Evaluated(name.to_owned(), Evaluation::Prompt));
    }
    (indirect
        && !after.starts_with(['*', '@'])
        && !after.starts_with("[@]")
        && !after.starts_with("[*]"))
    .then(|| Embedded::Evaluated(name.to_owned(), Evaluation::Expression))
}

/// Most words a brace expansion is taken apart into; a larger one is
/// judged as the pattern it is.
const MAX_BRACE_WORDS: usize = 64;

/// The words brace expansion makes of `text` (`a{b,c}` is `ab` and `ac`;
/// a sequence `{1..9}` by its ends), or `None` when it has no brace
/// expression or makes too many.
pub fn brace_words(text: &str, options: &ParserOptions) -> Option<Vec<String>> {
    use brush_parser::word::BraceExpressionOrText as Item;
    fn expand(items: &[Item]) -> Option<Vec<String>> {
        let mut out = vec![String::new()];
        for item in items {
            let alternatives = match item {
                Item::Text(t) => vec![t.clone()],
                Item::Expr(members) => {
                    let mut all = Vec::new();
                    for m in members {
                        all.extend(member(m)?);
                    }
                    all
                }
            };
            out = out
                .iter()
                .flat_map(|prefix| alternatives.iter().map(move |a| format!("{prefix}{a}")))
                .collect();
            if out.len() > MAX_BRACE_WORDS {
                return None;
            }
        }
        Some(out)
    }
    fn member(m: &brush_parser::word::BraceExpressionMember) -> Option<Vec<String>> {
        use brush_parser::word::BraceExpressionMember as M;
        Some(match m {
            M::NumberSequence { start, end, .. } => vec![start.to_string(), end.to_string()],
            M::CharSequence { start, end, .. } => vec![start.to_string(), end.to_string()],
            M::Child(items) => expand(items)?,
        })
    }
    let items = brush_parser::word::parse_brace_expansions(text, options).ok()??;
    if !items.iter().any(|i| matches!(i, Item::Expr(_))) {
        return None;
    }
    expand(&items)
}

/// `text` with the parameter expansion at its start replaced by the word
/// it expands to when the parameter is unset or null, if it is one that
/// has such a word (bash manual, "Shell Parameter Expansion":
/// `${p:-word}` and `${p-word}` use it, `${p:=word}` and `${p=word}` also
/// assign it, `${p:+word}` and `${p+word}` give it when `p` is set). The
/// value may be that word, so a path is judged by it too (fail safe).
pub fn default_word(text: &str) -> Option<String> {
    let body = text.strip_prefix("${")?;
    let name_end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|&n| n > 0)?;
    let after = &body[name_end..];
    let word_at = [":-", ":=", ":+", "-", "=", "+"]
        .iter()
        .find_map(|op| after.strip_prefix(op))?;
    // The word ends at the `}` that closes this expansion.
    let mut depth = 0usize;
    let mut end = None;
    let mut chars = word_at.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' => depth += 1,
            '}' if depth == 0 => {
                end = Some(i);
                break;
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    let end = end?;
    let word: String = word_at[..end]
        .chars()
        .filter(|c| !matches!(c, '"' | '\''))
        .collect();
    Some(format!("{word}{}", &word_at[end + 1..]))
}

/// Reads a word of a command line (quotes are syntax).
pub fn read(raw: &str, options: &ParserOptions) -> Result<(Arg, Vec<Embedded>), String> {
    if raw.contains("$(") && raw.contains("<<") {
        if let Some(bodies) = super::subst::bodies(raw) {
            let arg = Arg {
                text: raw.to_owned(),
                resolved: false,
                pattern: false,
            };
            return Ok((
                arg,
                bodies.into_iter().map(Embedded::Substitution).collect(),
            ));
        }
    }
    let pieces = brush_parser::word::parse(raw, options).map_err(|e| e.to_string())?;
    let mut out = Builder::default();
    out.pieces(raw, &pieces, Quoting::None, options);
    Ok(out.finish())
}

/// Reads the body of a here-document whose delimiter was not quoted: quotes
/// are literal, but substitutions and expansions happen.
pub fn read_heredoc(raw: &str, options: &ParserOptions) -> Result<(Arg, Vec<Embedded>), String> {
    let pieces = brush_parser::word::parse_heredoc(raw, options).map_err(|e| e.to_string())?;
    let mut out = Builder::default();
    out.pieces(raw, &pieces, Quoting::Double, options);
    Ok(out.finish())
}

/// Finds the substitutions inside text that the shell expands but that is
/// not a word (arithmetic, the inside of `${…}`), failing safe when the
/// text holds executing syntax that cannot be taken apart.
pub fn embedded_in(text: &str, options: &ParserOptions) -> Vec<Embedded> {
    if !may_execute(text) {
        return Vec::new();
    }
    match read_heredoc(text, options) {
        Ok((_, embedded)) if !embedded.is_empty() => embedded,
        _ => vec![Embedded::Opaque(text.to_owned())],
    }
}

/// Whether text contains syntax that starts a command substitution or a
/// process substitution.
pub fn may_execute(text: &str) -> bool {
    text.contains("$(") || text.contains('`') || text.contains("<(") || text.contains(">(")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quoting {
    None,
    Double,
}

#[derive(Default)]
struct Builder {
    text: String,
    resolved: bool,
    pattern: bool,
    embedded: Vec<Embedded>,
    started: bool,
    /// An unquoted `[` was read that no `]` has closed yet.
    open_bracket: bool,
}

impl Builder {
    /// The word as read, and the code embedded in it.
    fn finish(self) -> (Arg, Vec<Embedded>) {
        let arg = Arg {
            text: self.text,
            resolved: self.resolved,
            pattern: self.pattern,
        };
        (arg, self.embedded)
    }
}

impl Builder {
    fn pieces(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        quoting: Quoting,
        options: &ParserOptions,
    ) {
        if !self.started {
            self.started = true;
            self.resolved = true;
        }
        for piece in pieces {
            let source = raw.get(piece.start_index..piece.end_index).unwrap_or("");
            self.piece(raw, piece, source, quoting, options);
        }
    }

    fn piece(
        &mut self,
        raw: &str,
        piece: &WordPieceWithSource,
        source: &str,
        quoting: Quoting,
        options: &ParserOptions,
    ) {
        let unquoted_text = matches!(piece.piece, WordPiece::Text(_)) && quoting == Quoting::None;
        // A `]` anywhere after an open `[` may close it (failing safe: a
        // quoted `]` does not, for bash).
        if !unquoted_text && self.open_bracket && source.contains(']') {
            self.pattern = true;
        }
        match &piece.piece {
            WordPiece::Text(text) => {
                // Unquoted text is subject to pathname and brace expansion.
                if quoting == Quoting::None && expands_unquoted(text, &mut self.open_bracket) {
                    self.pattern = true;
                }
                self.text.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => self.text.push_str(text),
            WordPiece::AnsiCQuotedText(text) => self.text.push_str(&ansi_c(text)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // Inner indices are relative to the same source string.
                for p in inner {
                    let s = raw.get(p.start_index..p.end_index).unwrap_or("");
                    self.piece(raw, p, s, Quoting::Double, options);
                }
            }
            WordPiece::EscapeSequence(seq) => {
                let c = seq.strip_prefix('\\').unwrap_or(seq);
                if quoting == Quoting::Double && !matches!(c, "$" | "`" | "\"" | "\\" | "\n") {
                    self.text.push_str(seq);
                } else if c != "\n" {
                    self.text.push_str(c);
                }
            }
            WordPiece::TildeExpansion(_) => {
                // `~` names a home directory: a known place, kept as written
                // so that path checks (`~/.ssh`) still see it.
                self.text.push_str(source);
            }
            WordPiece::CommandSubstitution(body) => {
                self.unresolved(source);
                self.embedded.push(Embedded::Substitution(body.clone()));
            }
            WordPiece::BackquotedCommandSubstitution(body) => {
                self.unresolved(source);
                self.embedded
                    .push(Embedded::Substitution(unescape_backquoted(body)));
            }
            WordPiece::ParameterExpansion(_) => {
                self.unresolved(source);
                let inner = source
                    .strip_prefix("${")
                    .and_then(|s| s.strip_suffix('}'))
                    .unwrap_or("");
                self.embedded.extend(embedded_in(inner, options));
                self.embedded.extend(evaluated(inner));
                self.embedded.extend(arithmetic_parts(inner));
            }
            WordPiece::ArithmeticExpression(expr) => {
                self.unresolved(source);
                self.embedded.extend(embedded_in(&expr.value, options));
                self.embedded.extend(arithmetic_names(&expr.value));
            }
        }
    }

    fn unresolved(&mut self, source: &str) {
        self.resolved = false;
        self.text.push_str(source);
    }
}

/// Unquoted characters that make the shell generate other words: `*`, `?`,
/// a bracket expression and brace expansion. A `[` is a bracket expression
/// only when a `]` closes it; otherwise it matches itself (POSIX XCU 2.13.1,
/// bash's Pattern Matching), so `[` the test command is a name, not a
/// pattern. `open_bracket` carries an unclosed `[` from one piece of the
/// word to the next.
fn expands_unquoted(text: &str, open_bracket: &mut bool) -> bool {
    let mut glob = text.contains(['*', '?']);
    for c in text.chars() {
        match c {
            '[' => *open_bracket = true,
            ']' if *open_bracket => glob = true,
            _ => {}
        }
    }
    let brace =
        text.contains('{') && text.contains('}') && (text.contains(',') || text.contains(".."));
    glob || brace
}

/// Backslash escapes inside backticks: `\\`, `` \` `` and `\$` lose the
/// backslash before the body is run as a command.
fn unescape_backquoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if matches!(next, '\\' | '`' | '$') {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Decodes the body of `$'…'` the way bash does.
pub fn ansi_c(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                push_code(&mut out, value & 0xff);
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                let mut digits = 0;
                while digits < max {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            value = value.saturating_mul(16).saturating_add(d);
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    push_code(&mut out, value);
                }
            }
            'c' => {
                if let Some(ctl) = chars.next() {
                    push_code(&mut out, (ctl as u32) & 0x1f);
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn push_code(out: &mut String, code: u32) {
    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_word_replaces_its_expansion() {
        for (text, want) in [
            ("${f:-/etc/shadow}", Some("/etc/shadow")),
            ("${out-/etc/hosts}", Some("/etc/hosts")),
            ("${rc:=$HOME/.profile}", Some("$HOME/.profile")),
            ("${x:+~/.bashrc}", Some("~/.bashrc")),
            ("${d:-/etc}/cron.d/x", Some("/etc/cron.d/x")),
            ("${f:-\"/etc/shadow\"}", Some("/etc/shadow")),
            ("${f:-${g:-/etc/x}}", Some("${g:-/etc/x}")),
            ("${f}", None),
            ("${f:?unset}", None),
            ("${#f}", None),
            ("$f", None),
            ("notes.txt", None),
        ] {
            assert_eq!(default_word(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn brace_words_are_every_alternative_nested_and_sequences_by_their_ends() {
        let o = ParserOptions::default();
        assert_eq!(
            brace_words("{a,/etc}/hosts", &o).unwrap(),
            ["a/hosts", "/etc/hosts"]
        );
        assert_eq!(
            brace_words("x{1..9}{a,b{c,d}}", &o).unwrap(),
            ["x1a", "x1bc", "x1bd", "x9a", "x9bc", "x9bd"]
        );
        assert_eq!(brace_words("plain.txt", &o), None);
        // Too many words: the caller judges the pattern as it is.
        assert_eq!(brace_words(&"{a,b}".repeat(7), &o), None);
    }
}
