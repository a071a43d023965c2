//! The `rbv-ref` binary: a thin stdin/stdout loop over the library.

use std::io::Write;
use std::process::{Command, Stdio};

fn rbv_ref() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rbv-ref"));
    c.env_remove("RBV_MUTANT");
    c
}

fn converse(cmd: &mut Command, input: &str) -> (bool, String, String) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A child that refuses its arguments exits before reading: a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const HANDSHAKE: &str = "{\"id\":1,\"session\":\"s\",\"type\":\"handshake\",\"protocol_version\":1,\"harness\":\"t\"}\n";

#[test]
fn lists_every_mutant_with_its_description() {
    let (ok, out, _) = converse(rbv_ref().arg("--list-mutants"), "");
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), rbv_reference::Mutant::ALL.len());
    for (line, m) in lines.iter().zip(rbv_reference::Mutant::ALL) {
        assert_eq!(*line, format!("{}\t{}", m.name(), m.description()));
    }
}

#[test]
fn serves_a_handshake_and_selects_mutants() {
    let (ok, out, _) = converse(&mut rbv_ref(), HANDSHAKE);
    assert!(ok && out.contains("\"name\":\"rbv-reference\""), "{out}");
    let (ok, out, _) = converse(rbv_ref().args(["--mutant", "rule-of-two-off"]), HANDSHAKE);
    assert!(
        ok && out.contains("rbv-reference+mutant:rule-of-two-off"),
        "{out}"
    );
    let (ok, out, _) = converse(rbv_ref().env("RBV_MUTANT", "shape-bound-token"), HANDSHAKE);
    assert!(
        ok && out.contains("rbv-reference+mutant:shape-bound-token"),
        "{out}"
    );
}

#[test]
fn unknown_mutants_are_usage_errors() {
    let (ok, out, err) = converse(rbv_ref().args(["--mutant", "nope"]), HANDSHAKE);
    assert!(
        !ok && out.is_empty() && err.contains("unknown mutant"),
        "{err}"
    );
    let (ok, _, err) = converse(rbv_ref().env("RBV_MUTANT", "nope"), HANDSHAKE);
    assert!(!ok && err.contains("RBV_MUTANT"), "{err}");
}

fn handshake_profile(out: &str) -> serde_json::Value {
    let answer: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    answer["profile"].clone()
}

#[test]
fn profile_flags_set_the_declared_profile_and_combine_with_mutants() {
    let (ok, out, err) = converse(
        rbv_ref().args([
            "--profile",
            "rule_of_two_threshold=3",
            "--mutant",
            "rule-of-two-off",
            "--profile",
            "hard_to_reverse_local=soft-ack",
            "--profile",
            "undeclared_opaque_band=auto",
            "--profile",
            "undeclared_opaque_band=soft-ack",
        ]),
        HANDSHAKE,
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("rbv-reference+mutant:rule-of-two-off"),
        "{out}"
    );
    assert_eq!(
        handshake_profile(&out),
        serde_json::json!({"permissions_placement": "both", "rule_of_two_threshold": 3,
                           "hard_to_reverse_local": "soft-ack", "undeclared_opaque_band": "soft-ack"}),
        "unset keys keep their defaults; the last value of a key wins"
    );
    let (ok, out, _) = converse(&mut rbv_ref(), HANDSHAKE);
    assert!(ok);
    assert_eq!(
        handshake_profile(&out),
        serde_json::json!({"permissions_placement": "both", "rule_of_two_threshold": 2,
                           "hard_to_reverse_local": "escalate", "undeclared_opaque_band": "escalate"})
    );
}

#[test]
fn the_profile_governs_the_answers() {
    let project = "{\"id\":2,\"session\":\"s\",\"type\":\"project\",\"reversibility\":\"hard-to-reverse\",\"scope\":\"local\",\"trust\":\"trusted\"}\n";
    for (value, band) in [("escalate", "escalate"), ("soft-ack", "soft-ack")] {
        let (ok, out, err) = converse(
            rbv_ref().args(["--profile", &format!("hard_to_reverse_local={value}")]),
            project,
        );
        assert!(ok, "{err}");
        assert!(out.contains(&format!("\"band\":\"{band}\"")), "{out}");
    }
}

#[test]
fn bad_profile_flags_are_usage_errors_naming_the_allowed_values() {
    for (arg, says) in [
        ("rule_of_two_threshold=4", "values: 2, 3"),
        ("permissions_placement=top", "top-level, extension, both"),
        ("hard_to_reverse_local", "KEY=VALUE"),
        ("threshold=2", "unknown profile key"),
    ] {
        let (ok, out, err) = converse(rbv_ref().args(["--profile", arg]), HANDSHAKE);
        assert!(!ok && out.is_empty() && err.contains(says), "{arg}: {err}");
    }
    let (ok, _, err) = converse(rbv_ref().arg("--profile"), HANDSHAKE);
    assert!(!ok && err.contains("--profile needs KEY=VALUE"), "{err}");
}

#[test]
fn lists_every_profile_key_with_its_values_and_default() {
    let (ok, out, _) = converse(rbv_ref().arg("--list-profile"), "");
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "permissions_placement\ttop-level,extension,both\tdefault both",
            "rule_of_two_threshold\t2,3\tdefault 2",
            "hard_to_reverse_local\tescalate,soft-ack\tdefault escalate",
            "undeclared_opaque_band\tauto,soft-ack,escalate\tdefault escalate",
        ]
    );
}
