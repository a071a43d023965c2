//! What `rbv run` prints: one block per failing or erroring case, skips by
//! reason, the failure breakdown, and the summary as the very last line.
//!
//! Everything an implementation wrote is shown escaped (`text::terminal`):
//! no escape sequence, link or bidi control of its reaches the terminal or
//! the CI log, and none of its text starts a line (a forged summary, a
//! `::warning::` command): it follows rbv's own words on the line, or a
//! `| ` gutter.

use crate::case::{answers_to, reasons_to, Exchange};
use crate::runner::{RunOutcome, Summary};
use crate::verdict::{ErrorVerdict, Verdict};
use crate::worker::CaseResult;
use anstyle::AnsiColor;
use rbv_protocol::Capability;
use std::fmt::Write as _;

/// ANSI styling, used only where colour is wanted.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
}

const FAIL: anstyle::Style = AnsiColor::Red.on_default().bold();
const ERROR: anstyle::Style = AnsiColor::Magenta.on_default().bold();
const NOTE: anstyle::Style = AnsiColor::Yellow.on_default();
const REMOVED: anstyle::Style = AnsiColor::Red.on_default();
const ADDED: anstyle::Style = AnsiColor::Green.on_default();
const HUNK: anstyle::Style = AnsiColor::Cyan.on_default();

impl Style {
    /// Colour where stdout is a terminal that shows it, as the
    /// conventions say: `NO_COLOR` turns it off, `CLICOLOR=0` too, and
    /// `CLICOLOR_FORCE` turns it on where stdout is not a terminal
    /// (anstream's choice).
    pub fn for_stdout() -> Self {
        let choice = anstream::AutoStream::choice(&std::io::stdout());
        Style {
            color: choice != anstream::ColorChoice::Never,
        }
    }

    fn paint(style: anstyle::Style, text: &str) -> String {
        format!("{style}{text}{style:#}")
    }

    /// `text` (neutralised) with rbv's labels and diff lines colored. The
    /// colors are put in after the pass, by the start of each line: no
    /// line starts with an implementation's text, so only rbv's own words
    /// are painted, and the only escapes on the terminal are rbv's.
    fn colored(self, text: String) -> String {
        if !self.color {
            return text;
        }
        let mut out = String::with_capacity(text.len() + 256);
        for line in text.split_inclusive('\n') {
            let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
            let label = |words: usize| {
                let at = body
                    .match_indices(' ')
                    .nth(words - 1)
                    .map_or(body.len(), |(i, _)| i);
                body.split_at(at)
            };
            let painted = if let Some(diff) = body.strip_prefix("    ") {
                match diff.as_bytes().first() {
                    Some(b'-') if !diff.starts_with("---") => {
                        format!("    {}", Self::paint(REMOVED, diff))
                    }
                    Some(b'+') if !diff.starts_with("+++") => {
                        format!("    {}", Self::paint(ADDED, diff))
                    }
                    Some(b'@') => format!("    {}", Self::paint(HUNK, diff)),
                    _ => body.to_owned(),
                }
            } else {
                let (style, words) = if body.starts_with("FAIL ") {
                    (FAIL, 2)
                } else if body.starts_with("ERROR ") {
                    (ERROR, 2)
                } else if body.starts_with("warning: ") || body.starts_with("skipped ") {
                    (NOTE, 1)
                } else {
                    (anstyle::Style::new(), 0)
                };
                if words == 0 {
                    body.to_owned()
                } else {
                    let (head, rest) = label(words);
                    format!("{}{rest}", Self::paint(style, head))
                }
            };
            out.push_str(&painted);
            out.push_str(end);
        }
        out
    }
}

/// The full text of a run's report on the terminal; its last line is the
/// summary. Built plain, through `text::console` as a whole (whatever a
/// field's own escaping missed), then colored.
pub fn render(outcome: &RunOutcome, style: Style) -> String {
    style.colored(rbv_report::text::console(plain(outcome)))
}

