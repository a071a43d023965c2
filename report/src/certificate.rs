//! Certification per capability, and the overall level derived from it.
//!
//! The cases of a capability are those that need it; the cases that need
//! nothing form the group [`BASE`], which every implementation is judged
//! on. A capability the implementation does not claim is "not claimed":
//! its cases were skipped, and they count against nothing. A claimed
//! capability's level is judged on its cases that applied: a case skipped
//! for its profile does not apply, nor does one that also needs an
//! unclaimed capability. A failure counts only against the capabilities
//! of the rule it breaks (`CaseResult::counts_against`): a SQL failure in
//! a case that also needs tokens blocks sql, not tokens.
//!
//! The levels nest (see [`Level`]): Safe needs every MUST case on the
//! unsafe side to pass, Core every MUST case, Precise also every case that
//! guards precision. A skip never counts as a pass. A level is reached
//! only when at least one of the group's cases ran, so that nothing is
//! certified vacuously.
//!
//! The overall level is the lowest level of the claimed groups that had
//! cases; a partial run (filtered, or fewer cases than the suite has)
//! earns none.

use crate::model::{
    plural, CapabilityLevel, CapabilityStatus, CaseResult, Certification, Conditions, Counts,
    FuzzFinding, Level, LevelBlockers, PartialRun, BASE,
};
use std::collections::{BTreeMap, BTreeSet};

/// The certificate and what it makes of the whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub certification: Certification,
    /// The overall level.
    pub level: Level,
    /// The cases that keep the run from the next overall level.
    pub next_level_blockers: Vec<String>,
}

/// Whether `case` must pass for `level` (the levels below included). A
/// fuzz finding binds like a MUST case whatever its requirement's level:
/// it is a bug the cases missed, not a point the proposal leaves open.
fn required_for(level: Level, case: &CaseResult) -> bool {
    let must = case.is_must() || FuzzFinding::is_finding(case);
    match level {
        Level::None => false,
        Level::Safe => must && case.guards.unsafe_side,
        Level::Core => must,
        Level::Precise => must || case.guards.precision,
    }
}

/// The cases of `level` that did not pass, sorted.
fn blockers_of(level: Level, cases: &[&CaseResult]) -> Vec<String> {
    let mut ids: Vec<String> = cases
        .iter()
        .filter(|c| required_for(level, c) && !c.verdict.is_pass())
        .map(|c| c.id.clone())
        .collect();
    ids.sort();
    ids
}

/// The highest level `cases` reach, and the blockers of every level above.
pub fn group_level(cases: &[&CaseResult]) -> (Level, Vec<LevelBlockers>) {
    let ran = cases.iter().any(|c| !c.verdict.is_skip());
    let mut reached = Level::None;
    let mut blockers = Vec::new();
    let mut next = Level::None.next();
    while let Some(level) = next {
        let cases = blockers_of(level, cases);
        if ran && cases.is_empty() && blockers.is_empty() {
            reached = level;
        } else {
            blockers.push(LevelBlockers { level, cases });
        }
        next = level.next();
    }
    (reached, blockers)
}

