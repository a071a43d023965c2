//! The grammar files list exactly the productions of the parsers the
//! reference is built with: read from the locked crate's own source (found
//! through `cargo metadata`), so that a new parser version that adds a
//! variant fails here until the grammar file lists it. bash's builtins
//! are checked against the machine's bash (`enable -a`); the fetch's
//! arguments against the protocol's own text and schemas.

use rbv::grammar::bash;
use rbv::grammar::fetch;
use rbv::grammar::sql::{lexical_token, ENUMS, QUOTE_STYLES};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The `src/` directory of the locked package `name`.
fn source_of(name: &str) -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .and_then(|p| p["manifest_path"].as_str())
        .unwrap_or_else(|| panic!("{name} is not in the workspace's dependencies"));
    PathBuf::from(manifest).parent().unwrap().join("src")
}

/// The variants of `pub enum name` in Rust source: the identifiers at the
/// enum body's top level that start a variant (after attributes and doc
/// comments, before `(`, `{`, `=`, `,` or the closing brace).
fn enum_variants(src: &str, name: &str) -> Vec<String> {
    let start = src
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("no `pub enum {name}`"));
    let body = &src[start..];
    let body = &body[body.find('{').unwrap() + 1..];
    let mut variants = Vec::new();
    let mut depth = 0usize;
    let mut expect_variant = true;
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '/' if body[i..].starts_with("//") => {
                while chars.next_if(|&(_, c)| c != '\n').is_some() {}
            }
            '/' if body[i..].starts_with("/*") => {
                let end = body[i..].find("*/").unwrap();
                while chars.next_if(|&(j, _)| j < i + end + 2).is_some() {}
            }
            '"' => {
                let mut escaped = false;
                for (_, c) in chars.by_ref() {
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
            }
            '\'' if depth > 0 => {
                // A char literal in an attribute; lifetimes never reach here.
                chars.next();
                chars.next_if(|&(_, c)| c == '\'');
            }
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect_variant = true,
            c if depth == 0 && expect_variant && (c.is_alphabetic() || c == '_') => {
                let ident: String = body[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                for _ in 1..ident.chars().count() {
                    chars.next();
                }
                variants.push(ident);
                expect_variant = false;
            }
            _ => {}
        }
    }
    variants
}

fn listed(grammar: &str) -> BTreeSet<String> {
    let suite = rbv::case::load_files(&rbv::embedded::files()).expect("the embedded corpus loads");
    let file = suite
        .grammars
        .get(grammar)
        .unwrap_or_else(|| panic!("the corpus has no grammar/{grammar}.yaml"));
    file.productions.iter().map(|p| p.name.clone()).collect()
}

#[test]
fn the_sql_grammar_file_lists_every_production_of_the_locked_sqlparser() {
    let src = source_of("sqlparser");
    let read = |file: &str| std::fs::read_to_string(src.join(file)).unwrap();
    let mut derived = BTreeSet::new();
    for (name, file) in ENUMS {
        let variants = enum_variants(&read(file), name);
        assert!(variants.len() > 1, "{name}: {variants:?}");
        derived.extend(variants.into_iter().map(|v| format!("{name}::{v}")));
    }
    let tokens = enum_variants(&read("tokenizer.rs"), "Token");
    assert!(
        tokens.contains(&"DollarQuotedString".to_owned()),
        "{tokens:?}"
    );
    derived.extend(
        tokens
            .into_iter()
            .filter(|t| lexical_token(t))
            .map(|t| format!("Token::{t}")),
    );
    derived.extend(QUOTE_STYLES.iter().map(|(_, n)| (*n).to_owned()));
    let statements = derived
        .iter()
        .filter(|n| n.starts_with("Statement::"))
        .count();
    assert!(
        statements > 100,
        "{statements} Statement variants: the scanner lost some"
    );
    let listed = listed("sql");
    let missing: Vec<_> = derived.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&derived).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "cases/grammar/sql.yaml is not sqlparser's grammar.\n  not listed: {missing:?}\n  \
         not in sqlparser: {stale:?}"
    );
}

/// The fields of `pub struct name` in Rust source.
fn struct_fields(src: &str, name: &str) -> Vec<String> {
    let start = src
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no `pub struct {name}`"));
    let body = &src[start..];
    let body = &body[..body.find("\n}").unwrap()];
    body.lines()
        .filter_map(|l| l.trim().strip_prefix("pub "))
        .filter_map(|l| l.split_once(':').map(|(f, _)| f.trim().to_owned()))
        .collect()
}

#[test]
fn the_bash_grammar_file_lists_every_production_of_the_locked_brush_parser() {
    let src = source_of("brush-parser");
    let read = |file: &str| std::fs::read_to_string(src.join(file)).unwrap();
    let mut derived = BTreeSet::new();
    for (name, file) in bash::ENUMS {
        let variants = enum_variants(&read(file), name);
        assert!(variants.len() > 1, "{name}: {variants:?}");
        derived.extend(variants.into_iter().map(|v| format!("{name}::{v}")));
    }
    let ast = read("ast.rs");
    for (production, name, field) in bash::FIELDS {
        assert!(
            struct_fields(&ast, name).iter().any(|f| f == field),
            "{production}: brush-parser's `{name}` has no field `{field}` any more"
        );
        derived.insert((*production).to_owned());
    }
    let word = read("word.rs");
    assert!(
        word.contains("indirect: bool"),
        "{}: brush-parser's ParameterExpr has no `indirect` any more",
        bash::INDIRECT
    );
    derived.insert(bash::INDIRECT.to_owned());
    derived.extend(bash::BUILTINS.iter().map(|b| bash::builtin(b)));
    let pieces = derived
        .iter()
        .filter(|n| n.starts_with("WordPiece::"))
        .count();
    assert!(
        pieces >= 11,
        "{pieces} WordPiece variants: the scanner lost some"
    );
    let listed = listed("bash");
    let missing: Vec<_> = derived.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&derived).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "cases/grammar/bash.yaml is not brush-parser's grammar.\n  not listed: {missing:?}\n  \
         not in brush-parser: {stale:?}"
    );
}

