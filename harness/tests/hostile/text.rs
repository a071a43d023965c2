//! Text an implementation controls (its name, version, capabilities,
//! profile, messages) reaches people: the terminal, the CI log, junit.xml,
//! summary.md, and `rbv diff`/`compare` of its report.json. Escaped, never
//! a line of its own, always valid, never a live link or mention.

use super::*;

/// Runs the `evil-text` fake with a report; returns (stdout, report dir).
fn evil_run() -> (String, tempfile::TempDir) {
    let corpus = corpus();
    let reports = tempfile::tempdir().expect("temp dir");
    let dir = reports.path().join("report");
    let out = rbv_run(
        "evil-text",
        corpus.path(),
        &["--report", dir.to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}{out:?}");
    (stdout, reports)
}

/// No control character but newline and tab, no bidi control, and no
/// line that the implementation's text begins.
fn assert_terminal_safe(what: &str, text: &str) {
    let bad = text
        .chars()
        .find(|&c| rbv_report::text::is_hostile(c) && c != '\n' && c != '\t');
    assert_eq!(bad, None, "{what}: {text}");
    for line in text.lines() {
        let trimmed = line.trim_start();
        assert!(
            !trimmed.starts_with("::") && !trimmed.starts_with("rbv: 999"),
            "{what}: a forged line: {line:?}"
        );
    }
}

#[test]
fn implementation_text_on_the_terminal_is_escaped_and_starts_no_line() {
    let (stdout, _reports) = evil_run();
    assert_terminal_safe("rbv run", &stdout);
    assert!(stdout.contains("\\x1b]8;;http"), "{stdout}");
    assert!(
        stdout.ends_with("rbv: 0 passed, 4 failed, 0 skipped\n"),
        "{stdout}"
    );
}

#[test]
fn junit_xml_holds_only_characters_xml_allows() {
    let (_, reports) = evil_run();
    let path = reports.path().join("report/junit.xml");
    let xml = std::fs::read_to_string(&path).expect("junit.xml");
    let bad = xml.chars().find(|&c| !rbv_report::text::xml_allowed(c));
    assert_eq!(bad, None, "a character XML forbids");
    // Character references to forbidden characters are as invalid.
    for reference in ["&#x1b;", "&#27;", "&#xfffe;", "&#xFFFE;", "&#1;"] {
        assert!(!xml.contains(reference), "{reference}");
    }
    match Command::new("xmllint").arg("--noout").arg(&path).output() {
        Ok(out) => assert!(out.status.success(), "xmllint: {out:?}"),
        Err(_) => eprintln!("SKIPPED: xmllint is not installed; checked the characters only"),
    }
}

#[test]
fn summary_md_has_no_live_link_mention_or_bidi_control() {
    let (_, reports) = evil_run();
    let md = std::fs::read_to_string(reports.path().join("report/summary.md")).unwrap();
    assert!(md.contains("octocat"), "the text is still there");
    for live in ["\u{202e}", "\u{1b}"] {
        assert!(!md.contains(live), "{live:?} in summary.md:\n{md}");
    }
    // Outside fenced blocks (where nothing is live), no mention, no link.
    let mut fenced = false;
    for line in md.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for live in ["@octocat", "https://evil", "http://evil", "[a](http"] {
            assert!(!line.contains(live), "{live:?} in summary.md: {line}");
        }
    }
}

#[test]
fn a_hostile_handshake_is_bounded_and_its_report_reads_back() {
    let (_, reports) = evil_run();
    let json = reports.path().join("report/report.json");
    let size = std::fs::metadata(&json).unwrap().len();
    assert!(size < 512 * 1024, "report.json is {size} bytes");
    for args in [&["diff"][..], &["compare"]] {
        let out = rbv()
            .args(args)
            .arg(&json)
            .arg(&json)
            .output()
            .expect("rbv diff/compare");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_terminal_safe(args[0], &stdout);
    }
}
