//! Every renderer on a synthetic report: valid JSON against its own
//! schema, JUnit that parses with the right counts, HTML that loads
//! nothing, Markdown and badge content, and determinism.

use crate::common;

use quick_xml::events::Event;
use rbv_report::model::*;
use rbv_report::render::{self, html, json, junit, markdown};
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn summary_of_the_sample_is_what_its_cases_say() {
    let r = common::sample();
    let s = &r.summary;
    assert_eq!(s.counts.total, 9);
    assert_eq!(
        (s.counts.pass, s.counts.fail, s.counts.error, s.counts.skip),
        (4, 2, 1, 2)
    );
    // Unsafe side: insert, replay, loopback v4 and v6 (over is not under),
    // cte (under), crash (error); the profile skip did not run.
    assert_eq!(s.safety, Score::new(4, 6));
    // Precision: select, loopback v4, loopback v6 (over); the capability skip did not run.
    assert_eq!(s.precision, Score::new(2, 3));
    assert_eq!(s.level, Level::None);
    assert!(s
        .next_level_blockers
        .contains(&"sql/cte/data-modifying-delete".to_owned()));
    assert!(s.run_failed);
    assert_eq!(
        r.requirements["RBV-SQL-001"].status,
        RequirementStatus::Fail
    );
    assert_eq!(
        r.requirements["RBV-SQL-002"].status,
        RequirementStatus::Partial
    );
    let ids: Vec<&str> = r.cases.iter().map(|c| c.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "cases are sorted by id");
}

#[test]
fn report_json_validates_against_report_schema_json_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let report = common::sample();
    render::write_all(&report, dir.path()).unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&read(render::SCHEMA_JSON)).unwrap();
    let instance: serde_json::Value = serde_json::from_str(&read(render::REPORT_JSON)).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "report.json violates its schema: {errors:#?}"
    );

    // The schema is not vacuous: a wrong verdict and a missing field fail.
    let mut bad = instance.clone();
    bad["cases"][0]["verdict"] = serde_json::json!({"status": "passed"});
    assert!(!validator.is_valid(&bad));
    let mut bad = instance.clone();
    bad.as_object_mut().unwrap().remove("summary");
    assert!(!validator.is_valid(&bad));

    assert_eq!(
        Report::from_json(&read(render::REPORT_JSON)).unwrap(),
        report
    );
}

/// Counts of the JUnit document, read with a real XML parser.
#[derive(Debug, Default, PartialEq)]
struct JunitCounts {
    suites: usize,
    cases: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    suite_names: Vec<String>,
    failure_text: String,
}

fn parse_junit(xml: &str) -> JunitCounts {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut counts = JunitCounts::default();
    let mut in_failure = false;
    loop {
        match reader.read_event().expect("junit.xml is well-formed XML") {
            Event::Start(e) | Event::Empty(e) => {
                let name = e.name();
                match name.as_ref() {
                    b"testsuite" => {
                        counts.suites += 1;
                        let n = e.try_get_attribute("name").unwrap().unwrap();
                        counts
                            .suite_names
                            .push(String::from_utf8(n.value.to_vec()).unwrap());
                    }
                    b"testcase" => counts.cases += 1,
                    b"failure" => {
                        counts.failures += 1;
                        in_failure = true;
                    }
                    b"error" => counts.errors += 1,
                    b"skipped" => counts.skipped += 1,
                    _ => {}
                }
            }
            Event::Text(t) if in_failure => {
                counts.failure_text.push_str(&t.decode().unwrap());
            }
            Event::GeneralRef(r) if in_failure => {
                // Entities inside the text: keep them resolved for the check.
                let name = String::from_utf8(r.to_vec()).unwrap();
                counts.failure_text.push_str(match name.as_str() {
                    "quot" => "\"",
                    "lt" => "<",
                    "gt" => ">",
                    "amp" => "&",
                    "apos" => "'",
                    _ => "?",
                });
            }
            Event::End(e) if e.name().as_ref() == b"failure" => in_failure = false,
            Event::Eof => break,
            _ => {}
        }
    }
    counts
}

