//! `report.html`: one self-contained page (inline CSS and JS, a Content
//! Security Policy that forbids every load) with the header (implementation,
//! level, scores), the requirement coverage matrix, results per area,
//! failures with their diffs, and filters by verdict and by area.

pub mod assets;

use super::{escape, facts};
use crate::model::{CaseResult, Report, RequirementLevel, Verdict};
use crate::text::{Pass, Passing};
use std::fmt::{self, Write as _};
use std::io::{self, Write as _};

/// Wraps a body into a page that loads nothing from anywhere; the whole
/// page goes through `text::xml`, so that no field of it can carry a
/// character HTML shows as nothing or that reorders what follows.
pub fn page(title: &str, body: &str) -> String {
    let mut bytes = Vec::new();
    write_page(title, &mut bytes, |out| out.push_str(body))
        .expect("writing to memory does not fail");
    String::from_utf8(bytes).expect("the pass writes UTF-8")
}

/// [`page`] written to `out` as it is made: `body` writes the page's body
/// into a [`Chunked`] that hands it on every few kilobytes.
fn write_page(
    title: &str,
    out: &mut dyn io::Write,
    body: impl FnOnce(&mut Chunked),
) -> io::Result<()> {
    let mut passing = Passing::new(Pass::Xml, out);
    write!(
        passing,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
        escape(title),
        assets::CSS,
    )?;
    let mut chunked = Chunked::new(&mut passing);
    body(&mut chunked);
    chunked.finish()?;
    write!(
        passing,
        "<script>{}</script>\n</body>\n</html>\n",
        assets::JS
    )?;
    passing.finish().map(drop)
}

/// The report page.
pub fn render(report: &Report) -> String {
    let mut bytes = Vec::new();
    write(report, &mut bytes).expect("writing to memory does not fail");
    String::from_utf8(bytes).expect("the pass writes UTF-8")
}

/// The report page, written to `out` as it is made.
pub fn write(report: &Report, out: &mut dyn io::Write) -> io::Result<()> {
    let title = format!(
        "rbv report: {} — {}",
        report.implementation_label(),
        facts::level_label(report)
    );
    write_page(&title, out, |body| {
        header(report, body);
        filters(report, body);
        body.push_str("<main>\n");
        certification(report, body);
        let mut campaign = String::new();
        super::campaign::html(report, &mut campaign);
        body.push_str(&campaign);
        requirements(report, body);
        results(report, body);
        failures(report, body);
        body.push_str("</main>\n");
    })
}

/// Text on its way to a writer, handed on whenever a few kilobytes have
/// gathered: a page's sections are written with `push_str` and `write!`
/// as into a `String`, but a page of megabyte failures is never held
/// whole. The first write error is kept and returned by
/// [`finish`](Chunked::finish).
pub struct Chunked<'a> {
    buffer: String,
    out: &'a mut dyn io::Write,
    error: Option<io::Error>,
}

impl<'a> Chunked<'a> {
    const FLUSH_AT: usize = 64 * 1024;

    fn new(out: &'a mut dyn io::Write) -> Self {
        Chunked {
            buffer: String::with_capacity(2 * Self::FLUSH_AT),
            out,
            error: None,
        }
    }

    pub fn push_str(&mut self, text: &str) {
        self.buffer.push_str(text);
        if self.buffer.len() >= Self::FLUSH_AT {
            self.hand_on();
        }
    }

    fn hand_on(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(self.buffer.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.buffer.clear();
    }

    fn finish(mut self) -> io::Result<()> {
        self.hand_on();
        self.error.take().map_or(Ok(()), Err)
    }
}

impl fmt::Write for Chunked<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.push_str(text);
        Ok(())
    }
}

/// `pass`, `fail`, `error`, `skip`, `known` or `stale`: what the verdict
/// filter matches besides the label.
pub fn status_of(case: &CaseResult) -> &'static str {
    if case.is_known_failure() {
        "known"
    } else if case.is_stale() {
        "stale"
    } else {
        case.verdict.status()
    }
}

/// A colored verdict chip.
pub fn chip(label: &str) -> String {
    format!("<span class=\"verdict v-{0}\">{0}</span>", escape(label))
}

