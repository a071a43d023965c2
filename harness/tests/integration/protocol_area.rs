//! The `protocol` area: the protocol's own MUSTs (PROTOCOL.md §2, §5) are
//! tested, and an adapter that judges every operation right but dies on a
//! bad line, or rounds ids, fails them. The reference passes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness crate sits in the workspace")
        .to_path_buf()
}

fn python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some("python3")
}

/// `rbv run` of the protocol area against `fragile_adapter.py MODE` in
/// front of the built-in reference: (exit code, stdout).
fn run_fragile(mode: &str, extra: &[&str]) -> (Option<i32>, String) {
    let rbv = env!("CARGO_BIN_EXE_rbv");
    let script = root().join("harness/tests/hostile/fragile_adapter.py");
    let command = format!("python3 {} {mode} -- {rbv} serve", script.display());
    let out = Command::new(rbv)
        .args(["run", "--filter", "protocol/", "--timeout", "10s", "--impl"])
        .arg(&command)
        .args(extra)
        .arg("--cases")
        .arg(root().join("cases"))
        .env_remove("RBV_IMPL")
        .output()
        .expect("run rbv");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn failed_ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("protocol/")))
        .map(|w| w.trim_end_matches(':').to_owned())
        .collect()
}

#[test]
fn the_protocol_area_fails_adapters_that_break_on_bad_lines() {
    if python().is_none() {
        eprintln!("SKIPPED: no python3 to run the fragile adapter");
        return;
    }
    let (code, out) = run_fragile("none", &[]);
    assert_eq!(code, Some(0), "the control must pass:\n{out}");
    for (mode, must_fail) in [
        ("bad-json", "protocol/malformed/bad-json-truncated"),
        ("unknown-type", "protocol/unknown-type/invented"),
        ("float-ids", "protocol/ids/max"),
        ("trim-blank", "protocol/not-blank/vertical-tab"),
    ] {
        let (code, out) = run_fragile(mode, &[]);
        assert_ne!(code, Some(0), "{mode}: the protocol area passed:\n{out}");
        let failed = failed_ids(&out);
        assert!(
            failed.iter().any(|id| id == must_fail),
            "{mode}: {must_fail} did not fail; failed: {failed:?}\n{out}"
        );
        // The fragile adapter is correct on everything else: it fails only
        // where its fault shows (a line that is not blank is not JSON either).
        let expected_area = must_fail.rsplit_once('/').unwrap().0;
        assert!(
            failed.iter().all(|id| id.starts_with(expected_area)
                || (mode == "bad-json"
                    && (id.starts_with("protocol/before-handshake/bad-json")
                        || id.starts_with("protocol/not-blank/")))),
            "{mode}: unrelated cases failed: {failed:?}"
        );
    }
}

#[test]
fn a_request_before_the_handshake_is_tested_in_both_process_modes() {
    if python().is_none() {
        eprintln!("SKIPPED: no python3 to run the fragile adapter");
        return;
    }
    for extra in [&[][..], &["--spawn-per-case"][..]] {
        let (code, out) = run_fragile("before-handshake", extra);
        assert_ne!(code, Some(0), "{extra:?}: passed:\n{out}");
        let failed = failed_ids(&out);
        assert!(
            !failed.is_empty()
                && failed
                    .iter()
                    .all(|id| id.starts_with("protocol/before-handshake/")),
            "{extra:?}: {failed:?}\n{out}"
        );
    }
}

const CATALOGUE: &str =
    "requirements:\n  - {id: R-1, title: t, rule: r, section: s, level: MUST, contributors: [], paths: [raw]}\n";

fn load(case: &str) -> Result<rbv::case::Suite, Vec<String>> {
    let files = vec![
        ("REQUIREMENTS.yaml".to_owned(), CATALOGUE.to_owned()),
        ("c.yaml".to_owned(), case.to_owned()),
    ];
    rbv::case::load_files(&files).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.path, e.line, e.message))
            .collect()
    })
}

