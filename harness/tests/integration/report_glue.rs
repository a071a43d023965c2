//! From a real run to a report: the reference and a mutant of it run in
//! process, their reports are written, compared, diffed and baselined.

use rbv::case::{load_dir, Suite};
use rbv::reporting::{self, RunRecord};
use rbv::runner::{run, RunOptions, RunOutcome};
use rbv::transport::Target;
use rbv_reference::Mutant;
use rbv_report::model::{Level, SkipCause, Verdict};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn cases_dir() -> PathBuf {
    std::env::var_os("RBV_CASES")
        .map(PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../cases").into())
}

fn suite() -> Suite {
    load_dir(&cases_dir()).unwrap_or_else(|errors| {
        panic!(
            "{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

fn outcome(suite: &Suite, mutant: Option<Mutant>) -> RunOutcome {
    run(
        &suite.cases,
        &Target::InProcess(mutant, Default::default()),
        &RunOptions {
            filters: Vec::new(),
            jobs: 2,
            deadline: None,
        },
    )
}

fn record<'a>(suite: &'a Suite, outcome: &'a RunOutcome) -> RunRecord<'a> {
    let mut record = RunRecord::new(suite, outcome, SystemTime::now());
    record.cases_sha256 = reporting::suite_digest(Some(&cases_dir())).unwrap();
    record
}

fn validate_against_schema(dir: &Path) {
    let read = |n: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(n)).unwrap()).unwrap()
    };
    let validator = jsonschema::validator_for(&read("report.schema.json")).unwrap();
    let instance = read("report.json");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "report.json violates its schema: {errors:#?}"
    );
}

#[test]
fn the_reference_run_becomes_a_complete_report() {
    let suite = suite();
    let outcome = outcome(&suite, None);
    let dir = tempfile::tempdir().unwrap();
    let report = reporting::write_report(dir.path(), &record(&suite, &outcome)).unwrap();

    for name in [
        "report.json",
        "report.schema.json",
        "junit.xml",
        "summary.md",
        "report.html",
        "badge.svg",
    ] {
        assert!(dir.path().join(name).is_file(), "{name} written");
    }
    validate_against_schema(dir.path());

    assert_eq!(report.cases.len(), outcome.results.len());
    for (r, c) in outcome.results.iter().zip(&report.cases) {
        assert_eq!(r.id, c.id);
        assert_eq!(r.verdict.label(), c.verdict.label(), "{}", c.id);
        let case = suite.case(&c.id).unwrap();
        let g = case.guards();
        assert_eq!(
            (c.guards.unsafe_side, c.guards.precision),
            (g.unsafe_side, g.precision)
        );
        assert_eq!(c.requirements.len(), case.requirements.len(), "{}", c.id);
        assert!(
            c.requirements.iter().all(|r| r.level.is_some()),
            "{}: catalogue levels",
            c.id
        );
    }
    let ids: Vec<&String> = report.requirements.keys().collect();
    let mut catalogue: Vec<&String> = suite.catalogue.requirements.iter().map(|r| &r.id).collect();
    catalogue.sort();
    assert_eq!(ids, catalogue);

    let identity = outcome.identity.as_ref().unwrap();
    assert_eq!(
        report.implementation.name,
        identity.handshake.implementation.name
    );
    assert_eq!(report.suite.cases_sha256.len(), 64);
    if std::env::var_os("RBV_CASES").is_none() {
        // The corpus built into the binary is the same suite as `cases/`.
        assert_eq!(
            reporting::suite_digest(None).unwrap(),
            report.suite.cases_sha256
        );
    }
    assert_eq!(
        report.suite.cases_sha256,
        reporting::suite_digest(Some(&cases_dir())).unwrap()
    );
    // The run fails exactly when the runner counts a failure.
    let failed = rbv::runner::Summary::of(&outcome.results).failed();
    assert_eq!(report.summary.run_failed, failed > 0);
    assert_eq!(
        report.summary.counts.fail + report.summary.counts.error,
        failed
    );
    // The reference claims every capability: a skip is one of a profile it does not hold.
    for c in &report.cases {
        if let Verdict::Skip { cause, reason } = &c.verdict {
            assert_eq!(*cause, SkipCause::Profile, "{}: {reason}", c.id);
        }
    }
    // What blocks the next level are cases that ran and did not pass.
    for id in &report.summary.next_level_blockers {
        let c = report.case(id).unwrap();
        assert!(
            c.verdict.is_failure() || c.verdict.is_skip(),
            "{id} blocks but passed"
        );
    }
    if failed == 0 {
        assert_eq!(report.summary.level, Level::Precise);
    }
}

#[test]
fn a_mutant_regresses_and_its_baseline_round_trips() {
    let suite = suite();
    let (good, bad) = (
        outcome(&suite, None),
        outcome(&suite, Some(Mutant::FirstKeywordSql)),
    );
    let dir = tempfile::tempdir().unwrap();
    let (good_dir, bad_dir) = (dir.path().join("ref"), dir.path().join("mutant"));
    let good_report = reporting::write_report(&good_dir, &record(&suite, &good)).unwrap();
    let bad_report = reporting::write_report(&bad_dir, &record(&suite, &bad)).unwrap();
    assert!(bad_report.summary.run_failed);
    assert!(bad_report.summary.level <= good_report.summary.level);
    assert!(bad_report.summary.safety.held < bad_report.summary.safety.total);
    let under = bad_report
        .cases
        .iter()
        .find(|c| {
            c.verdict.label() == "under"
                && good_report.case(&c.id).is_some_and(|g| g.verdict.is_pass())
        })
        .expect("the first-keyword SQL mutant lets a write through");
    assert!(
        under
            .diff
            .as_deref()
            .is_some_and(|d| d.contains("escalate")),
        "{under:?}"
    );
    assert!(
        under
            .request
            .as_deref()
            .is_some_and(|r| r.contains("evaluate")),
        "{under:?}"
    );

    let (good_json, bad_json) = (good_dir.join("report.json"), bad_dir.join("report.json"));
    let (md, regressed) = reporting::diff_reports(&good_json, &bad_json).unwrap();
    assert!(regressed);
    assert!(md.contains(&format!("`{}`", under.id)), "{md}");
    let back = rbv_report::diff::ReportDiff::between(&bad_report, &good_report);
    assert!(
        back.newly_fixed.iter().any(|c| c.id == under.id),
        "going back fixes it"
    );
    assert!(back.newly_failing.iter().all(|c| c.id != under.id));

    let out = dir.path().join("compare");
    let md =
        reporting::compare_reports(&[good_json.clone(), bad_json.clone()], Some(&out)).unwrap();
    assert!(md.contains(&under.id), "{md}");
    assert!(out.join("compare.md").is_file() && out.join("compare.html").is_file());

    // A baseline written from the mutant's run excuses exactly that run.
    let baseline_path = dir.path().join("baseline.yaml");
    let baseline = reporting::update_baseline(&bad_json, &baseline_path).unwrap();
    assert_eq!(
        baseline.len(),
        bad_report
            .cases
            .iter()
            .filter(|c| c.verdict.is_failure())
            .count()
    );
    let loaded = reporting::load_baseline(&baseline_path).unwrap();
    let mut excused = reporting::load_report(&bad_json).unwrap();
    reporting::apply_baseline(&mut excused, &loaded);
    assert!(!excused.summary.run_failed);
    // On the reference, the entries of cases it passes are stale, and the run fails.
    let mut stale = good_report.clone();
    let status = reporting::apply_baseline(&mut stale, &loaded);
    let passing: Vec<String> = loaded
        .entries()
        .filter(|e| {
            good_report
                .case(&e.case)
                .is_some_and(|c| c.verdict.is_pass())
        })
        .map(|e| e.case.clone())
        .collect();
    assert!(passing.contains(&under.id));
    assert_eq!(status.stale, passing);
    assert!(stale.summary.run_failed);
    // Through the record, the same.
    let mut rec = record(&suite, &good);
    rec.baseline = Some(loaded);
    assert!(reporting::build_report(&rec).summary.run_failed);
}

#[test]
fn two_runs_on_the_same_inputs_give_the_same_report_but_for_timings() {
    let suite = suite();
    let render = |mutant| {
        let outcome = outcome(&suite, mutant);
        let report = reporting::build_report(&record(&suite, &outcome));
        rbv_report::render::json::render(&report.without_timings()).unwrap()
    };
    for mutant in [None, Some(Mutant::FirstKeywordSql)] {
        let (a, b) = (render(mutant), render(mutant));
        let differing: Vec<(&str, &str)> = a
            .lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .take(5)
            .collect();
        assert!(a == b, "{mutant:?}: reports differ: {differing:#?}");
    }
}

#[test]
fn a_failure_counts_against_the_capability_of_the_rule_its_step_checks() {
    let suite = suite();
    let against = |id: &str, step: usize| -> Vec<String> {
        let case = suite
            .case(id)
            .unwrap_or_else(|| panic!("{id} is in the corpus"));
        case.counts_against(Some(step), &suite.catalogue)
            .into_iter()
            .collect()
    };
    // Cites a SQL and a token rule: step 1's classification is SQL's, the
    // approval of step 3 checks both.
    assert_eq!(against("sql/control/alone-through-invoke", 1), ["sql"]);
    assert_eq!(
        against("sql/control/alone-through-invoke", 3),
        ["sql", "tokens"]
    );
    // A SQL case citing a manifest rule beside a SQL one, for its fixture:
    // its SQL step breaks the SQL rule.
    let case = suite.case("sql/declared/read-select").unwrap();
    assert!(case.needs.iter().any(|c| c.as_str() == "manifest"));
    assert_eq!(against("sql/declared/read-select", 1), ["sql"]);

    // A whole run of a reference that escalates every SQL statement: SQL
    // loses its level, and the capabilities its cases also need keep theirs.
    let outcome = outcome(&suite, Some(Mutant::ToolLevelSql));
    let report = reporting::build_report(&record(&suite, &outcome));
    let level = |name: &str| {
        report
            .summary
            .certification
            .capabilities
            .iter()
            .find(|c| c.capability == name)
            .and_then(|c| c.level)
    };
    let failing = report.cases.iter().filter(|c| c.verdict.is_failure());
    let needing = |cap: &str| {
        failing
            .clone()
            .filter(|c| c.needs.iter().any(|n| n == cap))
            .count()
    };
    assert!(
        needing("tokens") > 0 && needing("manifest") > 0,
        "failures also need tokens and manifest"
    );
    assert!(level("sql") < Some(Level::Precise));
    assert_eq!(
        level("tokens"),
        Some(Level::Precise),
        "{}",
        report.summary.certification.statement
    );
    // Manifest cases that carry their rule on a SQL call still fail it
    // (they cite a manifest rule only); the SQL cases block SQL alone.
    for c in &report.summary.certification.capabilities {
        for b in &c.blockers {
            assert!(
                c.capability == "sql" || b.cases.iter().all(|id| !id.starts_with("sql/")),
                "{} blocked by {:?}",
                c.capability,
                b.cases
            );
        }
    }
}

#[test]
fn a_failure_keeps_the_implementations_reasons_and_whole_answer() {
    let suite = suite();
    let cases: Vec<_> = suite
        .cases
        .iter()
        .filter(|c| c.id.starts_with("sql/declared/read-"))
        .cloned()
        .collect();
    let outcome = run(
        &cases,
        &Target::InProcess(Some(Mutant::ToolLevelSql), Default::default()),
        &RunOptions {
            filters: Vec::new(),
            jobs: 1,
            deadline: None,
        },
    );
    let report = reporting::build_report(&record(&suite, &outcome));
    let failed: Vec<_> = report
        .cases
        .iter()
        .filter(|c| c.verdict.is_failure())
        .collect();
    assert!(!failed.is_empty());
    for case in failed {
        // `observed` holds the keys the case checks; the answer is whole.
        let answer: serde_json::Value =
            serde_json::from_str(case.answer.as_deref().expect("the answer")).unwrap();
        assert_eq!(answer["type"], "evaluation", "{answer}");
        assert!(answer.get("reasons").is_some(), "{answer}");
        assert!(!case.observed.as_deref().unwrap_or("").contains("reasons"));
        assert!(!case.reasons.is_empty(), "{}", case.id);
        let reasons: Vec<&str> = answer["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        assert_eq!(case.reasons, reasons);
    }
}
