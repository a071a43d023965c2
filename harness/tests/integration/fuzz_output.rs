//! `rbv fuzz` output people can use: one finding per generator family and
//! oracle reason (the rest counted), artifacts capped, and a finding that
//! can be promoted after the bug is fixed (`promote --no-reproduce`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness crate sits in the workspace")
        .to_path_buf()
}

fn rbv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rbv"))
        .args(args)
        .env_remove("RBV_IMPL")
        .env_remove("RBV_MUTANT")
        .output()
        .expect("run rbv")
}

/// A repository root for `rbv promote --root`: `cases/` with the catalogue.
fn promote_root(under: &Path) -> PathBuf {
    let repo = under.join("repo");
    std::fs::create_dir_all(repo.join("cases")).unwrap();
    std::fs::copy(
        root().join("cases/REQUIREMENTS.yaml"),
        repo.join("cases/REQUIREMENTS.yaml"),
    )
    .unwrap();
    repo
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn findings_are_deduplicated_capped_and_promotable_after_a_fix() {
    let has_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        eprintln!("SKIPPED: no python3 to run the fragile adapter");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let artifacts = dir.path().join("artifacts");
    // Two bugs: it gives up on a line that is not JSON, and acks a line of
    // wide spaces. Whatever family built each input, a bug is one entry.
    let fragile = fragile("bad-json+wide-space-ack");
    let out = rbv(&[
        "fuzz",
        "--target",
        "protocol_decoder",
        "--impl",
        &fragile,
        "--max-execs",
        "400",
        "--max-findings",
        "1",
        "--artifact-dir",
        artifacts.to_str().unwrap(),
    ]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    // One line per bug (its families, reason, difference), each with its
    // count of findings and shrunk cases; only one kept.
    let summary: Vec<&str> = shown.lines().filter(|l| l.starts_with("#   ")).collect();
    assert_eq!(summary.len(), 2, "{shown}");
    let mut bugs: Vec<(&str, &str, &str)> = summary
        .iter()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert!(w[4].starts_with('x') && w[5] == "in", "{shown}");
            (w[1], w[2], l.split("case(s): ").nth(1).unwrap_or_default())
        })
        .collect();
    let all = bugs.len();
    bugs.sort_unstable();
    bugs.dedup();
    assert_eq!(bugs.len(), all, "one line per bug:\n{shown}");
    let counted: u64 = summary
        .iter()
        .filter_map(|l| {
            l.split_whitespace()
                .find_map(|w| w.strip_prefix('x')?.parse::<u64>().ok())
        })
        .sum();
    assert!(
        counted > summary.len() as u64,
        "repeats are counted:\n{shown}"
    );
    assert!(
        shown.contains(&format!("# {counted} finding(s), {all} bug(s):")),
        "{shown}"
    );
    assert_eq!(shown.matches("# promote: ").count(), 1, "{shown}");
    assert_eq!(
        summary.iter().filter(|l| l.contains("not kept")).count(),
        all - 1
    );
    let mut kept: Vec<PathBuf> = std::fs::read_dir(&artifacts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    kept.sort();
    assert_eq!(kept.len(), 2, "one artifact, with its case: {kept:?}");

    // The adapter is "fixed" (the reference): the finding no longer
    // reproduces, and --no-reproduce promotes the recorded case.
    let artifact = kept.iter().find(|p| p.extension().is_none()).unwrap();
    let repo = promote_root(dir.path());
    let artifact = artifact.to_str().unwrap();
    let repo_arg = repo.to_str().unwrap();
    let again = rbv(&[
        "promote",
        "--target",
        "protocol_decoder",
        artifact,
        "--root",
        repo_arg,
    ]);
    assert_ne!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        text(&again).contains("reproduces no finding"),
        "{}",
        text(&again)
    );
    let promoted = rbv(&[
        "promote",
        "--target",
        "protocol_decoder",
        artifact,
        "--root",
        repo_arg,
        "--no-reproduce",
    ]);
    let said = text(&promoted);
    assert_eq!(promoted.status.code(), Some(0), "{said}");
    let hint = said
        .lines()
        .find_map(|l| {
            l.split('`')
                .nth(1)
                .filter(|h| h.starts_with("rbv run --cases "))
        })
        .unwrap_or_else(|| panic!("no run hint with --cases:\n{said}"));
    let args: Vec<&str> = hint.split_whitespace().skip(1).collect();
    let run = rbv(&args);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    assert!(text(&run).contains("1 passed"), "{}", text(&run));
    // A recorded case for other bytes is refused.
    std::fs::write(format!("{artifact}.other"), b"other bytes").unwrap();
    std::fs::copy(format!("{artifact}.yaml"), format!("{artifact}.other.yaml")).unwrap();
    let wrong = rbv(&[
        "promote",
        "--target",
        "protocol_decoder",
        &format!("{artifact}.other"),
        "--root",
        repo_arg,
        "--no-reproduce",
    ]);
    assert!(
        text(&wrong).contains("not target protocol_decoder's finding for these bytes"),
        "{}",
        text(&wrong)
    );
}

