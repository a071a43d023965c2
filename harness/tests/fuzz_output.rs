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
    let fragile = format!(
        "python3 {} bad-json -- {} adapter",
        root()
            .join("harness/tests/hostile/fragile_adapter.py")
            .display(),
        env!("CARGO_BIN_EXE_rbv")
    );
    let out = rbv(&[
        "fuzz",
        "--target",
        "protocol_decoder",
        "--impl",
        &fragile,
        "--max-execs",
        "400",
        "--max-findings",
        "2",
        "--artifact-dir",
        artifacts.to_str().unwrap(),
    ]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    // Distinct by their shrunk case, each with its count, one bug (family
    // and reason) shrunk a bounded number of times; only two kept.
    let summary: Vec<&str> = shown.lines().filter(|l| l.starts_with("#   ")).collect();
    assert!(summary.len() > 2, "{shown}");
    let fields: Vec<Vec<&str>> = summary
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let mut cases: Vec<(&str, &str, &str)> = fields
        .iter()
        .map(|w| {
            assert_eq!(w[4], "case", "{shown}");
            (w[1], w[2], w[5])
        })
        .collect();
    let all = cases.len();
    cases.sort_unstable();
    cases.dedup();
    assert_eq!(cases.len(), all, "one line per shrunk case:\n{shown}");
    let mut per_bug = std::collections::BTreeMap::new();
    for (family, reason, _) in &cases {
        *per_bug.entry((family, reason)).or_insert(0u32) += 1;
    }
    assert!(
        per_bug
            .values()
            .all(|&n| n <= rbv::fuzz::driver::SHRINKS_PER_BUG),
        "{shown}"
    );
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
    assert_eq!(shown.matches("# promote: ").count(), 2, "{shown}");
    assert_eq!(
        summary.iter().filter(|l| l.contains("not kept")).count(),
        all - 2
    );
    let mut kept: Vec<PathBuf> = std::fs::read_dir(&artifacts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    kept.sort();
    assert_eq!(kept.len(), 4, "two artifacts, each with its case: {kept:?}");

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
        "python3 {} {mode} -- {} adapter",
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
        "1000",
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
        "2000",
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
            "2000",
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
