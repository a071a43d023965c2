//! `junit.xml`: one testsuite per area, one testcase per case; every
//! suite carries the certificate and the run's conditions as properties.
//!
//! CI systems fail a build on `<failure>` and `<error>`, so a known failure
//! (listed in the baseline) is written as skipped with its reason, and a
//! stale baseline entry as a failure of type `stale-baseline`.

use super::facts;
use crate::model::{CaseResult, Report, Verdict};
use crate::text::{Pass, Passing};
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite, XmlString};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
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

/// [`render`], written to `out` as it is serialized. Each testcase is
/// built, written and dropped in turn: with megabyte failure messages the
/// whole document is tens of megabytes, and quick-junit's `Report` holds
/// all of it before it serializes (it has no streaming writer), which was a
/// run's peak memory. The elements and attributes are quick-junit's, in
/// its order (a test holds the two outputs equal).
pub fn write(report: &Report, out: &mut dyn io::Write) -> io::Result<()> {
    let started = chrono::DateTime::parse_from_rfc3339(&report.started).ok();
    let mut properties = run_properties(report);
    properties.extend(super::campaign::junit_properties(report));
    let areas = report.areas();
    // A suite's counts come before its cases: tallied from the same
    // testcases, built once here to count and once more to write.
    let heads: Vec<TestSuite> = areas
        .iter()
        .map(|(area, cases)| {
            let mut suite = suite_head(area, cases, &properties, started);
            for case in cases {
                tally(&mut suite, &test_case(case).status);
            }
            suite
        })
        .collect();
    let fuzz = super::campaign::junit_suite(report, &properties);

    let mut passing = Passing::new(Pass::Xml, out);
    let mut xml = Writer::new_with_indent(&mut passing, b' ', 4);
    xml.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let all = heads.iter().chain(fuzz.as_ref());
    let total = |count: fn(&TestSuite) -> usize| all.clone().map(count).sum::<usize>().to_string();
    let mut tag = BytesStart::new("testsuites");
    // quick-junit's XmlString drops ANSI escapes and what XML forbids;
    // every other name below is one already.
    let name = XmlString::new(format!("rbv: {}", report.implementation_label()));
    tag.push_attribute(("name", name.as_str()));
    tag.extend_attributes([
        ("tests", total(|s| s.tests).as_str()),
        ("skipped", total(|s| s.skipped).as_str()),
        ("failures", total(|s| s.failures).as_str()),
        ("errors", total(|s| s.errors).as_str()),
    ]);
    if let Some(t) = started {
        tag.push_attribute(("timestamp", timestamp(&t).as_str()));
    }
    tag.push_attribute(("time", seconds(duration(report.duration_ms)).as_str()));
    xml.write_event(Event::Start(tag))?;
    for ((_, cases), head) in areas.iter().zip(&heads) {
        write_suite(&mut xml, head, cases.iter().map(|c| test_case(c)))?;
    }
    if let Some(suite) = &fuzz {
        write_suite(&mut xml, suite, suite.test_cases.iter().cloned())?;
    }
    xml.write_event(Event::End(BytesEnd::new("testsuites")))?;
    xml.write_indent()?;
    passing.finish().map(drop)
}

/// The same document as quick-junit's model, held whole: for a caller
/// that wants the structure rather than the text. Serialized by
/// quick-junit and passed through `text::xml`, it is [`render`]'s text
/// byte for byte.
pub fn model(report: &Report) -> quick_junit::Report {
    let mut junit = quick_junit::Report::new(format!("rbv: {}", report.implementation_label()));
    let started = chrono::DateTime::parse_from_rfc3339(&report.started).ok();
    if let Some(t) = started {
        junit.set_timestamp(t);
    }
    junit.set_time(duration(report.duration_ms));
    let mut properties = run_properties(report);
    properties.extend(super::campaign::junit_properties(report));
    for (area, cases) in report.areas() {
        let mut suite = suite_head(area, &cases, &properties, started);
        suite.add_test_cases(cases.iter().map(|c| test_case(c)));
        junit.add_test_suite(suite);
    }
    if let Some(suite) = super::campaign::junit_suite(report, &properties) {
        junit.add_test_suite(suite);
    }
    junit
}

/// An area's suite without its testcases: name, the run's properties,
/// start and total time.
fn suite_head(
    area: &str,
    cases: &[&CaseResult],
    properties: &[Property],
    started: Option<chrono::DateTime<chrono::FixedOffset>>,
) -> TestSuite {
    let mut suite = TestSuite::new(area);
    suite.add_properties(properties.iter().cloned());
    if let Some(t) = started {
        suite.set_timestamp(t);
    }
    suite.set_time(duration(cases.iter().map(|c| c.duration_ms).sum()));
    suite
}