fn header(report: &Report, out: &mut Chunked) {
    let s = &report.summary;
    let imp = &report.implementation;
    let (level_class, level_text) = match facts::partial_label(report) {
        Some(_) => ("partial".to_owned(), "partial run".to_owned()),
        None => (s.level.name().to_lowercase(), s.level.name().to_owned()),
    };
    let _ = writeln!(
        out,
        "<header>\n<h1>rbv report: <span id=\"implementation\">{}</span> \
         <span id=\"level\" class=\"level level-{}\">{}</span></h1>",
        escape(&report.implementation_label()),
        escape(&level_class),
        escape(&level_text)
    );
    if let Some(partial) = facts::partial_label(report) {
        let _ = writeln!(
            out,
            "<div class=\"alert\" id=\"partial-run\">{}: this run earns no level.</div>",
            escape(&partial)
        );
    }
    if facts::spawn_per_case(report) {
        let _ = writeln!(
            out,
            "<div class=\"alert\" id=\"spawn-per-case\">Run with --spawn-per-case: a child \
             per case, so state leaking between sessions was not tested.</div>"
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"meta\" id=\"statement\">{}</p>",
        escape(&s.certification.statement)
    );
    let _ = writeln!(out, "<dl class=\"scores\">");
    let scores = [
        ("safety", "Safety", &s.safety),
        ("precision", "Precision", &s.precision),
        ("pass-rate", "Passed", &s.pass_rate),
    ];
    for (id, name, score) in scores {
        let _ = writeln!(
            out,
            "<div><dt>{name}</dt><dd id=\"score-{id}\">{}</dd><dd class=\"sub\">{}/{}</dd></div>",
            escape(&score.display()),
            score.held,
            score.total
        );
    }
    let c = &s.counts;
    let _ = writeln!(
        out,
        "<div><dt>Cases</dt><dd id=\"case-count\">{}</dd><dd class=\"sub\">{} pass · {} fail · \
         {} error · {} skip · {} known</dd></div>\n</dl>",
        c.total, c.pass, c.fail, c.error, c.skip, c.known_failure
    );
    if let (Some(next), None) = (s.level.next(), s.certification.partial) {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Lowest level of the claimed capabilities: {} · next: {next} — {}</p>",
            s.level,
            if s.next_level_blockers.is_empty() {
                "none of its cases ran".to_owned()
            } else {
                format!("blocked by {} case(s)", s.next_level_blockers.len())
            }
        );
    }
    let profile: Vec<String> = imp
        .profile
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let _ = writeln!(
        out,
        "<p class=\"meta\">Protocol {} · capabilities: {} · profile: {}</p>\n\
         <p class=\"meta\">Suite {} · cases sha256 <code>{}</code> · started {} · {:.1} s</p>",
        imp.protocol_version,
        escape(&imp.capabilities.join(", ")),
        escape(&if profile.is_empty() {
            "—".to_owned()
        } else {
            profile.join(", ")
        }),
        escape(&report.suite.version),
        escape(&report.suite.cases_sha256),
        escape(&report.started),
        report.duration_ms / 1000.0
    );
    let conditions = facts::conditions(report);
    if !conditions.is_empty() {
        out.push_str("<details id=\"conditions\"><summary>Conditions of this run</summary><dl>");
        for (key, value) in conditions {
            let _ = write!(out, "<dt>{key}</dt><dd>{}</dd>", escape(&value));
        }
        out.push_str("</dl></details>\n");
    }
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Baseline: {} entries, {} known failures not counted.</p>",
            b.entries,
            b.known_failures.len()
        );
        if !b.stale.is_empty() {
            let _ = writeln!(
                out,
                "<div class=\"alert\" id=\"stale-baseline\">Stale baseline: these listed cases \
                 pass — remove them from the baseline: {}</div>",
                escape(&b.stale.join(", "))
            );
        }
    }
    out.push_str("</header>\n");
}

/// Each capability with its level, its cases and the blockers of every
/// level above it.
fn certification(report: &Report, out: &mut Chunked) {
    let cert = &report.summary.certification;
    if cert.capabilities.is_empty() {
        return;
    }
    out.push_str(
        "<section id=\"certification\">\n<h2>Certification by capability</h2>\n<table>\n\
         <thead><tr><th>capability</th><th>level</th><th>cases</th>\
         <th>blocking the levels above</th></tr></thead>\n<tbody>\n",
    );
    for c in &cert.capabilities {
        let class = match c.level {
            Some(l) => l.name().to_lowercase(),
            None => c.status.as_str().replace(' ', "-"),
        };
        let _ = writeln!(
            out,
            "<tr class=\"capability\" data-capability=\"{0}\"><td><code>{0}</code></td>\
             <td><span class=\"level level-{1}\">{2}</span></td><td>{3}</td><td>{4}</td></tr>",
            escape(&c.capability),
            escape(&class),
            escape(&c.display()),
            escape(&facts::counts(c)),
            escape(&facts::blockers(c, BLOCKERS_SHOWN))
        );
    }
    out.push_str("</tbody></table>\n</section>\n");
}

