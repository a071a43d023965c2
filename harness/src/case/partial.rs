//! The `match` expectation: a partial JSON match. Objects match when every
//! listed key matches (a listed `null` means absent or null), arrays match
//! element by element with equal length, scalars match exactly (numbers by
//! value). An object whose keys all start with `$` is a value matcher
//! (`{$format: date-time}`, `{$regex: ...}`, `{$one_of: [...]}`,
//! `{$min_length: N}`, `{$max_length: N}`, `{$recent: SECONDS}`): wire
//! answers have no `$` keys, so the two never collide.

use super::requirements::same_value;
use serde_json::Value;

/// The keys of a value matcher inside a `match` pattern.
pub const MATCHER_KEYS: &[&str] = &[
    "$format",
    "$regex",
    "$one_of",
    "$min_length",
    "$max_length",
    "$recent",
];

/// The names `$format` accepts.
pub const FORMATS: &[&str] = &["date-time", "hex-digest"];

fn is_matcher(map: &serde_json::Map<String, Value>) -> bool {
    map.keys().any(|k| k.starts_with('$'))
}

/// Why a `match` pattern is malformed (checked when the case loads, so a
/// bad regex is a load error, never a verdict).
pub fn check(pattern: &Value) -> Result<(), String> {
    match pattern {
        Value::Object(map) if is_matcher(map) => {
            if let Some(k) = map.keys().find(|k| !MATCHER_KEYS.contains(&k.as_str())) {
                return Err(if k.starts_with('$') {
                    format!(
                        "unknown value matcher `{k}` (known: {})",
                        MATCHER_KEYS.join(", ")
                    )
                } else {
                    format!("`{k}` beside value matchers: a map is either a matcher (`$` keys) or a partial object")
                });
            }
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$format", Value::String(f)) if FORMATS.contains(&f.as_str()) => {}
                    ("$format", _) => {
                        return Err(format!("`$format` is one of: {}", FORMATS.join(", ")))
                    }
                    ("$regex", Value::String(r)) => {
                        regex(r).map_err(|e| format!("`$regex`: {e}"))?;
                    }
                    ("$regex", _) => return Err("`$regex` is a string".into()),
                    ("$one_of", Value::Array(set)) if !set.is_empty() => {
                        set.iter().try_for_each(check)?;
                    }
                    ("$one_of", _) => return Err("`$one_of` is a non-empty list".into()),
                    (_, v) if v.as_u64().is_none() => {
                        return Err(format!("`{k}` is a non-negative integer"))
                    }
                    _ => {}
                }
            }
            let bound = |k| map.get(k).and_then(Value::as_u64);
            if let (Some(lo), Some(hi)) = (bound("$min_length"), bound("$max_length")) {
                if lo > hi {
                    return Err(format!("`$min_length` {lo} exceeds `$max_length` {hi}"));
                }
            }
            Ok(())
        }
        Value::Object(map) => map.values().try_for_each(check),
        Value::Array(items) => items.iter().try_for_each(check),
        _ => Ok(()),
    }
}

/// A `$regex` matches the whole string, as a JSON Schema `pattern` with
/// `^…$` would: a case author who writes `[0-9a-f]+` means all of it.
fn regex(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(&format!("^(?:{pattern})$"))
}

/// The length a bound counts: characters, elements or keys.
fn length(v: &Value) -> Option<usize> {
    match v {
        Value::String(s) => Some(s.chars().count()),
        Value::Array(a) => Some(a.len()),
        Value::Object(o) => Some(o.len()),
        _ => None,
    }
}

/// Whether `s` has the form `$format` names.
pub fn has_format(format: &str, s: &str) -> bool {
    match format {
        // RFC 3339 (chrono's parser: full date, time, and an offset or `Z`).
        "date-time" => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
        // Lowercase hex of at least 128 bits, whole bytes.
        "hex-digest" => {
            s.len() >= 32
                && s.len().is_multiple_of(2)
                && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        }
        _ => false,
    }
}

/// Whether `s` is an RFC 3339 date-time at most `secs` seconds from `now`,
/// either way. The answer is judged as it arrives, so its decision time and
/// the harness's clock differ by the exchange alone; the slack allows for a
/// slow machine, not for a wrong date.
pub fn recent(s: &str, secs: u64, now: chrono::DateTime<chrono::Utc>) -> bool {
    chrono::DateTime::parse_from_rfc3339(s).is_ok_and(|t| {
        let apart = (now - t.with_timezone(&chrono::Utc)).num_milliseconds();
        apart.unsigned_abs() <= secs.saturating_mul(1000)
    })
}

