//! `summary.md`: for a pull-request comment. Level and scores first, a
//! table per area, then the first failures with their diffs folded away.

use super::facts;
use crate::model::{plural, CaseResult, Counts, Report};
use std::fmt::Write;

/// How many failures the summary shows in full.
pub const MAX_FAILURES: usize = 20;

/// The most summary.md may hold: a pull-request comment, which GitHub
/// caps at 65,536 characters. Failures that would not fit are left to
/// report.json and report.html, and the summary says so.
pub const MAX_BYTES: usize = 64 * 1024;

/// Room kept under [`MAX_BYTES`] for the line that names what was left out.
const POINTER_ROOM: usize = 512;

/// The Markdown summary, through `text::markdown` as a whole, at most
/// [`MAX_BYTES`].
pub fn render(report: &Report) -> String {
    let mut text = crate::text::markdown(body(report));
    if text.len() > MAX_BYTES {
        // Only a header grown past all bounds gets here (the failures are
        // budgeted below); it holds no fenced block, so a cut at a line
        // leaves nothing open.
        let mut end = MAX_BYTES - POINTER_ROOM;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let end = text[..end].rfind('\n').map_or(0, |i| i + 1);
        text.truncate(end);
        text.push_str(&format!(
            "\n… cut at {MAX_BYTES} bytes: the whole report is in `report.json`.\n"
        ));
    }
    text
}

fn body(report: &Report) -> String {
    let mut out = String::new();
    let s = &report.summary;
    let _ = writeln!(
        out,
        "## rbv: {} — {}\n",
        cell(&report.implementation_label()),
        level_line(report)
    );
    out.push_str("| | |\n|---|---|\n");
    let _ = writeln!(
        out,
        "| Safety | {} ({}/{}) |",
        s.safety.display(),
        s.safety.held,
        s.safety.total
    );
    let _ = writeln!(
        out,
        "| Precision | {} ({}/{}) |",
        s.precision.display(),
        s.precision.held,
        s.precision.total
    );
    let _ = writeln!(out, "| Cases | {} |", counts_line(&s.counts));
    let _ = writeln!(
        out,
        "| Suite | {} · cases sha256 `{}` |",
        cell(&report.suite.version),
        short_hash(&report.suite.cases_sha256)
    );
    let _ = writeln!(
        out,
        "| Implementation | protocol {} · capabilities: {} |",
        report.implementation.protocol_version,
        cell(&report.implementation.capabilities.join(", "))
    );
    if !report.implementation.profile.is_empty() {
        let profile: Vec<String> = report
            .implementation
            .profile
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(out, "| Profile | {} |", cell(&profile.join(", ")));
    }
    let _ = writeln!(out, "| Started | {} |", cell(&report.started));
    out.push('\n');
    baseline_notes(report, &mut out);
    certification(report, &mut out);
    super::campaign::markdown(report, &mut out);
    conditions(report, &mut out);

    out.push_str("### Results by area\n\n");
    out.push_str("| area | cases | pass | fail | error | skip | known |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for (area, cases) in report.areas() {
        let mut c = Counts::default();
        for case in &cases {
            add(&mut c, case);
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(area),
            c.total,
            c.pass,
            c.fail,
            c.error,
            c.skip,
            c.known_failure
        );
    }
    out.push('\n');

    let failures: Vec<&CaseResult> = report
        .cases
        .iter()
        .filter(|c| c.verdict.is_failure() && !c.is_known_failure())
        .collect();
    if failures.is_empty() {
        out.push_str("No failures.\n");
        return out;
    }
    // The heading counts what is shown, so the blocks are made first.
    let heading_room = 64;
    let mut blocks = String::new();
    let mut shown = 0;
    for case in failures.iter().take(MAX_FAILURES) {
        let mut block = String::new();
        failure(case, &mut block);
        if out.len() + heading_room + blocks.len() + block.len() > MAX_BYTES - POINTER_ROOM {
            break;
        }
        blocks.push_str(&block);
        shown += 1;
    }
    let _ = writeln!(out, "### Failures ({shown} of {})\n", failures.len());
    out.push_str(&blocks);
    if failures.len() > shown {
        let why = if shown < failures.len().min(MAX_FAILURES) {
            format!(" (summary.md stays under {MAX_BYTES} bytes)")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "… and {} more{why}: see `report.json` or `report.html`.",
            failures.len() - shown
        );
    }
    out
}

/// What the run certifies, the certified levels first (a partial run:
/// no level).
fn level_line(report: &Report) -> String {
    let levels = crate::certificate::levels(&report.summary.certification, &report.cases);
    format!("**{}**", cell(&levels))
}

/// The statement, then a table of every capability with its level and
/// what blocks the levels above it.
fn certification(report: &Report, out: &mut String) {
    let cert = &report.summary.certification;
    if cert.capabilities.is_empty() {
        return;
    }
    out.push_str("### Certification by capability\n\n");
    let _ = writeln!(out, "{}\n", cell(&cert.statement));
    if facts::spawn_per_case(report) {
        out.push_str(
            "> Run with `--spawn-per-case`: a child per case, so state leaking between \
             sessions was not tested.\n\n",
        );
    }
    out.push_str("| capability | level | cases | blocking the levels above |\n|---|---|---|---|\n");
    for c in &cert.capabilities {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&c.capability),
            cell(&c.display()),
            facts::counts(c),
            cell(&facts::blockers(c, MAX_BLOCKERS))
        );
    }
    out.push('\n');
}

/// How many blocking case ids the certification table names per level.
pub const MAX_BLOCKERS: usize = 5;

