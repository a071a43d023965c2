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
    let declared = "  - {name: Statement::Kill, irrelevant: not read by these dialects}\n";
    assert_eq!(
        grammar_errors(&suite(&format!("{WHOLE}{declared}"))),
        Vec::<String>::new()
    );
}

/// `foreign` is a claim lint checks: the probe makes the production in
/// the named dialect and in none of the wire's.
#[test]
fn a_foreign_declaration_holds_only_while_its_probe_is_foreign() {
    let load_errors = |grammar: &str| -> Vec<String> {
        let files = vec![
            ("REQUIREMENTS.yaml".to_owned(), CATALOGUE.to_owned()),
            ("sql/cases.yaml".to_owned(), CASES.to_owned()),
            ("grammar/sql.yaml".to_owned(), grammar.to_owned()),
        ];
        match case::load_files(&files) {
            Ok(suite) => grammar_errors(&suite),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    };
    // T-SQL's PRINT is read by the wire's dialects too: not foreign.
    let read_here = format!(
        "{WHOLE}  - {{name: Statement::Print, foreign: {{dialect: mssql, probe: \"PRINT 'x'\"}}}}\n"
    );
    let errors = load_errors(&read_here);
    assert!(
        errors.iter().any(|e| e.contains(
            "`Statement::Print` is declared `foreign`, but its probe makes it in postgresql"
        )),
        "{errors:?}"
    );
    // A probe that does not make the production proves nothing.
    let wrong_probe = format!(
        "{WHOLE}  - {{name: Statement::CreateStage, foreign: {{dialect: snowflake, probe: \"SELECT 1\"}}}}\n"
    );
    let errors = load_errors(&wrong_probe);
    assert!(
        errors.iter().any(|e| e.contains(
            "`Statement::CreateStage`: the `foreign` probe does not make it in snowflake"
        )),
        "{errors:?}"
    );
    // Snowflake's CREATE STAGE is its own.
    let foreign = format!(
        "{WHOLE}  - {{name: Statement::CreateStage, foreign: {{dialect: snowflake, probe: \"CREATE STAGE s URL = 's3://b/'\"}}}}\n"
    );
    assert_eq!(load_errors(&foreign), Vec::<String>::new());
    let unknown = foreign.replace("dialect: snowflake", "dialect: cobol");
    let errors = load_errors(&unknown);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`cobol` is not a dialect of sqlparser")),
        "{errors:?}"
    );
}

#[test]
fn a_foreign_production_a_case_reaches_in_another_spelling_fails() {
    // T-SQL's `IF c stmt` is foreign; PostgreSQL's reading of
    // `IF c THEN stmt; END IF` is the same production.
    let grammar = format!(
        "{WHOLE}  - {{name: Statement::If, foreign: {{dialect: mssql, probe: \"IF 1 = 1 SELECT 1\"}}}}\n"
    );
    let case = "id: sql/an-if\nrequirements: [R-1]\nsource: {proposal: \"§4.3\"}\nsteps:\n  - evaluate: {id: \"mcp:db/q\", kind: sql, arguments: {sql: \"IF 1 = 1 THEN SELECT 1; END IF\"}}\n    expect: {band: escalate}\n";
    let files = vec![
        ("REQUIREMENTS.yaml".to_owned(), CATALOGUE.to_owned()),
        ("sql/cases.yaml".to_owned(), CASES.to_owned()),
        ("sql/if.yaml".to_owned(), case.to_owned()),
        ("grammar/sql.yaml".to_owned(), grammar),
    ];
    let suite = case::load_files(&files).unwrap_or_else(|e| panic!("{e:?}"));
    let errors = grammar_errors(&suite);
    assert!(
        errors.iter().any(|e| e.contains(
            "sql:Statement::If: declared `foreign`, but sql/an-if reads it in postgresql"
        )),
        "{errors:?}"
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
    let bad = "grammar: sql\nparser: p\nproductions:\n  - name: Expr::Value\n  - name: Expr::Value\n  - {name: Expr::Cast, irrelevant: x, foreign: {dialect: mssql, probe: y}}\n";
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
            .any(|e| e.contains("both `irrelevant` and `foreign`")),
        "{errors:?}"
    );
}
