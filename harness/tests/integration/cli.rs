//! The `rbv` binary end to end: exit codes, the summary lines, listing,
//! load errors, and the built-in reference behind the real protocol.

use std::path::Path;
use std::process::{Command, Output};

const REQUIREMENTS: &str = r#"
requirements:
  - id: RBV-PRJ-001
    title: The bands project from the axes
    rule: Irreversible or external projects to escalate.
    section: "§2.2"
    level: MUST
"#;

const GOOD: &str = r#"
id: projection/cli-irreversible
requirements: [RBV-PRJ-001]
source: {note: cli test}
steps:
  - project: {reversibility: irreversible, scope: local, trust: trusted}
    expect: {band: escalate}
---
id: projection/cli-external
requirements: [RBV-PRJ-001]
source: {note: cli test}
steps:
  - project: {reversibility: reversible, scope: external, trust: trusted}
    expect: {band: escalate}
"#;

/// Wrong on purpose: the reference answers escalate, so this fails `over`.
const WRONG: &str = r#"
id: wrong/expects-auto-for-irreversible
requirements: [RBV-PRJ-001]
source: {note: cli test}
steps:
  - project: {reversibility: irreversible, scope: local, trust: trusted}
    expect: {band: auto}
"#;

fn corpus(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn rbv(args: &[&str], cases: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .arg("--cases")
        .arg(cases)
        .env_remove("RBV_IMPL")
        .output()
        .expect("run rbv")
}

fn stdout_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_passing_run_exits_0_and_ends_with_the_summary() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
    ]);
    let out = rbv(&["run", "--jobs", "2"], dir.path());
    let lines = stdout_lines(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{lines:?} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("rbv: 2 passed, 0 failed, 0 skipped")
    );
    assert_eq!(
        lines[lines.len() - 2],
        "failures: 0 under, 0 over, 0 mismatch, 0 errors"
    );
}

#[test]
fn a_failing_case_exits_1_with_its_diff_and_the_breakdown() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
        ("wrong/b.yaml", WRONG),
    ]);
    let out = rbv(&["run"], dir.path());
    let lines = stdout_lines(&out);
    assert_eq!(out.status.code(), Some(1), "{lines:?}");
    assert!(
        lines[0].starts_with("FAIL over wrong/expects-auto-for-irreversible"),
        "{lines:?}"
    );
    // Not a terminal: no color codes.
    assert!(!lines.iter().any(|l| l.contains('\x1b')), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("-") && l.contains("auto")),
        "{lines:?}"
    );
    assert_eq!(
        lines[lines.len() - 2],
        "failures: 0 under, 1 over, 0 mismatch, 0 errors"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("rbv: 2 passed, 1 failed, 0 skipped")
    );
}

#[test]
fn filters_select_by_substring_and_may_repeat() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
        ("wrong/b.yaml", WRONG),
    ]);
    let out = rbv(
        &["run", "--filter", "cli-ext", "--filter", "nothing-matches"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout_lines(&out).last().map(String::as_str),
        Some("rbv: 1 passed, 0 failed, 0 skipped")
    );
}

#[test]
fn spawn_per_case_and_protocol_validation_give_the_same_verdicts() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
    ]);
    let out = rbv(
        &["run", "--spawn-per-case", "--validate-protocol"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", stdout_lines(&out));
    assert_eq!(
        stdout_lines(&out).last().map(String::as_str),
        Some("rbv: 2 passed, 0 failed, 0 skipped")
    );
}

/// A case in two sessions: the token minted in its own session is refused
/// in `b` and still redeems at home, so the one child must serve both.
const TWO_SESSIONS: &str = r#"
id: projection/cli-two-sessions
requirements: [RBV-PRJ-001]
source: {note: cli test}
steps:
  - approve: {operation: {id: "client:deploy"}}
    capture: {t: token}
  - invoke: {operation: {id: "client:deploy"}, token: {capture: t}}
    session: b
    expect: {allowed: false}
  - invoke: {operation: {id: "client:deploy"}, token: {capture: t}}
    expect: {allowed: true}
"#;

#[test]
fn spawn_per_case_keeps_one_child_for_all_sessions_of_a_case() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
        ("projection/b.yaml", TWO_SESSIONS),
    ]);
    for args in [&["run", "--spawn-per-case"][..], &["run", "--jobs", "1"]] {
        let out = rbv(args, dir.path());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {:?}",
            stdout_lines(&out)
        );
        assert_eq!(
            stdout_lines(&out).last().map(String::as_str),
            Some("rbv: 3 passed, 0 failed, 0 skipped")
        );
    }
}

#[test]
fn list_prints_ids_requirements_and_a_count() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
    ]);
    let out = rbv(&["list", "--filter", "projection/"], dir.path());
    let lines = stdout_lines(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("projection/cli-external") && lines[0].ends_with("RBV-PRJ-001"));
    assert_eq!(lines[2], "2 cases");
}

