//! Selection, scheduling and collection of one run.

use crate::case::requirements::condition_value;
use crate::case::Case;
use crate::transport::Identity;
use crate::transport::{Connect, Target};
use crate::verdict::{FailKind, Verdict};
use crate::worker::{run_pool, CaseResult};
use rbv_reference::Profile;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Which cases, on how many workers.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Substrings of case ids; a case runs when it matches any (all when empty).
    pub filters: Vec<String>,
    /// Workers; 0 means one per available core.
    pub jobs: usize,
    /// When the run must end: a case not started by then is an error
    /// verdict (timeout), and no answer is awaited past it.
    pub deadline: Option<Instant>,
}

impl RunOptions {
    pub fn jobs(&self) -> usize {
        if self.jobs > 0 {
            return self.jobs;
        }
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Whether `id` is selected by `filters` (every id when there are none).
pub fn selected(id: &str, filters: &[String]) -> bool {
    filters.is_empty() || filters.iter().any(|f| id.contains(f.as_str()))
}

/// The cases of `cases` that `filters` select, in their order.
pub fn select<'a>(cases: &'a [Case], filters: &[String]) -> Vec<&'a Case> {
    cases.iter().filter(|c| selected(&c.id, filters)).collect()
}

/// One finished run.
#[derive(Debug)]
pub struct RunOutcome {
    /// Sorted by case id.
    pub results: Vec<CaseResult>,
    pub identity: Option<Identity>,
    /// What was run (a command line, or the reference in process).
    pub target: String,
    pub elapsed: Duration,
}

/// Runs the selected cases and checks that every one of them ended once.
pub fn run(cases: &[Case], connect: &dyn Connect, options: &RunOptions) -> RunOutcome {
    run_chosen(&select(cases, &options.filters), connect, options)
}

/// Runs `chosen` (already selected: `options.filters` are not applied).
fn run_chosen(chosen: &[&Case], connect: &dyn Connect, options: &RunOptions) -> RunOutcome {
    let started = Instant::now();
    let pool = run_pool(chosen, connect, options.jobs(), options.deadline);
    let elapsed = started.elapsed();
    // Every implementation is gone: whatever is left under rbv is an orphan.
    crate::transport::interrupt::reap_orphans(Duration::from_millis(200));
    let mut results = pool.results;
    let mut ran: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    let mut wanted: Vec<&str> = chosen.iter().map(|c| c.id.as_str()).collect();
    ran.sort_unstable();
    wanted.sort_unstable();
    assert_eq!(ran, wanted, "every selected case ends exactly once");
    results.sort_by(|a, b| a.id.cmp(&b.id));
    RunOutcome {
        results,
        identity: pool.identity,
        target: connect.describe(),
        elapsed,
    }
}

/// The profile values to run the reference with for `case`: each condition
/// resolved to one value (the default when a list allows it).
fn reference_values(case: &Case) -> BTreeMap<String, serde_json::Value> {
    case.profile
        .iter()
        .map(|(key, want)| {
            let value = condition_value(want, case.profile_defaults.get(key));
            (key.clone(), value.clone())
        })
        .collect()
}

/// The cases `filters` select, grouped by the profile the built-in
/// reference runs them with (keyed by the profile's text), each group in
/// the order of `cases`.
pub fn profile_groups<'a>(
    cases: &'a [Case],
    filters: &[String],
) -> BTreeMap<String, (Profile, Vec<&'a Case>)> {
    let mut groups: BTreeMap<String, (Profile, Vec<&Case>)> = BTreeMap::new();
    for case in select(cases, filters) {
        // The loader has checked every condition against the catalogue.
        let profile = Profile::from_values(&reference_values(case)).unwrap_or_default();
        groups
            .entry(profile.to_string())
            .or_insert_with(|| (profile, Vec::new()))
            .1
            .push(case);
    }
    groups
}

