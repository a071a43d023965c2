//! The interop matrix: several implementations' reports side by side.
//! Per case the verdict of each, whether they disagree, and which cases
//! exactly one implementation fails (a bug of that implementation, or a
//! case that rests on a reading only it holds).

use crate::model::{CaseResult, Report};
use crate::render::escape;
use crate::render::html::{chip, page};
use crate::render::markdown::{cell, code};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// One implementation's column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub label: String,
    pub level: String,
    pub safety: String,
    pub precision: String,
    pub pass_rate: String,
    /// Cases that ran / were skipped.
    pub ran: usize,
    pub skipped: usize,
    /// `partial run: N of M cases`, when it was.
    pub partial: Option<String>,
    /// Each capability of its certificate with its level or status.
    pub capabilities: Vec<(String, String)>,
    /// Its fuzz campaign, `fuzzed 3 min (1.1M execs, seed 7), 0 findings`.
    pub campaign: Option<String>,
}

/// One case across implementations.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub id: String,
    pub area: String,
    /// Per column: the verdict label (`known`/`stale` for baselined
    /// cases), `None` where that report lacks the case.
    pub cells: Vec<Option<&'static str>>,
    /// The implementations that ran the case do not all end alike.
    pub disagree: bool,
    /// The one column that fails (or errors) while at least one other ran it.
    pub only_failing: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    pub columns: Vec<Column>,
    /// Sorted by case id.
    pub rows: Vec<Row>,
}

fn failing(c: &CaseResult) -> bool {
    c.verdict.is_failure()
}

