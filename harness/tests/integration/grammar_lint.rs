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

const SHELL_CATALOGUE: &str = "requirements:\n  - {id: R-2, title: t, rule: r, section: \"§4.4\", level: MUST, capability: shell, safe_side: true}\n";

const SHELL_CASES: &str = r#"
id: shell/a-read
requirements: [R-2]
source: {proposal: "§4.4"}
reason: a read stays auto
steps:
  - evaluate: {id: "client:shell", kind: shell, arguments: {command: "echo hi"}}
    expect: {band: auto}
---
id: shell/hidden-code
requirements: [R-2]
source: {proposal: "§4.4"}
steps:
  - evaluate: {id: "client:shell", kind: shell, arguments: {command: "echo \"${x:-$(rm -rf ~)}\""}}
    expect: {band: escalate}
"#;

const BASH: &str = "grammar: bash\nparser: brush-parser\nproductions:\n  - name: SeparatorOperator::Sequence\n  - name: Command::Simple\n  - name: CommandPrefixOrSuffixItem::Word\n  - name: WordPiece::Text\n  - name: WordPiece::DoubleQuotedSequence\n  - name: WordPiece::ParameterExpansion\n  - name: WordPiece::CommandSubstitution\n  - name: ParameterExpr::UseDefaultValues\n  - name: Parameter::Named\n  - name: WordPiece::TildeExpansion\n  - name: TildeExpr::Home\n  - name: \"Builtin::echo\"\n";

fn shell_load(grammar: &str) -> Result<Suite, Vec<String>> {
    let files = vec![
        ("REQUIREMENTS.yaml".to_owned(), SHELL_CATALOGUE.to_owned()),
        ("shell/cases.yaml".to_owned(), SHELL_CASES.to_owned()),
        ("grammar/bash.yaml".to_owned(), grammar.to_owned()),
    ];
    case::load_files(&files).map_err(|errors| errors.iter().map(ToString::to_string).collect())
}

fn bash_errors(suite: &Suite) -> Vec<String> {
    case::lint(suite)
        .errors
        .iter()
        .filter(|e| e.subject.starts_with("bash:"))
        .map(ToString::to_string)
        .collect()
}

/// The shell payloads are parsed as the reference parses them, the code
/// inside `${…}` and `$(…)` included, and each production gets its side.
#[test]
fn bash_productions_are_covered_by_the_shell_cases_on_their_sides() {
    let suite = shell_load(BASH).unwrap();
    assert_eq!(bash_errors(&suite), Vec::<String>::new());
    let table = case::lint(&suite).to_string();
    assert!(
        table.contains("| bash | ParameterExpr::UseDefaultValues | covered-unsafe (1) | bash |"),
        "{table}"
    );
    assert!(
        table.contains(
            "| bash | Builtin::echo | covered-unsafe (1), covered-precision (1) | bash |"
        ),
        "{table}"
    );
}

#[test]
fn an_uncovered_bash_production_fails_unless_declared_irrelevant() {
    let missing =
        format!("{BASH}  - name: CompoundCommand::Coprocess\n  - name: \"Builtin::trap\"\n");
    let errors = bash_errors(&shell_load(&missing).unwrap());
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("bash:CompoundCommand::Coprocess: no case exercises it"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("bash:Builtin::trap: no case exercises it"),
        "{errors:?}"
    );
    let declared = format!(
        "{BASH}  - {{name: CompoundCommand::Coprocess, irrelevant: no client sends it}}\n  - {{name: \"Builtin::trap\", irrelevant: x}}\n"
    );
    assert_eq!(
        bash_errors(&shell_load(&declared).unwrap()),
        Vec::<String>::new()
    );
}

/// A production brush-parser makes that the file does not list (a new
/// parser version's variant, a builtin left out) fails lint.
#[test]
fn a_bash_production_the_file_does_not_list_fails() {
    let without = BASH.replace("  - name: WordPiece::CommandSubstitution\n", "");
    let errors = bash_errors(&shell_load(&without).unwrap());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(
            "bash:WordPiece::CommandSubstitution: exercised by shell/hidden-code but not listed in grammar/bash.yaml"
        ),
        "{errors:?}"
    );
    let without = BASH.replace("  - name: \"Builtin::echo\"\n", "");
    let errors = bash_errors(&shell_load(&without).unwrap());
    assert!(
        errors.len() == 1 && errors[0].contains("bash:Builtin::echo: exercised by shell/a-read"),
        "{errors:?}"
    );
}

