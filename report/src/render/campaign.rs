//! The fuzz campaign (`rbv run --fuzz`) in every format: one section in
//! summary.md and report.html, a `fuzz` testsuite and properties in
//! junit.xml, a clause on the badge. Kept apart from the renderers of the
//! cases so that each says the campaign the same way.

use super::markdown::{cell, fenced};
use super::{escape, junit};
use crate::model::{short_duration, Campaign, CampaignTarget, FuzzFinding, Report};
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write;

/// How many findings summary.md shows with their case; report.html shows
/// all of them.
pub const MAX_MARKDOWN_FINDINGS: usize = 10;

/// The badge's clause: `fuzzed 3 min, 0 findings`, `fuzzed 3 min, 2 bugs (9 findings)`.
pub fn badge(c: &Campaign) -> String {
    format!("fuzzed {}, {}", short_duration(c.budget_ms), c.found())
}

/// The section of summary.md.
pub fn markdown(report: &Report, out: &mut String) {
    let Some(c) = &report.campaign else { return };
    out.push_str("### Fuzz campaign\n\n");
    let _ = writeln!(out, "{}\n", cell(&c.clause()));
    out.push_str("| target | needs | execs | time | findings | bugs | restarts |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|\n");
    for t in &c.targets {
        let cells = target_row(t).map(|c| cell(&c));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
    for f in c.findings.iter().take(MAX_MARKDOWN_FINDINGS) {
        let _ = writeln!(
            out,
            "<details><summary><code>{}</code> — {}</summary>\n",
            crate::text::unlinked(&escape(&f.result.id)),
            crate::text::unlinked(&escape(&f.result.headline()))
        );
        let _ = writeln!(out, "{}\n", cell(&requirement(f)));
        for word in &f.oracle_words {
            let _ = writeln!(out, "- {}", cell(word));
        }
        out.push_str("The case that reproduces it (`rbv promote` writes it):\n\n");
        fenced(out, "yaml", &f.reproduction);
        out.push_str("</details>\n\n");
    }
    if c.findings.len() > MAX_MARKDOWN_FINDINGS {
        let _ = writeln!(
            out,
            "… and {} more bugs: see `report.html`.\n",
            c.findings.len() - MAX_MARKDOWN_FINDINGS
        );
    }
}

/// The section of report.html.
pub fn html(report: &Report, out: &mut String) {
    let Some(c) = &report.campaign else { return };
    let _ = writeln!(
        out,
        "<section id=\"campaign\">\n<h2>Fuzz campaign</h2>\n<p>{}</p>\n<table>\n\
         <thead><tr><th>target</th><th>needs</th><th>execs</th><th>time</th>\
         <th>findings</th><th>bugs</th><th>restarts</th></tr></thead>\n<tbody>",
        escape(&c.clause())
    );
    for t in &c.targets {
        let [name, rest @ ..] = target_row(t).map(|c| escape(&c));
        let _ = writeln!(
            out,
            "<tr><td><code>{name}</code></td><td>{}</td></tr>",
            rest.join("</td><td>")
        );
    }
    out.push_str("</tbody></table>\n");
    for f in &c.findings {
        let _ = writeln!(
            out,
            "<details class=\"failure k-fail\" data-area=\"fuzz\" data-verdict=\"fuzz\" \
             data-status=\"fail\" open><summary><code>{}</code> {} {}</summary>\n<p>{}</p>",
            escape(&f.result.id),
            super::html::chip("fuzz"),
            escape(&f.result.headline()),
            escape(&requirement(f))
        );
        for word in &f.oracle_words {
            let _ = writeln!(out, "<p>{}</p>", escape(word));
        }
        let _ = writeln!(
            out,
            "<h4>Reproduction (<code>rbv promote</code>)</h4>\n<pre>{}</pre>\n</details>",
            escape(f.reproduction.trim_end())
        );
    }
    out.push_str("</section>\n");
}

/// The properties every junit.xml suite carries about the campaign.
pub fn junit_properties(report: &Report) -> Vec<Property> {
    let Some(c) = &report.campaign else {
        return Vec::new();
    };
    let mut out = vec![
        Property::new("rbv.campaign", c.clause()),
        Property::new("rbv.campaign.seed", c.seed.to_string()),
        Property::new("rbv.campaign.execs", c.execs().to_string()),
        Property::new(
            "rbv.campaign.findings",
            c.findings
                .iter()
                .map(|f| f.cases)
                .sum::<usize>()
                .to_string(),
        ),
        Property::new("rbv.campaign.bugs", c.findings.len().to_string()),
        Property::new("rbv.campaign.oracles", c.oracles.join(", ")),
    ];
    if !c.not_fuzzed.is_empty() {
        out.push(Property::new(
            "rbv.campaign.not-fuzzed",
            c.not_fuzzed.join(", "),
        ));
    }
    out
}

/// The `fuzz` testsuite of junit.xml: one testcase per target, which
/// passes, and one failing testcase per finding, with its case.
pub fn junit_suite(report: &Report, properties: &[Property]) -> Option<TestSuite> {
    let c = report.campaign.as_ref()?;
    let mut suite = TestSuite::new("fuzz");
    suite.add_properties(properties.iter().cloned());
    for t in &c.targets {
        let mut tc = TestCase::new(format!("fuzz/{}", t.name), TestCaseStatus::success());
        tc.set_classname("fuzz");
        tc.set_time(std::time::Duration::from_secs_f64(
            (t.elapsed_ms / 1000.0).max(0.0),
        ));
        tc.add_property(Property::new("execs", t.execs.to_string()));
        suite.add_test_case(tc);
    }
    for f in &c.findings {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_type("fuzz");
        status.set_message(f.result.headline());
        status.set_description(format!(
            "{}--- reproduction ---\n{}",
            junit::details(&f.result),
            f.reproduction.trim_end()
        ));
        let mut tc = TestCase::new(f.result.id.as_str(), status);
        tc.set_classname("fuzz");
        for r in &f.result.requirements {
            let level = r.level.map(|l| l.as_str()).unwrap_or("unknown");
            tc.add_property(Property::new("requirement", format!("{} ({level})", r.id)));
        }
        suite.add_test_case(tc);
    }
    Some(suite)
}

/// A target's row of the table in summary.md and report.html, unescaped:
/// target, needs, execs, time, findings, restarts (and why it ran short).
fn target_row(t: &CampaignTarget) -> [String; 7] {
    [
        t.name.clone(),
        needs(&t.needs),
        t.execs.to_string(),
        format!("{:.1} s", t.elapsed_ms / 1000.0),
        t.findings.to_string(),
        t.bugs.to_string(),
        format!("{}{}", t.restarts, t.short_of_budget()),
    ]
}

fn needs(needs: &[String]) -> String {
    if needs.is_empty() {
        "base".to_owned()
    } else {
        needs.join(", ")
    }
}

/// `RBV-SH-002 (MUST) · shell · unsafe side, found after 12 execs (x3)`.
fn requirement(f: &FuzzFinding) -> String {
    let r = &f.result;
    let reqs: Vec<String> = r
        .requirements
        .iter()
        .map(|q| format!("{} ({})", q.id, q.level.map(|l| l.as_str()).unwrap_or("?")))
        .collect();
    let side = if r.guards.unsafe_side {
        "unsafe side"
    } else if r.guards.precision {
        "precision"
    } else {
        "protocol"
    };
    format!(
        "{} · {} · {side}, found after {} execs (x{} in {} shrunk case{})",
        reqs.join(", "),
        needs(&r.needs),
        f.after_execs,
        f.count,
        f.cases,
        crate::model::plural(f.cases)
    )
}