/// Certifies a run: `claimed` as the implementation spelled them,
/// `conditions` when the harness recorded them.
pub fn certify(
    cases: &[CaseResult],
    claimed: &[String],
    conditions: Option<&Conditions>,
) -> Outcome {
    let known: BTreeSet<&str> = match conditions {
        Some(c) if !c.known_capabilities.is_empty() => {
            c.known_capabilities.iter().map(String::as_str).collect()
        }
        // A report without conditions knows what its cases need.
        _ => cases
            .iter()
            .flat_map(|c| c.needs.iter().map(String::as_str))
            .chain(claimed.iter().map(String::as_str))
            .collect(),
    };
    let (claimed, unknown): (BTreeSet<&str>, BTreeSet<&str>) = claimed
        .iter()
        .map(String::as_str)
        .partition(|c| known.contains(c));
    let partial = partial_run(cases, conditions);
    let capabilities: Vec<CapabilityLevel> = std::iter::once(BASE)
        .chain(known.iter().copied().filter(|k| *k != BASE))
        .map(|name| capability(name, cases, &claimed, partial.is_some()))
        // The base group is listed only when some case needs nothing.
        .filter(|c| c.capability != BASE || c.counts.total > 0)
        .collect();

    let judged: Vec<&CapabilityLevel> = capabilities
        .iter()
        .filter(|c| c.status == CapabilityStatus::Certified)
        .collect();
    let level = judged
        .iter()
        .filter_map(|c| c.level)
        .min()
        .unwrap_or(Level::None);
    let mut next_level_blockers: Vec<String> = match level.next() {
        Some(next) => judged
            .iter()
            .flat_map(|c| c.blockers.iter().filter(move |b| b.level == next))
            .flat_map(|b| b.cases.iter().cloned())
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect(),
        None => Vec::new(),
    };
    if judged.is_empty() {
        next_level_blockers.clear();
    }
    let mut certification = Certification {
        statement: String::new(),
        partial,
        capabilities,
        unknown_claims: shown_claims(&unknown),
        campaign: None,
    };
    certification.statement = statement(&certification, cases);
    Outcome {
        certification,
        level,
        next_level_blockers,
    }
}

/// One group: its counts, and its level when it is claimed and applies.
fn capability(
    name: &str,
    cases: &[CaseResult],
    claimed: &BTreeSet<&str>,
    partial: bool,
) -> CapabilityLevel {
    let is_base = name == BASE;
    let mine: Vec<&CaseResult> = cases
        .iter()
        .filter(|c| {
            if is_base {
                c.needs.is_empty()
            } else {
                c.needs.iter().any(|n| n == name)
            }
        })
        .collect();
    let mut counts = Counts::default();
    for c in &mine {
        crate::score::count(&mut counts, c);
    }
    let mut entry = CapabilityLevel {
        capability: name.to_owned(),
        status: CapabilityStatus::NotClaimed,
        level: None,
        counts,
        blockers: Vec::new(),
        failing_outside_levels: Vec::new(),
    };
    if !is_base && !claimed.contains(name) {
        return entry;
    }
    let applying: Vec<&CaseResult> = mine
        .into_iter()
        .filter(|c| {
            !c.verdict.is_not_applicable()
                && c.needs.iter().all(|n| claimed.contains(n.as_str()))
                && counts_against(c, name)
        })
        .collect();
    if applying.is_empty() {
        entry.status = CapabilityStatus::Untested;
        return entry;
    }
    let (level, blockers) = group_level(&applying);
    entry.blockers = blockers;
    entry.failing_outside_levels = applying
        .iter()
        .filter(|c| c.verdict.is_failure() && !required_for(Level::Precise, c))
        .map(|c| c.id.clone())
        .collect();
    entry.failing_outside_levels.sort();
    if partial {
        entry.status = CapabilityStatus::Partial;
    } else {
        entry.status = CapabilityStatus::Certified;
        entry.level = Some(level);
    }
    entry
}

/// Whether `case` counts for the levels of the group `name`: a pass counts
/// for every group it belongs to, a failure only for the capabilities of
/// the rule it breaks (all of the case's, when the report does not say).
fn counts_against(case: &CaseResult, name: &str) -> bool {
    !case.verdict.is_failure()
        || case.counts_against.is_empty()
        || case.counts_against.iter().any(|c| c == name)
}

/// The statement, what is certified first: `Precise: base, sql · Core:
/// fetch (blocked by 2 cases) · None: shell (blocked by 19 cases) ·
/// untested: … · not claimed: … · unknown capabilities ignored: …`.
/// Every failing case of a judged group shows up in it, as blocking a
/// level or as `N SHOULD cases fail`, so a run that exits 1 says why
/// even at Precise.
fn statement(cert: &Certification, cases: &[CaseResult]) -> String {
    let names = |status: CapabilityStatus| -> Vec<&str> {
        cert.capabilities
            .iter()
            .filter(|c| c.status == status)
            .map(|c| c.capability.as_str())
            .collect()
    };
    let mut parts = vec![levels(cert, cases)];
    for (status, label) in [
        (CapabilityStatus::Untested, "untested"),
        (CapabilityStatus::NotClaimed, "not claimed"),
    ] {
        let list = names(status);
        if !list.is_empty() {
            parts.push(format!("{label}: {}", list.join(", ")));
        }
    }
    if !cert.unknown_claims.is_empty() {
        parts.push(format!(
            "unknown capabilities ignored: {}",
            cert.unknown_claims.join(", ")
        ));
    }
    parts.join(" · ")
}

