//! Words bash evaluates as arithmetic beyond `$((…))` and `((…))`
//! (RBV-SH-020). bash(1), ARITHMETIC EVALUATION: a name's value is
//! evaluated as an expression, and an array subscript in it is expanded,
//! so a `$(…)` there runs. That happens wherever bash reads a word as a
//! number or as a variable name that may carry a subscript: the operands
//! of `let`, the counts of `shift`, `exit`, `return`, `break`, `continue`,
//! `ulimit`, the values `declare -i`/`-n` assigns, and the names `unset`,
//! `read`, `mapfile`, `printf -v`, `getopts`, `wait -p`, `declare` and its
//! family and `test -v` assign or test (`unset 'a[$(cmd)]'` runs `cmd`).
//! Quoting the word does not help: the quotes are removed before bash
//! evaluates it. `test`/`[` compare integers with `-eq`…`-ge` without
//! evaluating them (bash 5.2: "integer expression expected"); only
//! `[[ ]]` evaluates those operands.

use super::word::Arg;

/// How bash reads one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading<'a> {
    /// As an arithmetic expression: its names are evaluated, their
    /// subscripts expand.
    Expression(&'a str),
    /// As the subscript of a variable name (`a[…]`), itself arithmetic.
    Subscript(&'a str),
}

/// Builtins whose operands (not options) are numbers, evaluated as
/// arithmetic.
const COUNTS: &[&str] = &["shift", "exit", "return", "break", "continue", "ulimit"];

/// The operands of builtin `name` (given its arguments after the name)
/// that bash evaluates as arithmetic.
pub fn operands<'a>(name: &str, args: &'a [Arg]) -> Vec<Reading<'a>> {
    let mut out = Vec::new();
    if name == "let" {
        out.extend(args.iter().map(|a| Reading::Expression(a.text.as_str())));
    }
    if COUNTS.contains(&name) {
        out.extend(
            args.iter()
                .filter(|a| !a.text.starts_with('-'))
                .map(|a| Reading::Expression(a.text.as_str())),
        );
    }
    if matches!(
        name,
        "declare" | "typeset" | "local" | "readonly" | "export"
    ) {
        let flags: String = args
            .iter()
            .filter(|a| a.text.starts_with(['-', '+']))
            .flat_map(|a| a.text.chars().skip(1))
            .collect();
        for a in args.iter().filter(|a| !a.text.starts_with(['-', '+'])) {
            // `NAME=value`: only the name is a name; the value is data
            // unless `-i`/`-n` make it arithmetic or a name.
            let name = a.text.split_once('=').map_or(a.text.as_str(), |(n, _)| n);
            match subscript(&a.text) {
                Some(s) => out.push(Reading::Subscript(s)),
                None if !a.resolved && name.contains(['$', '`']) => {
                    out.push(Reading::Expression(name));
                }
                None => {}
            }
            if flags.contains(['i', 'n']) {
                if let Some((_, value)) = a.text.split_once('=') {
                    out.push(Reading::Expression(value));
                }
            }
        }
    }
    out.extend(names(name, args).into_iter().filter_map(name_reading));
    out
}

/// How bash reads a word that names a variable: a literal `a[…]` has an
/// arithmetic subscript; a name that arrives through an expansion is
/// evaluated as one, so a subscript in its value expands.
fn name_reading(a: &Arg) -> Option<Reading<'_>> {
    match subscript(&a.text) {
        Some(s) => Some(Reading::Subscript(s)),
        None => (!a.resolved).then_some(Reading::Expression(a.text.as_str())),
    }
}

/// The arguments of `name` that name variables (bash manual §4.2), its
/// options walked so that a format or a file is not read as a name.
fn names<'a>(name: &str, args: &'a [Arg]) -> Vec<&'a Arg> {
    let mut found = Vec::new();
    let rest = |start: usize| args.get(start..).unwrap_or_default().iter();
    match name {
        "printf" => {
            options(args, "v", "v", &mut found);
        }
        "read" => {
            let start = options(args, "adinNptu", "a", &mut found);
            found.extend(rest(start));
        }
        "mapfile" | "readarray" => {
            let start = options(args, "dnOsuCc", "", &mut found);
            found.extend(rest(start));
        }
        "unset" => {
            let start = options(args, "", "", &mut found);
            found.extend(rest(start));
        }
        "getopts" => found.extend(args.get(1)),
        "wait" => {
            options(args, "p", "p", &mut found);
        }
        "test" | "[" => found.extend(args.windows(2).filter(|w| w[0].text == "-v").map(|w| &w[1])),
        _ => {}
    }
    found
}

