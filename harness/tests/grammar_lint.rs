//! `rbv lint` on grammar coverage, against small trees: a listed production
//! no case exercises fails unless declared, a production the cases exercise
//! that the file does not list fails, and a tree judged file by file (not
//! the project) is not held to any grammar.

use rbv::case::{self, Scope, Suite};

const CATALOGUE: &str = "requirements:\n  - {id: R-1, title: t, rule: r, section: \"§1\", level: MUST, capability: sql, safe_side: true}\n";

const CASES: &str = r#"
id: sql/a-read
requirements: [R-1]
source: {proposal: "§4.3"}
reason: a read stays auto
steps:
  - evaluate: {id: "mcp:db/q", kind: sql, arguments: {sql: "SELECT 1"}}
    expect: {band: auto}
---
id: sql/a-write
requirements: [R-1]
source: {proposal: "§4.3"}
steps:
  - evaluate: {id: "mcp:db/q", kind: sql, dialect: sqlite, arguments: {sql: "DELETE FROM t"}}
    expect: {band: escalate}
"#;

fn suite(grammar: &str) -> Suite {
    let files = [
        ("REQUIREMENTS.yaml", CATALOGUE),
        ("sql/cases.yaml", CASES),
        ("grammar/sql.yaml", grammar),
    ];
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
        .collect();
    case::load_files(&files).unwrap_or_else(|e| panic!("{e:?}"))
}

fn grammar_errors(suite: &Suite) -> Vec<String> {
    case::lint(suite)
        .errors
        .iter()
        .filter(|e| e.subject.starts_with("sql:"))
        .map(ToString::to_string)
        .collect()
}

const WHOLE: &str = "grammar: sql\nparser: sqlparser\nproductions:\n  - name: Statement::Query\n  - name: Statement::Delete\n  - name: Expr::Value\n  - name: TableFactor::Table\n  - name: Whitespace::Space\n";

#[test]
fn covered_productions_pass_and_show_their_side_and_dialect() {
    let suite = suite(WHOLE);
    let report = case::lint(&suite);
    assert_eq!(grammar_errors(&suite), Vec::<String>::new());
    let table = report.to_string();
    assert!(
        table.contains("| sql | Statement::Query | covered-precision (1) | postgresql |"),
        "{table}"
    );
    assert!(
        table.contains("| sql | Statement::Delete | covered-unsafe (1) | sqlite |"),
        "{table}"
    );
}

#[test]
fn an_uncovered_undeclared_production_fails_and_a_declaration_clears_it() {
    let missing = format!("{WHOLE}  - name: Statement::Kill\n");
    let errors = grammar_errors(&suite(&missing));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("sql:Statement::Kill: no case exercises it"),
        "{errors:?}"
    );
    for declared in [
        "  - {name: Statement::Kill, irrelevant: not read by these dialects}\n",
        "  - {name: Statement::Kill, gap: ends another session}\n",
    ] {
        let suite = suite(&format!("{WHOLE}{declared}"));
        assert_eq!(grammar_errors(&suite), Vec::<String>::new());
    }
    let report = case::lint(&suite(&format!(
        "{WHOLE}  - {{name: Statement::Kill, gap: ends another session}}\n"
    )));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.to_string().contains("1 production(s) declared a `gap`")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn a_gap_a_case_closed_is_a_warning_to_drop_it() {
    let closed = WHOLE.replace(
        "  - name: Statement::Delete\n",
        "  - {name: Statement::Delete, gap: a write}\n",
    );
    let report = case::lint(&suite(&closed));
    assert!(grammar_errors(&suite(&closed)).is_empty());
    let warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("sql:Statement::Delete: declared a `gap`, but cases exercise it")),
        "{warnings:?}"
    );
}

#[test]
fn a_production_the_file_does_not_list_fails() {
    let without = WHOLE.replace("  - name: Statement::Delete\n", "");
    let errors = grammar_errors(&suite(&without));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("sql:Statement::Delete: exercised by sql/a-write but not listed"),
        "{errors:?}"
    );
}

#[test]
fn files_judged_alone_are_held_to_no_grammar() {
    let suite = suite("grammar: sql\nparser: sqlparser\nproductions:\n  - name: Statement::Kill\n");
    let all = |_: &case::Case| true;
    let report = case::lint_scoped(&suite, Scope::Files(&all));
    assert!(report.grammar.is_empty());
    assert!(
        report.errors.iter().all(|e| !e.subject.starts_with("sql:")),
        "{:?}",
        report.errors
    );
}

#[test]
fn a_grammar_file_with_a_name_twice_or_both_declarations_does_not_load() {
    let bad = "grammar: sql\nparser: p\nproductions:\n  - name: Expr::Value\n  - name: Expr::Value\n  - {name: Expr::Cast, irrelevant: x, gap: y}\n";
    let files = vec![
        ("REQUIREMENTS.yaml".to_owned(), CATALOGUE.to_owned()),
        ("sql/cases.yaml".to_owned(), CASES.to_owned()),
        ("grammar/sql.yaml".to_owned(), bad.to_owned()),
    ];
    let errors: Vec<String> = case::load_files(&files)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`Expr::Value` is listed twice")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("both `irrelevant` and `gap`")),
        "{errors:?}"
    );
}