/// The head of the statement, what the run certifies: `Precise: base,
/// sql · None: shell (blocked by 19 cases)`, or `partial run: N of M
/// cases: no level`. Headlines show it in place of the lowest level
/// alone, which would read a Precise capability as None.
pub fn levels(cert: &Certification, cases: &[CaseResult]) -> String {
    if let Some(p) = cert.partial {
        return format!("{}: no level", p.label());
    }
    let by_id: BTreeMap<&str, &CaseResult> = cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut by_level: BTreeMap<Level, Vec<String>> = BTreeMap::new();
    for c in &cert.capabilities {
        if let Some(l) = c.level {
            by_level
                .entry(l)
                .or_default()
                .push(group_entry(c, l, &by_id));
        }
    }
    if by_level.is_empty() {
        return "None: no case ran".to_owned();
    }
    let parts: Vec<String> = by_level
        .iter()
        .rev()
        .map(|(l, groups)| format!("{l}: {}", groups.join(", ")))
        .collect();
    parts.join(" · ")
}

/// A judged group in the statement: `sql`, `sql (blocked by 3 cases)`
/// below Precise, `sql (2 SHOULD cases fail)` beside failures that block
/// no level.
fn group_entry(c: &CapabilityLevel, level: Level, cases: &BTreeMap<&str, &CaseResult>) -> String {
    let mut notes = Vec::new();
    if level.next().is_some() {
        let n = c.next_blockers().len();
        if n > 0 {
            notes.push(format!("blocked by {n} case{}", plural(n)));
        }
    }
    if !c.failing_outside_levels.is_empty() {
        // Named by the strongest level each case cites: no MUST, by definition.
        let mut by_req: BTreeMap<&str, usize> = BTreeMap::new();
        for id in &c.failing_outside_levels {
            let strongest = cases
                .get(id.as_str())
                .and_then(|k| k.requirements.iter().filter_map(|r| r.level).min())
                .map_or("uncatalogued", |l| l.as_str());
            *by_req.entry(strongest).or_default() += 1;
        }
        let total = c.failing_outside_levels.len();
        let kinds: Vec<&str> = by_req.keys().copied().collect();
        notes.push(format!(
            "{total} {} case{} fail{}",
            kinds.join("/"),
            plural(total),
            if total == 1 { "s" } else { "" }
        ));
    }
    if notes.is_empty() {
        c.capability.clone()
    } else {
        format!("{} ({})", c.capability, notes.join("; "))
    }
}

/// The implementation's unknown capability names as a report may show
/// them: escaped, each cut short, at most [`MAX_UNKNOWN_CLAIMS`] of them.
fn shown_claims(unknown: &BTreeSet<&str>) -> Vec<String> {
    let mut shown: Vec<String> = unknown
        .iter()
        .take(MAX_UNKNOWN_CLAIMS)
        .map(|c| crate::text::one_line(c, 64))
        .collect();
    if unknown.len() > MAX_UNKNOWN_CLAIMS {
        shown.push(format!("… {} more", unknown.len() - MAX_UNKNOWN_CLAIMS));
    }
    shown
}

/// The unknown capability names a report lists; the rest are counted.
pub const MAX_UNKNOWN_CLAIMS: usize = 20;

