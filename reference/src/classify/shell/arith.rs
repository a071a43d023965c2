//! Words bash evaluates as arithmetic beyond `$((…))` and `((…))`
//! (RBV-SH-020). bash(1), ARITHMETIC EVALUATION: a name's value is
//! evaluated as an expression, and an array subscript in it is expanded,
//! so a `$(…)` there runs. That happens wherever bash reads a word as a
//! number or as a variable name that may carry a subscript: the operands
//! of `let`, of `-eq`…`-ge` in `test`/`[`/`[[ ]]`, the counts of `shift`,
//! `exit`, `return`, `break`, `continue`, `ulimit`, and the names `unset`,
//! `read`, `mapfile`, `printf -v`, `getopts`, `declare` and its family and
//! `[[ -v ]]` assign or test (`unset 'a[$(cmd)]'` runs `cmd`). Quoting the
//! word does not help: the quotes are removed before bash evaluates it.

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

/// Builtins whose operands name variables, assigned or tested.
const NAMES: &[&str] = &[
    "unset",
    "read",
    "mapfile",
    "readarray",
    "printf",
    "getopts",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "test",
    "[",
];

/// The arithmetic comparisons of `test` and `[`.
const COMPARISONS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

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
    if matches!(name, "test" | "[") {
        for (i, a) in args.iter().enumerate() {
            if COMPARISONS.contains(&a.text.as_str()) {
                let around = [i.checked_sub(1), Some(i + 1)];
                out.extend(
                    around
                        .into_iter()
                        .flatten()
                        .filter_map(|j| args.get(j))
                        .map(|o| Reading::Expression(o.text.as_str())),
                );
            }
        }
    }
    if NAMES.contains(&name) {
        out.extend(
            args.iter()
                .filter_map(|a| subscript(&a.text))
                .map(Reading::Subscript),
        );
    }
    out
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
        let a = args(&["x", "-eq", "1"]);
        assert_eq!(
            operands("[", &a),
            [Reading::Expression("x"), Reading::Expression("1")]
        );
        let a = args(&["x=1+2"]);
        assert_eq!(operands("let", &a), [Reading::Expression("x=1+2")]);
        assert_eq!(operands("shift", &args(&["2"])), [Reading::Expression("2")]);
        // A bracket that opens no subscript of a name is data.
        assert_eq!(subscript("[$(id)]"), None);
        assert_eq!(subscript("a[1"), None);
        assert_eq!(operands("echo", &args(&["a[$(id)]"])), []);
    }
}
