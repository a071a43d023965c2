//! The fuzz campaign of `rbv run --fuzz`: after the cases, every target
//! whose capabilities the implementation claims runs against it, and each
//! finding becomes a failing result of the capability whose rule it breaks
//! (see `rbv_report::model::Campaign`). A list of cases can be learned; a
//! generator cannot.
//!
//! The budget rule: the time budget is split equally across the targets
//! that run; with an exec budget, so are the execs (the first targets get
//! one more each when it does not divide), and each target's time share is
//! then only a cap. Every target's input stream starts from the same seed,
//! so that the share of target T is `rbv fuzz --target T --seed S
//! --max-execs N` run alone; with an exec budget that no time share cuts
//! short, the same seed and binary give the same campaign on any machine.
//! The run's deadline caps every share: a target it ends early is recorded
//! as cut short, never as the implementation's failure.

use super::driver::{drive_with, Options, Outcome, Tick};
use super::finding::artifact_hash;
use super::reach::{self, Production};

use super::subject::Subject;
use super::targets::{self, Target, TARGETS};
use crate::case::requirements::Catalogue;
use crate::verdict::FailKind;
use rbv_protocol::Capability;
use rbv_report::model as m;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// What the campaign may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The whole campaign's time (`--fuzz`).
    pub budget: Duration,
    /// The whole campaign's execs (`--fuzz-execs`).
    pub max_execs: Option<u64>,
    pub seed: u64,
    /// The run's deadline (`--deadline`), if the campaign must end by it.
    pub deadline: Option<Instant>,
}

/// The targets a campaign runs against an implementation that claims what
/// `claims` says: every target whose needs it claims, in [`TARGETS`]'
/// order. `case_loader` fuzzes rbv's own case loader and has no
/// implementation behind it.
pub fn targets_for(claims: &dyn Fn(Capability) -> bool) -> Vec<&'static Target> {
    TARGETS
        .iter()
        .filter(|t| t.name != targets::CASE_LOADER.name)
        .filter(|t| t.needs.iter().all(|c| claims(*c)))
        .collect()
}

/// Target `i` of `n`'s share of `plan` (see the module's budget rule).
pub fn share(plan: &Plan, n: usize, i: usize) -> Options {
    let n32 = u32::try_from(n.max(1)).unwrap_or(u32::MAX);
    let max_execs = match plan.max_execs {
        Some(total) => {
            let n = n.max(1) as u64;
            total / n + u64::from((i as u64) < total % n)
        }
        None => u64::MAX,
    };
    Options {
        seed: plan.seed,
        time: plan.budget / n32,
        max_execs,
        stop_at_first: false,
    }
}

/// One target's part of a campaign.
pub struct TargetRun {
    pub target: &'static Target,
    pub outcome: Outcome,
    /// The generator productions its execs built.
    pub fired: BTreeMap<Production, u64>,
    /// The run's deadline ended it before its share of the budget.
    pub cut_short: bool,
}

/// A campaign as it ran.
pub struct Run {
    pub plan: Plan,
    pub targets: Vec<TargetRun>,
    /// What the implementation claims, for the capabilities no target
    /// reached.
    pub claimed: Vec<Capability>,
}

/// Runs the campaign against `subject`; `tick` sees each target's progress.
pub fn run(plan: &Plan, subject: &mut dyn Subject, tick: &mut dyn FnMut(&str, Tick)) -> Run {
    let chosen = targets_for(&|c| subject.claims(c));
    let claimed = Capability::ALL
        .iter()
        .copied()
        .filter(|c| subject.claims(*c))
        .collect();
    let mut runs = Vec::with_capacity(chosen.len());
    for (i, target) in chosen.iter().enumerate() {
        let mut options = share(plan, chosen.len(), i);
        let left = plan
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        let capped = left.is_some_and(|left| left < options.time);
        if let Some(left) = left {
            options.time = options.time.min(left);
        }
        let (outcome, fired) =
            reach::record(|| drive_with(target, subject, &options, &mut |t| tick(target.name, t)));
        let cut_short = capped && outcome.died.is_none() && outcome.execs < options.max_execs;
        runs.push(TargetRun {
            target,
            outcome,
            fired,
            cut_short,
        });
    }
    Run {
        plan: *plan,
        targets: runs,
        claimed,
    }
}

fn names(caps: impl IntoIterator<Item = Capability>) -> Vec<String> {
    let mut v: Vec<String> = caps.into_iter().map(|c| c.as_str().to_owned()).collect();
    v.sort();
    v
}