/// Whether `observed` satisfies a value matcher (already `check`ed).
fn satisfies(map: &serde_json::Map<String, Value>, observed: Option<&Value>) -> bool {
    let Some(got) = observed.filter(|v| !v.is_null()) else {
        return false;
    };
    map.iter().all(|(k, v)| match k.as_str() {
        "$format" => got
            .as_str()
            .zip(v.as_str())
            .is_some_and(|(s, f)| has_format(f, s)),
        "$regex" => got
            .as_str()
            .zip(v.as_str())
            .is_some_and(|(s, r)| regex(r).is_ok_and(|re| re.is_match(s))),
        "$one_of" => v
            .as_array()
            .is_some_and(|set| set.iter().any(|p| matches(p, Some(got)).is_ok())),
        "$min_length" => length(got)
            .zip(v.as_u64())
            .is_some_and(|(n, lo)| n as u64 >= lo),
        "$max_length" => length(got)
            .zip(v.as_u64())
            .is_some_and(|(n, hi)| n as u64 <= hi),
        "$recent" => got
            .as_str()
            .zip(v.as_u64())
            .is_some_and(|(s, secs)| recent(s, secs, std::time::SystemTime::now().into())),
        _ => false,
    })
}

/// The value at a dotted path (`audit.signature`, `plugins.0.name`): keys of
/// objects, indexes of arrays. Used by `capture` and `present`.
pub fn lookup<'a>(answer: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(answer, |v, key| match v {
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => v.get(key),
    })
}

/// `Err(path)` names the first place (a JSON-Pointer-like path) where
/// `observed` departs from `pattern`.
pub fn matches(pattern: &Value, observed: Option<&Value>) -> Result<(), String> {
    walk(pattern, observed, &mut String::new())
}

fn walk(pattern: &Value, observed: Option<&Value>, path: &mut String) -> Result<(), String> {
    let here = || {
        if path.is_empty() {
            "/".to_owned()
        } else {
            path.clone()
        }
    };
    match (pattern, observed) {
        (Value::Null, None | Some(Value::Null)) => Ok(()),
        (Value::Object(want), observed) if is_matcher(want) => {
            if satisfies(want, observed) {
                Ok(())
            } else {
                Err(here())
            }
        }
        (Value::Object(want), Some(Value::Object(got))) => {
            for (key, sub) in want {
                let len = path.len();
                path.push('/');
                path.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(sub, got.get(key), path)?;
                path.truncate(len);
            }
            Ok(())
        }
        (Value::Array(want), Some(Value::Array(got))) => {
            if want.len() != got.len() {
                return Err(here());
            }
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                walk(w, Some(g), path)?;
                path.truncate(len);
            }
            Ok(())
        }
        (want, Some(got)) if !want.is_object() && !want.is_array() && same_value(want, got) => {
            Ok(())
        }
        _ => Err(here()),
    }
}