const HEAD: &str = "id: protocol/x\nrequirements: [R-1]\nsource: {note: t}\nreason: r\n";

#[test]
fn send_raw_is_loaded_strictly() {
    let bad = [
        (
            "steps:\n  - send_raw: \"a\\nb\"\n",
            "c.yaml:6: a raw line cannot contain a newline",
        ),
        (
            "steps:\n  - send_raw: \"  \"\n",
            "c.yaml:6: a raw line cannot be blank",
        ),
        (
            "steps:\n  - send_raw: {line: x, fresh: true}\n",
            "c.yaml:6: unknown key `fresh` in `send_raw`",
        ),
        (
            "steps:\n  - send_raw: {before_handshake: true}\n",
            "c.yaml:6: `send_raw` lacks `line`",
        ),
        (
            "steps:\n  - send_raw: x\n    capture: {a: id}\n",
            "c.yaml:7: a `send_raw` step cannot capture",
        ),
        (
            "steps:\n  - concurrent: [{send_raw: x}, {send_raw: y}]\n",
            "c.yaml:6: `send_raw` is not pipelined",
        ),
    ];
    for (steps, want) in bad {
        let errs = load(&format!("{HEAD}{steps}")).expect_err(steps);
        assert!(
            errs.iter().any(|e| e.starts_with(want)),
            "{steps}: {errs:#?}"
        );
    }
    let suite = load(&format!(
        "{HEAD}steps:\n  - send_raw: {{line: '{{\"id\":$ID}}', before_handshake: true}}\n  - send_raw: x\n    expect: {{type: unsupported}}\n"
    ))
    .expect("loads");
    // No capability is needed to send a raw line.
    assert!(suite.cases[0].needs.is_empty());
}

#[test]
fn literal_ids_in_raw_lines_are_unique_and_out_of_rbvs_range() {
    let case = |id: &str, n: u64| {
        format!(
            "id: protocol/{id}\nrequirements: [R-1]\nsource: {{note: t}}\nreason: r\nsteps:\n  - send_raw: '{{\"id\":{n},\"session\":\"$SESSION\",\"type\":\"reset_session\"}}'\n"
        )
    };
    let text = [case("a", 7), case("b", 1 << 40), case("c", 1 << 40)].join("---\n");
    let suite = load(&text).expect("loads");
    let report = rbv::case::lint(&suite);
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors[0].contains("protocol/a") && errors[0].contains("may collide"),
        "{errors:#?}"
    );
    assert!(
        errors[1].contains("protocol/c") && errors[1].contains("also used by protocol/b"),
        "{errors:#?}"
    );
}

/// `rbv fuzz --target protocol_decoder --impl CMD`: (exit code, stdout).
fn fuzz_decoder(command: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["fuzz", "--target", "protocol_decoder", "--max-execs", "300"])
        .args(["--time", "60s", "--impl", command, "--artifact-dir"])
        .arg(dir.path())
        .env_remove("RBV_IMPL")
        .output()
        .expect("run rbv fuzz");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_decoder_target_fuzzes_the_implementation_not_rbv() {
    let rbv = env!("CARGO_BIN_EXE_rbv");
    let (code, out) = fuzz_decoder(&format!("{rbv} serve"));
    assert_eq!(code, Some(0), "the reference has no finding:\n{out}");
    if python().is_none() {
        eprintln!("SKIPPED: no python3 to run the fragile adapter");
        return;
    }
    let script = root().join("harness/tests/hostile/fragile_adapter.py");
    for (mode, requirement) in [("bad-json", "RBV-PRO-001"), ("unknown-type", "RBV-PRO-001")] {
        let (code, out) = fuzz_decoder(&format!(
            "python3 {} {mode} -- {rbv} serve",
            script.display()
        ));
        assert_ne!(code, Some(0), "{mode}: no finding:\n{out}");
        assert!(
            out.contains(&format!("finding against {requirement}")),
            "{mode}:\n{out}"
        );
        assert!(
            out.contains("send_raw: "),
            "{mode}: the finding is a case:\n{out}"
        );
    }
}
