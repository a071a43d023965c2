//! The loopback carve-out against URLs labeled by an independent WHATWG
//! parser (Node.js's `URL` over web-platform-tests' urltestdata; see
//! `corpora/real-world/README.md`). Every record must agree: parse failure
//! with `parse_ok: false`, and the loopback decision with `is_loopback`.

use rbv_reference::classify::fetch::is_loopback;
use serde_json::Value;
use url::Url;

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../corpora/real-world/url-wpt.jsonl"
);

/// Where rust-url (2.5.8) rejects what WHATWG accepts: a relative reference
/// of three or more slashes against a special base (`///test` against
/// `http://example.org/`; WHATWG skips the extra slashes and finds the host
/// `test`, rust-url reports an empty host). These are the only tolerated
/// disagreements, because they err on the safe side: the inspector escalates
/// a URL it cannot parse, and a fetch URL is absolute anyway (no base). A
/// listed input that starts to agree makes the test fail, so the list stays
/// exact when the parser is upgraded.
const SAFE_PARSE_DIVERGENCES: &[(&str, &str)] = &[
    ("///test", "http://example.org/"),
    ("///\\//\\//test", "http://example.org/"),
    ("///example.org/path", "http://example.org/"),
    ("///example.org/../path", "http://example.org/"),
    ("///example.org/../../", "http://example.org/"),
    ("///example.org/../path/../../", "http://example.org/"),
    ("///example.org/../path/../../path", "http://example.org/"),
];

#[test]
fn loopback_decisions_agree_with_the_whatwg_labels() {
    let text = std::fs::read_to_string(CORPUS).expect("the URL corpus is checked in");
    let mut disagreements = Vec::new();
    let mut tolerated = Vec::new();
    let (mut records, mut loopbacks) = (0, 0);
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let record: Value = serde_json::from_str(line).expect("each corpus line is JSON");
        let input = record["url"].as_str().expect("`url` is a string");
        let base = record["base"].as_str();
        let parse_ok = record["parse_ok"].as_bool().expect("`parse_ok` is a bool");
        let expected = record["is_loopback"]
            .as_bool()
            .expect("`is_loopback` is a bool");
        let parsed = match base {
            Some(base) => Url::parse(base).and_then(|base| base.join(input)),
            None => Url::parse(input),
        };
        records += 1;
        loopbacks += usize::from(expected);
        let observed = parsed.as_ref().map(is_loopback).unwrap_or(false);
        let listed = SAFE_PARSE_DIVERGENCES
            .iter()
            .any(|&(u, b)| u == input && Some(b) == base);
        if listed && parsed.is_err() && parse_ok && !expected {
            tolerated.push(input.to_owned());
            continue;
        }
        if parsed.is_ok() != parse_ok || observed != expected {
            disagreements.push(format!(
                "line {}: parsed {:?} (labeled parse_ok {parse_ok}), loopback {observed} \
                 (labeled {expected}): {line}",
                number + 1,
                parsed.as_ref().map(Url::as_str),
            ));
        }
    }
    assert!(
        records > 800 && loopbacks >= 3,
        "corpus looks truncated: {records} records"
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert_eq!(
        tolerated.len(),
        SAFE_PARSE_DIVERGENCES.len(),
        "stale SAFE_PARSE_DIVERGENCES: only {tolerated:?} still diverge"
    );
}