impl Run {
    /// The bugs the campaign found (one failing result each).
    pub fn bugs(&self) -> usize {
        self.targets.iter().map(|t| t.outcome.groups().len()).sum()
    }

    /// The campaign as the report records it; `date` goes into each
    /// reproduction's `source`.
    pub fn to_report(&self, catalogue: &Catalogue, date: &str) -> m::Campaign {
        self.to_report_judged(catalogue, date, Vec::new(), &mut |_, _| Vec::new())
    }

    /// [`Run::to_report`] with the words of second judges: `oracles` names
    /// them, `judge` says what they make of a target's finding.
    pub fn to_report_judged(
        &self,
        catalogue: &Catalogue,
        date: &str,
        oracles: Vec<String>,
        judge: &mut dyn FnMut(&Target, &super::driver::Found) -> Vec<String>,
    ) -> m::Campaign {
        let mut reached_any = BTreeSet::new();
        let mut targets = Vec::new();
        let mut findings = Vec::new();
        for run in &self.targets {
            let outcome = &run.outcome;
            reached_any.extend(super::reach_map::reached(&run.fired, catalogue));
            targets.push(m::CampaignTarget {
                name: run.target.name.to_owned(),
                needs: names(run.target.needs.iter().copied()),
                execs: outcome.execs,
                elapsed_ms: m::round_ms(outcome.elapsed.as_secs_f64() * 1000.0),
                findings: outcome.found.len(),
                bugs: outcome.groups().len(),
                restarts: outcome.restarts,
                cut_short: run.cut_short,
                incomplete: outcome
                    .died
                    .as_deref()
                    .map(|why| rbv_report::text::one_line(why, 400)),
            });
            // One failing result per bug: its smallest shrunk case stands
            // for the others, which the counts keep.
            for group in outcome.groups() {
                let found = group.representative;
                let mut f = finding(run.target, found, catalogue, date);
                f.count = group.findings;
                f.cases = group.cases;
                f.oracle_words = judge(run.target, found)
                    .iter()
                    .map(|w| rbv_report::text::one_line(w, 400))
                    .collect();
                findings.push(f);
                if let Some(c) = catalogue
                    .requirement(found.finding.requirement)
                    .and_then(|r| r.capability)
                {
                    reached_any.insert(c);
                }
            }
            if let Some(why) = &outcome.died {
                findings.push(stopped(
                    run.target,
                    why,
                    &self.plan,
                    outcome.execs,
                    catalogue,
                ));
            }
        }
        findings.sort_by(|a, b| a.result.id.cmp(&b.result.id));
        m::Campaign {
            seed: self.plan.seed,
            budget_ms: u64::try_from(self.plan.budget.as_millis()).unwrap_or(u64::MAX),
            max_execs: self.plan.max_execs,
            oracles,
            targets,
            not_fuzzed: names(
                self.claimed
                    .iter()
                    .copied()
                    .filter(|c| !reached_any.contains(c)),
            ),
            findings,
        }
    }
}

/// A target the implementation stopped answering: a failure of the
/// protocol itself (it must survive any input, RBV-PRO-001), so that an
/// implementation cannot escape the campaign's findings by dying on its
/// inputs.
fn stopped(
    target: &Target,
    why: &str,
    plan: &Plan,
    execs: u64,
    catalogue: &Catalogue,
) -> m::FuzzFinding {
    // A gate that dies is a gate that does not answer: the unsafe side.
    let mut result = fuzz_result(
        target,
        "stopped",
        m::FailKind::Under,
        super::req::PROTOCOL_SURVIVAL,
        catalogue,
    );
    result.title = Some(format!(
        "the implementation stopped answering {}",
        target.name
    ));
    result.guards = m::Sides {
        unsafe_side: true,
        precision: false,
    };
    result.message = Some(format!(
        "[{}] the implementation stopped answering after {execs} execs: {}",
        target.name,
        rbv_report::text::one_line(why, 400)
    ));
    m::FuzzFinding {
        target: target.name.to_owned(),
        reproduction: format!(
            "# No case: `rbv fuzz --impl CMD --target {} --seed {}` reruns the\n# input stream that stopped it.\n",
            target.name, plan.seed
        ),
        artifact_hex: String::new(),
        after_execs: execs,
        count: 1,
        cases: 1,
        oracle_words: Vec::new(),
        result,
    }
}

