//! What rbv keeps of an implementation's words: enough for a report, never
//! all of it. An implementation may answer with a legal 1 MB key nobody
//! reads, or a 100 kB message, in every answer of every case; kept whole,
//! that is gigabytes of memory and of report files. Every string it
//! controls is capped per field and per case, with a marker saying how
//! much was cut of how much (see `rbv_report::text::cap`).

use crate::case::Exchange;
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

/// Caps the verdict's text and keeps of the exchanges only what a report
/// reads, slimmed: a run's results are all alive until its reports are
/// written, so whatever a result keeps is paid once per case.
pub fn bound_result(verdict: &mut Verdict, exchanges: Option<&mut Vec<Exchange>>) {
    bound_verdict(verdict);
    if let Some(exchanges) = exchanges {
        keep_shown(exchanges, verdict.step());
        for exchange in exchanges.iter_mut() {
            // The raw line repeats the answer; a report shows the verdict's.
            exchange.line = None;
            if let Some(answer) = exchange.response.as_mut() {
                bound_value(answer, 0);
            }
            cap(&mut exchange.request, MAX_REQUEST);
        }
    }
}

/// What a report and the console show of a case's exchanges: those of the
/// step that decided its failure or error, and the earlier ones whose
/// answer minted a token that step sends ("minted by"). A pass, a skip or
/// an error of no step shows none.
fn keep_shown(exchanges: &mut Vec<Exchange>, deciding: Option<usize>) {
    let Some(step) = deciding else {
        *exchanges = Vec::new();
        return;
    };
    let sent: Vec<Value> = exchanges
        .iter()
        .filter(|e| e.step == step)
        .filter_map(|e| e.request_value().get("token").cloned())
        .collect();
    exchanges.retain(|e| {
        e.step == step
            || (e.step < step
                && e.response
                    .as_ref()
                    .and_then(|r| r.get("token"))
                    .is_some_and(|t| sent.contains(t)))
    });
    exchanges.shrink_to_fit();
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

/// Caps a recorded answer: each string, the depth, and the whole, which a
/// long array of small values could otherwise make megabytes of tree
/// within one legal line.
fn bound_value(value: &mut Value, depth: usize) {
    let mut budget = MAX_ANSWER_KEPT;
    bound_within(value, depth, &mut budget);
}

/// The most of one recorded answer kept, about as many bytes of JSON.
pub const MAX_ANSWER_KEPT: usize = 8 * 1024;

/// Keeps `value` within `budget` (bytes of JSON, roughly), spending it:
/// array items and object entries past the budget are dropped, with a
/// marker saying how many.
fn bound_within(value: &mut Value, depth: usize, budget: &mut usize) {
    match value {
        Value::String(s) => {
            cap(s, MAX_ANSWER_STRING.min(*budget).max(16));
            *budget = budget.saturating_sub(s.len() + 2);
        }
        Value::Array(_) | Value::Object(_) if depth >= 16 => {
            *value = Value::String("(nested too deep: not kept)".into());
            *budget = budget.saturating_sub(32);
        }
        Value::Array(items) => {
            let mut kept = 0;
            while kept < items.len() && *budget > 0 {
                *budget = budget.saturating_sub(1);
                bound_within(&mut items[kept], depth + 1, budget);
                kept += 1;
            }
            if kept < items.len() {
                let dropped = items.len() - kept;
                items.truncate(kept);
                items.push(Value::String(format!("({dropped} more items not kept)")));
                items.shrink_to_fit();
            }
        }
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let mut dropped = 0;
            for key in keys {
                if *budget == 0 {
                    map.remove(&key);
                    dropped += 1;
                    continue;
                }
                *budget = budget.saturating_sub(key.len() + 4);
                if let Some(v) = map.get_mut(&key) {
                    bound_within(v, depth + 1, budget);
                }
            }
            if dropped > 0 {
                map.insert(
                    "(not kept)".into(),
                    Value::String(format!("{dropped} more keys")),
                );
            }
        }
        _ => *budget = budget.saturating_sub(8),
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

    fn exchange(step: usize, request: &str, response: &str) -> Exchange {
        Exchange {
            step,
            request: request.to_owned(),
            response: Some(serde_json::from_str(response).unwrap()),
            line: Some(response.to_owned()),
        }
    }

    fn steps(exchanges: &[Exchange]) -> Vec<usize> {
        exchanges.iter().map(|e| e.step).collect()
    }

    /// A case of four steps: step 1 mints token `t1`, step 2 mints `t2`,
    /// step 3 answers, step 4 sends `t2` twice at once.
    fn four_steps() -> Vec<Exchange> {
        vec![
            exchange(
                1,
                r#"{"type":"approve"}"#,
                r#"{"type":"approval","token":"t1"}"#,
            ),
            exchange(
                2,
                r#"{"type":"approve"}"#,
                r#"{"type":"approval","token":"t2"}"#,
            ),
            exchange(3, r#"{"type":"evaluate"}"#, r#"{"type":"evaluation"}"#),
            exchange(
                4,
                r#"{"type":"invoke","token":"t2"}"#,
                r#"{"type":"invocation"}"#,
            ),
            exchange(
                4,
                r#"{"type":"invoke","token":"t2"}"#,
                r#"{"type":"invocation"}"#,
            ),
        ]
    }

    fn failed_at(step: usize) -> Verdict {
        Verdict::Fail(crate::verdict::Failure {
            kind: crate::verdict::FailKind::Under,
            step,
            message: String::new(),
            expected: String::new(),
            observed: String::new(),
            diff: String::new(),
        })
    }

    #[test]
    fn a_failure_keeps_its_deciding_step_and_the_approval_that_minted_its_token() {
        let mut kept = four_steps();
        bound_result(&mut failed_at(4), Some(&mut kept));
        assert_eq!(steps(&kept), [2, 4, 4]);
        assert!(kept.iter().all(|e| e.line.is_none()), "raw lines dropped");
        let mut kept = four_steps();
        bound_result(&mut failed_at(3), Some(&mut kept));
        assert_eq!(steps(&kept), [3]);
    }

    #[test]
    fn a_pass_a_skip_and_an_error_between_steps_keep_no_exchange() {
        let between = Verdict::Error(ErrorVerdict {
            kind: ErrorKind::Crash,
            step: None,
            message: String::new(),
            line: None,
            stderr_tail: String::new(),
        });
        let skip = Verdict::Skip {
            reason: "not claimed".into(),
        };
        for mut verdict in [Verdict::Pass, skip, between] {
            let mut kept = four_steps();
            bound_result(&mut verdict, Some(&mut kept));
            assert!(kept.is_empty(), "{verdict:?} kept {:?}", steps(&kept));
        }
        let mut unreached = None;
        bound_result(&mut Verdict::Pass, unreached.as_mut());
        assert!(unreached.is_none(), "a case never run stays unreached");
    }

    #[test]
    fn a_recorded_answer_keeps_about_its_budget_however_many_small_values_it_has() {
        let huge = serde_json::json!({
            "type": "evaluation",
            "band": "auto",
            "list": vec![1; 200_000],
            "words": vec!["w"; 200_000],
            "wide": (0..50_000).map(|i| (format!("k{i}"), Value::from(i))).collect::<serde_json::Map<_, _>>(),
        });
        let mut kept = vec![Exchange {
            step: 1,
            request: "{}".into(),
            response: Some(huge),
            line: None,
        }];
        bound_result(&mut failed_at(1), Some(&mut kept));
        let answer = kept[0].response.as_ref().unwrap();
        let size = answer.to_string().len();
        assert!(size < MAX_ANSWER_KEPT + 1024, "{size} bytes kept");
        // The keys before the budget ran out stay, and the cut is said.
        assert_eq!(answer["band"], "auto");
        assert!(
            answer.to_string().contains("more items not kept"),
            "{answer}"
        );
    }
}