#[test]
fn bash_has_no_foreign_dialect() {
    let foreign = format!("{BASH}  - {{name: Command::Function, foreign: {{dialect: zsh, probe: \"f() {{ :; }}\"}}}}\n");
    let errors = shell_load(&foreign).unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains(
            "`Command::Function`: `foreign` is a declaration of the sql grammar, not of bash"
        )),
        "{errors:?}"
    );
}

const FETCH_CATALOGUE: &str = "requirements:\n  - {id: R-3, title: t, rule: r, section: \"§4.4\", level: MUST, capability: fetch, safe_side: true}\n";

const FETCH_CASES: &str = r#"
id: fetch/a-loopback-get
requirements: [R-3]
source: {proposal: "§4.4"}
reason: a loopback GET stays auto
steps:
  - evaluate: {id: "client:fetch", kind: fetch, arguments: {url: "http://localhost/"}}
    expect: {band: auto}
---
id: fetch/octal-metadata
requirements: [R-3]
source: {proposal: "§4.4"}
steps:
  - invoke: {operation: {id: "client:fetch", kind: fetch, arguments: {url: "http://0251.0376.0251.0376/", method: get}}}
    expect: {allowed: false}
"#;

/// Every production the two cases make, so that the file is complete.
const FETCH: &str = "grammar: fetch\nparser: url\nproductions:\n  - name: Request::evaluate\n  - name: Request::invoke\n  - name: Method::absent\n  - name: Method::other-case\n  - name: Body::absent\n  - name: Scheme::http\n  - name: Username::absent\n  - name: Password::absent\n  - name: Port::absent\n  - name: Path::empty\n  - name: Query::absent\n  - name: Fragment::absent\n  - name: Host::Domain\n  - name: Domain::single-label\n  - name: Domain::ascii\n  - name: Host::Ipv4\n  - name: Ipv4::octal\n";

fn fetch_load(grammar: &str) -> Suite {
    let files = vec![
        ("REQUIREMENTS.yaml".to_owned(), FETCH_CATALOGUE.to_owned()),
        ("fetch/cases.yaml".to_owned(), FETCH_CASES.to_owned()),
        ("grammar/fetch.yaml".to_owned(), grammar.to_owned()),
    ];
    case::load_files(&files).unwrap_or_else(|e| panic!("{e:?}"))
}

fn fetch_errors(suite: &Suite) -> Vec<String> {
    case::lint(suite)
        .errors
        .iter()
        .filter(|e| e.subject.starts_with("fetch:"))
        .map(ToString::to_string)
        .collect()
}

/// Each URL is read as the reference parses it: `0251.0376.0251.0376` is
/// the IPv4 host 169.254.169.254 spelled in octal, on the invoke's unsafe side.
#[test]
fn fetch_productions_are_covered_by_the_fetch_cases_on_their_sides() {
    let suite = fetch_load(FETCH);
    assert_eq!(fetch_errors(&suite), Vec::<String>::new());
    let table = case::lint(&suite).to_string();
    assert!(
        table.contains("| fetch | Ipv4::octal | covered-unsafe (1) | whatwg |"),
        "{table}"
    );
    assert!(
        table.contains("| fetch | Domain::single-label | covered-precision (1) | whatwg |"),
        "{table}"
    );
    assert!(
        table.contains("| fetch | Request::invoke | covered-unsafe (1) | whatwg |"),
        "{table}"
    );
}

#[test]
fn an_uncovered_fetch_production_fails_unless_declared_irrelevant() {
    let missing = format!("{FETCH}  - name: Ipv6::site-local\n  - name: Method::TRACE\n");
    let errors = fetch_errors(&fetch_load(&missing));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("fetch:Ipv6::site-local: no case exercises it"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("fetch:Method::TRACE: no case exercises it"),
        "{errors:?}"
    );
    let declared = format!(
        "{FETCH}  - {{name: Ipv6::site-local, irrelevant: deprecated}}\n  - {{name: Method::TRACE, irrelevant: x}}\n"
    );
    assert_eq!(fetch_errors(&fetch_load(&declared)), Vec::<String>::new());
}

#[test]
fn a_fetch_production_the_file_does_not_list_fails() {
    let without = FETCH.replace("  - name: Ipv4::octal\n", "");
    let errors = fetch_errors(&fetch_load(&without));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(
            "fetch:Ipv4::octal: exercised by fetch/octal-metadata but not listed in grammar/fetch.yaml"
        ),
        "{errors:?}"
    );
}