/// A run that did not run the whole suite: filtered, or short of cases.
pub fn partial_run(cases: &[CaseResult], conditions: Option<&Conditions>) -> Option<PartialRun> {
    let c = conditions?;
    // A campaign's findings are judged beside the cases but are none.
    let ran = cases.iter().filter(|c| !FuzzFinding::is_finding(c)).count();
    let total = c.suite_cases.max(ran);
    (!c.filters.is_empty() || ran < total).then_some(PartialRun { ran, total })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        FailKind, RequirementLevel, RequirementRef, RunMode, Sides, SkipCause, Verdict,
    };
    use RequirementLevel::{Must, Should};

    fn case(id: &str, needs: &[&str], level: RequirementLevel, sides: (bool, bool)) -> CaseResult {
        let mut c = CaseResult::new(id, Verdict::Pass);
        c.requirements = vec![RequirementRef {
            id: "R".into(),
            level: Some(level),
        }];
        c.needs = needs.iter().map(|n| (*n).to_owned()).collect();
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

    fn claims(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    fn conditions(total: usize, filters: &[&str]) -> Conditions {
        Conditions {
            rbv_version: "0".into(),
            command: "x".into(),
            mode: RunMode::Process,
            filters: claims(filters),
            validate_protocol: false,
            timeout_ms: 5000,
            jobs: 1,
            profile_source: "handshake".into(),
            platform: "linux-x86_64".into(),
            suite_cases: total,
            known_capabilities: claims(&["manifest", "shell", "sql"]),
        }
    }

    fn level_of<'a>(o: &'a Outcome, name: &str) -> &'a CapabilityLevel {
        o.certification
            .capabilities
            .iter()
            .find(|c| c.capability == name)
            .expect("listed")
    }

    #[test]
    fn levels_nest_and_follow_the_failing_side() {
        let all_pass = vec![
            case("a/1", &[], Must, (true, false)),
            case("a/2", &[], Must, (false, true)),
            case("a/3", &[], Should, (false, true)),
        ];
        let refs = |cases: &[CaseResult]| -> (Level, Vec<String>) {
            let (l, b) = group_level(&cases.iter().collect::<Vec<_>>());
            (l, b.first().map(|b| b.cases.clone()).unwrap_or_default())
        };
        assert_eq!(refs(&all_pass), (Level::Precise, vec![]));
        let mut should_over = all_pass.clone();
        should_over[2].verdict = fail(FailKind::Over);
        assert_eq!(refs(&should_over), (Level::Core, vec!["a/3".to_owned()]));
        let mut must_over = all_pass.clone();
        must_over[1].verdict = fail(FailKind::Over);
        assert_eq!(refs(&must_over), (Level::Safe, vec!["a/2".to_owned()]));
        let mut must_under = all_pass.clone();
        must_under[0].verdict = fail(FailKind::Under);
        let (level, blockers) = group_level(&must_under.iter().collect::<Vec<_>>());
        assert_eq!(level, Level::None);
        // Every level above lists what blocks it, cumulatively.
        let listed: Vec<(Level, usize)> =
            blockers.iter().map(|b| (b.level, b.cases.len())).collect();
        assert_eq!(
            listed,
            [(Level::Safe, 1), (Level::Core, 1), (Level::Precise, 1)]
        );
    }

    #[test]
    fn a_partial_adapter_is_certified_for_what_it_claims() {
        let mut cases = vec![
            case("base/1", &[], Must, (true, false)),
            case("sql/1", &["sql"], Must, (true, true)),
            case("sql/2", &["sql"], Should, (false, true)),
            case("shell/1", &["shell"], Must, (true, false)),
            case("mixed/1", &["manifest", "sql"], Must, (true, false)),
        ];
        for c in &mut cases[3..] {
            c.verdict = skip(SkipCause::Capability);
        }
        let o = certify(&cases, &claims(&["sql"]), Some(&conditions(5, &[])));
        assert_eq!(o.level, Level::Precise);
        assert_eq!(level_of(&o, "sql").level, Some(Level::Precise));
        assert_eq!(level_of(&o, "base").level, Some(Level::Precise));
        for name in ["shell", "manifest"] {
            let c = level_of(&o, name);
            assert_eq!((c.status, c.level), (CapabilityStatus::NotClaimed, None));
        }
        assert_eq!(
            o.certification.statement,
            "Precise: base, sql · not claimed: manifest, shell"
        );
        // The same run with the skipped case counted against it would be None.
        cases[4].needs = claims(&["sql"]);
        let o = certify(&cases, &claims(&["sql"]), Some(&conditions(5, &[])));
        assert_eq!(level_of(&o, "sql").level, Some(Level::None));
        assert_eq!(o.next_level_blockers, ["mixed/1"]);
    }

    #[test]
    fn the_overall_level_is_the_lowest_claimed_one() {
        let mut cases = vec![
            case("sql/1", &["sql"], Must, (true, false)),
            case("shell/1", &["shell"], Must, (false, true)),
            case("shell/2", &["shell"], Should, (false, true)),
        ];
        cases[1].verdict = fail(FailKind::Over);
        cases[2].verdict = fail(FailKind::Over);
        let o = certify(
            &cases,
            &claims(&["sql", "shell"]),
            Some(&conditions(3, &[])),
        );
        assert_eq!(o.level, Level::Safe);
        assert_eq!(o.next_level_blockers, ["shell/1"]);
        assert_eq!(
            level_of(&o, "shell").blockers.last().map(|b| b.cases.len()),
            Some(2)
        );
        // No case needs nothing here: base is not listed. Manifest has
        // no case and is not claimed.
        assert!(o
            .certification
            .capabilities
            .iter()
            .all(|c| c.capability != "base"));
        assert_eq!(
            o.certification.statement,
            "Precise: sql · Safe: shell (blocked by 1 case) · not claimed: manifest"
        );
        // Claimed without a case that applies: untested, and out of the minimum.
        let o = certify(
            &cases,
            &claims(&["sql", "shell", "manifest"]),
            Some(&conditions(3, &[])),
        );
        assert_eq!(level_of(&o, "manifest").status, CapabilityStatus::Untested);
        assert_eq!(o.level, Level::Safe);
        assert!(o.certification.statement.ends_with(" · untested: manifest"));
    }

    #[test]
    fn a_skip_is_not_a_pass_but_a_profile_skip_does_not_apply() {
        let mut cases = vec![
            case("a/1", &[], Must, (true, false)),
            case("a/2", &[], Must, (true, false)),
        ];
        cases[1].verdict = skip(SkipCause::Other);
        assert_eq!(certify(&cases, &[], None).level, Level::None);
        cases[1].verdict = skip(SkipCause::Profile);
        assert_eq!(certify(&cases, &[], None).level, Level::Precise);
        // Nothing ran: no level is reached vacuously.
        cases[0].verdict = skip(SkipCause::Other);
        assert_eq!(certify(&cases, &[], None).level, Level::None);
        let o = certify(&[], &[], None);
        assert_eq!(o.level, Level::None);
        assert_eq!(o.certification.statement, "None: no case ran");
    }

    #[test]
    fn a_filtered_or_short_run_earns_no_level() {
        let cases = vec![case("sql/1", &["sql"], Must, (true, false))];
        for cond in [conditions(1, &["sql/"]), conditions(40, &[])] {
            let o = certify(&cases, &claims(&["sql"]), Some(&cond));
            assert_eq!(o.level, Level::None);
            let sql = level_of(&o, "sql");
            assert_eq!((sql.status, sql.level), (CapabilityStatus::Partial, None));
            let p = o.certification.partial.expect("partial");
            assert!(o.certification.statement.starts_with(&p.label()));
        }
        let o = certify(&cases, &claims(&["sql"]), Some(&conditions(40, &[])));
        assert!(o
            .certification
            .statement
            .starts_with("partial run: 1 of 40 cases: no level"));
    }

    #[test]
    fn unknown_claims_are_listed_and_certify_nothing() {
        let cases = vec![case("sql/1", &["sql"], Must, (true, false))];
        let o = certify(&cases, &claims(&["sql", "shel"]), Some(&conditions(1, &[])));
        assert_eq!(o.certification.unknown_claims, ["shel"]);
        assert_eq!(level_of(&o, "shell").status, CapabilityStatus::NotClaimed);
        assert!(o
            .certification
            .statement
            .ends_with(" · unknown capabilities ignored: shel"));
    }

    #[test]
    fn unknown_claims_are_escaped_cut_and_counted() {
        let cases = vec![case("sql/1", &["sql"], Must, (true, false))];
        let mut names: Vec<String> = (0..30).map(|i| format!("x{i:02}")).collect();
        names.push(format!("a\u{202e}{}", "y".repeat(500)));
        let claimed: Vec<&str> = names.iter().map(String::as_str).collect();
        let o = certify(&cases, &claims(&claimed), Some(&conditions(1, &[])));
        let shown = &o.certification.unknown_claims;
        assert_eq!(shown.len(), MAX_UNKNOWN_CLAIMS + 1);
        assert_eq!(shown.last().unwrap(), "… 11 more");
        assert!(shown.iter().all(|c| c.len() < 200), "{shown:?}");
        let statement = &o.certification.statement;
        assert!(
            !statement.chars().any(crate::text::is_hostile),
            "{statement}"
        );
    }

    #[test]
    fn the_statement_reads_the_certified_levels_first_and_counts_every_failure() {
        let mut cases = vec![
            case("base/1", &[], Must, (true, false)),
            case("sql/1", &["sql"], Must, (true, true)),
            case("sql/2", &["sql"], Should, (true, false)),
            case("sql/3", &["sql"], Should, (true, false)),
            case("shell/1", &["shell"], Must, (true, false)),
            case("shell/2", &["shell"], Must, (true, false)),
            case("manifest/1", &["manifest"], Must, (false, true)),
        ];
        // Two SHOULD cases that guard only the unsafe side fail: they
        // block no level, yet the run exits 1, and the line says so.
        cases[2].verdict = fail(FailKind::Under);
        cases[3].verdict = fail(FailKind::Under);
        cases[4].verdict = fail(FailKind::Under);
        cases[5].verdict = fail(FailKind::Under);
        cases[6].verdict = fail(FailKind::Over);
        let o = certify(
            &cases,
            &claims(&["sql", "shell", "manifest"]),
            Some(&conditions(7, &[])),
        );
        assert_eq!(o.level, Level::None);
        assert_eq!(
            o.certification.statement,
            "Precise: base, sql (2 SHOULD cases fail) · Safe: manifest (blocked by 1 case) \
             · None: shell (blocked by 2 cases)"
        );
        assert_eq!(
            level_of(&o, "sql").failing_outside_levels,
            ["sql/2", "sql/3"]
        );
    }

    #[test]
    fn a_failure_counts_against_the_capability_whose_rule_it_breaks() {
        let mut cases = vec![
            case("sql/1", &["sql"], Must, (true, true)),
            case("tokens/1", &["tokens"], Must, (true, true)),
            case(
                "sql/through-invoke",
                &["sql", "tokens"],
                Must,
                (false, true),
            ),
        ];
        cases[2].verdict = fail(FailKind::Over);
        let claimed = claims(&["sql", "tokens"]);
        let cond = Some(Conditions {
            known_capabilities: claims(&["sql", "tokens"]),
            ..conditions(3, &[])
        });
        let levels = |cases: &[CaseResult]| {
            let o = certify(cases, &claimed, cond.as_ref());
            (level_of(&o, "sql").level, level_of(&o, "tokens").level)
        };
        // A report that does not say: the failure blocks both.
        assert_eq!(levels(&cases), (Some(Level::Safe), Some(Level::Safe)));
        cases[2].counts_against = claims(&["sql"]);
        assert_eq!(levels(&cases), (Some(Level::Safe), Some(Level::Precise)));
        cases[2].counts_against = claims(&["tokens"]);
        assert_eq!(levels(&cases), (Some(Level::Precise), Some(Level::Safe)));
        // A pass counts for every capability the case needs.
        cases[2].verdict = Verdict::Pass;
        assert_eq!(levels(&cases), (Some(Level::Precise), Some(Level::Precise)));
    }
}