/// How many blocking case ids the page names per level.
const BLOCKERS_SHOWN: usize = 20;

fn filters(report: &Report, out: &mut Chunked) {
    out.push_str(
        "<nav id=\"filters\">\n<label>Verdict <select id=\"filter-verdict\">\
         <option value=\"all\">all</option>",
    );
    for v in [
        "pass", "fail", "under", "over", "mismatch", "error", "crash", "timeout", "garbage",
        "protocol", "skip", "known", "stale",
    ] {
        let _ = write!(out, "<option value=\"{v}\">{v}</option>");
    }
    out.push_str(
        "</select></label>\n<label>Area <select id=\"filter-area\">\
         <option value=\"all\">all</option>",
    );
    for area in report.areas().keys() {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", escape(area));
    }
    out.push_str("</select></label>\n<span id=\"filter-count\"></span>\n</nav>\n");
}

fn num(n: usize) -> String {
    if n == 0 {
        "<td class=\"num zero\">0</td>".to_owned()
    } else {
        format!("<td class=\"num\">{n}</td>")
    }
}

fn requirements(report: &Report, out: &mut Chunked) {
    out.push_str(
        "<section id=\"requirements\">\n<h2>Requirement coverage</h2>\n<table class=\"matrix\">\n\
         <thead><tr><th>requirement</th><th>level</th><th>status</th><th class=\"num\">pass</th>\
         <th class=\"num\">fail</th><th class=\"num\">error</th><th class=\"num\">skip</th>\
         <th class=\"num\">known</th><th class=\"num\">unsafe side</th>\
         <th class=\"num\">precision</th><th>title</th></tr></thead>\n<tbody>\n",
    );
    for (id, r) in &report.requirements {
        let status = serde_json::to_value(r.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let c = &r.counts;
        let _ = writeln!(
            out,
            "<tr class=\"requirement\" data-requirement=\"{}\"><td><code>{}</code></td><td>{}</td>\
             <td>{}</td>{}{}{}{}{}{}{}<td>{}</td></tr>",
            escape(id),
            escape(id),
            r.info.level.as_str(),
            chip(&status),
            num(c.pass),
            num(c.fail),
            num(c.error),
            num(c.skip),
            num(c.known_failure),
            num(r.unsafe_cases),
            num(r.precision_cases),
            escape(r.info.title.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</tbody></table>\n</section>\n");
}

fn rests_on_interpretation(case: &CaseResult) -> bool {
    case.requirements
        .iter()
        .any(|r| r.level == Some(RequirementLevel::Interpretation))
}

fn results(report: &Report, out: &mut Chunked) {
    out.push_str("<section id=\"results\">\n<h2>Results by area</h2>\n");
    let failure_index = failure_anchors(report);
    for (area, cases) in report.areas() {
        let failed = cases.iter().filter(|c| c.verdict.is_failure()).count();
        let _ = writeln!(
            out,
            "<details class=\"area\" data-area=\"{0}\" open><summary><strong>{0}</strong> — \
             {1} case{2}, {3} not passing</summary>\n<table>\n<thead><tr><th>case</th>\
             <th>verdict</th><th>requirements</th><th>tags</th><th class=\"num\">ms</th></tr>\
             </thead>\n<tbody>",
            escape(area),
            cases.len(),
            crate::model::plural(cases.len()),
            failed
        );
        for case in cases {
            let label = case.display_label();
            let id_cell = match failure_index.iter().position(|id| *id == case.id) {
                Some(i) => format!(
                    "<a href=\"#failure-{i}\"><code>{}</code></a>",
                    escape(&case.id)
                ),
                None => format!("<code>{}</code>", escape(&case.id)),
            };
            let title = case
                .title
                .as_deref()
                .map(|t| format!("<br><small>{}</small>", escape(t)))
                .unwrap_or_default();
            let reason = match &case.verdict {
                Verdict::Skip { reason, .. } => format!("<br><small>{}</small>", escape(reason)),
                _ => String::new(),
            };
            let reqs: Vec<String> = case
                .requirements
                .iter()
                .map(|r| {
                    let level = r.level.map(|l| l.as_str()).unwrap_or("?");
                    let class = if r.level == Some(RequirementLevel::Interpretation) {
                        "tag interp"
                    } else {
                        "tag"
                    };
                    format!("<span class=\"{class}\">{} {level}</span>", escape(&r.id))
                })
                .collect();
            let mut tags: Vec<String> = case
                .tags
                .iter()
                .map(|t| format!("<span class=\"tag\">{}</span>", escape(t)))
                .collect();
            if rests_on_interpretation(case) {
                tags.push(
                    "<span class=\"tag interp\">rests on an interpretation</span>".to_owned(),
                );
            }
            let _ = writeln!(
                out,
                "<tr class=\"case\" data-area=\"{}\" data-verdict=\"{}\" data-status=\"{}\">\
                 <td>{id_cell}{title}</td><td>{}{reason}</td><td>{}</td><td>{}</td>\
                 <td class=\"num\">{:.1}</td></tr>",
                escape(&case.area),
                case.verdict.label(),
                status_of(case),
                chip(label),
                reqs.join(" "),
                tags.join(" "),
                case.duration_ms
            );
        }
        out.push_str("</tbody></table>\n</details>\n");
    }
    out.push_str("</section>\n");
}

/// Ids of the cases shown in the failures section, in order.
fn failure_anchors(report: &Report) -> Vec<&str> {
    report
        .cases
        .iter()
        .filter(|c| c.verdict.is_failure())
        .map(|c| c.id.as_str())
        .collect()
}

fn failures(report: &Report, out: &mut Chunked) {
    let failing: Vec<&CaseResult> = report
        .cases
        .iter()
        .filter(|c| c.verdict.is_failure())
        .collect();
    let _ = writeln!(
        out,
        "<section id=\"failures\">\n<h2>Failures and errors ({})</h2>",
        failing.len()
    );
    if failing.is_empty() {
        out.push_str("<p>None.</p>\n");
    }
    for (i, case) in failing.iter().enumerate() {
        let kind_class = match &case.verdict {
            Verdict::Fail { .. } if case.verdict.label() == "over" => "k-over",
            Verdict::Error { .. } => "k-error",
            _ => "k-fail",
        };
        let _ = writeln!(
            out,
            "<details class=\"failure {kind_class}\" id=\"failure-{i}\" data-area=\"{}\" \
             data-verdict=\"{}\" data-status=\"{}\" open><summary><code>{}</code> {} {}</summary>",
            escape(&case.area),
            case.verdict.label(),
            status_of(case),
            escape(&case.id),
            chip(case.display_label()),
            escape(&case.headline())
        );
        if let Some(mark) = &case.baseline {
            let _ = writeln!(
                out,
                "<p><em>Known failure (baseline): {}</em>{}</p>",
                escape(&mark.reason),
                mark.link
                    .as_deref()
                    .map(|l| format!(" — <code>{}</code>", escape(l)))
                    .unwrap_or_default()
            );
        }
        if !case.requirements.is_empty() {
            let reqs: Vec<String> = case
                .requirements
                .iter()
                .map(|r| format!("{} ({})", r.id, r.level.map(|l| l.as_str()).unwrap_or("?")))
                .collect();
            let _ = writeln!(out, "<p>Requirements: {}</p>", escape(&reqs.join(", ")));
        }
        if let Some(d) = case.diff.as_deref().filter(|d| !d.is_empty()) {
            let _ = writeln!(
                out,
                "<h4>Diff</h4>\n<pre class=\"diff\">{}</pre>",
                diff_lines(d)
            );
        }
        let reasons = (!case.reasons.is_empty()).then(|| case.reasons.join("\n"));
        let blocks = [
            ("Message", &case.message),
            ("Request", &case.request),
            ("Expected", &case.expected),
            ("Observed", &case.observed),
            ("Its reasons", &reasons),
            ("Its whole answer", &case.answer),
            ("Offending line", &case.line),
            ("Stderr tail", &case.stderr_tail),
        ];
        for (name, text) in blocks {
            if let Some(t) = text.as_deref().filter(|t| !t.is_empty()) {
                let _ = writeln!(out, "<h4>{name}</h4>\n<pre>{}</pre>", escape(t.trim_end()));
            }
        }
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

/// A unified diff with added, removed and hunk lines marked.
fn diff_lines(diff: &str) -> String {
    let mut out = String::new();
    for line in diff.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            "hunk"
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            ""
        };
        if class.is_empty() {
            let _ = writeln!(out, "{}", escape(line));
        } else {
            // Block spans end their own line; a newline after them would
            // double the spacing.
            let _ = write!(out, "<span class=\"{class}\">{}</span>", escape(line));
        }
    }
    out
}
