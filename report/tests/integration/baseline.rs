//! Baselines: known failures do not fail the run, stale entries do, and
//! updating keeps the reasons already written.

use crate::common;

use rbv_report::model::*;
use rbv_report::{apply_baseline, Baseline, BaselineError};
use std::path::Path;

const YAML: &str = "\
- case: sql/cte/data-modifying-delete
  reason: our SQL gate does not parse CTEs yet
  link: https://tracker.example/12
- case: fetch/loopback/ipv6
  reason: IPv6 loopback not carved out
- case: tokens/replay/concurrent
  reason: races under load
";

fn yaml() -> Baseline {
    Baseline::parse(Path::new("baseline.yaml"), YAML).unwrap()
}

#[test]
fn listed_failures_become_known_and_the_run_passes() {
    let mut r = common::sample();
    assert!(r.summary.run_failed);
    let status = apply_baseline(&mut r, &yaml());
    assert_eq!(status.known_failures.len(), 3);
    assert!(status.stale.is_empty() && status.unmatched.is_empty());
    assert!(!r.summary.run_failed, "every failure is listed");
    assert_eq!(
        (
            r.summary.counts.fail,
            r.summary.counts.error,
            r.summary.counts.known_failure
        ),
        (0, 0, 3)
    );
    // A baseline excuses the run, not the implementation.
    assert_eq!(r.summary.level, Level::None);
    assert_eq!(r.summary.safety, Score::new(4, 6));
    let cte = r.case("sql/cte/data-modifying-delete").unwrap();
    assert_eq!(cte.display_label(), "known");
    assert_eq!(
        cte.baseline.as_ref().unwrap().link.as_deref(),
        Some("https://tracker.example/12")
    );
}

#[test]
fn an_unlisted_failure_still_fails_the_run() {
    let mut r = common::sample();
    let partial = Baseline::parse(
        Path::new("b.yaml"),
        "- case: sql/cte/data-modifying-delete\n  reason: known\n",
    )
    .unwrap();
    apply_baseline(&mut r, &partial);
    assert!(r.summary.run_failed);
    assert_eq!(r.summary.counts.known_failure, 1);
}

#[test]
fn a_listed_case_that_passes_is_a_stale_entry_and_fails_the_run() {
    let mut r = common::variant("fixed", &[]);
    assert!(!r.summary.run_failed);
    let status = apply_baseline(&mut r, &yaml());
    assert_eq!(status.stale.len(), 3);
    assert!(r.summary.run_failed, "a stale baseline fails the run");
    assert!(r.case("fetch/loopback/ipv6").unwrap().is_stale());
    let junit = rbv_report::render::junit::render(&r).unwrap();
    assert_eq!(junit.matches("type=\"stale-baseline\"").count(), 3);
    assert!(rbv_report::render::markdown::render(&r).contains("Stale baseline"));
    assert!(rbv_report::render::html::render(&r).contains("id=\"stale-baseline\""));
}

#[test]
fn entries_for_missing_or_skipped_cases_are_neither_known_nor_stale() {
    let mut r = common::sample();
    let b = Baseline::parse(
        Path::new("b.json"),
        r#"[{"case": "gone/case", "reason": "renamed"},
            {"case": "shell/quoted/echo-rm", "reason": "no shell gate"}]"#,
    )
    .unwrap();
    let status = apply_baseline(&mut r, &b);
    assert_eq!(status.unmatched, vec!["gone/case".to_owned()]);
    assert!(status.known_failures.is_empty() && status.stale.is_empty());
    assert!(r.case("shell/quoted/echo-rm").unwrap().baseline.is_none());
}

#[test]
fn malformed_baselines_are_typed_errors() {
    let p = Path::new("b.yaml");
    let twice = "- case: a/b\n  reason: x\n- case: a/b\n  reason: y\n";
    assert!(
        matches!(Baseline::parse(p, twice), Err(BaselineError::Duplicate { case, .. }) if case == "a/b")
    );
    let unknown = "- case: a/b\n  reason: x\n  owner: me\n";
    assert!(matches!(
        Baseline::parse(p, unknown),
        Err(BaselineError::Parse { .. })
    ));
    let empty_reason = "- case: a/b\n  reason: ''\n";
    assert!(matches!(
        Baseline::parse(p, empty_reason),
        Err(BaselineError::EmptyReason { .. })
    ));
    assert!(Baseline::parse(p, "").unwrap().is_empty());
}

#[test]
fn update_keeps_existing_reasons_and_drops_fixed_cases() {
    let old = Baseline::parse(
        Path::new("b.yaml"),
        "- case: sql/cte/data-modifying-delete\n  reason: CTEs unsupported\n  link: T-1\n\
         - case: sql/select/plain\n  reason: was broken\n",
    )
    .unwrap();
    let updated = old.update_from(&common::sample());
    let ids: Vec<&str> = updated.entries().map(|e| e.case.as_str()).collect();
    assert_eq!(
        ids,
        [
            "fetch/loopback/ipv6",
            "sql/cte/data-modifying-delete",
            "tokens/replay/concurrent"
        ]
    );
    let cte = updated.get("sql/cte/data-modifying-delete").unwrap();
    assert_eq!(
        (cte.reason.as_str(), cte.link.as_deref()),
        ("CTEs unsupported", Some("T-1"))
    );
    assert!(updated
        .get("fetch/loopback/ipv6")
        .unwrap()
        .reason
        .starts_with(rbv_report::baseline::TODO_REASON));

    // What it writes reads back the same, in YAML and in JSON.
    let dir = tempfile::tempdir().unwrap();
    for name in ["b.yaml", "b.json"] {
        let path = dir.path().join(name);
        updated.save(&path).unwrap();
        assert_eq!(Baseline::load(&path).unwrap(), updated, "{name}");
    }
    // Applied to the run it came from, it makes the run pass.
    let mut r = common::sample();
    apply_baseline(&mut r, &updated);
    assert!(!r.summary.run_failed);
}
