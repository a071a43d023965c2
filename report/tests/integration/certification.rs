//! The certificate in every format: the level of each capability, the
//! overall statement, the run's conditions, and a partial run that says so
//! everywhere and earns no level.

use crate::common;

use rbv_report::model::*;
use rbv_report::render::{self, badge, html, junit, markdown};

fn conditions(filters: &[&str], suite_cases: usize, mode: RunMode) -> Conditions {
    Conditions {
        rbv_version: "9.9.9".into(),
        command: "node adapter.js".into(),
        mode,
        filters: filters.iter().map(|f| (*f).to_owned()).collect(),
        validate_protocol: true,
        timeout_ms: 750,
        jobs: 3,
        profile_source: "handshake".into(),
        platform: "linux-x86_64".into(),
        suite_cases,
        known_capabilities: ["fetch", "manifest", "shell", "sql", "tokens"]
            .map(str::to_owned)
            .to_vec(),
    }
}

/// The sample, each case needing the capability its area names, and
/// every case of a claimed capability passing but one SHOULD-less over.
fn partial_adapter() -> Vec<CaseResult> {
    let mut cases = common::cases();
    for c in &mut cases {
        c.needs = vec![c.area.clone()];
        if !c.verdict.is_skip() {
            c.verdict = Verdict::Pass;
        }
    }
    cases
}

#[test]
fn an_adapter_passing_what_it_claims_is_certified_for_it() {
    let r = common::report_from(partial_adapter(), 0).with_conditions(conditions(
        &[],
        9,
        RunMode::Process,
    ));
    let cert = &r.summary.certification;
    assert_eq!(r.summary.level, Level::Precise, "{}", cert.statement);
    assert_eq!(
        cert.statement,
        "Precise: fetch, sql, tokens · untested: manifest · not claimed: shell"
    );
    let shell = cert
        .capabilities
        .iter()
        .find(|c| c.capability == "shell")
        .unwrap();
    assert_eq!(shell.status, CapabilityStatus::NotClaimed);
    assert_eq!(shell.counts.skip, 1);

    let md = markdown::render(&r);
    assert!(md.contains("## rbv: acme-gate 1.2.3 — **Precise: fetch, sql, tokens**"));
    assert!(md.contains("| shell | not claimed | 0 pass, 0 fail, 0 error, 1 skip |"));
    assert!(md.contains("| mode | process |"));
    assert!(md.contains("| timeout | 750 ms |"));
    let page = html::render(&r);
    assert!(page.contains("data-capability=\"shell\"><td><code>shell</code></td><td><span class=\"level level-not-claimed\">not claimed</span>"));
    assert!(page.contains("<dt>validate-protocol</dt><dd>yes</dd>"));
    let xml = junit::render(&r).unwrap();
    assert!(xml.contains(
        "name=\"rbv.capability.sql\" value=\"Precise (3 pass, 0 fail, 0 error, 1 skip)\""
    ));
    assert!(xml.contains("name=\"rbv.condition.command\" value=\"node adapter.js\""));
    assert!(badge::message(&r).starts_with("Precise "));
    assert!(badge::render(&r)
        .contains("<title>rbv: Precise 100% · Precise: fetch, sql, tokens</title>"));
}

#[test]
fn the_blockers_of_each_level_above_are_listed() {
    let mut cases = partial_adapter();
    for c in &mut cases {
        if c.id == "fetch/loopback/ipv6" {
            c.verdict = Verdict::Fail {
                kind: FailKind::Over,
            };
        }
    }
    let r = common::report_from(cases, 0).with_conditions(conditions(&[], 9, RunMode::Process));
    // An INTERPRETATION case failing `over` costs precision only.
    assert_eq!(r.summary.level, Level::Core);
    assert_eq!(r.summary.next_level_blockers, ["fetch/loopback/ipv6"]);
    assert_eq!(
        r.summary.certification.statement,
        "Precise: sql, tokens · Core: fetch (blocked by 1 case) · untested: manifest · not claimed: shell"
    );
    // Every format reads what is certified first, not the lowest level.
    let md = markdown::render(&r);
    assert!(
        md.contains(
            "## rbv: acme-gate 1.2.3 — **Precise: sql, tokens · Core: fetch (blocked by 1 case)**"
        ),
        "{md}"
    );
    let page = html::render(&r);
    assert!(page.contains(
        "id=\"statement\">Precise: sql, tokens · Core: fetch (blocked by 1 case) · untested"
    ));
    let xml = junit::render(&r).unwrap();
    assert!(xml.contains(
        "name=\"rbv.certification\" value=\"Precise: sql, tokens · Core: fetch (blocked by 1 case) · "
    ));
    assert!(
        md.contains(
            "| fetch | Core | 1 pass, 1 fail, 0 error, 0 skip | Precise: fetch/loopback/ipv6 |"
        ),
        "{md}"
    );
    // A MUST case failing: every level above None lists it.
    let mut cases = partial_adapter();
    for c in &mut cases {
        if c.id == "sql/insert/plain" {
            c.verdict = Verdict::Fail {
                kind: FailKind::Under,
            };
        }
    }
    let r = common::report_from(cases, 0).with_conditions(conditions(&[], 9, RunMode::Process));
    assert_eq!(r.summary.level, Level::None);
    let md = markdown::render(&r);
    assert!(
        md.contains("| sql | None | 2 pass, 1 fail, 0 error, 1 skip | Safe: sql/insert/plain; Core: sql/insert/plain; Precise: sql/insert/plain |"),
        "{md}"
    );
}