/// The failing result `fuzz/<target>/<tail>` of `kind`, breaking
/// `requirement`: what every finding of a campaign counts as.
fn fuzz_result(
    target: &Target,
    tail: &str,
    kind: m::FailKind,
    requirement: &str,
    catalogue: &Catalogue,
) -> m::CaseResult {
    let mut result = m::CaseResult::new(
        format!("{}{}/{tail}", m::FINDING_PREFIX, target.name),
        m::Verdict::Fail { kind },
    );
    result.requirements = vec![m::RequirementRef {
        id: requirement.to_owned(),
        level: catalogue.requirement(requirement).map(|r| r.level),
    }];
    result.tags = vec!["fuzz".to_owned(), target.name.to_owned()];
    result
}

/// A finding as the failing result of the capability whose rule it breaks.
fn finding(
    target: &Target,
    found: &super::driver::Found,
    catalogue: &Catalogue,
    date: &str,
) -> m::FuzzFinding {
    let f = &found.finding;
    let (short, _) = artifact_hash(&found.artifact);
    let mut result = fuzz_result(target, &short, f.kind, f.requirement, catalogue);
    result.title = Some(rbv_report::text::one_line(&f.case.title, 200));
    result.needs = catalogue
        .requirement(f.requirement)
        .and_then(|r| r.capability)
        .map(|c| vec![c.as_str().to_owned()])
        .unwrap_or_default();
    result.guards = m::Sides {
        unsafe_side: f.kind == FailKind::Under,
        precision: f.kind == FailKind::Over,
    };
    // The summary quotes the implementation's answer.
    result.message = Some(rbv_report::text::visible(&f.to_string()));
    m::FuzzFinding {
        target: target.name.to_owned(),
        reproduction: f.to_yaml(&found.artifact, date),
        artifact_hex: hex::encode(&found.artifact),
        after_execs: found.after_execs,
        count: found.count,
        cases: 1,
        oracle_words: Vec::new(),
        result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_splits_equally_and_execs_cap_by_time() {
        let plan = Plan {
            budget: Duration::from_secs(70),
            max_execs: Some(10),
            seed: 3,
            deadline: None,
        };
        let shares: Vec<Options> = (0..7).map(|i| share(&plan, 7, i)).collect();
        assert!(shares.iter().all(|o| o.time == Duration::from_secs(10)));
        assert!(shares.iter().all(|o| o.seed == 3));
        let execs: Vec<u64> = shares.iter().map(|o| o.max_execs).collect();
        assert_eq!(execs, [2, 2, 2, 1, 1, 1, 1]);
        assert_eq!(execs.iter().sum::<u64>(), 10);
        let timed = Plan {
            max_execs: None,
            ..plan
        };
        assert_eq!(share(&timed, 7, 0).max_execs, u64::MAX);
    }

    #[test]
    fn a_claim_chooses_its_targets_and_never_the_case_loader() {
        let all = targets_for(&|_| true);
        assert!(all.iter().all(|t| t.name != "case_loader"));
        assert_eq!(all.len(), TARGETS.len() - 1);
        let shell: Vec<&str> = targets_for(&|c| c == Capability::Shell)
            .iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(shell, ["shell_bypass", "protocol_decoder"]);
    }

    /// A target the deadline ends is cut short, not failed: no finding,
    /// nothing charged to the implementation.
    #[test]
    fn a_passed_deadline_cuts_every_target_short_without_a_finding() {
        let plan = Plan {
            budget: Duration::from_secs(60),
            max_execs: Some(100),
            seed: 1,
            deadline: Some(Instant::now()),
        };
        let mut reference = super::super::InProcess::new(None);
        let ran = run(&plan, &mut reference, &mut |_, _| {});
        assert!(!ran.targets.is_empty());
        for t in &ran.targets {
            assert!(t.cut_short, "{}", t.target.name);
            assert_eq!(t.outcome.execs, 0, "{}", t.target.name);
            assert!(t.outcome.died.is_none(), "{}", t.target.name);
        }
        assert_eq!(ran.bugs(), 0);
        // Without a deadline the same plan spends its execs.
        let open = Plan {
            deadline: None,
            max_execs: Some(2 * ran.targets.len() as u64),
            ..plan
        };
        let ran = run(&open, &mut reference, &mut |_, _| {});
        assert!(ran
            .targets
            .iter()
            .all(|t| !t.cut_short && t.outcome.execs == 2));
    }
}
