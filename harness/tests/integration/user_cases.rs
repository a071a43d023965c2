//! A user's own cases: `--add-cases DIR` runs them beside the suite, with
//! its catalogue and plugin fixtures, and `rbv lint` judges the files it
//! is given, not the rest of the corpus.

use std::path::Path;
use std::process::{Command, Output};

/// A case of the user's, on a fixture of the suite's (`db-tools`).
const MINE: &str = r#"
id: mine/delete-through-declared-tool
requirements: [RBV-MAN-010, RBV-SQL-002]
source: {note: a user's own case}
plugins: [{fixture: db-tools}]
steps:
  - evaluate: {plugin: db-tools, id: "mcp:db/execute_sql", kind: sql, arguments: {sql: "DELETE FROM orders"}}
    expect: {band: escalate, decision: ask}
"#;

/// A contributed tree's own catalogue: one MUST rule, which a small tree
/// does not check through every path.
const REQUIREMENTS: &str = r#"
requirements:
  - id: RBV-PRJ-001
    title: The bands project from the axes
    rule: Irreversible or external projects to escalate.
    section: "§2.2"
    level: MUST
"#;

const CONTRIBUTED: &str = r#"
id: contributed/irreversible
requirements: [RBV-PRJ-001]
source: {note: a contributed case}
steps:
  - project: {reversibility: irreversible, scope: local, trust: trusted}
    expect: {band: escalate}
"#;

/// An id that reads `contributed/exe.png` but holds a right-to-left override.
const HOSTILE_ID: &str = "id: \"contributed/\u{202e}gnp.exe\"\nrequirements: [RBV-PRJ-001]\n\
    source: {note: x}\nsteps:\n  - project: {scope: external}\n    \
    expect: {band: escalate}\n";

fn rbv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rbv"))
        .env_remove("RBV_IMPL")
        .env_remove("RBV_CASES")
        .args(args)
        .output()
        .expect("run rbv")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, contents) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    dir
}

fn arg(dir: &Path) -> &str {
    dir.to_str().expect("a UTF-8 temp path")
}

#[test]
fn added_cases_run_with_the_suites_catalogue_and_fixtures() {
    let mine = tree(&[("mine.yaml", MINE)]);
    let out = rbv(&["run", "--add-cases", arg(mine.path()), "--filter", "mine/"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("1 passed, 0 failed"), "{}", text(&out));
    // Beside the suite: every case of the corpus, and the user's.
    let count = |args: &[&str]| -> usize {
        let out = rbv(args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count()
    };
    assert_eq!(
        count(&["list", "--add-cases", arg(mine.path())]),
        count(&["list"]) + 1
    );
    // Judged on its own: one case, and nothing about the corpus.
    let out = rbv(&["lint", "--add-cases", arg(mine.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("rbv lint: 1 cases, 0 errors, 0 warnings"),
        "{}",
        text(&out)
    );
}

#[test]
fn added_files_cannot_replace_the_suites_catalogue_or_files() {
    for path in ["REQUIREMENTS.yaml", "plugins/db-tools.yaml"] {
        let mine = tree(&[("mine.yaml", MINE), (path, "requirements: []\n")]);
        let out = rbv(&["lint", "--add-cases", arg(mine.path())]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(path), "{}", text(&out));
    }
}

#[test]
fn lint_of_a_contributed_tree_judges_that_tree() {
    let clean = tree(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("contributed/cases.yaml", CONTRIBUTED),
    ]);
    let out = rbv(&["lint", "--cases", arg(clean.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("a MUST requirement"), "{}", text(&out));
    // The project-wide rules, asked for.
    let out = rbv(&["lint", "--cases", arg(clean.path()), "--project"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("RBV-PRJ-001: a MUST requirement no case checks through"),
        "{}",
        text(&out)
    );
    // The tree's own problem is its verdict, alone and escaped.
    let hostile = tree(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("contributed/cases.yaml", CONTRIBUTED),
        ("contributed/spoof.yaml", HOSTILE_ID),
    ]);
    let out = rbv(&["lint", "--cases", arg(hostile.path())]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("contributed/spoof.yaml") && all.contains("an id is plain text"),
        "{all}"
    );
    assert!(all.contains("rbv lint: 2 cases, 1 errors"), "{all}");
    assert!(
        !all.contains("a MUST requirement") && !all.contains('\u{202e}'),
        "{all}"
    );
}
