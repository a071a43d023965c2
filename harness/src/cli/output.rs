//! What `rbv run` prints: one block per failing or erroring case, skips by
//! reason, the failure breakdown, and the summary as the very last line.
//!
//! Everything an implementation wrote is shown escaped (`text::terminal`):
//! no escape sequence, link or bidi control of its reaches the terminal or
//! the CI log, and none of its text starts a line (a forged summary, a
//! `::warning::` command): it follows rbv's own words on the line, or a
//! `| ` gutter.

use crate::runner::{RunOutcome, Summary};
use crate::verdict::Verdict;
use std::fmt::Write as _;

/// ANSI styling, used only when writing to a terminal.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Colors the lines of a unified diff.
    fn diff_line(self, line: &str) -> String {
        match line.as_bytes().first() {
            Some(b'-') if !line.starts_with("---") => self.paint("31", line),
            Some(b'+') if !line.starts_with("+++") => self.paint("32", line),
            Some(b'@') => self.paint("36", line),
            _ => line.to_owned(),
        }
    }
}

/// The full text of a run's report on the terminal; its last line is the summary.
pub fn render(outcome: &RunOutcome, style: Style) -> String {
    let mut out = String::new();
    for result in &outcome.results {
        match &result.verdict {
            Verdict::Pass | Verdict::Skip { .. } => {}
            Verdict::Fail(f) => {
                let label = style.paint("1;31", &format!("FAIL {}", result.verdict.label()));
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
                        let _ = writeln!(out, "    {}", style.diff_line(&terminal(line)));
                    }
                }
            }
            Verdict::Error(e) => {
                let kind = serde_json::to_value(e.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let label = style.paint("1;35", &format!("ERROR {kind}"));
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
                if let Some(line) = &e.line {
                    let _ = writeln!(out, "    line: {}", one_line(line));
                }
                if !e.stderr_tail.trim().is_empty() {
                    let _ = writeln!(out, "    stderr:");
                    for line in rbv_report::text::terminal_lines(&e.stderr_tail) {
                        let _ = writeln!(out, "      | {line}");
                    }
                }
            }
        }
    }
    let summary = Summary::of(&outcome.results);
    for (reason, count) in &summary.skip_reasons {
        let _ = writeln!(
            out,
            "{} {count}: {}",
            style.paint("33", "skipped"),
            one_line(reason)
        );
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

fn one_line(text: &str) -> String {
    rbv_report::text::one_line(text, 400)
}

fn terminal(text: &str) -> String {
    rbv_report::text::terminal(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{ErrorKind, ErrorVerdict, FailKind, Failure};
    use crate::worker::CaseResult;
    use std::time::Duration;

    fn outcome() -> RunOutcome {
        let result = |id: &str, verdict| CaseResult {
            id: id.into(),
            verdict,
            run: None,
            session: String::new(),
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
    fn color_marks_labels_and_diff_lines_but_not_the_summary() {
        let text = render(&outcome(), Style { color: true });
        assert!(text.contains("\x1b[1;31mFAIL under\x1b[0m b/under"));
        assert!(text.contains("\x1b[31m-  \"band\": \"escalate\"\x1b[0m"));
        assert!(text.contains("\x1b[32m+  \"band\": \"auto\"\x1b[0m"));
        assert!(text.ends_with("rbv: 1 passed, 2 failed, 1 skipped\n"));
    }
}
