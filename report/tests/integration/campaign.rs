//! The fuzz campaign in every format: report.json against its
//! schema, summary.md, report.html, junit.xml and the badge state it; a
//! finding blocks its capability's level; `rbv diff` and `rbv compare`
//! compare it; the implementation's words in a finding stay inert.

use crate::common;

use rbv_report::compare::Matrix;
use rbv_report::diff::ReportDiff;
use rbv_report::model::*;
use rbv_report::render::{self, badge, html, junit, markdown};

/// What a hostile implementation could put in a finding's summary.
const HOSTILE: &str = "\u{1b}[31mred\u{1b}[0m \u{202e}gnp.exe <script>x</script>";

fn campaign(findings: usize) -> Campaign {
    let findings = (0..findings)
        .map(|i| {
            let mut result = CaseResult::new(
                format!("fuzz/url_loopback/0000000{i}"),
                Verdict::Fail {
                    kind: FailKind::Under,
                },
            );
            result.requirements = vec![RequirementRef {
                id: "RBV-FET-001".into(),
                level: Some(RequirementLevel::Should),
            }];
            // The sample's cases need nothing: the finding counts for base.
            result.guards = Sides {
                unsafe_side: true,
                precision: false,
            };
            result.message = Some(format!("[url_loopback] unsafe finding: {HOSTILE}"));
            FuzzFinding {
                target: "url_loopback".into(),
                result,
                reproduction: format!("id: regressions/fetch/fuzz-url_loopback-0000000{i}\n"),
                artifact_hex: "00".into(),
                after_execs: 12,
                count: 1,
                cases: 1,
                oracle_words: Vec::new(),
            }
        })
        .collect();
    Campaign {
        seed: 7,
        budget_ms: 180_000,
        max_execs: None,
        oracles: vec!["postgres".into()],
        targets: vec![CampaignTarget {
            name: "url_loopback".into(),
            needs: vec!["fetch".into()],
            execs: 1_100_000,
            elapsed_ms: 180_000.0,
            findings: 0,
            bugs: 0,
            restarts: 0,
            cut_short: false,
            incomplete: None,
        }],
        not_fuzzed: vec!["audit".into()],
        findings,
    }
}

fn base_level(r: &Report) -> Option<Level> {
    r.summary
        .certification
        .capabilities
        .iter()
        .find(|c| c.capability == BASE)
        .and_then(|c| c.level)
}

/// The sample with every case passing.
fn clean() -> Report {
    common::variant("acme-gate", &[])
}

#[test]
fn a_finding_blocks_its_capability_like_a_must_case_and_fails_the_run() {
    let before = clean().with_campaign(campaign(0));
    assert_eq!(base_level(&before), Some(Level::Precise));
    assert!(!before.summary.run_failed);
    // A SHOULD requirement's unsafe side blocks nothing as a case; as a
    // finding it blocks Safe.
    let after = clean().with_campaign(campaign(1));
    assert_eq!(base_level(&after), Some(Level::None));
    assert!(after.summary.run_failed);
    assert_eq!(after.summary.counts, before.summary.counts);
    assert_eq!(after.summary.certification.partial, None);
    assert!(after
        .summary
        .next_level_blockers
        .contains(&"fuzz/url_loopback/00000000".to_owned()));
}

#[test]
fn every_format_states_the_campaign() {
    let r = clean().with_campaign(campaign(1));
    let clause = "fuzzed 3 min (1.1M execs, seed 7, PostgreSQL oracle), 1 bug (1 finding); \
                  not fuzzed: no target reaches audit";
    assert_eq!(r.summary.certification.campaign.as_deref(), Some(clause));

    let dir = tempfile::tempdir().unwrap();
    render::write_all(&r, dir.path()).unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&read(render::SCHEMA_JSON)).unwrap();
    let instance: serde_json::Value = serde_json::from_str(&read(render::REPORT_JSON)).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&instance));
    assert_eq!(instance["format_version"], 4);
    assert_eq!(Report::from_json(&read(render::REPORT_JSON)).unwrap(), r);

    let md = markdown::render(&r);
    assert!(md.contains("### Fuzz campaign"), "{md}");
    assert!(
        md.contains("regressions/fetch/fuzz-url\\_loopback")
            || md.contains("fuzz-url_loopback-00000000"),
        "{md}"
    );
    let page = html::render(&r);
    assert!(page.contains("<section id=\"campaign\">"));
    let xml = junit::render(&r).unwrap();
    assert!(xml.contains("name=\"rbv.campaign\""), "{xml}");
    assert!(xml.contains("type=\"fuzz\""), "{xml}");
    assert!(badge::message(&r).ends_with(" · fuzzed 3 min, 1 bug (1 finding)"));
    // One entry per bug, whatever number of findings stand behind it.
    let mut many = r.clone();
    if let Some(c) = many.campaign.as_mut() {
        c.findings[0].cases = 24;
    }
    assert!(badge::message(&many).ends_with(" · fuzzed 3 min, 1 bug (24 findings)"));
    assert!(markdown::render(&many).contains("1 bug (24 findings)"));
    for (name, text) in [("md", &md), ("html", &page), ("junit", &xml)] {
        assert!(text.contains("seed 7"), "{name}");
        // The implementation's words never reach a file raw.
        for raw in ["\u{1b}", "\u{202e}", "<script>x"] {
            assert!(!text.contains(raw), "{name}: {raw:?}");
        }
    }
}

#[test]
fn diff_and_compare_compare_the_campaign() {
    let old = clean().with_campaign(campaign(0));
    let new = clean().with_campaign(campaign(1));
    let d = ReportDiff::between(&old, &new);
    assert_eq!(d.new_findings.len(), 1);
    assert!(d.regressed());
    let md = d.to_markdown();
    assert!(md.contains("| fuzz campaign |"), "{md}");
    assert!(md.contains("Newly found by the fuzz campaign (1)"), "{md}");
    let back = ReportDiff::between(&new, &old);
    assert_eq!(back.gone_findings, ["fuzz/url_loopback/00000000"]);
    assert!(!back.regressed());

    let m = Matrix::build(&[old, clean()]);
    let row = m
        .run_rows()
        .into_iter()
        .find(|(name, _)| name == "fuzz campaign")
        .expect("a campaign row");
    assert!(row.1[0].starts_with("fuzzed 3 min"));
    assert_eq!(row.1[1], "none");
}

/// With a campaign, the streamed junit.xml still equals quick-junit's
/// serialization of the whole model (its `fuzz` suite included).
#[test]
fn streamed_junit_with_a_campaign_is_quick_junits_serialization() {
    let r = clean().with_campaign(campaign(2));
    let mut bytes = Vec::new();
    junit::model(&r).serialize(&mut bytes).unwrap();
    let whole = rbv_report::text::Pass::Xml.apply(String::from_utf8(bytes).unwrap());
    let streamed = junit::render(&r).unwrap();
    assert!(streamed.contains("<testsuite name=\"fuzz\""), "{streamed}");
    assert_eq!(streamed, whole);
}