/// Counts a testcase of `status` into `suite`, as quick-junit's
/// `add_test_case` does.
fn tally(suite: &mut TestSuite, status: &TestCaseStatus) {
    suite.tests += 1;
    match status {
        TestCaseStatus::Success { .. } => {}
        TestCaseStatus::NonSuccess { kind, .. } => match kind {
            NonSuccessKind::Failure => suite.failures += 1,
            NonSuccessKind::Error => suite.errors += 1,
        },
        TestCaseStatus::Skipped { .. } => suite.skipped += 1,
    }
}

/// `head`'s attributes and properties, then `cases` (its own are not
/// read: an area's suite is written without them).
fn write_suite<W: io::Write>(
    xml: &mut Writer<W>,
    head: &TestSuite,
    cases: impl Iterator<Item = TestCase>,
) -> io::Result<()> {
    let mut tag = BytesStart::new("testsuite");
    tag.extend_attributes([
        ("name", head.name.as_str()),
        ("tests", head.tests.to_string().as_str()),
        ("skipped", head.skipped.to_string().as_str()),
        ("errors", head.errors.to_string().as_str()),
        ("failures", head.failures.to_string().as_str()),
    ]);
    if let Some(t) = &head.timestamp {
        tag.push_attribute(("timestamp", timestamp(t).as_str()));
    }
    if let Some(t) = head.time {
        tag.push_attribute(("time", seconds(t).as_str()));
    }
    let mut cases = cases.peekable();
    if head.properties.is_empty() && cases.peek().is_none() {
        return xml.write_event(Event::Empty(tag));
    }
    xml.write_event(Event::Start(tag))?;
    write_properties(xml, &head.properties)?;
    for case in cases {
        write_case(xml, &case)?;
    }
    xml.write_event(Event::End(BytesEnd::new("testsuite")))
}

fn write_properties<W: io::Write>(xml: &mut Writer<W>, properties: &[Property]) -> io::Result<()> {
    if properties.is_empty() {
        return Ok(());
    }
    xml.write_event(Event::Start(BytesStart::new("properties")))?;
    for p in properties {
        let mut tag = BytesStart::new("property");
        tag.extend_attributes([("name", p.name.as_str()), ("value", p.value.as_str())]);
        xml.write_event(Event::Empty(tag))?;
    }
    xml.write_event(Event::End(BytesEnd::new("properties")))
}

fn write_case<W: io::Write>(xml: &mut Writer<W>, case: &TestCase) -> io::Result<()> {
    let mut tag = BytesStart::new("testcase");
    tag.push_attribute(("name", case.name.as_str()));
    if let Some(classname) = &case.classname {
        tag.push_attribute(("classname", classname.as_str()));
    }
    if let Some(t) = case.time {
        tag.push_attribute(("time", seconds(t).as_str()));
    }
    let status = match &case.status {
        TestCaseStatus::Success { .. } => None,
        TestCaseStatus::NonSuccess {
            kind,
            message,
            ty,
            description,
            ..
        } => {
            let name = match kind {
                NonSuccessKind::Failure => "failure",
                NonSuccessKind::Error => "error",
            };
            Some((name, message, ty, description))
        }
        TestCaseStatus::Skipped {
            message,
            ty,
            description,
        } => Some(("skipped", message, ty, description)),
    };
    if case.properties.is_empty() && case.system_err.is_none() && status.is_none() {
        return xml.write_event(Event::Empty(tag));
    }
    xml.write_event(Event::Start(tag))?;
    write_properties(xml, &case.properties)?;
    if let Some((name, message, ty, description)) = status {
        let mut tag = BytesStart::new(name);
        if let Some(m) = message {
            tag.push_attribute(("message", m.as_str()));
        }
        if let Some(t) = ty {
            tag.push_attribute(("type", t.as_str()));
        }
        match description {
            Some(d) => {
                xml.write_event(Event::Start(tag))?;
                xml.write_event(Event::Text(BytesText::new(d.as_str())))?;
                xml.write_event(Event::End(BytesEnd::new(name)))?;
            }
            None => xml.write_event(Event::Empty(tag))?,
        }
    }
    if let Some(err) = &case.system_err {
        xml.write_event(Event::Start(BytesStart::new("system-err")))?;
        xml.write_event(Event::Text(BytesText::new(err.as_str())))?;
        xml.write_event(Event::End(BytesEnd::new("system-err")))?;
    }
    xml.write_event(Event::End(BytesEnd::new("testcase")))
}

/// quick-junit's forms: RFC 3339 to the millisecond, seconds to three
/// places.
fn timestamp(t: &chrono::DateTime<chrono::FixedOffset>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string()
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
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
