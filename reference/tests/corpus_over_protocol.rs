//! Mutation testing's test (scripts/mutants.sh): the conformance corpus,
//! run by a prebuilt `rbv` (named by `RBV_BIN`) over the protocol against
//! this crate's own `rbv-ref`. A mutant of the reference then costs a
//! rebuild of this crate alone, not of the harness that embeds it.
//!
//! Ignored in a plain `cargo test`: `harness/tests/conformance.rs` runs the
//! same corpus against the reference on every test run.

use std::path::Path;
use std::process::{Command, Stdio};

/// One `rbv run`; true when every case passed (exit 0), the reference said
/// in its handshake that it runs the profile it was started with, and no
/// case was skipped for a capability. A reference that ignored `--profile`
/// would otherwise pass: it answers as the default profile, and the cases
/// written for the value asked for are skipped, not failed. One that
/// stopped claiming a capability would pass the same way: its cases skip.
fn suite_passes(rbv: &Path, profile: &[String]) -> bool {
    let mut implementation = format!("exec '{}'", env!("CARGO_BIN_EXE_rbv-ref"));
    for flag in profile {
        implementation.push_str(&format!(" --profile '{flag}'"));
    }
    let report = std::env::temp_dir().join(format!("rbv-mutants-{}", std::process::id()));
    let status = Command::new(rbv)
        .args(["run", "--jobs", "2", "--cases"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../cases"))
        .args(["--impl", &implementation])
        .arg("--report")
        .arg(&report)
        .stdout(Stdio::null())
        .status()
        .expect("RBV_BIN runs");
    let written = std::fs::read_to_string(report.join("report.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
    let _ = std::fs::remove_dir_all(&report);
    let Some(written) = written else {
        return false;
    };
    let announced = written.pointer("/implementation/profile");
    status.success()
        && announced.is_some_and(|p| runs_profile(p, profile))
        && !skips_for_a_capability(&written)
}

/// Whether a report skipped any case for a capability the implementation
/// did not claim: the reference claims every one.
fn skips_for_a_capability(report: &serde_json::Value) -> bool {
    report["cases"].as_array().is_none_or(|cases| {
        cases
            .iter()
            .any(|c| c.pointer("/verdict/cause").and_then(|v| v.as_str()) == Some("capability"))
    })
}

/// Whether a handshake's profile holds every `KEY=VALUE` asked for.
fn runs_profile(announced: &serde_json::Value, asked: &[String]) -> bool {
    asked.iter().all(|flag| {
        let (key, value) = flag.split_once('=').expect("KEY=VALUE");
        match announced.get(key) {
            Some(serde_json::Value::String(s)) => s == value,
            Some(other) => {
                serde_json::from_str::<serde_json::Value>(value)
                    .ok()
                    .as_ref()
                    == Some(other)
            }
            None => false,
        }
    })
}

/// Every non-default profile value, as `KEY=VALUE`, from `rbv-ref --list-profile`.
fn other_profile_values() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_rbv-ref"))
        .arg("--list-profile")
        .output()
        .expect("rbv-ref --list-profile runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .flat_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let (key, values, default) = (fields[0], fields[1], fields[2]);
            let default = default.trim_start_matches("default ").to_owned();
            values
                .split(',')
                .filter(move |v| *v != default)
                .map(move |v| format!("{key}={v}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
#[ignore = "mutation testing only: scripts/mutants.sh sets RBV_BIN and runs it"]
fn the_corpus_passes_over_the_protocol() {
    let rbv = std::env::var_os("RBV_BIN").expect("RBV_BIN names a prebuilt rbv");
    let rbv = Path::new(&rbv);
    // Most mutants fail under the default profile: try it first, so that a
    // caught mutant costs one run.
    assert!(suite_passes(rbv, &[]), "the corpus fails (default profile)");
    let values = other_profile_values();
    assert!(!values.is_empty(), "rbv-ref --list-profile lists no value");
    for value in values {
        assert!(
            suite_passes(rbv, std::slice::from_ref(&value)),
            "the corpus fails with --profile {value}"
        );
    }
}