/// The names before `=>` in the body of `macro! {` (the `url` crate
/// declares `ParseError` through `simple_enum_error!`).
fn macro_arms(src: &str, name: &str) -> Vec<String> {
    let start = src
        .find(&format!("{name}! {{"))
        .unwrap_or_else(|| panic!("no `{name}!` invocation"));
    let body = &src[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find("\n}").unwrap()];
    body.lines()
        .filter_map(|l| l.split_once("=>").map(|(n, _)| n.trim().to_owned()))
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric()))
        .collect()
}

#[test]
fn the_fetch_grammar_file_lists_every_production_of_the_locked_url_crate_and_the_protocol() {
    let src = source_of("url");
    let read = |file: &str| std::fs::read_to_string(src.join(file)).unwrap();
    let mut derived = fetch::fixed_productions();
    // `Host<S = String>`: the scanner finds the enum by its whole head.
    let hosts = enum_variants(&read("host.rs"), "Host<S = String>");
    assert_eq!(hosts, ["Domain", "Ipv4", "Ipv6"], "url's Host changed");
    derived.extend(hosts.iter().map(|h| format!("Host::{h}")));
    let parser = read("parser.rs");
    let errors = macro_arms(&parser, "simple_enum_error");
    assert!(errors.len() > 5, "{errors:?}");
    derived.extend(errors.iter().map(|e| format!("ParseError::{e}")));

    // The components are those `Position` delimits.
    let mut components: Vec<String> = Vec::new();
    for v in enum_variants(&read("slicing.rs"), "Position") {
        let c = v
            .strip_prefix("Before")
            .or_else(|| v.strip_prefix("After"))
            .unwrap_or_else(|| panic!("Position::{v}"))
            .to_owned();
        if !components.contains(&c) {
            components.push(c);
        }
    }
    let families: Vec<&str> = fetch::COMPONENTS.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        components, families,
        "url's Position delimits other components than fetch::COMPONENTS"
    );

    // The special schemes are those SchemeType calls special.
    let from = &parser[parser
        .find("impl<T: AsRef<str>> From<T> for SchemeType")
        .unwrap()..];
    let from = &from[..from.find("_ => Self::NotSpecial").unwrap()];
    let special: BTreeSet<String> = from
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    let listed_special: BTreeSet<String> = fetch::SPECIAL_SCHEMES
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(special, listed_special, "url's special schemes changed");

    // The arguments are those PROTOCOL.md names for a fetch (§10.6).
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let protocol = std::fs::read_to_string(root.join("PROTOCOL.md")).unwrap();
    let bullet = &protocol[protocol.find("- **Fetch** (").expect("the fetch rules")..];
    let bullet = &bullet[..bullet.find("\n\n").unwrap_or(bullet.len())];
    let named: BTreeSet<String> = bullet
        .split("`arguments.")
        .skip(1)
        .map(|s| s.chars().take_while(|c| c.is_alphanumeric()).collect())
        .collect();
    let listed_args: BTreeSet<String> = fetch::ARGUMENTS
        .iter()
        .map(|(a, _)| (*a).to_owned())
        .collect();
    assert_eq!(
        named, listed_args,
        "PROTOCOL.md names other fetch arguments"
    );
    for (_, family) in fetch::ARGUMENTS {
        assert!(
            derived
                .iter()
                .any(|p| p.starts_with(&format!("{family}::"))),
            "no production of the {family} argument"
        );
    }

    // The requests that carry an operation are those whose schema has one.
    let mut carriers = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("protocol/schema/requests")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("\"OperationKind\"") {
            carriers.insert(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    let listed_requests: BTreeSet<String> =
        fetch::REQUESTS.iter().map(|r| (*r).to_owned()).collect();
    assert_eq!(
        carriers, listed_requests,
        "other requests carry an operation"
    );

    let listed = listed("fetch");
    let missing: Vec<_> = derived.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&derived).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "cases/grammar/fetch.yaml is not the fetch grammar.\n  not listed: {missing:?}\n  \
         not derived: {stale:?}"
    );
}

/// The builtin list is the Bash Reference Manual's; the bash this runs on
/// must have exactly those (a bash that adds one fails here).
#[test]
fn the_bash_builtins_are_those_the_machines_bash_enables() {
    let out = Command::new("bash")
        .args(["-c", "echo \"$BASH_VERSION\"; enable -a"])
        .output()
        .expect("bash runs: the builtin list is checked against it");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let version = lines.next().unwrap_or_default().to_owned();
    let enabled: BTreeSet<String> = lines
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
        .collect();
    let listed: BTreeSet<String> = bash::BUILTINS.iter().map(|b| (*b).to_owned()).collect();
    assert_eq!(
        enabled, listed,
        "GNU bash {version}'s `enable -a` differs from rbv::grammar::bash::BUILTINS"
    );
}

#[test]
fn the_scanner_reads_variants_past_attributes_comments_and_fields() {
    let src = r#"
pub enum E {
    /// A doc comment with a, comma and Fake
    #[cfg_attr(feature = "x", y("a,b"))]
    A,
    B(Box<C<D, F>>),
    G { h: Vec<(I, J)>, k: char },
    // L, is not a variant
    M = 3,
    N
}
pub enum Other { X }
"#;
    assert_eq!(enum_variants(src, "E"), ["A", "B", "G", "M", "N"]);
}
