//! `rbv fuzz` end to end: the `--json` statistics and the `--reach` map.

use std::process::Command;

fn rbv(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .env("CI", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const CATALOGUE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../cases/REQUIREMENTS.yaml");

#[test]
fn json_prints_the_statistics_of_the_run() {
    let (code, out) = rbv(&[
        "fuzz",
        "--target",
        "url_loopback",
        "--max-execs",
        "50",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let stats: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(stats["execs"], 50);
    assert_eq!(stats["target"], "url_loopback");
    assert!(stats["findings"].as_array().unwrap().is_empty());
    assert!(!stats["productions"].as_array().unwrap().is_empty());
}

#[test]
fn reach_maps_requirements_to_productions_and_fails_on_a_hole() {
    let (code, out) = rbv(&[
        "fuzz",
        "--reach",
        "--max-execs",
        "600",
        "--catalogue",
        CATALOGUE,
    ]);
    let row = out.lines().find(|l| l.starts_with("RBV-TOK-002 ")).unwrap();
    assert!(
        row.contains("token/change-method") && row.contains("token/unicode-form"),
        "{row}"
    );
    // Non-zero exactly when the map reports a problem.
    assert_eq!(code != 0, out.contains("\n!! "), "{out}");
    // Every MUST requirement about inputs has a generator (RBV-SQL-017 and
    // RBV-SH-016 had none before their productions were written); a short
    // run may leave rare productions unfired, which is a stale tag, not a
    // hole.
    assert!(
        !out.contains("!! MUST requirements with no production"),
        "{out}"
    );

    // A MUST requirement about inputs that no generator tags is a hole.
    let dir = tempfile::tempdir().unwrap();
    let extra = "  - id: RBV-TOK-099\n    title: A rule no generator knows\n    rule: x\n    section: x\n    level: MUST\n    capability: tokens\n";
    let text = std::fs::read_to_string(CATALOGUE).unwrap();
    let text = text.replacen("requirements:\n", &format!("requirements:\n{extra}"), 1);
    let path = dir.path().join("REQUIREMENTS.yaml");
    std::fs::write(&path, text).unwrap();
    let (code, out) = rbv(&[
        "fuzz",
        "--reach",
        "--max-execs",
        "600",
        "--catalogue",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let holes = out
        .lines()
        .find(|l| l.starts_with("!! MUST requirements with no production"))
        .unwrap();
    assert!(holes.contains("RBV-TOK-099"), "{holes}");
}

/// Without `--catalogue`, `--reach` reads the embedded catalogue: an
/// installed rbv, run outside a checkout, maps the same requirements.
#[test]
fn reach_without_a_catalogue_uses_the_embedded_one_from_any_directory() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(["fuzz", "--reach", "--max-execs", "600"])
        .current_dir(elsewhere.path())
        .env("CI", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout.lines().find(|l| l.starts_with("RBV-TOK-002 "));
    assert!(
        row.is_some_and(|r| r.contains("token/change-method")),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
