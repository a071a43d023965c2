//! `rbv run --all-mutants`: which mutants each selected case kills, and
//! which cases kill each mutant, in one command.

use std::process::{Command, Output};

fn rbv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .env_remove("RBV_IMPL")
        .env_remove("RBV_CASES")
        .output()
        .expect("run rbv")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_case_is_shown_with_the_mutants_it_kills() {
    let cases = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases");
    let out = rbv(&[
        "run",
        "--all-mutants",
        "--cases",
        cases,
        "--filter",
        "sql/declared/disguised-cte-delete",
        "--filter",
        "tokens/exact/delete-file",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "sql/declared/disguised-cte-delete: kills declared-band-as-ceiling, first-keyword-sql"
        ),
        "{text}"
    );
    // A precision case: a human's token must work; no planted defect refuses it.
    assert!(
        text.contains("tokens/exact/delete-file: kills no mutant"),
        "{text}"
    );
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"))
            .to_owned()
    };
    assert!(
        line("first-keyword-sql").contains("killed by    1 case(s)"),
        "{text}"
    );
    assert!(
        line("replayable-token").contains("killed by    0 case(s)"),
        "{text}"
    );
    // Every planted mutant has its line; the closing count is of them all.
    let planted = text.lines().filter(|l| l.contains(" killed by ")).count();
    assert!(planted >= 30, "{text}");
    assert!(
        text.contains(&format!(
            "rbv: 2 of {planted} mutants killed; not by these cases:"
        )),
        "{text}"
    );
}

#[test]
fn a_case_the_reference_fails_counts_for_no_mutant_and_fails_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "REQUIREMENTS.yaml",
        "requirements:\n  - {id: RBV-PRJ-001, title: t, rule: r, section: \"§2.2\", level: MUST, capability: projection}\n",
    );
    // Wrong on purpose: irreversible work is escalate, not auto.
    write(
        "wrong.yaml",
        "id: projection/wrong\nrequirements: [RBV-PRJ-001]\nsource: {note: test}\nsteps:\n  - project: {reversibility: irreversible, scope: local, trust: trusted}\n    expect: {band: auto}\n",
    );
    let out = rbv(&[
        "run",
        "--all-mutants",
        "--cases",
        dir.path().to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("projection/wrong: the reference does not pass it (over)"),
        "{text}"
    );
    assert!(text.contains("the reference fails 1 case(s)"), "{text}");
}

#[test]
fn all_mutants_refuses_an_implementation() {
    let out = rbv(&["run", "--all-mutants", "--impl", "cat"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