fn plain(outcome: &RunOutcome) -> String {
    let mut out = String::new();
    for warning in handshake_warnings(outcome) {
        let _ = writeln!(out, "warning: {warning}");
    }
    let unreached = unreached_groups(outcome);
    for (error, count) in &unreached {
        let label = format!("ERROR {}", error_kind(error));
        let scope = if *count == outcome.results.len() {
            format!("nothing ran ({count} cases)")
        } else {
            format!("{count} cases did not run")
        };
        let _ = writeln!(out, "{label} {scope}: {}", one_line(&error.message));
        if let Some(line) = &error.line {
            let _ = writeln!(out, "    line: {}", one_line(line));
        }
        stderr_lines(&mut out, &error.stderr_tail);
    }
    for result in &outcome.results {
        if is_unreached(result) {
            continue;
        }
        match &result.verdict {
            Verdict::Pass | Verdict::Skip { .. } => {}
            Verdict::Fail(f) => {
                let label = format!("FAIL {}", result.verdict.label());
                let _ = writeln!(
                    out,
                    "{label} {}: {}",
                    terminal(&result.id),
                    one_line(&f.message)
                );
                if f.diff.trim().is_empty() {
                    let _ = writeln!(out, "    expected: {}", one_line(&f.expected));
                    let _ = writeln!(out, "    observed: {}", one_line(&f.observed));
                } else {
                    for line in f.diff.lines() {
                        let _ = writeln!(out, "    {}", terminal(line));
                    }
                }
                for line in request_lines(result.exchanges.as_deref(), f.step) {
                    let _ = writeln!(out, "    {line}");
                }
                for line in answer_lines(result.exchanges.as_deref(), f.step) {
                    let _ = writeln!(out, "    {line}");
                }
            }
            Verdict::Error(e) => {
                let label = format!("ERROR {}", error_kind(e));
                // Messages of the case engine already name their step.
                let step = match e.step {
                    Some(s) if !e.message.starts_with("step ") => format!(" (step {s})"),
                    _ => String::new(),
                };
                let _ = writeln!(
                    out,
                    "{label} {}{step}: {}",
                    terminal(&result.id),
                    one_line(&e.message)
                );
                if let Some(step) = e.step {
                    for line in request_lines(result.exchanges.as_deref(), step) {
                        let _ = writeln!(out, "    {line}");
                    }
                }
                if let Some(line) = &e.line {
                    let _ = writeln!(out, "    line: {}", one_line(line));
                }
                stderr_lines(&mut out, &e.stderr_tail);
            }
        }
    }
    let summary = Summary::of(&outcome.results);
    for (reason, count) in &summary.skip_reasons {
        let _ = writeln!(out, "skipped {count}: {}", one_line(reason));
    }
    let _ = writeln!(out, "{}", summary.breakdown_line());
    let _ = writeln!(out, "{}", summary.final_line());
    out
}

/// Writes `text` to stdout; a closed pipe (`rbv run | head`) is not an error.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

fn stderr_lines(out: &mut String, tail: &str) {
    if !tail.trim().is_empty() {
        let _ = writeln!(out, "    stderr:");
        for line in rbv_report::text::terminal_lines(tail) {
            let _ = writeln!(out, "      | {line}");
        }
    }
}

fn error_kind(e: &ErrorVerdict) -> &'static str {
    e.kind.as_str()
}

/// A case no implementation ever saw: it could not be started (or its
/// handshake failed).
fn is_unreached(result: &CaseResult) -> bool {
    result.exchanges.is_none()
        && result.session.is_empty()
        && matches!(result.verdict, Verdict::Error(_))
}

/// The errors of cases that never reached an implementation, each with
/// how many cases it stopped: printed once, not once per case.
fn unreached_groups(outcome: &RunOutcome) -> Vec<(&ErrorVerdict, usize)> {
    let mut groups: Vec<(&ErrorVerdict, usize)> = Vec::new();
    for result in outcome.results.iter().filter(|r| is_unreached(r)) {
        let Verdict::Error(e) = &result.verdict else {
            continue;
        };
        match groups.iter_mut().find(|(g, _)| g.message == e.message) {
            Some((_, n)) => *n += 1,
            None => groups.push((e, 1)),
        }
    }
    groups
}

