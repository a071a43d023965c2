//! The example adapter of rbv-adapter (`adapters/rust/examples/policy_client`),
//! built as the binary a client team ships and certified over stdio by
//! `rbv run --impl`, with every answer checked against the protocol's
//! schemas: the route `certify_in_process.rs` takes in process must earn
//! the same certificate here.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Builds the example with the cargo running this test (offline: its
/// dependencies are the workspace's, already fetched) and returns the
/// executable cargo reports.
fn build_example() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(WORKSPACE)
        .args([
            "build",
            "--offline",
            "--locked",
            "--quiet",
            "-p",
            "rbv-adapter",
        ])
        .args(["--example", "policy_client", "--message-format=json"])
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "building the example failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "policy_client")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the example's executable")
}

/// `path` as one word of a `sh -c` command line.
fn shell_word(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn the_example_adapter_is_certified_over_stdio() {
    let example = build_example();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["run", "--validate-protocol", "-j", "2", "--impl"])
        .arg(shell_word(&example))
        .arg("--report")
        .arg(dir.path())
        .env_remove("RBV_IMPL")
        .env_remove("RBV_CASES")
        .output()
        .expect("rbv runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let summary = &report["summary"];
    assert_eq!(summary["counts"]["fail"], 0, "{stdout}");
    assert_eq!(summary["counts"]["error"], 0, "{stdout}");
    assert_eq!(report["implementation"]["name"], "policy-client");
    for name in ["base", "manifest", "projection", "tokens"] {
        let capability = summary["certification"]["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["capability"] == name)
            .unwrap_or_else(|| panic!("{name} is listed: {summary}"));
        assert_eq!(capability["status"], "certified", "{name}: {capability}");
        assert_eq!(capability["level"], "precise", "{name}: {capability}");
        assert!(
            capability["counts"]["pass"].as_u64() > Some(0),
            "{capability}"
        );
    }
    // What it does not implement it does not claim.
    for name in ["sql", "shell", "fetch", "versioning"] {
        let capability = summary["certification"]["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["capability"] == name)
            .unwrap();
        assert_eq!(capability["status"], "not-claimed", "{name}");
    }
}
