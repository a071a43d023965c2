//! What `rbv run` certifies and says, end to end: a partial implementation
//! is certified for what it claims, a filtered or spawn-per-case run says
//! so, failures show their request, and a misspelled capability or a
//! handshake that fails is reported once.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases");

fn rbv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .args(["--cases", CASES, "-j", "2"])
        .env_remove("RBV_IMPL")
        .output()
        .expect("rbv runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `rbv serve` claiming only `claim`.
fn reference_claiming(claim: &str) -> String {
    format!("'{}' serve --claim {claim}", env!("CARGO_BIN_EXE_rbv"))
}

fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

fn capability<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["summary"]["certification"]["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["capability"] == name)
        .unwrap_or_else(|| panic!("{name} listed"))
}

#[test]
fn a_partial_implementation_is_certified_for_what_it_claims() {
    let dir = tempfile::tempdir().unwrap();
    let out = rbv(&[
        "run",
        "--impl",
        &reference_claiming("sql,projection"),
        "--report",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let r = report(dir.path());
    assert_eq!(r["summary"]["level"], "precise");
    let statement = r["summary"]["certification"]["statement"].as_str().unwrap();
    assert!(
        statement.starts_with("Precise: base, projection, sql · not claimed: audit, "),
        "{statement}"
    );
    assert_eq!(capability(&r, "sql")["level"], "precise");
    let shell = capability(&r, "shell");
    assert_eq!(shell["status"], "not-claimed");
    assert!(shell.get("level").is_none());
    assert!(shell["counts"]["skip"].as_u64().unwrap() > 0);
    let c = &r["conditions"];
    assert_eq!(c["mode"], "process");
    assert_eq!(c["jobs"], 2);
    assert_eq!(c["timeout_ms"], 5000);
    assert_eq!(c["validate_protocol"], false);
    assert_eq!(c["profile_source"], "handshake");
    assert!(c["command"]
        .as_str()
        .unwrap()
        .contains("--claim sql,projection"));
    assert_eq!(
        c["suite_cases"].as_u64(),
        r["cases"].as_array().map(|a| a.len() as u64)
    );
    assert!(stdout(&out).contains("(Precise: base, projection, sql · not claimed:"));
}

#[test]
fn a_filtered_run_says_partial_and_earns_no_level() {
    let out = rbv(&["run", "--filter", "projection/"]);
    let text = stdout(&out);
    let total = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["list", "--cases", CASES])
        .output()
        .unwrap();
    let total = stdout(&total);
    let m: usize = total
        .lines()
        .last()
        .and_then(|l| l.strip_suffix(" cases"))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        text.contains(&format!(" of {m} cases (--filter): no level")),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let out = rbv(&[
        "run",
        "--filter",
        "projection/",
        "--spawn-per-case",
        "--report",
        dir.path().to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(text.contains("mode: spawn-per-case"), "{text}");
    let r = report(dir.path());
    assert_eq!(r["summary"]["level"], "none");
    let partial = &r["summary"]["certification"]["partial"];
    assert_eq!(partial["total"].as_u64(), Some(m as u64));
    let label = format!("partial run: {} of {m} cases", partial["ran"]);
    assert!(text.contains(&label), "{text}");
    for name in ["summary.md", "report.html", "badge.svg", "junit.xml"] {
        let body = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(body.contains(&label), "{name}");
    }
    assert_eq!(r["conditions"]["mode"], "spawn-per-case");
    assert_eq!(r["conditions"]["filters"][0], "projection/");
    assert_eq!(r["conditions"]["profile_source"], "per-case");
}

#[test]
fn a_misspelled_capability_is_warned_about_once() {
    let out = rbv(&[
        "run",
        "--impl",
        &reference_claiming("projection,manfest,manfest"),
        "--filter",
        "projection/",
    ]);
    let text = stdout(&out);
    let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(warnings[0].contains("`manfest`"));
    assert!(warnings[0].contains("did you mean `manifest`?"));
}

#[test]
fn a_failure_shows_its_request_and_a_token_case_the_approval() {
    let out = rbv(&[
        "run",
        "--mutant",
        "replayable-token",
        "--filter",
        "tokens/replay",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let fail = lines
        .iter()
        .position(|l| l.starts_with("FAIL under tokens/replay"))
        .unwrap_or_else(|| panic!("{text}"));
    let block: Vec<&str> = lines[fail + 1..]
        .iter()
        .take_while(|l| l.starts_with("    "))
        .copied()
        .collect();
    let request = block
        .iter()
        .find(|l| l.starts_with("    request: invoke {"));
    let minted = block
        .iter()
        .find(|l| l.starts_with("    minted by: approve {") && l.contains("\"human\""));
    assert!(request.is_some() && minted.is_some(), "{block:#?}");

    let out = rbv(&[
        "run",
        "--mutant",
        "first-keyword-sql",
        "--filter",
        "sql/disguised/cte-delete",
    ]);
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("    request: evaluate {\"operation\":") && l.contains("DELETE")),
        "{text}"
    );
}

#[test]
fn show_prints_a_case_as_it_runs_with_file_and_line() {
    let show = |id: &str| {
        Command::new(env!("CARGO_BIN_EXE_rbv"))
            .args(["show", id, "--cases", CASES])
            .output()
            .unwrap()
    };
    let out = show("tokens/replay/delete-file");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("# tokens/") && first.contains(".yaml:"),
        "{text}"
    );
    assert!(text.contains("\n  - RBV-TOK-005  # MUST\n"), "{text}");
    assert!(text.contains("\n  - approve: {\"approver\":{\"kind\":\"human\""));
    assert!(text.contains("\"token\":\"<captured t>\""));
    assert!(text.contains("\n    expect: {\"allowed\":false}\n"));
    // No Rust debug formatting reaches the user.
    for debug in ["Some(", "None", "[Manifest", "Capture("] {
        assert!(!text.contains(debug), "{debug} in {text}");
    }

    // A raw line is shown as written, not sent through the typed path.
    let out = show("protocol/ids/evaluate-at-max");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("\n  - send_raw: {\"before_handshake\":false,\"line\":"));

    let out = show("tokens/replay/delete");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no case `tokens/replay/delete`"));
    assert!(err.contains("  tokens/replay/delete-file"), "{err}");
}

#[test]
fn fuzz_names_missing_capabilities_by_their_wire_names() {
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args([
            "fuzz",
            "--target",
            "sql_bypass",
            "--max-execs",
            "1",
            "--impl",
            &reference_claiming("projection"),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("does not claim sql, manifest, which target sql_bypass needs"),
        "{err}"
    );
}

#[test]
fn the_python_example_adapter_is_certified_for_manifest_projection_and_tokens() {
    let adapter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../adapters/python/examples/toy_adapter.py"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = rbv(&[
        "run",
        "--impl",
        &format!("python3 '{adapter}'"),
        "--report",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let r = report(dir.path());
    let statement = r["summary"]["certification"]["statement"].as_str().unwrap();
    assert!(
        statement.starts_with("Precise: base, manifest, projection, tokens · not claimed: "),
        "{statement}"
    );
    assert!(r["summary"]["counts"]["skip"].as_u64().unwrap() > 500);
    let badge = std::fs::read_to_string(dir.path().join("badge.svg")).unwrap();
    assert!(badge.contains("rbv: Precise 100%"), "{badge}");
}

#[test]
fn protocol_errors_name_ids_and_sessions_without_debug_formatting() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile/fake_adapter.py");
    for (mode, expected) in [
        (
            "wrong-session",
            "answer for session \"someone-else\", asked in session \"",
        ),
        ("wrong-id", "but rbv waits for ["),
    ] {
        let out = rbv(&[
            "run",
            "--impl",
            &format!("python3 '{script}' {mode}"),
            "--filter",
            "projection/htr-local/escalate-trusted",
        ]);
        let text = stdout(&out);
        assert!(text.contains(expected), "{mode}: {text}");
        assert!(!text.contains("Some("), "{mode}: {text}");
    }
}