/// The part of `observed` that `pattern` talks about, so that a diff of
/// pattern against observation shows only what the case cares about.
pub fn project(pattern: &Value, observed: Option<&Value>) -> Value {
    match (pattern, observed) {
        (Value::Object(want), Some(got)) if is_matcher(want) => got.clone(),
        (Value::Object(want), Some(Value::Object(got))) => Value::Object(
            want.iter()
                .filter_map(|(k, sub)| match got.get(k) {
                    Some(g) => Some((k.clone(), project(sub, Some(g)))),
                    None if sub.is_null() => None,
                    None => Some((k.clone(), Value::String("<absent>".into()))),
                })
                .collect(),
        ),
        (Value::Array(want), Some(Value::Array(got))) if want.len() == got.len() => Value::Array(
            want.iter()
                .zip(got)
                .map(|(w, g)| project(w, Some(g)))
                .collect(),
        ),
        (_, Some(got)) => got.clone(),
        (_, None) => Value::String("<absent>".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_match_rules() {
        let got = json!({"a": 1, "b": {"c": [1, 2], "d": "x"}, "n": null});
        assert_eq!(matches(&json!({"b": {"d": "x"}}), Some(&got)), Ok(()));
        assert_eq!(matches(&json!({"zz": null, "n": null}), Some(&got)), Ok(()));
        assert_eq!(matches(&json!({"a": 1.0}), Some(&got)), Ok(()));
        assert_eq!(
            matches(&json!({"b": {"c": [1]}}), Some(&got)),
            Err("/b/c".into())
        );
        assert_eq!(
            matches(&json!({"b": {"c": [1, 3]}}), Some(&got)),
            Err("/b/c/1".into())
        );
        assert_eq!(matches(&json!({"a": null}), Some(&got)), Err("/a".into()));
        assert_eq!(matches(&json!({"q": 1}), Some(&got)), Err("/q".into()));
        assert_eq!(
            project(&json!({"b": {"d": "y"}, "q": 1}), Some(&got)),
            json!({"b": {"d": "x"}, "q": "<absent>"})
        );
    }

    #[test]
    fn value_matchers_match_and_miss() {
        let got = json!({
            "t": "2026-11-30T10:00:00Z", "bad_t": "2026-11-30 10:00", "sig": "ab".repeat(32),
            "short": "abcd", "upper": "AB".repeat(32), "d": "ask", "list": [1, 2, 3]
        });
        let ok = |p: Value| assert_eq!(matches(&p, Some(&got)), Ok(()), "{p}");
        let no = |p: Value| assert!(matches(&p, Some(&got)).is_err(), "{p}");
        ok(json!({"t": {"$format": "date-time"}}));
        no(json!({"bad_t": {"$format": "date-time"}}));
        no(json!({"sig": {"$format": "date-time"}}));
        ok(json!({"sig": {"$format": "hex-digest"}}));
        no(json!({"short": {"$format": "hex-digest"}}));
        no(json!({"upper": {"$format": "hex-digest"}}));
        ok(json!({"d": {"$regex": "as."}}));
        no(json!({"d": {"$regex": "as"}}));
        ok(json!({"d": {"$one_of": ["allow", "ask"]}}));
        no(json!({"d": {"$one_of": ["allow", "deny"]}}));
        ok(json!({"list": {"$min_length": 3, "$max_length": 3}}));
        no(json!({"list": {"$min_length": 4}}));
        no(json!({"sig": {"$max_length": 63}}));
        // Absent or null never satisfies a matcher.
        no(json!({"absent": {"$regex": ".*"}}));
        // Every key of one matcher must hold.
        no(json!({"sig": {"$format": "hex-digest", "$max_length": 10}}));
        assert!(check(&json!({"a": {"$regex": "("}})).is_err());
        assert!(check(&json!({"a": {"$format": "uuid"}})).is_err());
        assert!(check(&json!({"a": {"$regex": "x", "b": 1}})).is_err());
        assert!(check(&json!({"a": {"$min_length": 3, "$max_length": 2}})).is_err());
        assert!(check(&json!({"a": {"$one_of": []}})).is_err());
        assert!(check(&json!({"a": [{"$wat": 1}]})).is_err());
        assert_eq!(
            check(&json!({"a": {"$one_of": [1, {"$regex": "x"}]}})),
            Ok(())
        );
        assert!(check(&json!({"a": {"$recent": -1}})).is_err());
        assert!(check(&json!({"a": {"$recent": "1m"}})).is_err());
    }

    #[test]
    fn recent_is_the_harness_clock_either_way() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-12-02T10:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert!(recent("2026-12-02T10:00:00.123Z", 120, now));
        assert!(recent("2026-12-02T09:58:00Z", 120, now));
        assert!(recent("2026-12-02T10:02:00Z", 120, now));
        assert!(!recent("2026-12-02T10:02:01Z", 120, now));
        assert!(!recent("2026-12-02T09:57:59Z", 120, now));
        // Another offset naming the same instant.
        assert!(recent("2026-12-02T11:00:30+01:00", 120, now));
        // The right clock time on the wrong day, month or year.
        assert!(!recent("2026-12-01T10:00:00Z", 120, now));
        assert!(!recent("2026-11-02T10:00:00Z", 120, now));
        assert!(!recent("1970-01-01T00:00:00Z", 120, now));
        assert!(!recent("not a time", 120, now));
        let got = json!({"t": now_rfc3339()});
        assert_eq!(matches(&json!({"t": {"$recent": 120}}), Some(&got)), Ok(()));
        let old = json!({"t": "2026-11-30T10:00:00Z"});
        assert!(matches(&json!({"t": {"$recent": 120}}), Some(&old)).is_err());
    }

    fn now_rfc3339() -> String {
        chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now()).to_rfc3339()
    }
}