/// Capability names in the handshake that rbv does not know, each once,
/// with the known name it most resembles.
pub fn handshake_warnings(outcome: &RunOutcome) -> Vec<String> {
    let Some(identity) = &outcome.identity else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for name in &identity.handshake.capabilities {
        if name.parse::<Capability>().is_ok() || !seen.insert(name.as_str()) {
            continue;
        }
        // A long name is no typo; the distance would cost its square.
        let closest = Capability::ALL
            .iter()
            .filter(|_| name.len() <= 64)
            .map(|c| {
                (
                    strsim::damerau_levenshtein(&name.to_lowercase(), c.as_str()),
                    c,
                )
            })
            .min_by_key(|(d, _)| *d)
            .filter(|(d, _)| *d <= 3);
        let hint = closest
            .map(|(_, c)| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default();
        // The name is the implementation's text: escaped and cut.
        let name = one_line(name);
        out.push(format!(
            "the handshake claims `{name}`, which is no capability rbv knows{hint}; it is ignored, \
             and the cases that need it are skipped as not claimed"
        ));
    }
    out
}

/// What the deciding step sent, in at most three lines: the request
/// (the first of a `concurrent` step, with how many more), and for a
/// request that carries a token the approval that minted it.
fn request_lines(exchanges: Option<&[Exchange]>, step: usize) -> Vec<String> {
    let Some(exchanges) = exchanges else {
        return Vec::new();
    };
    let sent: Vec<&Exchange> = exchanges.iter().filter(|e| e.step == step).collect();
    let Some(first) = sent.first() else {
        return Vec::new();
    };
    let mut lines = vec![format!("request: {}", compact_request(first))];
    if sent.len() > 1 {
        lines[0].push_str(&format!(" (and {} more at once)", sent.len() - 1));
    }
    let token = first.request_value().get("token").cloned();
    if let Some(token) = token.filter(|t| t.is_string()) {
        let minted = exchanges
            .iter()
            .filter(|e| e.step < step)
            .find(|e| e.response.as_ref().and_then(|r| r.get("token")) == Some(&token));
        match minted {
            Some(e) => lines.push(format!("minted by: {}", compact_request(e))),
            None => lines.push("the token was not minted in this case".to_owned()),
        }
    }
    lines
}

/// The implementation's own words on the deciding step: its `reasons`,
/// then its whole answer on one line, each shortened (the diff above
/// shows only the keys the case checks).
fn answer_lines(exchanges: Option<&[Exchange]>, step: usize) -> Vec<String> {
    let Some(exchanges) = exchanges else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    let reasons: Vec<&str> = reasons_to(exchanges, step).collect();
    if !reasons.is_empty() {
        lines.push(format!("reasons: {}", one_line(&reasons.join("; "))));
    }
    let answers: Vec<String> = answers_to(exchanges, step).map(|a| a.to_string()).collect();
    if !answers.is_empty() {
        lines.push(format!(
            "answer: {}",
            terminal(&crate::transport::lines::truncate(&answers.join(" "), 600))
        ));
    }
    lines
}

/// `evaluate {"operation":…}` on one line, shortened.
fn compact_request(exchange: &Exchange) -> String {
    let mut value = exchange.request_value();
    let kind = value
        .as_object_mut()
        .and_then(|o| o.remove("type"))
        .and_then(|t| t.as_str().map(str::to_owned))
        .unwrap_or_default();
    // The case file and the implementation's token are untrusted text.
    terminal(&crate::transport::lines::truncate(
        &format!("{kind} {value}"),
        300,
    ))
}

fn one_line(text: &str) -> String {
    rbv_report::text::one_line(text, 400)
}

fn terminal(text: &str) -> String {
    rbv_report::text::terminal(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{ErrorKind, FailKind, Failure};
    use std::time::Duration;

    fn outcome() -> RunOutcome {
        // A worker ran each of them: a session is named.
        let result = |id: &str, verdict| CaseResult {
            id: id.into(),
            verdict,
            exchanges: None,
            session: "0-1".into(),
            duration: Duration::ZERO,
        };
        RunOutcome {
            results: vec![
                result("a/pass", Verdict::Pass),
                result(
                    "b/under",
                    Verdict::Fail(Failure {
                        kind: FailKind::Under,
                        step: 2,
                        message: "step 2 (evaluate): band auto is below escalate".into(),
                        expected: "escalate".into(),
                        observed: "auto".into(),
                        diff: "--- expected\n+++ observed\n-  \"band\": \"escalate\"\n+  \"band\": \"auto\"\n".into(),
                    }),
                ),
                result(
                    "c/crash",
                    Verdict::Error(ErrorVerdict {
                        kind: ErrorKind::Crash,
                        step: Some(1),
                        message: "the child closed stdout".into(),
                        line: None,
                        stderr_tail: "Traceback\nKeyError: 'x'\n".into(),
                    }),
                ),
                result("d/skip", Verdict::Skip { reason: "needs sql".into() }),
            ],
            identity: None,
            target: "t".into(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn plain_output_names_each_failure_and_ends_with_the_summary() {
        let text = render(&outcome(), Style { color: false });
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "FAIL under b/under: step 2 (evaluate): band auto is below escalate"
        );
        assert_eq!(lines[3], "    -  \"band\": \"escalate\"");
        assert_eq!(
            lines[5],
            "ERROR crash c/crash (step 1): the child closed stdout"
        );
        assert!(text.contains("      | KeyError: 'x'\n"));
        assert!(text.contains("skipped 1: needs sql\n"));
        assert_eq!(
            lines[lines.len() - 2],
            "failures: 1 under, 0 over, 0 mismatch, 1 errors"
        );
        assert_eq!(lines[lines.len() - 1], "rbv: 1 passed, 2 failed, 1 skipped");
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn cases_that_never_reached_the_implementation_are_reported_once() {
        let unreached = |id: &str| CaseResult {
            id: id.into(),
            verdict: Verdict::Error(ErrorVerdict {
                kind: ErrorKind::Garbage,
                step: None,
                message: "cannot start `x` (3 attempts): not JSON".into(),
                line: Some("hello".into()),
                stderr_tail: "boom\n".into(),
            }),
            exchanges: None,
            session: String::new(),
            duration: Duration::ZERO,
        };
        let mut o = outcome();
        o.results = vec![unreached("a/1"), unreached("a/2"), unreached("a/3")];
        let text = render(&o, Style { color: false });
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "ERROR garbage nothing ran (3 cases): cannot start `x` (3 attempts): not JSON"
        );
        assert_eq!(lines[1], "    line: hello");
        assert_eq!(text.matches("boom").count(), 1, "{text}");
        assert!(!text.contains("a/1"));
        // Beside cases that ran, it says how many did not.
        o.results.insert(0, outcome().results.remove(0));
        let text = render(&o, Style { color: false });
        assert!(
            text.starts_with("ERROR garbage 3 cases did not run: cannot start"),
            "{text}"
        );
        assert!(text.ends_with("rbv: 1 passed, 3 failed, 0 skipped\n"));
    }

    #[test]
    fn color_marks_labels_and_diff_lines_but_not_the_summary() {
        let text = render(&outcome(), Style { color: true });
        assert!(text.contains("\x1b[1m\x1b[31mFAIL under\x1b[0m b/under"));
        assert!(text.contains("\x1b[31m-  \"band\": \"escalate\"\x1b[0m"));
        assert!(text.contains("\x1b[32m+  \"band\": \"auto\"\x1b[0m"));
        assert!(text.ends_with("rbv: 1 passed, 2 failed, 1 skipped\n"));
    }

    #[test]
    fn a_failure_shows_the_implementations_reasons_and_whole_answer() {
        let mut o = outcome();
        let answer = serde_json::json!({
            "type": "evaluation",
            "band": "auto",
            "decision": "allow",
            "reasons": ["declared auto by the plugin", "no inspector for \u{1b}[2Jsql"],
            "extra": "x".repeat(2000),
        });
        o.results[1].exchanges = Some(vec![Exchange {
            step: 2,
            request: r#"{"type":"evaluate"}"#.into(),
            response: Some(answer),
            line: None,
        }]);
        let text = render(&o, Style { color: false });
        assert!(
            text.contains("    reasons: declared auto by the plugin; no inspector for \\x1b[2Jsql"),
            "{text}"
        );
        let line = text
            .lines()
            .find(|l| l.starts_with("    answer: {"))
            .expect("the answer line");
        assert!(line.contains(r#""decision":"allow""#), "{line}");
        // Bounded: the 2,000-byte field is cut, and says so.
        assert!(line.len() < 800 && line.contains("bytes)"), "{line}");
        assert!(!text.contains('\u{1b}'));
    }
}