/// Walks the options of a builtin (`-ab`, `-aVALUE`, `-a VALUE`) whose
/// letters in `valued` take a value; the value of one in `named` is a
/// variable name, pushed to `found` (an attached value is not a word of
/// its own and is skipped). Returns the index of the first operand.
fn options<'a>(args: &'a [Arg], valued: &str, named: &str, found: &mut Vec<&'a Arg>) -> usize {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "--" {
            return i + 1;
        }
        let Some(letters) = t.strip_prefix('-').filter(|l| !l.is_empty()) else {
            return i;
        };
        for (j, c) in letters.char_indices() {
            if valued.contains(c) {
                if letters[j + c.len_utf8()..].is_empty() {
                    i += 1;
                    if let Some(v) = args.get(i).filter(|_| named.contains(c)) {
                        found.push(v);
                    }
                }
                break;
            }
        }
        i += 1;
    }
    args.len()
}

/// The subscript of `NAME[SUBSCRIPT]` or `NAME[SUBSCRIPT]=value`, the
/// forms a name argument takes.
pub fn subscript(text: &str) -> Option<&str> {
    let open = text.find('[')?;
    let name = &text[..open];
    let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name {
        return None;
    }
    let rest = &text[open + 1..];
    let close = match rest.find("]=") {
        Some(i) => i,
        None => rest.strip_suffix(']').map(str::len)?,
    };
    Some(&rest[..close])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(*w)).collect()
    }

    #[test]
    fn names_with_subscripts_and_numbers_are_arithmetic() {
        let a = args(&["-v", "a[$(id)]", "b"]);
        assert_eq!(operands("unset", &a), [Reading::Subscript("$(id)")]);
        let a = args(&["a[$(id)]=1", "plain=2"]);
        assert_eq!(operands("declare", &a), [Reading::Subscript("$(id)")]);
        let a = args(&["x=1+2"]);
        assert_eq!(operands("let", &a), [Reading::Expression("x=1+2")]);
        assert_eq!(operands("shift", &args(&["2"])), [Reading::Expression("2")]);
        let a = args(&["-i", "n=a[$(id)]"]);
        assert_eq!(operands("declare", &a), [Reading::Expression("a[$(id)]")]);
        assert_eq!(operands("declare", &args(&["n=a[$(id)]"])), []);
        // A bracket that opens no subscript of a name is data.
        assert_eq!(subscript("[$(id)]"), None);
        assert_eq!(subscript("a[1"), None);
        assert_eq!(operands("echo", &args(&["a[$(id)]"])), []);
    }

    #[test]
    fn only_name_positions_are_names() {
        // `test`/`[` compare integers without evaluating them.
        assert_eq!(operands("[", &args(&["a[$(id)]", "-eq", "1"])), []);
        let a = args(&["-v", "a[$(id)]"]);
        assert_eq!(operands("test", &a), [Reading::Subscript("$(id)")]);
        // printf's format and values are data; only `-v NAME` names.
        assert_eq!(operands("printf", &args(&["%s", "a[$(id)]"])), []);
        let a = args(&["-v", "a[$(id)]", "%s", "1"]);
        assert_eq!(operands("printf", &a), [Reading::Subscript("$(id)")]);
        // read's option values are not names, but `-a NAME` is.
        let a = args(&["-p", "a[$(id)]", "-a", "b[$(x)]", "c"]);
        assert_eq!(operands("read", &a), [Reading::Subscript("$(x)")]);
        // A name from an expansion is evaluated as a name.
        let x = Arg {
            text: "$x".into(),
            resolved: false,
            pattern: false,
        };
        assert_eq!(
            operands("unset", std::slice::from_ref(&x)),
            [Reading::Expression("$x")]
        );
    }
}
