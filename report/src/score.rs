//! Scores, requirement status and certification levels.
//!
//! Scores and levels judge the implementation, not the run: they use each
//! case's actual verdict, so a baseline of known failures never buys a
//! level or a point of score. A baseline only decides whether the run
//! fails (`Summary::run_failed`).
//!
//! A level needs its cases to have run: a skip never counts as a pass, and
//! a level whose set of cases is empty is not reached. The one exception
//! is a case skipped for its profile: it does not apply to this
//! implementation, so it is outside every set.

use crate::model::{
    CaseResult, Counts, FailKind, Level, Requirement, RequirementStatus, Score, Summary, Verdict,
};
use std::collections::BTreeMap;

/// Adds a case to a tally.
fn count(counts: &mut Counts, case: &CaseResult) {
    counts.total += 1;
    match &case.verdict {
        Verdict::Pass => counts.pass += 1,
        Verdict::Skip { .. } => counts.skip += 1,
        Verdict::Fail { .. } | Verdict::Error { .. } if case.is_known_failure() => {
            counts.known_failure += 1
        }
        Verdict::Fail { .. } => counts.fail += 1,
        Verdict::Error { .. } => counts.error += 1,
    }
}

/// Share of unsafe-side cases that ran and did not fail `under` or error.
pub fn safety(cases: &[CaseResult]) -> Score {
    let ran = cases
        .iter()
        .filter(|c| c.guards.unsafe_side && !c.verdict.is_skip());
    let (mut held, mut total) = (0, 0);
    for c in ran {
        total += 1;
        let unsafe_miss = matches!(
            c.verdict,
            Verdict::Fail {
                kind: FailKind::Under
            } | Verdict::Error { .. }
        );
        held += usize::from(!unsafe_miss);
    }
    Score::new(held, total)
}

/// Share of precision-side cases that ran and did not fail `over`.
pub fn precision(cases: &[CaseResult]) -> Score {
    let ran = cases
        .iter()
        .filter(|c| c.guards.precision && !c.verdict.is_skip());
    let (mut held, mut total) = (0, 0);
    for c in ran {
        total += 1;
        held += usize::from(!matches!(
            c.verdict,
            Verdict::Fail {
                kind: FailKind::Over
            }
        ));
    }
    Score::new(held, total)
}

/// The cases a level requires to pass (beyond those of the levels below).
fn required_for(level: Level, case: &CaseResult) -> bool {
    if case.verdict.is_not_applicable() {
        return false;
    }
    match level {
        Level::None => false,
        Level::Safe => case.is_must() && case.guards.unsafe_side,
        Level::Core => case.is_must(),
        Level::Precise => case.is_must() || case.guards.precision,
    }
}

/// The highest level reached, and the cases that block the next one.
pub fn level(cases: &[CaseResult]) -> (Level, Vec<String>) {
    let mut reached = Level::None;
    while let Some(next) = reached.next() {
        let required: Vec<&CaseResult> = cases.iter().filter(|c| required_for(next, c)).collect();
        let blockers: Vec<String> = required
            .iter()
            .filter(|c| !c.verdict.is_pass())
            .map(|c| c.id.clone())
            .collect();
        if required.is_empty() || !blockers.is_empty() {
            let mut blockers = blockers;
            blockers.sort();
            return (reached, blockers);
        }
        reached = next;
    }
    (reached, Vec::new())
}

/// Everything derived from the cases.
pub fn summarize(cases: &[CaseResult]) -> Summary {
    let mut counts = Counts::default();
    let mut by_label = BTreeMap::new();
    for case in cases {
        count(&mut counts, case);
        *by_label.entry(case.verdict.label().to_owned()).or_insert(0) += 1;
    }
    let (level, next_level_blockers) = level(cases);
    let ran = counts.total - counts.skip;
    Summary {
        counts,
        by_label,
        safety: safety(cases),
        precision: precision(cases),
        pass_rate: Score::new(counts.pass, ran),
        level,
        next_level_blockers,
        run_failed: counts.fail + counts.error > 0 || cases.iter().any(CaseResult::is_stale),
    }
}

/// Recomputes each requirement's tally and status from the cases that cite it.
pub fn tally_requirements(requirements: &mut BTreeMap<String, Requirement>, cases: &[CaseResult]) {
    let mut by_requirement: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
    for case in cases {
        for r in &case.requirements {
            by_requirement.entry(r.id.as_str()).or_default().push(case);
        }
    }
    for (id, requirement) in requirements.iter_mut() {
        let mine = by_requirement
            .get(id.as_str())
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut counts = Counts::default();
        for case in mine {
            count(&mut counts, case);
        }
        requirement.counts = counts;
        requirement.unsafe_cases = mine.iter().filter(|c| c.guards.unsafe_side).count();
        requirement.precision_cases = mine.iter().filter(|c| c.guards.precision).count();
        requirement.status = status(mine);
    }
}