#[test]
fn junit_parses_with_one_suite_per_area_and_the_right_counts() {
    let report = common::sample();
    let xml = junit::render(&report).unwrap();
    let c = parse_junit(&xml);
    assert_eq!(c.suites, report.areas().len());
    assert_eq!(c.suite_names, vec!["fetch", "shell", "sql", "tokens"]);
    assert_eq!(c.cases, 9);
    assert_eq!((c.failures, c.errors, c.skipped), (2, 1, 2));
    assert!(
        c.failure_text.contains(common::DIFF_MARKER),
        "the failure carries the diff"
    );
    assert!(
        xml.contains("thread &apos;main&apos; panicked") || xml.contains("thread 'main' panicked")
    );
    assert!(!xml.contains('\u{1b}'), "control characters are not XML");
}

#[test]
fn junit_passes_xmllint_when_it_is_installed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junit.xml");
    std::fs::write(&path, junit::render(&common::sample()).unwrap()).unwrap();
    match std::process::Command::new("xmllint")
        .arg("--noout")
        .arg(&path)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "xmllint rejects junit.xml: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => eprintln!(
            "SKIP junit_passes_xmllint_when_it_is_installed: xmllint not found \
             (apt-get install libxml2-utils; CI installs it)"
        ),
    }
}

#[test]
fn html_is_self_contained_and_shows_scores_failures_and_filters() {
    let report = common::sample();
    let page = html::render(&report);
    for forbidden in ["http://", "https://", "src=", "<script>alert", "<img"] {
        assert!(
            !page.contains(forbidden),
            "report.html contains {forbidden:?}"
        );
    }
    assert_eq!(
        page.matches("<script>").count(),
        1,
        "one inline script, ours"
    );
    assert!(
        page.contains("default-src 'none'"),
        "a CSP forbids every load"
    );
    assert!(page.contains("id=\"score-safety\">66.7%<"));
    assert!(page.contains("id=\"score-precision\">66.7%<"));
    assert!(page.contains("level-none\">None<"));
    assert!(page.contains("acme-gate 1.2.3"));
    // The failure's diff line, escaped.
    assert!(page.contains("<span class=\"del\">-  &quot;band&quot;: &quot;escalate&quot;</span>"));
    assert!(page.contains("id=\"filter-verdict\"") && page.contains("id=\"filter-area\""));
    for area in ["fetch", "shell", "sql", "tokens"] {
        assert!(page.contains(&format!("<option value=\"{area}\">{area}</option>")));
    }
    // Requirement matrix: every requirement with its level.
    for (id, r) in &report.requirements {
        assert!(
            page.contains(&format!("data-requirement=\"{id}\"")),
            "{id} in the matrix"
        );
        assert!(page.contains(r.info.level.as_str()));
    }
    assert!(page.contains("rests on an interpretation"));
    // Every case is a filterable row.
    assert_eq!(
        page.matches("<tr class=\"case\"").count(),
        report.cases.len()
    );
}

#[test]
fn markdown_has_level_scores_areas_and_folded_failures() {
    let md = markdown::render(&common::sample());
    assert!(md.contains("— **None: base (blocked by 2 cases)**"), "{md}");
    assert!(md.contains("| Safety | 66.7% (4/6) |"));
    assert!(md.contains("| sql | 4 | 2 | 1 | 0 | 1 | 0 |"));
    assert_eq!(md.matches("<details>").count(), 3);
    assert!(md.contains(common::DIFF_MARKER));
    assert!(md.contains("```diff"));
    assert!(!md.contains("<script>"), "markup in messages is escaped");
}

#[test]
fn markdown_shows_at_most_twenty_failures() {
    let cases: Vec<CaseResult> = (0..25)
        .map(|i| {
            let mut c = CaseResult::new(
                format!("sql/many/{i:02}"),
                Verdict::Fail {
                    kind: FailKind::Mismatch,
                },
            );
            c.diff = Some("-a\n+b\n".to_owned());
            c
        })
        .collect();
    let md = markdown::render(&common::report_from(cases, 0));
    assert_eq!(md.matches("<details>").count(), markdown::MAX_FAILURES);
    assert!(md.contains("### Failures (20 of 25)"));
    assert!(md.contains("… and 5 more"));
}

