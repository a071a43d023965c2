//! Hostile case files: case-shaped documents with wrong keys and types,
//! anchors and aliases, deep nesting, duplicate keys and broken syntax.

use arbitrary::{Result, Unstructured};

const KEYS: &[&str] = &[
    "id",
    "requirements",
    "source",
    "tags",
    "steps",
    "expect",
    "band",
    "evaluate",
    "table",
    "rows",
    "template",
    "plugins",
    "capture",
    "at_least",
    "one_of",
    "fixture",
    "${x}",
    "<<",
    "? ",
    "- ",
];
const SCALARS: &[&str] = &[
    "auto",
    "escalate",
    "Escalate",
    "~",
    "null",
    "[]",
    "{}",
    "*a",
    "&a x",
    "!!binary AA==",
    "'",
    "\"",
    "${undefined}",
    "1e400",
    "0x10",
    ".inf",
    "-",
    "|",
    ">-",
    "\t",
    "ü",
    "\u{feff}",
    "RBV-TOK-001",
];

pub fn document(u: &mut Unstructured) -> Result<String> {
    let mut out = String::new();
    let docs = u.int_in_range(1..=3)?;
    for d in 0..docs {
        if d > 0 {
            out.push_str("---\n");
        }
        node(u, &mut out, 0)?;
    }
    Ok(out)
}

fn node(u: &mut Unstructured, out: &mut String, depth: usize) -> Result<()> {
    let indent = "  ".repeat(depth.min(40));
    match u.int_in_range(0..=5)? {
        0 if depth < 12 => {
            for _ in 0..u.int_in_range(1..=4)? {
                out.push_str(&format!("{indent}{}:", u.choose(KEYS)?));
                if u.ratio(1, 2)? {
                    out.push_str(&format!(" {}\n", u.choose(SCALARS)?));
                } else {
                    out.push('\n');
                    node(u, out, depth + 1)?;
                }
            }
        }
        1 if depth < 12 => {
            for _ in 0..u.int_in_range(1..=3)? {
                out.push_str(&format!("{indent}- "));
                out.push_str(&format!("{}\n", u.choose(SCALARS)?));
            }
        }
        2 => {
            // Deep flow nesting, as an attacker would write it.
            let n = u.int_in_range(1..=5000usize)?;
            out.push_str(&indent);
            out.push_str(&"[".repeat(n));
            out.push_str(&"]".repeat(u.int_in_range(0..=n)?));
            out.push('\n');
        }
        3 => {
            // Alias fan-out (billion laughs, small).
            out.push_str(&format!("{indent}a: &a [x, x, x, x, x, x, x, x]\n"));
            for i in 0..u.int_in_range(1..=6)? {
                let prev = if i == 0 {
                    "a".to_owned()
                } else {
                    format!("a{}", i - 1)
                };
                out.push_str(&format!(
                    "{indent}a{i}: &a{i} [*{prev}, *{prev}, *{prev}, *{prev}]\n"
                ));
            }
        }
        _ => {
            let raw: String = u.arbitrary()?;
            out.push_str(&format!(
                "{indent}{}\n",
                raw.chars().take(80).collect::<String>()
            ));
        }
    }
    Ok(())
}