fn status(cases: &[&CaseResult]) -> RequirementStatus {
    if cases.iter().any(|c| c.verdict.is_failure()) {
        return RequirementStatus::Fail;
    }
    let ran = cases.iter().filter(|c| !c.verdict.is_skip()).count();
    if ran == 0 {
        if !cases.is_empty() && cases.iter().all(|c| c.verdict.is_not_applicable()) {
            return RequirementStatus::NotApplicable;
        }
        return RequirementStatus::Untested;
    }
    if cases
        .iter()
        .any(|c| c.verdict.is_skip() && !c.verdict.is_not_applicable())
    {
        RequirementStatus::Partial
    } else {
        RequirementStatus::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ErrorKind, RequirementLevel, RequirementRef, Sides, SkipCause};

    fn case(
        id: &str,
        level: RequirementLevel,
        sides: (bool, bool),
        verdict: Verdict,
    ) -> CaseResult {
        let mut c = CaseResult::new(id, verdict);
        c.requirements = vec![RequirementRef {
            id: "R".into(),
            level: Some(level),
        }];
        c.guards = Sides {
            unsafe_side: sides.0,
            precision: sides.1,
        };
        c
    }

    fn fail(kind: FailKind) -> Verdict {
        Verdict::Fail { kind }
    }

    fn skip(cause: SkipCause) -> Verdict {
        Verdict::Skip {
            reason: "r".into(),
            cause,
        }
    }

    use RequirementLevel::{Must, Should};

    #[test]
    fn levels_nest_and_follow_the_failing_side() {
        let all_pass = vec![
            case("a/1", Must, (true, false), Verdict::Pass),
            case("a/2", Must, (false, true), Verdict::Pass),
            case("a/3", Should, (false, true), Verdict::Pass),
        ];
        assert_eq!(level(&all_pass), (Level::Precise, vec![]));

        let mut should_over = all_pass.clone();
        should_over[2].verdict = fail(FailKind::Over);
        assert_eq!(level(&should_over), (Level::Core, vec!["a/3".to_owned()]));

        let mut must_over = all_pass.clone();
        must_over[1].verdict = fail(FailKind::Over);
        assert_eq!(level(&must_over), (Level::Safe, vec!["a/2".to_owned()]));

        let mut must_under = all_pass.clone();
        must_under[0].verdict = fail(FailKind::Under);
        assert_eq!(level(&must_under), (Level::None, vec!["a/1".to_owned()]));
    }

    #[test]
    fn a_skip_is_not_a_pass_but_a_profile_skip_does_not_apply() {
        let mut cases = vec![
            case("a/1", Must, (true, false), Verdict::Pass),
            case("a/2", Must, (true, false), skip(SkipCause::Capability)),
        ];
        assert_eq!(level(&cases).0, Level::None);
        cases[1].verdict = skip(SkipCause::Profile);
        assert_eq!(level(&cases).0, Level::Precise);
        // Nothing at all ran: no level is reached vacuously.
        assert_eq!(level(&[]).0, Level::None);
    }

    #[test]
    fn scores_count_only_their_side_and_only_what_ran() {
        let cases = vec![
            case("a/1", Must, (true, true), fail(FailKind::Under)),
            case("a/2", Must, (true, true), fail(FailKind::Over)),
            case(
                "a/3",
                Must,
                (true, false),
                Verdict::Error {
                    kind: ErrorKind::Crash,
                },
            ),
            case("a/4", Must, (true, true), Verdict::Pass),
            case("a/5", Must, (true, true), skip(SkipCause::Capability)),
        ];
        assert_eq!(safety(&cases), Score::new(2, 4));
        assert_eq!(precision(&cases), Score::new(2, 3));
        assert_eq!(Score::new(2, 3).percent, Some(66.7));
        assert_eq!(Score::new(0, 0).display(), "n/a");
    }

    #[test]
    fn requirement_status_reflects_its_cases() {
        let one = |v| vec![case("a/1", Must, (true, false), v)];
        let st = |cases: Vec<CaseResult>| {
            let refs: Vec<&CaseResult> = cases.iter().collect();
            status(&refs)
        };
        assert_eq!(st(one(Verdict::Pass)), RequirementStatus::Pass);
        assert_eq!(st(one(fail(FailKind::Mismatch))), RequirementStatus::Fail);
        assert_eq!(
            st(one(skip(SkipCause::Capability))),
            RequirementStatus::Untested
        );
        assert_eq!(
            st(one(skip(SkipCause::Profile))),
            RequirementStatus::NotApplicable
        );
        assert_eq!(st(vec![]), RequirementStatus::Untested);
        let mut mixed = one(Verdict::Pass);
        mixed.push(case("a/2", Must, (true, false), skip(SkipCause::Other)));
        assert_eq!(st(mixed), RequirementStatus::Partial);
    }
}
