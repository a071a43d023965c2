//! Building, refreshing and reading reports; helpers of the model.

use super::*;
use std::time::SystemTime;

impl Report {
    /// Builds a report from its inputs and computes every derived field.
    pub fn assemble(
        suite: SuiteInfo,
        mut implementation: Implementation,
        catalogue: BTreeMap<String, RequirementInfo>,
        cases: Vec<CaseResult>,
        started: SystemTime,
        duration_ms: f64,
    ) -> Report {
        implementation.capabilities.sort();
        implementation.capabilities.dedup();
        let requirements = catalogue
            .into_iter()
            .map(|(id, info)| {
                let empty = Requirement {
                    info,
                    status: RequirementStatus::Untested,
                    counts: Counts::default(),
                    unsafe_cases: 0,
                    precision_cases: 0,
                };
                (id, empty)
            })
            .collect();
        let mut report = Report {
            format_version: FORMAT_VERSION,
            suite,
            implementation,
            requirements,
            cases,
            summary: crate::score::summarize(&[], crate::certificate::certify(&[], &[], None)),
            baseline: None,
            started: rfc3339(started),
            duration_ms: round_ms(duration_ms),
            conditions: None,
            campaign: None,
        };
        report.refresh();
        report
    }

    /// The report with the conditions of its run recorded, and the
    /// certification they decide (a partial run earns no level).
    pub fn with_conditions(mut self, conditions: Conditions) -> Report {
        self.conditions = Some(conditions);
        self.refresh();
        self
    }

    /// The report with the fuzz campaign run after its cases: each finding
    /// counts against its capability's level.
    pub fn with_campaign(mut self, campaign: Campaign) -> Report {
        self.campaign = Some(campaign);
        self.refresh();
        self
    }

    /// Recomputes every derived field from the cases: sort order,
    /// requirement tallies and the summary. Call it after changing cases.
    pub fn refresh(&mut self) {
        for case in &mut self.cases {
            case.needs.sort();
            case.needs.dedup();
            case.counts_against.sort();
            case.counts_against.dedup();
            case.requirements.sort();
            case.requirements.dedup();
            case.tags.sort();
            case.tags.dedup();
            case.duration_ms = round_ms(case.duration_ms);
        }
        self.cases.sort_by(|a, b| a.id.cmp(&b.id));
        crate::score::tally_requirements(&mut self.requirements, &self.cases);
        // The findings are judged with the cases, but they are not cases:
        // the counts and scores stay those of the suite.
        let judged: Vec<CaseResult> = match &self.campaign {
            Some(c) => self.cases.iter().chain(c.results()).cloned().collect(),
            None => Vec::new(),
        };
        let cert = crate::certificate::certify(
            if self.campaign.is_some() {
                &judged
            } else {
                &self.cases
            },
            &self.implementation.capabilities,
            self.conditions.as_ref(),
        );
        self.summary = crate::score::summarize(&self.cases, cert);
        if let Some(c) = &self.campaign {
            self.summary.run_failed |= !c.findings.is_empty() || c.incomplete();
            self.summary.certification.campaign = Some(c.clause());
        }
        if let Some(b) = &self.baseline {
            self.summary.run_failed |= !b.stale.is_empty();
        }
    }

    /// The areas in order, each with its cases.
    pub fn areas(&self) -> BTreeMap<&str, Vec<&CaseResult>> {
        let mut areas: BTreeMap<&str, Vec<&CaseResult>> = BTreeMap::new();
        for case in &self.cases {
            areas.entry(case.area.as_str()).or_default().push(case);
        }
        areas
    }

    pub fn case(&self, id: &str) -> Option<&CaseResult> {
        self.cases
            .binary_search_by(|c| c.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.cases[i])
    }

    /// `name version` of the implementation.
    pub fn implementation_label(&self) -> String {
        format!(
            "{} {}",
            self.implementation.name, self.implementation.version
        )
    }

    /// The same report with the started time, every duration and the
    /// implementation's whole answers cleared (they carry its own clock,
    /// an audit record's timestamp): what two runs on the same inputs must
    /// agree on byte for byte.
    pub fn without_timings(&self) -> Report {
        let mut r = self.clone();
        r.started = rfc3339(SystemTime::UNIX_EPOCH);
        r.duration_ms = 0.0;
        for c in &mut r.cases {
            c.duration_ms = 0.0;
            c.answer = None;
        }
        if let Some(c) = &mut r.campaign {
            for t in &mut c.targets {
                t.elapsed_ms = 0.0;
            }
        }
        r
    }

    /// Reads a `report.json`.
    pub fn from_json(text: &str) -> serde_json::Result<Report> {
        serde_json::from_str(text)
    }
}

impl CaseResult {
    /// A case that passed, with nothing else known: a starting point that
    /// callers fill in.
    pub fn new(id: impl Into<String>, verdict: Verdict) -> CaseResult {
        let id = id.into();
        CaseResult {
            area: area_of(&id).to_owned(),
            id,
            title: None,
            requirements: Vec::new(),
            tags: Vec::new(),
            needs: Vec::new(),
            counts_against: Vec::new(),
            guards: Sides::default(),
            verdict,
            step: None,
            message: None,
            request: None,
            expected: None,
            observed: None,
            diff: None,
            answer: None,
            reasons: Vec::new(),
            line: None,
            stderr_tail: None,
            duration_ms: 0.0,
            baseline: None,
        }
    }

    /// Covers a requirement of level MUST.
    pub fn is_must(&self) -> bool {
        self.requirements
            .iter()
            .any(|r| r.level == Some(RequirementLevel::Must))
    }

    /// A failure or error the baseline lists.
    pub fn is_known_failure(&self) -> bool {
        matches!(&self.baseline, Some(m) if m.state == BaselineState::KnownFailure)
    }

    pub fn is_stale(&self) -> bool {
        matches!(&self.baseline, Some(m) if m.state == BaselineState::Stale)
    }

    /// What renderers show as the verdict: the label, or `known` /
    /// `stale` for baselined cases.
    pub fn display_label(&self) -> &'static str {
        if self.is_known_failure() {
            "known"
        } else if self.is_stale() {
            "stale"
        } else {
            self.verdict.label()
        }
    }

    /// One line: `under at step 2: message`.
    pub fn headline(&self) -> String {
        let mut s = self.verdict.label().to_owned();
        if let Some(step) = self.step {
            // The harness's messages already start with `step N (action)`.
            let named = self
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("step "));
            if !named {
                s.push_str(&format!(" at step {step}"));
            }
        }
        match (&self.verdict, &self.message) {
            (Verdict::Skip { reason, .. }, _) => format!("{s}: {reason}"),
            (_, Some(m)) => format!("{s}: {}", m.lines().next().unwrap_or("")),
            (_, None) => s,
        }
    }
}

/// The area of a case id: its first path segment.
pub fn area_of(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

/// RFC 3339 in UTC with whole seconds: `2026-11-30T10:28:45Z`.
pub fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Milliseconds kept to the microsecond, so that floats print the same
/// on every platform.
/// `s` after a count other than one: `1 case`, `2 cases`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub fn round_ms(ms: f64) -> f64 {
    if ms.is_finite() && ms > 0.0 {
        (ms * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}
