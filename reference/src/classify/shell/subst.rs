//! Finding the end of a `$(…)` that holds a here-document.
//!
//! brush-parser's word parser scans `$(…)` without knowing here-documents,
//! so a body line with an unbalanced `)` or `"` (`1) parse`, `a 5" screen`)
//! ends the substitution early: the common commit idiom
//! `git commit -m "$(cat <<'EOF' … EOF)"` would then fail safe for nothing.
//! Bash skips here-document bodies while it looks for the closing `)`;
//! this scanner does the same, and is used only for words that contain
//! both `$(` and `<<`. It gives up (`None`) on anything it does not model
//! (arithmetic, `case`), and the caller then keeps brush's reading.

/// The bodies of the command substitutions of one word (`$(…)` and
/// backticks, also inside double quotes), or `None` when the scanner
/// cannot read the word.
pub fn bodies(word: &str) -> Option<Vec<String>> {
    let s: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_double = false;
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '\'' if !in_double => i = skip_single(&s, i)?,
            '"' => {
                in_double = !in_double;
                i += 1;
            }
            '`' => {
                let end = skip_backquote(&s, i)?;
                out.push(s[i + 1..end].iter().collect());
                i = end + 1;
            }
            '$' if s.get(i + 1) == Some(&'(') => {
                if s.get(i + 2) == Some(&'(') {
                    return None;
                }
                let end = close_paren(&s, i + 2)?;
                out.push(s[i + 2..end].iter().collect());
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    (!in_double).then_some(out)
}

fn skip_single(s: &[char], open: usize) -> Option<usize> {
    let close = s[open + 1..].iter().position(|&c| c == '\'')?;
    Some(open + 1 + close + 1)
}

fn skip_backquote(s: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '`' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Skips a double-quoted string starting at `open`; returns the index after it.
fn skip_double(s: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '"' => return Some(i + 1),
            '`' => i = skip_backquote(s, i)? + 1,
            '$' if s.get(i + 1) == Some(&'(') => i = close_paren(s, i + 2)? + 1,
            _ => i += 1,
        }
    }
    None
}

/// The index of the `)` that closes a substitution whose body starts at `start`.
fn close_paren(s: &[char], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut pending: Vec<(String, bool)> = Vec::new();
    let mut i = start;
    let mut word_start = true;
    while i < s.len() {
        let c = s[i];
        let at_word_start = word_start;
        word_start = matches!(c, ' ' | '\t' | '\n' | ';' | '&' | '|' | '(');
        match c {
            '\\' => i += 2,
            '\'' => i = skip_single(s, i)?,
            '"' => i = skip_double(s, i)?,
            '`' => i = skip_backquote(s, i)? + 1,
            '#' if at_word_start => {
                while i < s.len() && s[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                depth += 1;
                i += 1;
            }
            ')' if depth == 0 => return Some(i),
            ')' => {
                depth -= 1;
                i += 1;
            }
            '<' if s[i..].starts_with(&['<', '<', '<']) => i += 3,
            '<' if s.get(i + 1) == Some(&'<') => {
                let (delimiter, strip_tabs, next) = heredoc_operator(s, i + 2)?;
                pending.push((delimiter, strip_tabs));
                i = next;
            }
            '\n' if !pending.is_empty() => {
                i += 1;
                for (delimiter, strip_tabs) in std::mem::take(&mut pending) {
                    i = skip_body(s, i, &delimiter, strip_tabs)?;
                }
                word_start = true;
            }
            'c' if at_word_start && s[i..].starts_with(&['c', 'a', 's', 'e']) => return None,
            _ => i += 1,
        }
    }
    None
}

/// Reads `[-]DELIM` after `<<`: the delimiter with its quotes removed.
fn heredoc_operator(s: &[char], mut i: usize) -> Option<(String, bool, usize)> {
    let strip_tabs = s.get(i) == Some(&'-');
    if strip_tabs {
        i += 1;
    }
    while matches!(s.get(i), Some(' ' | '\t')) {
        i += 1;
    }
    let mut delimiter = String::new();
    while let Some(&c) = s.get(i) {
        match c {
            '\'' | '"' => {
                let close = s[i + 1..].iter().position(|&q| q == c)?;
                delimiter.extend(&s[i + 1..i + 1 + close]);
                i += close + 2;
            }
            '\\' => {
                delimiter.extend(s.get(i + 1));
                i += 2;
            }
            c if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')') => break,
            c => {
                delimiter.push(c);
                i += 1;
            }
        }
    }
    (!delimiter.is_empty()).then_some((delimiter, strip_tabs, i))
}

/// Skips here-document lines up to and including the delimiter line.
fn skip_body(s: &[char], mut i: usize, delimiter: &str, strip_tabs: bool) -> Option<usize> {
    while i < s.len() {
        let end = s[i..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(s.len(), |p| i + p);
        let line: String = s[i..end].iter().collect();
        let line = if strip_tabs {
            line.trim_start_matches('\t')
        } else {
            &line
        };
        if line == delimiter {
            return Some((end + 1).min(s.len()));
        }
        i = end + 1;
    }
    None
}
