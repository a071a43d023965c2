//! Scores and requirement status; the levels are in [`crate::certificate`].
//!
//! Scores and levels judge the implementation, not the run: they use each
//! case's actual verdict, so a baseline of known failures never buys a
//! level or a point of score. A baseline only decides whether the run
//! fails (`Summary::run_failed`).

use crate::model::{
    CaseResult, Counts, FailKind, Requirement, RequirementStatus, Score, Summary, Verdict,
};
use std::collections::BTreeMap;

/// Adds a case to a tally.
pub(crate) fn count(counts: &mut Counts, case: &CaseResult) {
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

/// Everything derived from the cases; the level comes from the
/// certification per capability (see [`crate::certify`]).
pub fn summarize(cases: &[CaseResult], cert: crate::certificate::Outcome) -> Summary {
    let mut counts = Counts::default();
    let mut by_label = BTreeMap::new();
    for case in cases {
        count(&mut counts, case);
        *by_label.entry(case.verdict.label().to_owned()).or_insert(0) += 1;
    }
    let ran = counts.total - counts.skip;
    Summary {
        counts,
        by_label,
        safety: safety(cases),
        precision: precision(cases),
        pass_rate: Score::new(counts.pass, ran),
        level: cert.level,
        next_level_blockers: cert.next_level_blockers,
        certification: cert.certification,
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

    use RequirementLevel::Must;

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