fn conditions(report: &Report, out: &mut String) {
    let facts = facts::conditions(report);
    if facts.is_empty() {
        return;
    }
    out.push_str("<details><summary>Conditions of this run</summary>\n\n| | |\n|---|---|\n");
    for (key, value) in facts {
        let _ = writeln!(out, "| {key} | {} |", cell(&value));
    }
    out.push_str("\n</details>\n\n");
}

fn counts_line(c: &Counts) -> String {
    format!(
        "{}: {} pass, {} fail, {} error, {} skip, {} known failure{}",
        c.total,
        c.pass,
        c.fail,
        c.error,
        c.skip,
        c.known_failure,
        plural(c.known_failure)
    )
}

fn add(c: &mut Counts, case: &CaseResult) {
    c.total += 1;
    if case.is_known_failure() {
        c.known_failure += 1;
    } else {
        match case.verdict.status() {
            "pass" => c.pass += 1,
            "fail" => c.fail += 1,
            "error" => c.error += 1,
            _ => c.skip += 1,
        }
    }
}

fn baseline_notes(report: &Report, out: &mut String) {
    let Some(b) = &report.baseline else { return };
    let _ = writeln!(
        out,
        "Baseline: {} entr{}, {} known failure{} not counted.\n",
        b.entries,
        if b.entries == 1 { "y" } else { "ies" },
        b.known_failures.len(),
        plural(b.known_failures.len())
    );
    if !b.stale.is_empty() {
        let _ =
            writeln!(
            out,
            "> **Stale baseline:** {} listed case{} now pass{} — remove {} from the baseline: {}\n",
            b.stale.len(),
            plural(b.stale.len()),
            if b.stale.len() == 1 { "es" } else { "" },
            if b.stale.len() == 1 { "it" } else { "them" },
            b.stale.iter().map(|id| format!("`{}`", code(id))).collect::<Vec<_>>().join(", ")
        );
    }
    if !b.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "Baseline entries for cases not in this run: {}\n",
            b.unmatched
                .iter()
                .map(|id| format!("`{}`", code(id)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

fn failure(case: &CaseResult, out: &mut String) {
    let _ = writeln!(
        out,
        "<details><summary><code>{}</code> — {}</summary>\n",
        crate::text::unlinked(&super::escape(&case.id)),
        crate::text::unlinked(&super::escape(&case.headline()))
    );
    if !case.requirements.is_empty() {
        let reqs: Vec<String> = case
            .requirements
            .iter()
            .map(|r| match r.level {
                Some(l) => format!("{} ({})", r.id, l.as_str()),
                None => r.id.clone(),
            })
            .collect();
        let _ = writeln!(out, "Requirements: {}\n", cell(&reqs.join(", ")));
    }
    if let Some(request) = case.request.as_deref().filter(|t| !t.is_empty()) {
        out.push_str("request:\n\n");
        fenced(out, "json", request);
    }
    let diff = case.diff.as_deref().filter(|d| !d.is_empty());
    match diff {
        Some(d) => fenced(out, "diff", d),
        None => {
            for (name, text) in [("expected", &case.expected), ("observed", &case.observed)] {
                if let Some(t) = text.as_deref().filter(|t| !t.is_empty()) {
                    let _ = writeln!(out, "{name}:\n");
                    fenced(out, "", t);
                }
            }
        }
    }
    // The implementation's own words: why it answered what it did.
    if !case.reasons.is_empty() {
        out.push_str("its reasons:\n\n");
        fenced(out, "", &case.reasons.join("\n"));
    }
    if let Some(answer) = case.answer.as_deref().filter(|t| !t.is_empty()) {
        out.push_str("its whole answer:\n\n");
        let mut shown = answer.to_owned();
        if crate::text::cap(&mut shown, MAX_ANSWER_SHOWN) {
            shown.push_str(" (report.json has more)");
        }
        fenced(out, "json", &shown);
    }
    if let Some(line) = case.line.as_deref().filter(|t| !t.is_empty()) {
        out.push_str("offending line:\n\n");
        fenced(out, "", line);
    }
    if let Some(stderr) = case.stderr_tail.as_deref().filter(|t| !t.is_empty()) {
        out.push_str("stderr tail:\n\n");
        fenced(out, "", stderr);
    }
    out.push_str("</details>\n\n");
}

/// How much of an answer a failure in the summary shows (report.json keeps
/// up to [`crate::model::MAX_ANSWER`]): twenty of them stay a PR comment.
pub const MAX_ANSWER_SHOWN: usize = 1024;

/// A fenced block whose fence is longer than any backtick run inside.
pub(crate) fn fenced(out: &mut String, lang: &str, text: &str) {
    // Nothing is a link or a mention in a fenced block, but bidi controls
    // still reorder what it shows.
    let text = &crate::text::visible(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(
        out,
        "{fence}{lang}\n{}\n{fence}\n",
        text.trim_end_matches('\n')
    );
}

/// Text for a table cell or a line: no pipes, no markup, one line.
pub fn cell(text: &str) -> String {
    let text = crate::text::unlinked(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            '*' | '_' | '[' | ']' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` exactly, as a code span that can stand in a table cell: fenced by
/// one backtick more than its longest run, padded where it starts or ends
/// with a backtick (or both ends are spaces, which GitHub would strip), its
/// pipes escaped (a table splits on them even inside a span), everything
/// hostile shown as an escape, on one line.
pub fn code_span(text: &str) -> String {
    let text = crate::text::terminal(text).replace('|', "\\|");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || (text.len() > 1 && text.starts_with(' ') && text.ends_with(' '));
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Text inside a code span: backticks cannot be escaped there, so they go.
pub(crate) fn code(text: &str) -> String {
    crate::text::visible(text)
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

pub(crate) fn short_hash(h: &str) -> String {
    h.chars().take(12).collect()
}