#[test]
fn badge_names_level_and_pass_rate_in_the_level_color() {
    let r = common::sample();
    let svg = render::badge::render(&r);
    assert!(svg.contains(">None 57%<"), "4 of 7 ran cases passed: {svg}");
    assert!(svg.contains("#e05d44"));
    let mut reader = quick_xml::Reader::from_str(&svg);
    while reader.read_event().expect("badge.svg is well-formed XML") != Event::Eof {}
    let all_pass = common::variant("ok", &[]);
    let svg = render::badge::render(&all_pass);
    assert!(
        svg.contains(">Precise 100%<") && svg.contains("#4c1"),
        "{svg}"
    );
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn same_inputs_render_byte_identical_but_for_timings() {
    // The same cases in another order, with other durations and another start.
    let a = common::sample();
    let mut shuffled = common::cases();
    shuffled.reverse();
    for (i, c) in shuffled.iter_mut().enumerate() {
        c.duration_ms = 100.0 + i as f64;
    }
    let b = common::report_from(shuffled, 1_800_000_000);
    assert_ne!(
        json::render(&a).unwrap(),
        json::render(&b).unwrap(),
        "timings differ"
    );

    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    render::write_all(&a.without_timings(), da.path()).unwrap();
    render::write_all(&b.without_timings(), db.path()).unwrap();
    let (fa, fb) = (files(da.path()), files(db.path()));
    assert_eq!(fa.len(), 6);
    for (name, bytes) in &fa {
        assert!(
            fb[name] == *bytes,
            "{name} differs between two renders of the same inputs"
        );
    }

    // And the JSON of the timed reports differs only on timing lines.
    let (ja, jb) = (json::render(&a).unwrap(), json::render(&b).unwrap());
    for (la, lb) in ja.lines().zip(jb.lines()) {
        if la != lb {
            assert!(
                la.contains("duration_ms") || la.contains("\"started\""),
                "non-timing line differs: {la} vs {lb}"
            );
        }
    }
}

#[test]
fn failures_show_the_implementations_reasons_and_answer_bounded() {
    let mut cases = common::cases();
    let failing = cases
        .iter_mut()
        .find(|c| c.id == "sql/cte/data-modifying-delete")
        .expect("a failing case of the sample");
    failing.reasons = vec!["a CTE <b>read</b>".into(), "no write @found".into()];
    failing.answer = Some(format!(
        "{{\"type\": \"evaluation\", \"band\": \"auto\", \"pad\": \"{}\"}}",
        "y".repeat(3000)
    ));
    let r = common::report_from(cases, 0);
    let md = markdown::render(&r);
    assert!(
        md.contains("its reasons:\n\n```\na CTE <b>read</b>\nno write @found\n```"),
        "{md}"
    );
    assert!(md.contains("its whole answer:\n\n```json\n{\"type\": \"evaluation\""));
    // The summary shows the first KiB; report.json keeps the rest.
    assert!(
        md.contains("bytes cut of 3049] (report.json has more)"),
        "{md}"
    );
    assert!(!md.contains(&"y".repeat(markdown::MAX_ANSWER_SHOWN + 1)));
    let page = html::render(&r);
    assert!(page.contains(
        "<h4>Its reasons</h4>\n<pre>a CTE &lt;b&gt;read&lt;/b&gt;\nno write @found</pre>"
    ));
    assert!(page.contains("<h4>Its whole answer</h4>"));
    let back: Report = serde_json::from_str(&json::render(&r).unwrap()).unwrap();
    assert_eq!(back.cases, r.cases);
}

/// The streamed junit.xml is quick-junit's own serialization of the whole
/// model, byte for byte, for every kind of testcase: passes, failures,
/// errors, skips, a known failure and a stale baseline entry, and text a
/// hostile implementation chose.
#[test]
fn streamed_junit_is_quick_junits_serialization_of_the_whole_model() {
    let whole = |r: &Report| {
        let mut bytes = Vec::new();
        junit::model(r).serialize(&mut bytes).unwrap();
        rbv_report::text::Pass::Xml.apply(String::from_utf8(bytes).unwrap())
    };
    let mut hostile = common::sample();
    hostile.implementation.name = "gate\u{fffe}\u{1b}[2J <&\"'>".to_owned();
    hostile.cases[0].title = Some("a \u{202e} title".to_owned());
    let mut baselined = common::sample();
    let baseline = rbv_report::Baseline::parse(
        std::path::Path::new("baseline.yaml"),
        "- case: sql/cte/data-modifying-delete\n  reason: no CTEs yet\n\
         - case: sql/select/plain\n  reason: once flaky\n",
    )
    .unwrap();
    rbv_report::apply_baseline(&mut baselined, &baseline);
    assert!(baselined.cases.iter().any(|c| c.is_stale()));
    assert!(baselined.cases.iter().any(|c| c.is_known_failure()));
    for report in [common::sample(), hostile, baselined] {
        let streamed = junit::render(&report).unwrap();
        assert_eq!(streamed, whole(&report));
        assert!(streamed.contains("<failure") && streamed.contains("<error"));
    }
}