/// `fragile_adapter.py MODE` in front of rbv's own adapter.
fn fragile(mode: &str) -> String {
    format!(
        "python3 {} {mode} -- {} serve",
        root()
            .join("harness/tests/hostile/fragile_adapter.py")
            .display(),
        env!("CARGO_BIN_EXE_rbv")
    )
}

/// An adapter that skips the lines `str.strip()` empties: the finding names
/// the line it left unanswered (not a later one), and its promoted case
/// fails that adapter and passes the one that skips blank lines only.
#[test]
fn a_skipped_line_is_named_and_its_promoted_case_fails_only_where_it_was_found() {
    let has_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        eprintln!("SKIPPED: no python3 to run the fragile adapter");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let artifacts = dir.path().join("artifacts");
    let (skipping, fixed) = (fragile("trim-blank"), fragile("none"));
    // Past the first finding (exec 30 of seed 0): the execs after it must
    // not be charged with its silence.
    let out = rbv(&[
        "fuzz",
        "--target",
        "protocol_decoder",
        "--impl",
        &skipping,
        "--timeout",
        "1s",
        "--max-execs",
        "45",
        "--artifact-dir",
        artifacts.to_str().unwrap(),
    ]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    let named: Vec<&str> = shown
        .lines()
        .filter(|l| l.starts_with("# [protocol_decoder]"))
        .collect();
    assert!(!named.is_empty(), "{shown}");
    let mut artifacts: Vec<_> = std::fs::read_dir(&artifacts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_none())
        .collect();
    artifacts.sort();
    assert_eq!(artifacts.len(), named.len(), "{shown}");
    for artifact in &artifacts {
        let recorded = std::fs::read_to_string(format!("{}.yaml", artifact.display()))
            .unwrap_or_else(|e| panic!("every finding reproduced and is recorded: {e}\n{shown}"));
        // The line sent, the one the finding names: whitespace `strip()`
        // empties, but not blank.
        let line: String = recorded
            .lines()
            .find_map(|l| l.trim().strip_prefix("- send_raw: "))
            .map(|l| serde_json::from_str(l).unwrap())
            .unwrap_or_else(|| panic!("no raw line:\n{recorded}"));
        assert!(!rbv_protocol::is_blank_line(line.as_bytes()), "{line:?}");
        assert!(
            line.chars()
                .all(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)),
            "{line:?}\n{shown}"
        );
        let names = format!("RBV-PRO-001: no answer to {line:?}");
        assert!(named.iter().any(|l| l.contains(&names)), "{names}\n{shown}");
    }
    let artifact = &artifacts[0];

    let repo = promote_root(dir.path());
    let repo_arg = repo.to_str().unwrap();
    let artifact = artifact.to_str().unwrap();
    let promoted = rbv(&[
        "promote",
        "--target",
        "protocol_decoder",
        artifact,
        "--root",
        repo_arg,
        "--impl",
        &skipping,
        "--timeout",
        "2s",
    ]);
    assert_eq!(promoted.status.code(), Some(0), "{}", text(&promoted));
    let cases = repo.join("cases");
    let run = |implementation: &str| {
        rbv(&[
            "run",
            "--cases",
            cases.to_str().unwrap(),
            "--filter",
            "regressions/protocol/",
            "--timeout",
            "2s",
            "--impl",
            implementation,
        ])
    };
    let on_skipping = run(&skipping);
    assert_eq!(on_skipping.status.code(), Some(1), "{}", text(&on_skipping));
    assert!(
        text(&on_skipping).contains("1 failed"),
        "{}",
        text(&on_skipping)
    );
    let on_fixed = run(&fixed);
    assert_eq!(on_fixed.status.code(), Some(0), "{}", text(&on_fixed));
    assert!(text(&on_fixed).contains("1 passed"), "{}", text(&on_fixed));
}

/// An adapter with exactly two bugs on one target: it skips lines of
/// whitespace `strip()` empties, and acks those holding a wide space. Every
/// finding of the run is one of two groups, each shown once with its size.
#[test]
fn two_bugs_are_two_groups() {
    let has_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        eprintln!("SKIPPED: no python3 to run the fragile adapter");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = rbv(&[
        "fuzz",
        "--target",
        "protocol_decoder",
        "--impl",
        &fragile("trim-blank+wide-space-ack"),
        "--timeout",
        "1s",
        "--max-execs",
        "300",
        "--json",
        "--artifact-dir",
        dir.path().to_str().unwrap(),
    ]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    let stats: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(stats["bugs"], 2, "{shown}");
    let mut bugs: Vec<(String, String)> = stats["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(
                f["families"],
                serde_json::json!(["not-blank-whitespace"]),
                "{shown}"
            );
            (
                f["requirement"].as_str().unwrap().to_owned(),
                f["difference"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    bugs.sort();
    assert_eq!(
        bugs,
        [
            ("RBV-PRO-001".to_owned(), "no answer".to_owned()),
            ("RBV-PRO-002".to_owned(), "`ack` for `error`".to_owned()),
        ],
        "{shown}"
    );
    let findings = stats["finding_execs"].as_u64().unwrap();
    assert!(findings > 2, "{shown}");
    assert!(
        shown.contains(&format!("# {findings} finding(s), 2 bug(s):")),
        "{shown}"
    );
    assert_eq!(shown.matches(", 1 bug (").count(), 2, "{shown}");
}
