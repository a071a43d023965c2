//! Perl one-liners the inspector can read exactly: `perl -pi -e
//! 's/old/new/g' FILE…`, the in-place substitution agents use the way they
//! use `sed -i`. Anything else in Perl is code the inspector does not read
//! (the interpreter rule: it fails safe).
//!
//! The reading is deliberately narrow, because Perl runs code in places a
//! substitution seems to leave none (perlop, "Regexp Quote-Like
//! Operators"; perlre, "Extended Patterns"; perlrun):
//! - the `e` and `ee` flags evaluate the replacement as code;
//! - a replacement interpolates like a double-quoted string, so
//!   `@{[ … ]}` and `${\ … }` run the code inside them;
//! - a pattern runs `(?{ … })` and `(??{ … })`;
//! - `-n` without a `print` writes nothing back, so `-ni` empties every
//!   file; `-M`, `-m`, `-I`, `-x`, `-s`, `-0`, `-a`, `-F` load modules or
//!   change what the loop reads;
//! - `-i` takes the rest of its cluster as the backup extension, so
//!   `-pie 's/a/b/'` has no `-e` at all and runs a script file named
//!   `s/a/b/`;
//! - `-p` reads its files through `<>`, whose two-argument `open` runs a
//!   file name ending in `|` as a command (and reads `<`, `>`, `+`, `|` at
//!   its start as a mode), so a name known only at run time is no file.
//!
//! So a script is read only when it is one or more `s` substitutions
//! separated by `;`, with a delimiter that is neither a letter, a digit,
//! white space, a bracket nor a quote, flags among `gimsx`, no `@`
//! anywhere, `$` in the pattern only as the end anchor and in the
//! replacement only before a capture number or `&`, and no `(?{`/`(??{`.

use super::argv::any_unresolved;
use super::walk::Walker;
use super::word::Arg;
use super::{place, read, write};
use crate::classify::Inspection;

/// The inspection of a `perl` command that is only substitutions over its
/// file operands, or `None` when it is any other Perl.
pub fn substitution(w: &Walker, args: &[Arg]) -> Option<Inspection> {
    let line = read_switches(args)?;
    if any_unresolved(&args[..line.operands_at]) {
        return None;
    }
    let script = match line.inline {
        Some(inline) => inline,
        None => args.get(line.script_at)?.text.as_str(),
    };
    if !only_substitutions(script) {
        return None;
    }
    let files = &args[line.operands_at..];
    let files = match files.first() {
        Some(a) if a.text == "--" => &files[1..],
        _ => files,
    };
    if files
        .iter()
        .any(|f| !f.resolved || opens_magically(&f.text))
    {
        return None;
    }
    if !line.in_place {
        return Some(read("`perl -p` prints its substitution"));
    }
    let found = write("`perl -pi` edits files in place (taken as tracked workspace files)");
    Some(
        files
            .iter()
            .filter_map(|f| place::write(f, w.place(f), "`perl -pi` edits", None))
            .fold(found, Inspection::join),
    )
}

/// Whether Perl's `<>`, which `-p` reads its files with, would take `name`
/// for more than a file: it opens each with the two-argument `open`, so a
/// name ending in `|` runs as a command and one starting with `<`, `>`, `+`
/// or `|` is a mode (perlop, "I/O Operators"; perlfunc `open`), white space
/// around it ignored. A name known only at run time may be either.
fn opens_magically(name: &str) -> bool {
    let name = name.trim();
    name.starts_with(['<', '>', '+', '|']) || name.ends_with('|')
}

/// Where the switches put the script and the files.
struct Switches<'a> {
    in_place: bool,
    /// The script written in the `-e` word's own cluster (`-pe's/a/b/'`).
    inline: Option<&'a str>,
    /// The word after a cluster that ends in `e`; `usize::MAX` when inline.
    script_at: usize,
    operands_at: usize,
}

