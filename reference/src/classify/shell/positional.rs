//! A function's positional parameters: bash runs a function's body with
//! `$1`…, `$@`, `$*` and `$#` bound to the words of the call (bash manual
//! §3.3 Shell Functions, §3.4.1 Positional Parameters), so a body is judged
//! with the words it is actually given.
//!
//! Binding is a rewrite of a word's source before it is read: each
//! reference is replaced by its value quoted for the context it stands in,
//! so the value is data exactly where bash treats it as data and reaches
//! name, arithmetic and code positions exactly where bash lets it. A value
//! known only at run time keeps its reference, which reads as unknown.

use super::word::Arg;

/// What a reference names.
enum Reference {
    /// `$N`, `${N}`.
    Nth(usize),
    /// `$@`, `${@}`.
    All,
    /// `$*`, `${*}`.
    Joined,
    /// `$#`, `${#}`.
    Count,
}

/// The reference at the start of `rest` (just after a `$`) and its length.
fn reference(rest: &str) -> Option<(Reference, usize)> {
    let mut chars = rest.chars();
    match chars.next()? {
        c @ '1'..='9' => Some((Reference::Nth(c as usize - '0' as usize), 1)),
        '@' => Some((Reference::All, 1)),
        '*' => Some((Reference::Joined, 1)),
        '#' => Some((Reference::Count, 1)),
        '{' => {
            let close = rest.find('}')?;
            let inner = &rest[1..close];
            let named = match inner {
                "@" => Reference::All,
                "*" => Reference::Joined,
                "#" => Reference::Count,
                _ if !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit()) => {
                    Reference::Nth(inner.parse().ok().filter(|n| *n > 0)?)
                }
                // `${1:-x}`, `${#1}`, `${1//a/b}`: an operation on the
                // value, left to read as unknown.
                _ => return None,
            };
            Some((named, close + 1))
        }
        _ => None,
    }
}

/// The value a reference expands to, when every word it takes is known.
fn value(named: &Reference, args: &[Arg]) -> Option<String> {
    let all = || {
        args.iter()
            .map(|a| a.value().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(" "))
    };
    match named {
        Reference::Nth(n) => match args.get(n - 1) {
            Some(a) => a.value().map(str::to_owned),
            None => Some(String::new()),
        },
        Reference::All | Reference::Joined => all(),
        Reference::Count => Some(args.len().to_string()),
    }
}

/// `raw` with every positional reference replaced by its value, quoted
/// for where it stands; `None` when `raw` has none that can be bound.
pub fn bind(raw: &str, args: &[Arg]) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut in_double = false;
    let mut changed = false;
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        let width = c.len_utf8();
        match c {
            '\\' => {
                let escaped = rest[width..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&rest[..width + escaped]);
                rest = &rest[width + escaped..];
                continue;
            }
            '\'' if !in_double => {
                let end = rest[1..].find('\'').map_or(rest.len(), |i| i + 2);
                out.push_str(&rest[..end]);
                rest = &rest[end..];
                continue;
            }
            '"' => in_double = !in_double,
            '$' => {
                if let Some((named, len)) = reference(&rest[1..]) {
                    if let Some(v) = value(&named, args) {
                        out.push_str(&if in_double {
                            double_quoted(&v)
                        } else {
                            single_quoted(&v)
                        });
                        rest = &rest[1 + len..];
                        changed = true;
                        continue;
                    }
                }
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[width..];
    }
    changed.then_some(out)
}