impl Matrix {
    pub fn build(reports: &[Report]) -> Matrix {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let columns = reports
            .iter()
            .map(|r| {
                let base = r.implementation_label();
                let n = seen.entry(base.clone()).or_insert(0);
                *n += 1;
                let label = if *n == 1 {
                    base
                } else {
                    format!("{base} #{n}")
                };
                let s = &r.summary;
                Column {
                    label,
                    level: s.level.name().to_owned(),
                    safety: s.safety.display(),
                    precision: s.precision.display(),
                    pass_rate: s.pass_rate.display(),
                    ran: s.counts.total - s.counts.skip,
                    skipped: s.counts.skip,
                    partial: s.certification.partial.map(|p| p.label()),
                    capabilities: s
                        .certification
                        .capabilities
                        .iter()
                        .map(|c| (c.capability.clone(), c.display()))
                        .collect(),
                    campaign: r.campaign.as_ref().map(|c| c.clause()),
                }
            })
            .collect();
        let ids: BTreeSet<&str> = reports
            .iter()
            .flat_map(|r| r.cases.iter().map(|c| c.id.as_str()))
            .collect();
        let rows = ids
            .into_iter()
            .map(|id| {
                let found: Vec<Option<&CaseResult>> = reports.iter().map(|r| r.case(id)).collect();
                let ran: Vec<(usize, &CaseResult)> = found
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| c.filter(|c| !c.verdict.is_skip()).map(|c| (i, c)))
                    .collect();
                let labels: BTreeSet<&str> = ran.iter().map(|(_, c)| c.verdict.label()).collect();
                let fails: Vec<usize> = ran
                    .iter()
                    .filter(|(_, c)| failing(c))
                    .map(|(i, _)| *i)
                    .collect();
                Row {
                    id: id.to_owned(),
                    area: crate::model::area_of(id).to_owned(),
                    cells: found
                        .iter()
                        .map(|c| c.map(CaseResult::display_label))
                        .collect(),
                    disagree: labels.len() > 1,
                    only_failing: (fails.len() == 1 && ran.len() >= 2).then(|| fails[0]),
                }
            })
            .collect();
        Matrix { columns, rows }
    }

    /// Rows of cases run and skipped and of every capability's level per
    /// implementation (`—` where a report does not list it).
    pub fn run_rows(&self) -> Vec<(String, Vec<String>)> {
        let mut rows = vec![
            (
                "cases run".to_owned(),
                self.columns.iter().map(|c| c.ran.to_string()).collect(),
            ),
            (
                "skipped".to_owned(),
                self.columns.iter().map(|c| c.skipped.to_string()).collect(),
            ),
        ];
        let names: BTreeSet<&String> = self
            .columns
            .iter()
            .flat_map(|c| c.capabilities.iter().map(|(n, _)| n))
            .collect();
        for name in names {
            let vals = self
                .columns
                .iter()
                .map(|c| {
                    c.capabilities
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or_else(|| "—".to_owned(), |(_, v)| v.clone())
                })
                .collect();
            rows.push((format!("capability {name}"), vals));
        }
        // Only when a report has a campaign: reports before `--fuzz` had none.
        if self.columns.iter().any(|c| c.campaign.is_some()) {
            rows.push((
                "fuzz campaign".to_owned(),
                self.columns
                    .iter()
                    .map(|c| c.campaign.clone().unwrap_or_else(|| "none".to_owned()))
                    .collect(),
            ));
        }
        rows
    }

    pub fn disagreements(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.disagree)
    }

    /// Markdown: the columns' levels and scores, the disagreements, and
    /// per implementation the cases only it fails.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("## rbv interop matrix\n\n");
        let header: Vec<String> = self.columns.iter().map(|c| cell(&c.label)).collect();
        let _ = writeln!(out, "| | {} |", header.join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(self.columns.len()));
        let facts = ["level", "safety", "precision", "passed"];
        for (k, name) in facts.into_iter().enumerate() {
            let vals: Vec<String> = self
                .columns
                .iter()
                .map(|c| match (&c.partial, k) {
                    (Some(p), 0) => cell(p),
                    _ => cell([&c.level, &c.safety, &c.precision, &c.pass_rate][k]),
                })
                .collect();
            let _ = writeln!(out, "| {name} | {} |", vals.join(" | "));
        }
        for (name, vals) in self.run_rows() {
            let _ = writeln!(out, "| {} | {} |", cell(&name), vals.join(" | "));
        }
        let disagreements: Vec<&Row> = self.disagreements().collect();
        let _ = writeln!(
            out,
            "\n### Disagreements ({} of {} cases)\n",
            disagreements.len(),
            self.rows.len()
        );
        if disagreements.is_empty() {
            out.push_str("The implementations agree on every case they ran.\n");
        } else {
            let _ = writeln!(out, "| case | {} |", header.join(" | "));
            let _ = writeln!(out, "|---|{}", "---|".repeat(self.columns.len()));
            for row in disagreements {
                let vals: Vec<String> = row
                    .cells
                    .iter()
                    .map(|c| c.unwrap_or("—").to_owned())
                    .collect();
                let _ = writeln!(out, "| {} | {} |", cell(&row.id), vals.join(" | "));
            }
        }
        out.push_str("\n### Failed by only one implementation\n\n");
        let mut any = false;
        for (i, col) in self.columns.iter().enumerate() {
            let only: Vec<String> = self
                .rows
                .iter()
                .filter(|r| r.only_failing == Some(i))
                .map(|r| format!("`{}`", code(&r.id)))
                .collect();
            if !only.is_empty() {
                any = true;
                let _ = writeln!(
                    out,
                    "- **{}** ({}): {}",
                    cell(&col.label),
                    only.len(),
                    only.join(", ")
                );
            }
        }
        if !any {
            out.push_str("None.\n");
        }
        out
    }

    /// A self-contained HTML page with the whole matrix, filterable by
    /// area and by agreement.
    pub fn to_html(&self) -> String {
        let mut body = String::from("<header>\n<h1>rbv interop matrix</h1>\n</header>\n");
        body.push_str(
            "<nav id=\"filters\">\n<label>Show <select id=\"filter-verdict\">\
             <option value=\"all\">all</option><option value=\"disagree\">disagreements</option>\
             <option value=\"only-one\">failed by only one</option>\
             <option value=\"agree\">agreements</option></select></label>\n\
             <label>Area <select id=\"filter-area\"><option value=\"all\">all</option>",
        );
        let areas: BTreeSet<&str> = self.rows.iter().map(|r| r.area.as_str()).collect();
        for a in areas {
            let _ = write!(body, "<option value=\"{0}\">{0}</option>", escape(a));
        }
        body.push_str("</select></label>\n<span id=\"filter-count\"></span>\n</nav>\n<main>\n");
        body.push_str("<section id=\"matrix\">\n<table>\n<thead><tr><th>case</th>");
        for c in &self.columns {
            let _ = write!(
                body,
                "<th>{}<br><span class=\"level level-{}\">{}</span><br><small>safety {} · \
                 precision {}</small></th>",
                escape(&c.label),
                escape(&if c.partial.is_some() {
                    "partial".to_owned()
                } else {
                    c.level.to_lowercase()
                }),
                escape(c.partial.as_deref().unwrap_or(&c.level)),
                escape(&c.safety),
                escape(&c.precision)
            );
        }
        body.push_str("</tr></thead>\n<tbody>\n");
        for (name, vals) in self.run_rows() {
            let _ = write!(body, "<tr class=\"facts\"><th>{}</th>", escape(&name));
            for v in vals {
                let _ = write!(body, "<td>{}</td>", escape(&v));
            }
            body.push_str("</tr>\n");
        }
        for row in &self.rows {
            let _ = write!(
                body,
                "<tr class=\"case\" data-area=\"{}\" data-status=\"{}\" data-verdict=\"{}\">\
                 <td><code>{}</code></td>",
                escape(&row.area),
                if row.disagree { "disagree" } else { "agree" },
                if row.only_failing.is_some() {
                    "only-one"
                } else {
                    ""
                },
                escape(&row.id)
            );
            for (i, c) in row.cells.iter().enumerate() {
                let class = if row.only_failing == Some(i) {
                    " class=\"cell-disagree\""
                } else {
                    ""
                };
                let _ = write!(
                    body,
                    "<td{class}>{}</td>",
                    c.map(chip).unwrap_or_else(|| "—".into())
                );
            }
            body.push_str("</tr>\n");
        }
        body.push_str("</tbody></table>\n</section>\n</main>\n");
        page("rbv interop matrix", &body)
    }
}