/// Reads the leading switch words: clusters of `p`, `i[EXT]`, `l`, `w` and
/// one `e`, with `-p` given. `None` for any other switch, a second `-e`, or
/// a backup extension that could name another directory.
fn read_switches(args: &[Arg]) -> Option<Switches<'_>> {
    let (mut print, mut in_place) = (false, false);
    let mut script: Option<(Option<&str>, usize)> = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let Some(cluster) = arg.text.strip_prefix('-') else {
            break;
        };
        if cluster.is_empty() || cluster == "-" {
            break;
        }
        i += 1;
        for (at, c) in cluster.char_indices() {
            match c {
                'p' => print = true,
                'l' | 'w' => {}
                'i' => {
                    let ext = &cluster[at + 1..];
                    if !ext
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
                    {
                        return None;
                    }
                    in_place = true;
                    break;
                }
                'e' if script.is_none() => {
                    let rest = &cluster[at + 1..];
                    script = Some(if rest.is_empty() {
                        i += 1;
                        (None, i - 1)
                    } else {
                        (Some(rest), usize::MAX)
                    });
                    break;
                }
                _ => return None,
            }
        }
    }
    let (inline, script_at) = script?;
    if !print || script_at >= args.len() && inline.is_none() {
        return None;
    }
    Some(Switches {
        in_place,
        inline,
        script_at,
        operands_at: i,
    })
}

/// Whether `script` is one or more plain substitutions (module docs).
fn only_substitutions(script: &str) -> bool {
    let statements: Vec<&str> = script
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    !statements.is_empty() && statements.iter().all(|s| plain_substitution(s))
}

fn plain_substitution(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('s') else {
        return false;
    };
    let mut chars = rest.chars();
    let Some(delim) = chars.next() else {
        return false;
    };
    if delim.is_alphanumeric()
        || delim.is_whitespace()
        || matches!(
            delim,
            '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '\'' | '"' | '`'
        )
        || delim == '@'
        || delim == '$'
    {
        return false;
    }
    let body = chars.as_str();
    let Some((pattern, body)) = split_at_delim(body, delim) else {
        return false;
    };
    let Some((replacement, flags)) = split_at_delim(body, delim) else {
        return false;
    };
    flags
        .chars()
        .all(|f| matches!(f, 'g' | 'i' | 'm' | 's' | 'x'))
        && pattern_is_plain(pattern)
        && replacement_is_plain(replacement)
}

/// The text up to the first unescaped `delim`, and what follows it.
fn split_at_delim(text: &str, delim: char) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == delim => return Some((&text[..at], &text[at + c.len_utf8()..])),
            _ => {}
        }
    }
    None
}

fn pattern_is_plain(pattern: &str) -> bool {
    !pattern.contains('@')
        && !pattern.contains("(?{")
        && !pattern.contains("(??{")
        && dollars(pattern).all(|next| next.is_none())
}

fn replacement_is_plain(replacement: &str) -> bool {
    !replacement.contains('@')
        && dollars(replacement).all(|next| next.is_some_and(|c| c.is_ascii_digit() || c == '&'))
}

/// For every unescaped `$`, the character after it (`None` at the end).
fn dollars(text: &str) -> impl Iterator<Item = Option<char>> + '_ {
    let mut escaped = false;
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        while let Some(c) = chars.next() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '$' => return Some(chars.peek().copied()),
                _ => {}
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::{only_substitutions, plain_substitution};

    #[test]
    fn plain_substitutions_are_read() {
        for s in [
            "s/foo/bar/g",
            "s/foo/bar/",
            r"s/\s+$//",
            "s|http://|https://|g",
            "s#/usr/local#/opt#gi",
            r"s/(\w+)=1/$1=2/g",
            r"s/a\/b/c/",
            "s/x/$&$&/",
            "s/a/b/; s/c/d/g;",
        ] {
            assert!(only_substitutions(s), "{s}");
        }
    }

    #[test]
    fn substitutions_that_run_code_are_not() {
        for s in [
            "s/x/y/e",
            "s/x/y/ee",
            "s/x/y/ge",
            r#"s/x/system("id")/e"#,
            r#"s/x/@{[system "id"]}/"#,
            r"s/x/${\ `id`}/",
            r#"s/(?{system "id"})x/y/"#,
            r#"s/(??{"x"})/y/"#,
            "s/$x/y/",
            "s/x/$y/",
            "s{x}{y}",
            "s'x'y'",
            "s/x/y/; system 'id'",
            "print",
            "s/x/y",
            "",
        ] {
            assert!(!only_substitutions(s), "{s}");
        }
        assert!(!plain_substitution("tr/a-z/A-Z/"));
    }
}
