//! The example adapters of the SDKs (`adapters/typescript`, `adapters/python`)
//! are certified for what they claim: a whole-suite run (a filtered run
//! earns no level) with no failure and no error, every claimed capability
//! at Precise, read from report.json by the same paths the CI workflow in
//! `docs/ci/rbv-certify.yml` reads. Skips LOUDLY when node or python3 is
//! missing.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const CLAIMS: [&str; 3] = ["manifest", "projection", "tokens"];

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn certify(interpreter: &str, adapter: &str) {
    if !have(interpreter) {
        eprintln!(
            "\n*** SKIP: {interpreter} not found: the {adapter} example is NOT certified ***\n"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .current_dir(ROOT)
        .args(["run", "--validate-protocol", "--impl"])
        .arg(format!("{interpreter} {adapter}"))
        .arg("--report")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default().to_owned();
    eprintln!("{adapter}: {last} in {:.1?}", started.elapsed());
    assert_eq!(out.status.code(), Some(0), "{adapter}:\n{stdout}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let summary = &report["summary"];
    for verdict in ["fail", "error"] {
        assert_eq!(summary["counts"][verdict], 0, "{adapter}: {verdict}s");
    }
    assert!(
        summary["certification"]["partial"].is_null(),
        "{adapter}: a partial run"
    );
    assert_eq!(
        summary["level"], "precise",
        "{adapter}: {}",
        summary["certification"]["statement"]
    );
    let caps = summary["certification"]["capabilities"].as_array().unwrap();
    let claimed: Vec<&str> = caps
        .iter()
        .filter(|c| c["status"] != "not-claimed" && c["capability"] != "base")
        .map(|c| c["capability"].as_str().unwrap())
        .collect();
    assert_eq!(claimed, CLAIMS, "{adapter}: claimed capabilities");
    for cap in CLAIMS {
        let entry = caps.iter().find(|c| c["capability"] == cap).unwrap();
        assert_eq!(entry["level"], "precise", "{adapter}: {cap}: {entry}");
        let passed = entry["counts"]["pass"].as_u64().unwrap();
        assert!(passed >= 10, "{adapter}: {cap}: only {passed} cases passed");
    }
    // The protocol area runs against every adapter: the SDK passes it alone.
    let base = caps.iter().find(|c| c["capability"] == "base").unwrap();
    assert_eq!(base["level"], "precise", "{adapter}: base: {base}");
    // A run diffed against itself is no regression (the workflow's gate).
    let report_json = dir.path().join("report.json");
    let diff = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .arg("diff")
        .args([&report_json, &report_json])
        .output()
        .unwrap();
    assert_eq!(
        diff.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
}

#[test]
fn the_typescript_example_is_certified_for_its_claims() {
    assert!(Path::new(ROOT)
        .join("adapters/typescript/examples/toy-adapter.mjs")
        .is_file());
    certify("node", "adapters/typescript/examples/toy-adapter.mjs");
}

#[test]
fn the_python_example_is_certified_for_its_claims() {
    assert!(Path::new(ROOT)
        .join("adapters/python/examples/toy_adapter.py")
        .is_file());
    certify("python3", "adapters/python/examples/toy_adapter.py");
}
