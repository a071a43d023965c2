//! What rbv keeps of an implementation's words: enough for a report, never
//! all of it. An implementation may answer with a legal 1 MB key nobody
//! reads, or a 100 kB message, in every answer of every case; kept whole,
//! that is gigabytes of memory and of report files. Every string it
//! controls is capped per field and per case, with a marker saying how
//! much was cut of how much (see `rbv_report::text::cap`).

use crate::case::CaseRun;
use crate::transport::Identity;
use crate::verdict::Verdict;
use rbv_report::text::cap;
use serde_json::Value;

/// The most one text field of a verdict keeps.
pub const MAX_FIELD: usize = 8 * 1024;
/// The most all text fields of one verdict keep together.
pub const MAX_CASE: usize = 16 * 1024;
/// The most a string inside a recorded answer keeps.
pub const MAX_ANSWER_STRING: usize = 1024;
/// The most a recorded request keeps (requests come from case files).
pub const MAX_REQUEST: usize = 64 * 1024;

/// Caps the verdict's text and slims the recorded exchanges.
pub fn bound_result(verdict: &mut Verdict, run: Option<&mut CaseRun>) {
    bound_verdict(verdict);
    if let Some(run) = run {
        bound_verdict(&mut run.verdict);
        for exchange in &mut run.exchanges {
            // The raw line repeats the answer; a report shows the verdict's.
            exchange.line = None;
            if let Some(answer) = exchange.response.as_mut() {
                bound_value(answer, 0);
            }
            cap(&mut exchange.request, MAX_REQUEST);
        }
    }
}

/// Caps every text field: each to [`MAX_FIELD`], all together to
/// [`MAX_CASE`] (earlier fields first: the message, then what was
/// expected and observed, the diff, the line and the stderr tail).
pub fn bound_verdict(verdict: &mut Verdict) {
    let fields: Vec<&mut String> = match verdict {
        Verdict::Pass => Vec::new(),
        Verdict::Skip { reason } => vec![reason],
        Verdict::Fail(f) => vec![
            &mut f.message,
            &mut f.expected,
            &mut f.observed,
            &mut f.diff,
        ],
        Verdict::Error(e) => {
            let mut fields = vec![&mut e.message];
            if let Some(line) = e.line.as_mut() {
                fields.push(line);
            }
            fields.push(&mut e.stderr_tail);
            fields
        }
    };
    let mut left = MAX_CASE;
    for field in fields {
        cap(field, MAX_FIELD.min(left).max(64));
        left = left.saturating_sub(field.len());
    }
}

/// Caps the strings of a recorded answer; deep values are replaced.
fn bound_value(value: &mut Value, depth: usize) {
    match value {
        Value::String(s) => {
            cap(s, MAX_ANSWER_STRING);
        }
        Value::Array(items) if depth < 16 => {
            items.iter_mut().for_each(|v| bound_value(v, depth + 1));
        }
        Value::Object(map) if depth < 16 => {
            map.values_mut().for_each(|v| bound_value(v, depth + 1));
        }
        Value::Array(_) | Value::Object(_) => {
            *value = Value::String("(nested too deep: not kept)".into());
        }
        _ => {}
    }
}

/// The most of a handshake's name, version, capability or profile key.
pub const MAX_NAME: usize = 256;
/// The most capabilities and profile entries kept.
pub const MAX_ENTRIES: usize = 64;
/// The most a profile value may take (as JSON) and how deep it may nest.
pub const MAX_PROFILE_VALUE: usize = 1024;
const MAX_PROFILE_DEPTH: usize = 8;

/// The handshake as rbv keeps it: a name, version, capabilities and
/// profile of bounded size and depth (a 300-deep profile copied into
/// report.json would make it unreadable to `rbv diff`).
pub fn bound_identity(identity: &mut Identity) {
    let hs = &mut identity.handshake;
    cap(&mut hs.implementation.name, MAX_NAME);
    cap(&mut hs.implementation.version, MAX_NAME);
    hs.capabilities.truncate(MAX_ENTRIES);
    for c in &mut hs.capabilities {
        cap(c, MAX_NAME);
    }
    if hs.profile.len() > MAX_ENTRIES {
        let keep: Vec<String> = hs.profile.keys().take(MAX_ENTRIES).cloned().collect();
        hs.profile.retain(|k, _| keep.contains(k));
    }
    let long: Vec<String> = hs
        .profile
        .keys()
        .filter(|k| k.len() > MAX_NAME)
        .cloned()
        .collect();
    for key in long {
        if let Some(v) = hs.profile.remove(&key) {
            let mut short = key;
            cap(&mut short, MAX_NAME);
            hs.profile.insert(short, v);
        }
    }
    for value in hs.profile.values_mut() {
        let deep = depth(value) > MAX_PROFILE_DEPTH;
        let size = value.to_string().len();
        if deep || size > MAX_PROFILE_VALUE {
            *value = Value::String(format!(
                "(not kept: {size} bytes{})",
                if deep { ", nested too deep" } else { "" }
            ));
        }
    }
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{ErrorKind, ErrorVerdict};

    #[test]
    fn a_verdict_keeps_at_most_the_case_budget_and_says_what_it_cut() {
        let mut v = Verdict::Error(ErrorVerdict {
            kind: ErrorKind::Protocol,
            step: Some(1),
            message: "m".repeat(100_000),
            line: Some("l".repeat(100_000)),
            stderr_tail: "s".repeat(100_000),
        });
        bound_verdict(&mut v);
        let Verdict::Error(e) = v else { unreachable!() };
        let total = e.message.len() + e.line.as_ref().map_or(0, String::len) + e.stderr_tail.len();
        assert!(total < MAX_CASE + 400, "{total}");
        assert!(
            e.message.ends_with("bytes cut of 100000]"),
            "{}",
            &e.message[8000..]
        );
    }
}
