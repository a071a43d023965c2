//! What changed between two runs: newly failing and newly fixed cases,
//! cases missing from the new run, capabilities no longer claimed and
//! levels per capability, for a pull-request comment.

use crate::model::{CaseResult, Report};
use crate::render::markdown::{cell, code};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// One case whose outcome changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub id: String,
    /// The old verdict label; `None` for a case the old run did not have.
    pub old: Option<&'static str>,
    pub new: &'static str,
    /// The new run's one-line explanation.
    pub headline: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReportDiff {
    pub old_label: String,
    pub new_label: String,
    pub old_level: String,
    pub new_level: String,
    pub safety: (String, String),
    pub precision: (String, String),
    /// Failing or erroring now, and not before (also new cases that fail).
    pub newly_failing: Vec<Change>,
    /// Failing before, passing now.
    pub newly_fixed: Vec<Change>,
    /// Failing in both, but differently (`over` became `under`, …).
    pub changed_failure: Vec<Change>,
    /// Ran before, skipped now.
    pub newly_skipped: Vec<Change>,
    /// Cases only in the old run: missing from the new one.
    pub removed: Vec<String>,
    pub added: usize,
    /// Capabilities the old run claimed and the new one does not.
    pub lost_capabilities: Vec<String>,
    /// Capabilities whose level changed: name, before, after (`Core`,
    /// `not claimed`, `untested`, `partial run`).
    pub capability_levels: Vec<(String, String, String)>,
    /// `partial run: N of M cases` of each run that was partial.
    pub partial: (Option<String>, Option<String>),
    /// Each run's fuzz campaign as its certificate states it.
    pub campaign: (Option<String>, Option<String>),
    /// Findings of the new campaign that the old one did not have.
    pub new_findings: Vec<Change>,
    /// Findings of the old campaign that the new one no longer has.
    pub gone_findings: Vec<String>,
}

impl ReportDiff {
    pub fn between(old: &Report, new: &Report) -> ReportDiff {
        let mut d = ReportDiff {
            old_label: old.implementation_label(),
            new_label: new.implementation_label(),
            old_level: old.summary.level.name().to_owned(),
            new_level: new.summary.level.name().to_owned(),
            safety: (old.summary.safety.display(), new.summary.safety.display()),
            precision: (
                old.summary.precision.display(),
                new.summary.precision.display(),
            ),
            newly_failing: Vec::new(),
            newly_fixed: Vec::new(),
            changed_failure: Vec::new(),
            newly_skipped: Vec::new(),
            removed: Vec::new(),
            added: 0,
            lost_capabilities: old
                .implementation
                .capabilities
                .iter()
                .filter(|c| !new.implementation.capabilities.contains(c))
                .cloned()
                .collect(),
            capability_levels: capability_levels(old, new),
            partial: (
                old.summary.certification.partial.map(|p| p.label()),
                new.summary.certification.partial.map(|p| p.label()),
            ),
            campaign: (
                old.campaign.as_ref().map(|c| c.clause()),
                new.campaign.as_ref().map(|c| c.clause()),
            ),
            new_findings: Vec::new(),
            gone_findings: Vec::new(),
        };
        let findings = |r: &Report| -> BTreeMap<String, CaseResult> {
            r.campaign
                .iter()
                .flat_map(|c| c.results())
                .map(|f| (f.id.clone(), f.clone()))
                .collect()
        };
        let (old_found, new_found) = (findings(old), findings(new));
        for (id, f) in &new_found {
            if !old_found.contains_key(id) {
                d.new_findings.push(Change {
                    id: id.clone(),
                    old: None,
                    new: f.verdict.label(),
                    headline: f.headline(),
                });
            }
        }
        d.gone_findings = old_found
            .keys()
            .filter(|id| !new_found.contains_key(*id))
            .cloned()
            .collect();
        for n in &new.cases {
            let o = old.case(&n.id);
            let change = |o: Option<&CaseResult>| Change {
                id: n.id.clone(),
                old: o.map(|c| c.verdict.label()),
                new: n.verdict.label(),
                headline: n.headline(),
            };
            if o.is_none() {
                d.added += 1;
            }
            let was_failing = o.is_some_and(|c| c.verdict.is_failure());
            let was_run = o.is_some_and(|c| !c.verdict.is_skip());
            if n.verdict.is_failure() {
                if !was_failing {
                    d.newly_failing.push(change(o));
                } else if o.map(|c| c.verdict.label()) != Some(n.verdict.label()) {
                    d.changed_failure.push(change(o));
                }
            } else if n.verdict.is_pass() && was_failing {
                d.newly_fixed.push(change(o));
            } else if n.verdict.is_skip() && was_run {
                d.newly_skipped.push(change(o));
            }
        }
        let new_ids: BTreeSet<&str> = new.cases.iter().map(|c| c.id.as_str()).collect();
        d.removed = old
            .cases
            .iter()
            .filter(|c| !new_ids.contains(c.id.as_str()))
            .map(|c| c.id.clone())
            .collect();
        d
    }