/// Runs the built-in reference once per profile the selected cases ask
/// for: each case runs against `target_for` its effective profile (the
/// default, overridden by the case's `profile:` conditions). The results
/// are merged; the identity is the default profile's when it ran.
pub fn run_per_profile(
    cases: &[Case],
    options: &RunOptions,
    target_for: &dyn Fn(&Profile) -> Target,
) -> RunOutcome {
    let groups = profile_groups(cases, &options.filters);
    let default = Profile::default().to_string();
    let mut merged = RunOutcome {
        results: Vec::new(),
        identity: None,
        target: String::new(),
        elapsed: Duration::ZERO,
    };
    let mut targets = Vec::new();
    let mut identities = Vec::new();
    for (key, (profile, group)) in &groups {
        let target = target_for(profile);
        let outcome = run_chosen(group, &target, options);
        identities.push((*key == default, outcome.identity));
        targets.push(target.describe());
        merged.results.extend(outcome.results);
        merged.elapsed += outcome.elapsed;
    }
    // Report the default profile's handshake; else whichever answered.
    identities.sort_by_key(|(is_default, _)| !is_default);
    merged.identity = identities.into_iter().find_map(|(_, identity)| identity);
    merged.results.sort_by(|a, b| a.id.cmp(&b.id));
    merged.target = targets.join(" | ");
    merged
}

/// Counts of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub under: usize,
    pub over: usize,
    pub mismatch: usize,
    pub errors: usize,
    pub skipped: usize,
    /// Skipped cases per reason.
    pub skip_reasons: BTreeMap<String, usize>,
}

impl Summary {
    pub fn of(results: &[CaseResult]) -> Self {
        let mut s = Summary::default();
        for r in results {
            match &r.verdict {
                Verdict::Pass => s.passed += 1,
                Verdict::Fail(f) => match f.kind {
                    FailKind::Under => s.under += 1,
                    FailKind::Over => s.over += 1,
                    FailKind::Mismatch => s.mismatch += 1,
                },
                Verdict::Skip { reason } => {
                    s.skipped += 1;
                    *s.skip_reasons.entry(reason.clone()).or_default() += 1;
                }
                Verdict::Error(_) => s.errors += 1,
            }
        }
        s
    }

    /// Failures and errors together: what makes a run fail.
    pub fn failed(&self) -> usize {
        self.under + self.over + self.mismatch + self.errors
    }

    /// `failures: U under, O over, M mismatch, E errors`
    pub fn breakdown_line(&self) -> String {
        format!(
            "failures: {} under, {} over, {} mismatch, {} errors",
            self.under, self.over, self.mismatch, self.errors
        )
    }

    /// `rbv: P passed, F failed, S skipped` — always the last line of a run.
    pub fn final_line(&self) -> String {
        format!(
            "rbv: {} passed, {} failed, {} skipped",
            self.passed,
            self.failed(),
            self.skipped
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{ErrorKind, ErrorVerdict, Failure};

    fn result(id: &str, verdict: Verdict) -> CaseResult {
        CaseResult {
            id: id.into(),
            verdict,
            exchanges: None,
            session: String::new(),
            duration: Duration::ZERO,
        }
    }

    fn fail(kind: FailKind) -> Verdict {
        Verdict::Fail(Failure {
            kind,
            step: 0,
            message: String::new(),
            expected: String::new(),
            observed: String::new(),
            diff: String::new(),
        })
    }

    #[test]
    fn summary_counts_failures_and_errors_as_failed() {
        let error = Verdict::Error(ErrorVerdict {
            kind: ErrorKind::Timeout,
            step: None,
            message: String::new(),
            line: None,
            stderr_tail: String::new(),
        });
        let results = vec![
            result("a", Verdict::Pass),
            result("b", fail(FailKind::Under)),
            result("c", fail(FailKind::Over)),
            result("d", fail(FailKind::Under)),
            result("e", error),
            result(
                "f",
                Verdict::Skip {
                    reason: "needs sql".into(),
                },
            ),
            result(
                "g",
                Verdict::Skip {
                    reason: "needs sql".into(),
                },
            ),
        ];
        let s = Summary::of(&results);
        assert_eq!(s.final_line(), "rbv: 1 passed, 4 failed, 2 skipped");
        assert_eq!(
            s.breakdown_line(),
            "failures: 2 under, 1 over, 0 mismatch, 1 errors"
        );
        assert_eq!(s.skip_reasons.get("needs sql"), Some(&2));
    }

    #[test]
    fn filters_are_substrings_and_any_matches() {
        assert!(selected("sql/cte/x", &[]));
        assert!(selected("sql/cte/x", &["cte/".into()]));
        assert!(selected("sql/cte/x", &["nope".into(), "sql/".into()]));
        assert!(!selected("sql/cte/x", &["shell/".into()]));
    }
}