#[test]
fn load_errors_are_printed_and_exit_2() {
    let broken = "id: broken/x\nrequirements: [RBV-PRJ-001]\nsource: {note: x}\nstepz: []\n";
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("broken/x.yaml", broken),
    ]);
    let out = rbv(&["run"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken/x.yaml"), "{stderr}");
}

#[test]
fn usage_errors_exit_2() {
    let dir = corpus(&[("REQUIREMENTS.yaml", REQUIREMENTS)]);
    assert_eq!(
        rbv(&["run", "--jobs", "many"], dir.path()).status.code(),
        Some(2)
    );
    assert_eq!(
        rbv(&["run", "--mutant", "no-such-mutant"], dir.path())
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        rbv(
            &["run", "--impl", "x", "--mutant", "tool-level-sql"],
            dir.path()
        )
        .status
        .code(),
        Some(2)
    );
}

#[test]
fn an_implementation_that_cannot_start_is_an_error_per_case_not_a_hang() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
    ]);
    let out = rbv(
        &["run", "--impl", "exit 3", "--timeout", "500ms"],
        dir.path(),
    );
    let lines = stdout_lines(&out);
    assert_eq!(out.status.code(), Some(1), "{lines:?}");
    // Said once for the run, not once per case; every case still errors.
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(
        errors[0].starts_with("ERROR crash nothing ran (2 cases): cannot start `exit 3`"),
        "{lines:?}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("rbv: 0 passed, 2 failed, 0 skipped")
    );
}

#[test]
fn the_python_adapter_passes_the_tiny_corpus() {
    let adapter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../adapters/python/examples/toy_adapter.py"
    );
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
    ]);
    let out = rbv(
        &[
            "run",
            "--impl",
            &format!("python3 '{adapter}'"),
            "--validate-protocol",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", stdout_lines(&out));
}

#[test]
fn a_baseline_excuses_listed_failures_and_a_stale_entry_fails_the_run() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("projection/a.yaml", GOOD),
        ("wrong/b.yaml", WRONG),
    ]);
    // Outside the cases directory: every YAML file there is a case file.
    let outside = tempfile::tempdir().unwrap();
    let known = outside.path().join("known.yaml");
    std::fs::write(
        &known,
        "- case: wrong/expects-auto-for-irreversible\n  reason: the case is wrong on purpose\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["run", "--baseline"])
        .arg(&known)
        .arg("--cases")
        .arg(dir.path())
        .output()
        .unwrap();
    let lines = stdout_lines(&out);
    assert_eq!(out.status.code(), Some(0), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("baseline: 1 known failures, 0 stale")),
        "{lines:?}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("rbv: 2 passed, 1 failed, 0 skipped")
    );

    let stale = outside.path().join("stale.yaml");
    std::fs::write(
        &stale,
        "- case: projection/cli-external\n  reason: it used to fail\n",
    )
    .unwrap();
    let report = outside.path().join("report");
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["run", "--filter", "projection/", "--baseline"])
        .arg(&stale)
        .arg("--report")
        .arg(&report)
        .arg("--cases")
        .arg(dir.path())
        .output()
        .unwrap();
    let lines = stdout_lines(&out);
    assert_eq!(out.status.code(), Some(1), "{lines:?}");
    assert!(lines
        .iter()
        .any(|l| l.contains("stale baseline entry (the case passes): projection/cli-external")));
    assert!(report.join("report.json").is_file() && report.join("junit.xml").is_file());
}

/// A raw line of the protocol area, as the bench's recording transport
/// must pass it through (it once refused it, and the bench stopped with
/// "the reference errored").
const RAW: &str = r#"
id: protocol/cli-raw-reset
requirements: [RBV-PRJ-001]
source: {note: cli test}
reason: a raw line only
steps:
  - send_raw: '{"id":$ID,"session":"$SESSION","type":"reset_session"}'
    expect: {type: ack}
"#;

#[test]
fn bench_runs_a_corpus_with_raw_lines() {
    let dir = corpus(&[
        ("REQUIREMENTS.yaml", REQUIREMENTS),
        ("good.yaml", GOOD),
        ("raw.yaml", RAW),
    ]);
    let out = rbv(&["bench", "--runs", "1", "--jobs", "1"], dir.path());
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn bench_reports_every_figure_and_the_reference_by_request() {
    let dir = corpus(&[("REQUIREMENTS.yaml", REQUIREMENTS), ("good.yaml", GOOD)]);
    let out = rbv(&["bench", "--runs", "1", "--jobs", "1"], dir.path());
    assert!(out.status.success(), "{out:?}");
    let lines = stdout_lines(&out);
    for figure in ["(a) ", "(b) ", "(c) ", "(d) ", "(e) "] {
        assert!(
            lines.iter().any(|l| l.starts_with(figure)),
            "{figure}missing: {lines:#?}"
        );
    }
    let bound = lines
        .iter()
        .find(|l| l.starts_with("bound: "))
        .unwrap_or_else(|| panic!("no bound line: {lines:#?}"));
    // The floor plus the reference's own work is no less than the floor
    // (printed to two places: on a loaded machine the work of a two-case
    // corpus can round away against a slow floor).
    let ratio: f64 = bound
        .split_whitespace()
        .find_map(|w| w.strip_suffix("x:"))
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("no ratio in {bound}"));
    assert!(ratio >= 1.0, "{bound}");
    // Both cases send one `project` each; the breakdown counts them.
    let project = lines
        .iter()
        .find(|l| l.trim_start().starts_with("project "))
        .unwrap_or_else(|| panic!("no breakdown row: {lines:#?}"));
    let fields: Vec<&str> = project.split_whitespace().collect();
    assert_eq!(fields[1], "2", "{project}");
    assert!(fields[3].ends_with('%'), "{project}");
}