    /// Whether the new run is worse: a newly failing case, a new fuzz
    /// finding, a lower level, a case missing from it or a capability it no
    /// longer claims.
    pub fn regressed(&self) -> bool {
        !self.newly_failing.is_empty()
            || !self.new_findings.is_empty()
            || level_rank(&self.new_level) < level_rank(&self.old_level)
            || !self.removed.is_empty()
            || !self.lost_capabilities.is_empty()
    }

    pub fn to_markdown(&self) -> String {
        let mut out = String::from("## rbv: changes since the previous run\n\n");
        let impl_line = if self.old_label == self.new_label {
            cell(&self.new_label)
        } else {
            format!("{} → {}", cell(&self.old_label), cell(&self.new_label))
        };
        let _ = writeln!(out, "| | before | after |\n|---|---|---|");
        let _ = writeln!(out, "| implementation | {} | |", impl_line);
        let _ = writeln!(out, "| level | {} | {} |", self.old_level, self.new_level);
        let _ = writeln!(out, "| safety | {} | {} |", self.safety.0, self.safety.1);
        let _ = writeln!(
            out,
            "| precision | {} | {} |",
            self.precision.0, self.precision.1
        );
        if self.partial.0.is_some() || self.partial.1.is_some() {
            let _ = writeln!(
                out,
                "| run | {} | {} |",
                self.partial.0.as_deref().unwrap_or("whole suite"),
                self.partial.1.as_deref().unwrap_or("whole suite")
            );
        }
        for (name, before, after) in &self.capability_levels {
            let _ = writeln!(out, "| {} | {before} | {after} |", cell(name));
        }
        if self.campaign.0.is_some() || self.campaign.1.is_some() {
            let _ = writeln!(
                out,
                "| fuzz campaign | {} | {} |",
                cell(self.campaign.0.as_deref().unwrap_or("none")),
                cell(self.campaign.1.as_deref().unwrap_or("none"))
            );
        }
        out.push('\n');
        if !self.lost_capabilities.is_empty() {
            let _ = writeln!(
                out,
                "**No longer claimed:** {}\n",
                cell(&self.lost_capabilities.join(", "))
            );
        }
        section(&mut out, "Newly failing", &self.newly_failing);
        section(&mut out, "Newly fixed", &self.newly_fixed);
        section(&mut out, "Failing differently", &self.changed_failure);
        section(&mut out, "No longer run", &self.newly_skipped);
        if self.campaign.1.is_some() || !self.gone_findings.is_empty() {
            section(
                &mut out,
                "Newly found by the fuzz campaign",
                &self.new_findings,
            );
        }
        if !self.gone_findings.is_empty() {
            let _ = writeln!(
                out,
                "Findings of the previous campaign not found again: {}\n",
                self.gone_findings
                    .iter()
                    .map(|id| format!("`{}`", code(id)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let _ = writeln!(
            out,
            "### Missing from the new run ({})\n",
            self.removed.len()
        );
        if self.removed.is_empty() {
            out.push_str("None.\n\n");
        } else {
            for id in &self.removed {
                let _ = writeln!(out, "- `{}`", code(id));
            }
            out.push('\n');
        }
        if self.added > 0 {
            let _ = writeln!(out, "{} case(s) added.", self.added);
        }
        out
    }
}

/// The capabilities whose level (or status) differs between the runs.
fn capability_levels(old: &Report, new: &Report) -> Vec<(String, String, String)> {
    let levels = |r: &Report| -> BTreeMap<String, String> {
        r.summary
            .certification
            .capabilities
            .iter()
            .map(|c| (c.capability.clone(), c.display()))
            .collect()
    };
    let (before, after) = (levels(old), levels(new));
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let absent = || "—".to_owned();
    names
        .into_iter()
        .filter_map(|n| {
            let (b, a) = (before.get(n), after.get(n));
            (b != a).then(|| {
                (
                    n.clone(),
                    b.cloned().unwrap_or_else(absent),
                    a.cloned().unwrap_or_else(absent),
                )
            })
        })
        .collect()
}

fn level_rank(name: &str) -> u8 {
    match name {
        "Safe" => 1,
        "Core" => 2,
        "Precise" => 3,
        _ => 0,
    }
}

fn section(out: &mut String, title: &str, changes: &[Change]) {
    let _ = writeln!(out, "### {title} ({})\n", changes.len());
    if changes.is_empty() {
        out.push_str("None.\n\n");
        return;
    }
    out.push_str("| case | before | after | detail |\n|---|---|---|---|\n");
    for c in changes {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            code(&c.id).replace('|', "\\|"),
            c.old.unwrap_or("new"),
            c.new,
            cell(&c.headline)
        );
    }
    out.push('\n');
}
