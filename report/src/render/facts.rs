//! The certificate and the run's conditions as plain text, shared by the
//! renderers so that every format says the same thing the same way.

use crate::model::{CapabilityLevel, Report};

/// The headline level: `Core`, or `partial run: N of M cases (no level)`.
pub fn level_label(report: &Report) -> String {
    match report.summary.certification.partial {
        Some(p) => format!("{} (no level)", p.label()),
        None => report.summary.level.name().to_owned(),
    }
}

/// `partial run: N of M cases`, when the run was partial.
pub fn partial_label(report: &Report) -> Option<String> {
    report.summary.certification.partial.map(|p| p.label())
}

/// Whether a child served one case only: state leaking between sessions
/// went untested.
pub fn spawn_per_case(report: &Report) -> bool {
    report
        .conditions
        .as_ref()
        .is_some_and(|c| c.mode == crate::model::RunMode::SpawnPerCase)
}

/// The conditions as `(key, value)` pairs in a fixed order; empty for a
/// report that did not record them.
pub fn conditions(report: &Report) -> Vec<(&'static str, String)> {
    let Some(c) = &report.conditions else {
        return Vec::new();
    };
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_owned();
    let profile: Vec<String> = report
        .implementation
        .profile
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    vec![
        ("command", c.command.clone()),
        ("mode", c.mode.as_str().to_owned()),
        (
            "filters",
            if c.filters.is_empty() {
                "none".to_owned()
            } else {
                c.filters.join(", ")
            },
        ),
        (
            "cases",
            format!("{} of {}", report.cases.len(), c.suite_cases),
        ),
        ("validate-protocol", yes_no(c.validate_protocol)),
        ("timeout", format!("{} ms", c.timeout_ms)),
        ("jobs", c.jobs.to_string()),
        (
            "profile",
            format!(
                "{} ({})",
                if profile.is_empty() {
                    "defaults".to_owned()
                } else {
                    profile.join(", ")
                },
                c.profile_source
            ),
        ),
        ("rbv", c.rbv_version.clone()),
        ("suite sha256", report.suite.cases_sha256.clone()),
        ("platform", c.platform.clone()),
    ]
}

/// `3 pass, 1 fail, 0 error, 2 skip` of one capability.
pub fn counts(c: &CapabilityLevel) -> String {
    let n = &c.counts;
    format!(
        "{} pass, {} fail, {} error, {} skip",
        n.pass,
        n.fail + n.known_failure,
        n.error,
        n.skip
    )
}

/// What keeps a capability from each level above its own:
/// `Core: a, b; Precise: a, b, c`, at most `limit` ids per level.
pub fn blockers(c: &CapabilityLevel, limit: usize) -> String {
    let parts: Vec<String> = c
        .blockers
        .iter()
        .filter(|b| !b.cases.is_empty())
        .map(|b| {
            let mut ids: Vec<&str> = b.cases.iter().take(limit).map(String::as_str).collect();
            let more = b.cases.len().saturating_sub(limit);
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            if ids.is_empty() {
                ids.push("—");
            }
            format!("{}: {}{tail}", b.level, ids.join(", "))
        })
        .collect();
    parts.join("; ")
}