/// The words a whole word made of one reference expands to: `"$@"` is
/// each word of the call as it was given; an unquoted `$@`, `$*` or `$N`
/// is split into fields (bash manual §3.5.7 Word Splitting). `None` when
/// the word is anything else (it is bound by [`bind`]).
pub fn spread(raw: &str, args: &[Arg]) -> Option<Vec<Arg>> {
    let quoted = raw
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .filter(|inner| inner.starts_with('$'));
    if let Some(inner) = quoted {
        return match reference(&inner[1..]) {
            Some((Reference::All, len)) if len + 1 == inner.len() => Some(args.to_vec()),
            _ => None,
        };
    }
    let (named, len) = reference(raw.strip_prefix('$')?)?;
    if len + 1 != raw.len() {
        return None;
    }
    let taken: Vec<&Arg> = match named {
        Reference::Nth(n) => args.get(n - 1).into_iter().collect(),
        Reference::All | Reference::Joined => args.iter().collect(),
        Reference::Count => return None,
    };
    Some(
        taken
            .into_iter()
            .flat_map(|a| match a.value() {
                Some(v) => v.split_whitespace().map(Arg::literal).collect(),
                None => vec![a.clone()],
            })
            .collect(),
    )
}

/// The positional parameters after `shift N` (`None`: a count known only
/// at run time, so every later reference is unknown).
pub fn shifted(args: &[Arg], count: Option<&Arg>) -> Option<Vec<Arg>> {
    let n = match count {
        None => 1,
        Some(c) => c.value()?.parse::<usize>().ok()?,
    };
    // bash: a count greater than `$#` leaves the parameters unchanged.
    if n > args.len() {
        return Some(args.to_vec());
    }
    Some(args[n..].to_vec())
}

fn single_quoted(v: &str) -> String {
    format!("'{}'", v.replace('\'', r"'\''"))
}

fn double_quoted(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        if matches!(c, '\\' | '$' | '`' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(*w)).collect()
    }

    #[test]
    fn references_take_the_quoting_of_where_they_stand() {
        let a = args(&["a b", "it's"]);
        assert_eq!(bind("\"$1\"", &a).as_deref(), Some("\"a b\""));
        assert_eq!(bind("$2", &a).as_deref(), Some(r"'it'\''s'"));
        assert_eq!(bind("'$1'", &a), None);
        assert_eq!(bind(r"\$1", &a), None);
        assert_eq!(bind("x${2}y", &a).as_deref(), Some(r"x'it'\''s'y"));
        assert_eq!(bind("\"$#\"", &a).as_deref(), Some("\"2\""));
        assert_eq!(bind("\"$3\"", &a).as_deref(), Some("\"\""));
        assert_eq!(bind("\"${1:-x}\"", &a), None);
        let code = args(&["$(rm -rf ~)"]);
        assert_eq!(bind("\"$1\"", &code).as_deref(), Some(r#""\$(rm -rf ~)""#));
    }

    #[test]
    fn a_value_known_only_at_run_time_stays_a_reference() {
        let a = vec![Arg {
            text: "$x".into(),
            resolved: false,
            pattern: false,
        }];
        assert_eq!(bind("\"$1\"", &a), None);
        assert_eq!(spread("\"$@\"", &a), Some(a.clone()));
    }

    #[test]
    fn whole_word_references_spread_into_words() {
        let a = args(&["rm", "-rf x", "~"]);
        assert_eq!(spread("\"$@\"", &a), Some(a.clone()));
        assert_eq!(spread("$@", &a).map(|v| v.len()), Some(4));
        assert_eq!(spread("$2", &a), Some(args(&["-rf", "x"])));
        assert_eq!(spread("$9", &a), Some(vec![]));
        assert_eq!(spread("\"$1\"", &a), None);
        assert_eq!(spread("$1x", &a), None);
    }

    #[test]
    fn shift_drops_leading_parameters() {
        let a = args(&["a", "b", "c"]);
        assert_eq!(shifted(&a, None), Some(args(&["b", "c"])));
        assert_eq!(shifted(&a, Some(&Arg::literal("2"))), Some(args(&["c"])));
        assert_eq!(shifted(&a, Some(&Arg::literal("5"))), Some(a.clone()));
        let unknown = Arg {
            text: "$n".into(),
            resolved: false,
            pattern: false,
        };
        assert_eq!(shifted(&a, Some(&unknown)), None);
    }
}
