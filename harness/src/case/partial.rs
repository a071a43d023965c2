//! The `match` expectation: a partial JSON match. Objects match when every
//! listed key matches (a listed `null` means absent or null), arrays match
//! element by element with equal length, scalars match exactly (numbers by
//! value).

use super::requirements::same_value;
use serde_json::Value;

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
}
