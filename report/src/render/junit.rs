//! `junit.xml`: one testsuite per area, one testcase per case; every
//! suite carries the certificate and the run's conditions as properties.
//!
//! CI systems fail a build on `<failure>` and `<error>`, so a known failure
//! (listed in the baseline) is written as skipped with its reason, and a
//! stale baseline entry as a failure of type `stale-baseline`.

use super::facts;
use crate::model::{CaseResult, Report, Verdict};
use crate::text::{Pass, Passing};
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use std::io;
use std::time::Duration;

/// The JUnit XML document, every character of it through `text::xml` at
/// the end: names, messages, attributes and properties alike (an
/// implementation's name or profile may hold U+FFFE or an escape
/// character, which no XML allows), none escaped field by field.
pub fn render(report: &Report) -> io::Result<String> {
    let mut bytes = Vec::new();
    write(report, &mut bytes)?;
    Ok(String::from_utf8(bytes).expect("the pass writes UTF-8"))
}

/// [`render`], written to `out` as it is serialized.
pub fn write(report: &Report, out: &mut dyn io::Write) -> io::Result<()> {
    let mut junit = quick_junit::Report::new(format!("rbv: {}", report.implementation_label()));
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(&report.started) {
        junit.set_timestamp(t);
    }
    junit.set_time(duration(report.duration_ms));
    let mut properties = run_properties(report);
    properties.extend(super::campaign::junit_properties(report));
    for (area, cases) in report.areas() {
        let mut suite = TestSuite::new(area);
        suite.add_properties(properties.iter().cloned());
        if let Ok(t) = chrono::DateTime::parse_from_rfc3339(&report.started) {
            suite.set_timestamp(t);
        }
        suite.set_time(duration(cases.iter().map(|c| c.duration_ms).sum()));
        suite.add_test_cases(cases.iter().map(|c| test_case(c)));
        junit.add_test_suite(suite);
    }
    if let Some(suite) = super::campaign::junit_suite(report, &properties) {
        junit.add_test_suite(suite);
    }
    let mut passing = Passing::new(Pass::Xml, out);
    junit.serialize(&mut passing).map_err(io::Error::other)?;
    passing.finish().map(drop)
}

/// The certificate and the run's conditions, as properties of every
/// suite (JUnit has no properties on the whole report): `rbv.level`,
/// `rbv.certification`, `rbv.partial`, `rbv.capability.NAME` and
/// `rbv.condition.KEY`.
pub fn run_properties(report: &Report) -> Vec<Property> {
    let cert = &report.summary.certification;
    let mut out = vec![
        Property::new("rbv.level", facts::level_label(report)),
        Property::new("rbv.certification", cert.statement.as_str()),
    ];
    if let Some(partial) = facts::partial_label(report) {
        out.push(Property::new("rbv.partial", partial));
    }
    for c in &cert.capabilities {
        out.push(Property::new(
            format!("rbv.capability.{}", c.capability),
            format!("{} ({})", c.display(), facts::counts(c)),
        ));
    }
    for (key, value) in facts::conditions(report) {
        out.push(Property::new(
            format!("rbv.condition.{}", key.replace(' ', "-")),
            value,
        ));
    }
    out
}

fn duration(ms: f64) -> Duration {
    Duration::from_secs_f64((ms / 1000.0).max(0.0))
}

fn test_case(case: &CaseResult) -> TestCase {
    let status = match (&case.verdict, &case.baseline) {
        (_, Some(mark)) if case.is_known_failure() => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("known-failure");
            s.set_message(format!(
                "known failure ({}): {}",
                case.verdict.label(),
                mark.reason
            ));
            s.set_description(details(case));
            s
        }
        (_, Some(mark)) if case.is_stale() => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("stale-baseline");
            s.set_message(format!(
                "the baseline lists this case ({}) but it passes: remove the entry",
                mark.reason
            ));
            s
        }
        (Verdict::Pass, _) => TestCaseStatus::success(),
        (Verdict::Skip { reason, cause }, _) => {
            let mut s = TestCaseStatus::skipped();
            s.set_type(cause.as_str());
            s.set_message(reason.as_str());
            s
        }
        (Verdict::Fail { .. }, _) | (Verdict::Error { .. }, _) => {
            let kind = if matches!(case.verdict, Verdict::Fail { .. }) {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_type(case.verdict.label());
            s.set_message(case.headline());
            s.set_description(details(case));
            s
        }
    };
    let mut tc = TestCase::new(case.id.as_str(), status);
    tc.set_classname(case.area.as_str());
    tc.set_time(duration(case.duration_ms));
    for r in &case.requirements {
        let level = r.level.map(|l| l.as_str()).unwrap_or("unknown");
        tc.add_property(Property::new("requirement", format!("{} ({level})", r.id)));
    }
    if let Some(title) = &case.title {
        tc.add_property(Property::new("title", title.as_str()));
    }
    if let Some(stderr) = &case.stderr_tail {
        tc.set_system_err(stderr.as_str());
    }
    tc
}

/// The body of a failure: message, request, expected, observed, diff and
/// the stderr tail, each under a heading.
pub(crate) fn details(case: &CaseResult) -> String {
    let mut out = String::new();
    let mut section = |name: &str, text: &Option<String>| {
        if let Some(t) = text.as_deref().filter(|t| !t.is_empty()) {
            out.push_str(&format!("--- {name} ---\n{}\n", t.trim_end()));
        }
    };
    section("message", &case.message);
    section("request", &case.request);
    section("expected", &case.expected);
    section("observed", &case.observed);
    section("diff", &case.diff);
    section("offending line", &case.line);
    section("stderr tail", &case.stderr_tail);
    out
}