#[test]
fn a_partial_run_says_so_in_every_format_and_earns_no_level() {
    for cond in [
        conditions(&["sql/"], 9, RunMode::Process),
        conditions(&[], 900, RunMode::Process),
    ] {
        let r = common::report_from(partial_adapter(), 0).with_conditions(cond);
        let label = format!(
            "partial run: 9 of {} cases",
            r.conditions.as_ref().unwrap().suite_cases.max(9)
        );
        assert_eq!(r.summary.level, Level::None);
        assert!(r
            .summary
            .certification
            .capabilities
            .iter()
            .all(|c| c.level.is_none()));
        let dir = tempfile::tempdir().unwrap();
        render::write_all(&r, dir.path()).unwrap();
        for name in [
            render::SUMMARY_MD,
            render::REPORT_HTML,
            render::BADGE_SVG,
            render::JUNIT_XML,
            render::REPORT_JSON,
        ] {
            let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
            assert!(text.contains(&label), "{name} lacks `{label}`");
        }
        assert!(!html::render(&r).contains("level-precise\">Precise</span></h1>"));
        assert!(junit::render(&r)
            .unwrap()
            .contains(&format!("name=\"rbv.partial\" value=\"{label}\"")));
        assert_eq!(badge::message(&r), label);
    }
}

#[test]
fn a_spawn_per_case_run_says_so() {
    let r = common::report_from(partial_adapter(), 0).with_conditions(conditions(
        &[],
        9,
        RunMode::SpawnPerCase,
    ));
    assert_eq!(r.summary.level, Level::Precise);
    assert!(badge::message(&r).ends_with(" · spawn-per-case"));
    assert!(markdown::render(&r).contains("Run with `--spawn-per-case`"));
    assert!(html::render(&r).contains("id=\"spawn-per-case\""));
    assert!(junit::render(&r)
        .unwrap()
        .contains("name=\"rbv.condition.mode\" value=\"spawn-per-case\""));
}

#[test]
fn a_report_without_conditions_still_reads_and_certifies() {
    // Reports of earlier versions have neither conditions nor certification.
    let r = common::report_from(partial_adapter(), 0);
    let mut json: serde_json::Value = serde_json::to_value(&r).unwrap();
    json["summary"]
        .as_object_mut()
        .unwrap()
        .remove("certification");
    let mut back: Report = serde_json::from_value(json).unwrap();
    back.refresh();
    assert_eq!(back, r);
    assert!(back.summary.certification.partial.is_none());
}

#[test]
fn a_failure_in_the_summary_shows_the_request_it_sent() {
    let md = markdown::render(&common::sample());
    assert!(
        md.contains("request:\n\n```json\n{\"type\": \"evaluate\", \"sql\": \"WITH d AS (DELETE FROM t) SELECT 1\"}\n```"),
        "{md}"
    );
}

#[test]
fn a_report_with_conditions_and_certificate_validates_against_its_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&rbv_report::render::json::schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for cond in [
        conditions(&["sql/"], 9, RunMode::SpawnPerCase),
        conditions(&[], 9, RunMode::Process),
    ] {
        let r = common::report_from(partial_adapter(), 0).with_conditions(cond);
        let instance = serde_json::to_value(&r).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert!(instance["summary"]["certification"]["capabilities"].is_array());
    }
}
