//! An implementation decides how long its answers are; rbv decides how much
//! of them it keeps. Peak memory over the whole corpus is measured by
//! `scripts/bench-memory.sh` (BENCHMARKS.md); these check what is kept.

use super::*;

/// The bytes a run's outcome holds of what the implementation sent.
fn retained(outcome: &RunOutcome) -> usize {
    let verdict = |v: &Verdict| match v {
        Verdict::Pass => 0,
        Verdict::Skip { reason } => reason.len(),
        Verdict::Fail(f) => f.message.len() + f.expected.len() + f.observed.len() + f.diff.len(),
        Verdict::Error(e) => {
            e.message.len() + e.line.as_ref().map_or(0, String::len) + e.stderr_tail.len()
        }
    };
    outcome
        .results
        .iter()
        .map(|r| {
            let exchanges: usize = r.exchanges.as_ref().map_or(0, |exchanges| {
                exchanges
                    .iter()
                    .map(|e| {
                        e.line.as_ref().map_or(0, String::len)
                            + e.response.as_ref().map_or(0, |v| v.to_string().len())
                    })
                    .sum()
            });
            verdict(&r.verdict) + exchanges
        })
        .sum()
}

#[test]
fn a_legal_megabyte_key_in_every_answer_is_not_kept() {
    let mut config = fake("big-extra", Duration::from_secs(10));
    config.command.push_str(" 1000000");
    let outcome = run_bounded(Target::Process(config), Duration::from_secs(60));
    for r in &outcome.results {
        assert!(r.verdict.is_pass(), "{}: {:?}", r.id, r.verdict);
    }
    // Six answers of a megabyte each were received.
    let kept = retained(&outcome);
    assert!(
        kept < 32 * 1024,
        "the outcome keeps {kept} bytes of answers"
    );
}

#[test]
fn a_failing_result_keeps_one_bounded_verdict_and_its_deciding_steps_answers() {
    let mut config = fake("big-message", Duration::from_secs(10));
    config.command.push_str(" 1000000");
    let outcome = run_bounded(Target::Process(config), Duration::from_secs(60));
    for r in &outcome.results {
        assert!(
            matches!(r.verdict, Verdict::Error(_)),
            "{}: {:?}",
            r.id,
            r.verdict
        );
        // Every case errs at its first step: that step's exchange alone.
        let steps: Vec<usize> = r.exchanges.iter().flatten().map(|e| e.step).collect();
        assert!(
            steps.iter().all(|&s| Some(s) == r.verdict.step()),
            "{}: {steps:?}",
            r.id
        );
    }
    // A megabyte message per answer; what each result keeps is one
    // verdict's budget and its answer's strings, each cut.
    let per_result = retained(&outcome) / outcome.results.len();
    assert!(per_result < 20 * 1024, "{per_result} bytes kept per result");
}

#[test]
fn megabyte_messages_are_cut_with_a_marker_and_every_output_stays_small() {
    let corpus = corpus();
    let reports = tempfile::tempdir().expect("temp dir");
    let dir = reports.path().join("report");
    let out = rbv_run(
        "big-message 1000000",
        corpus.path(),
        &["--report", dir.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        out.stdout.len() < 16 * 1024,
        "{} bytes on stdout",
        out.stdout.len()
    );
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        let size = entry.metadata().unwrap().len();
        // Four cases of at most 16 KiB of text each, in every format.
        assert!(size < 256 * 1024, "{:?}: {size} bytes", entry.file_name());
    }
    let json = std::fs::read_to_string(dir.join("report.json")).unwrap();
    assert!(json.contains("bytes cut of 1000"), "the cut is marked");
    // A summary meant for a pull-request comment stays small, and says
    // where the rest is.
    let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(md.len() <= 64 * 1024, "summary.md is {} bytes", md.len());
    assert!(md.contains("report.json"), "{md}");
}
