//! What users read never shows Rust's debug formatting: every message,
//! expectation and observation of every planted mutant's failures, run
//! over the whole corpus.

use rbv::case::load_dir;
use rbv::runner::{run, RunOptions};
use rbv::transport::Target;
use rbv::verdict::Verdict;
use rbv_reference::Mutant;

/// Debug renderings of `Option`, of enums in a list and of unit variants
/// of rbv's own enums (`EditNumber`, `Shell`).
fn debug_formatting(text: &str) -> Option<&'static str> {
    const MARKS: &[&str] = &["Some(", "None,", "(None)", ": None", "Ok(", "Err("];
    if let Some(m) = MARKS.iter().find(|m| text.contains(**m)) {
        return Some(m);
    }
    // `[Shell]`, `[Manifest, Sql]`: capitalized words in brackets.
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'[' && bytes.get(i + 1).is_some_and(u8::is_ascii_uppercase) {
            let rest = &text[i + 1..];
            let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
            if rest[word.len()..].starts_with([']', ','])
                && word.chars().skip(1).any(|c| c.is_ascii_lowercase())
            {
                return Some("[Variant]");
            }
        }
    }
    None
}

#[test]
fn the_detector_catches_what_it_is_for() {
    assert!(debug_formatting("loaded is Some(true)").is_some());
    assert!(debug_formatting("does not claim [Shell]").is_some());
    assert!(debug_formatting("ids [Manifest, Sql]").is_some());
    assert!(debug_formatting("band escalate is above auto [RBV-SQL-001]").is_none());
}

#[test]
fn no_failure_of_any_mutant_reads_like_rust_debug_output() {
    let suite = load_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../cases").as_ref())
        .unwrap_or_else(|e| panic!("{} load errors", e.len()));
    let options = RunOptions {
        filters: Vec::new(),
        jobs: 2,
        deadline: None,
    };
    let mut checked = 0;
    for mutant in Mutant::ALL {
        let outcome = run(
            &suite.cases,
            &Target::InProcess(Some(*mutant), Default::default()),
            &options,
        );
        for r in &outcome.results {
            let texts: Vec<&str> = match &r.verdict {
                Verdict::Fail(f) => vec![&f.message, &f.expected, &f.observed],
                Verdict::Error(e) => vec![&e.message],
                Verdict::Skip { reason } => vec![reason],
                Verdict::Pass => continue,
            };
            for t in texts {
                checked += 1;
                if let Some(mark) = debug_formatting(t) {
                    panic!("{mutant} {}: `{mark}` in {t}", r.id);
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} texts checked");
}
