//! Judging an answer against a step's expectation, and the direction of
//! each miss: below the expected range is `under` (unsafe), above it is
//! `over` (precision), anything else `mismatch`.

use super::model::{Action, Expect, Matcher, Miss, Step};
use super::partial;
use super::requirements::same_value;
use crate::verdict::FailKind;
use rbv_protocol::{Band, Decision};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One failed expectation, before it becomes a `Failure`.
#[derive(Clone, Debug, PartialEq)]
pub struct Missed {
    pub kind: FailKind,
    pub message: String,
    pub expected: Value,
    pub observed: Value,
}

fn miss(kind: FailKind, message: String, key: &str, expected: Value, observed: Value) -> Missed {
    Missed {
        kind,
        message,
        expected: json!({ key: expected }),
        observed: json!({ key: observed }),
    }
}

fn direction(m: Miss) -> FailKind {
    match m {
        Miss::Below => FailKind::Under,
        Miss::Above => FailKind::Over,
        Miss::Elsewhere => FailKind::Mismatch,
    }
}

fn word(m: Miss) -> &'static str {
    match m {
        Miss::Below => "below",
        Miss::Above => "above",
        Miss::Elsewhere => "outside",
    }
}

fn field<T: DeserializeOwned>(answer: &Value, key: &str) -> Option<T> {
    answer
        .get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

fn matcher_json<T: serde::Serialize>(m: &Matcher<T>) -> Value {
    json!(m)
}

/// A band-like matcher against an answer field.
fn ordered<T>(key: &str, m: &Matcher<T>, answer: &Value) -> Option<Missed>
where
    T: Ord + Copy + DeserializeOwned + serde::Serialize + std::fmt::Display,
{
    let raw = answer.get(key).cloned().unwrap_or(Value::Null);
    let Some(got) = field::<T>(answer, key) else {
        return Some(miss(
            FailKind::Mismatch,
            format!("`{key}` is missing or not a {key}"),
            key,
            matcher_json(m),
            raw,
        ));
    };
    m.miss(got).map(|d| {
        miss(
            direction(d),
            format!("{key} {got} is {} the expected {m}", word(d)),
            key,
            matcher_json(m),
            raw,
        )
    })
}

/// An expected declared floor (or its absence) against an observed one.
fn floor(key: &str, want: &Option<Matcher<Band>>, got: Option<Band>) -> Option<(FailKind, String)> {
    match (want, got) {
        (None, None) => None,
        (None, Some(Band::Auto)) => Some((
            FailKind::Under,
            format!("{key} is auto; expected undeclared (auto is not a grant)"),
        )),
        (None, Some(b)) => Some((
            FailKind::Mismatch,
            format!("{key} is {b}; expected undeclared"),
        )),
        (Some(m), None) => Some((
            FailKind::Mismatch,
            format!("{key} is undeclared; expected {m}"),
        )),
        (Some(m), Some(b)) => m.miss(b).map(|d| {
            (
                direction(d),
                format!("{key} {b} is {} the expected {m}", word(d)),
            )
        }),
    }
}

fn opt_matcher_json(m: &Option<Matcher<Band>>) -> Value {
    m.as_ref().map_or(Value::Null, matcher_json)
}

/// The reports of a `loaded` (every plugin) or `validation` answer.
fn reports(answer: &Value) -> Vec<&Value> {
    match (answer.get("plugins"), answer.get("plugin")) {
        (Some(Value::Array(all)), _) => all.iter().collect(),
        (_, Some(one)) => vec![one],
        _ => Vec::new(),
    }
}

/// A permissive boolean: observing `true` where `false` was expected is
/// `under` when `true_is_permissive`, else `over`.
fn boolean(key: &str, want: bool, got: Option<bool>, true_is_permissive: bool) -> Option<Missed> {
    let got_json = got.map_or(Value::Null, Value::Bool);
    match got {
        Some(g) if g == want => None,
        Some(g) => {
            let kind = if g == true_is_permissive {
                FailKind::Under
            } else {
                FailKind::Over
            };
            Some(miss(
                kind,
                format!("{key} is {g}; expected {want}"),
                key,
                json!(want),
                got_json,
            ))
        }
        None => Some(miss(
            FailKind::Mismatch,
            format!("`{key}` is missing"),
            key,
            json!(want),
            got_json,
        )),
    }
}

/// `same` (`equal: true`) or `differs` against the captured values.
fn compare(
    key: &str,
    paths: &BTreeMap<String, String>,
    equal: bool,
    answer: &Value,
    captures: &BTreeMap<String, Value>,
) -> Option<Missed> {
    for (path, name) in paths {
        let got = partial::lookup(answer, path).filter(|v| !v.is_null());
        let want = captures.get(name);
        let holds = match (got, want) {
            (Some(g), Some(w)) => same_value(g, w) == equal,
            // Nothing to compare is a miss either way: absence proves no
            // equality and no difference.
            _ => false,
        };
        if !holds {
            let relation = if equal { "equal" } else { "differ from" };
            let shown = want.map_or_else(|| "nothing".to_owned(), ToString::to_string);
            return Some(Missed {
                kind: FailKind::Mismatch,
                message: format!(
                    "`{path}` should {relation} capture `{name}` ({shown}); it is {}",
                    got.map_or_else(|| "absent".to_owned(), ToString::to_string)
                ),
                expected: json!({ key: { path: { "capture": name, "value": want } } }),
                observed: json!({ key: { path: got } }),
            });
        }
    }
    None
}

/// Judges one answer (the full JSON of a non-concurrent step's answer).
fn judge_one(
    expect: &Expect,
    natural: &str,
    answer: &Value,
    captures: &BTreeMap<String, Value>,
) -> Option<Missed> {
    let want_type = expect.answer_type.as_deref().unwrap_or(natural);
    let got_type = answer.get("type").and_then(Value::as_str).unwrap_or("");
    if got_type != want_type {
        let mut observed = json!(got_type);
        if let Some(m) = answer.get("message") {
            observed = json!({ "type": got_type, "message": m });
        }
        return Some(Missed {
            kind: FailKind::Mismatch,
            message: format!("expected a `{want_type}` answer, got `{got_type}`"),
            expected: json!({ "type": want_type }),
            observed: if observed.is_object() {
                observed
            } else {
                json!({ "type": observed })
            },
        });
    }
    if let Some(m) = &expect.band {
        if let Some(f) = ordered("band", m, answer) {
            return Some(f);
        }
    }
    if let Some(want) = &expect.declared {
        let got: Option<Band> = field(answer, "declared");
        if let Some((kind, message)) = floor("declared", want, got) {
            let raw = answer.get("declared").cloned().unwrap_or(Value::Null);
            return Some(miss(kind, message, "declared", opt_matcher_json(want), raw));
        }
    }
    if let Some(m) = &expect.decision {
        if let Some(f) = ordered::<Decision>("decision", m, answer) {
            return Some(f);
        }
    }
    if let Some(want) = expect.allowed {
        if let Some(f) = boolean("allowed", want, field(answer, "allowed"), true) {
            return Some(f);
        }
    }
    if let Some(want) = expect.granted {
        if let Some(f) = boolean("granted", want, field(answer, "granted"), true) {
            return Some(f);
        }
    }
    if let Some(want) = expect.loaded {
        for r in reports(answer) {
            let got: Option<bool> = field(r, "loaded");
            if got != Some(want) {
                let name = r.get("name").cloned().unwrap_or(Value::Null);
                return Some(miss(
                    FailKind::Mismatch,
                    format!(
                        "plugin {name}: loaded is {}; expected {want}",
                        got.map_or_else(|| "missing".to_owned(), |g| g.to_string())
                    ),
                    "loaded",
                    json!(want),
                    json!(got),
                ));
            }
        }
    }
    if let Some(want) = &expect.declarations {
        let mut merged: BTreeMap<String, Band> = BTreeMap::new();
        for r in reports(answer) {
            let decls: BTreeMap<String, Band> = field(r, "declarations").unwrap_or_default();
            for (op, band) in decls {
                let e = merged.entry(op).or_insert(band);
                *e = (*e).max(band);
            }
        }
        for (op, m) in want {
            if let Some((kind, message)) =
                floor(&format!("declaration of {op}"), m, merged.get(op).copied())
            {
                let expected: BTreeMap<&String, Value> =
                    want.iter().map(|(k, v)| (k, opt_matcher_json(v))).collect();
                let observed: BTreeMap<&String, Value> = want
                    .keys()
                    .map(|k| (k, merged.get(k).map_or(Value::Null, |b| json!(b))))
                    .collect();
                return Some(miss(
                    kind,
                    message,
                    "declarations",
                    json!(expected),
                    json!(observed),
                ));
            }
        }
    }
    if let Some(want) = &expect.default_floor {
        let m = want.map(Matcher::Exact);
        for r in reports(answer) {
            let got: Option<Band> = field(r, "default_floor");
            if let Some((kind, message)) = floor("default_floor", &m, got) {
                return Some(miss(
                    kind,
                    message,
                    "default_floor",
                    json!(want),
                    json!(got),
                ));
            }
        }
    }
    if let Some(want) = expect.breaking {
        // Reporting no break where there is one is the permissive error.
        if let Some(f) = boolean("breaking", want, field(answer, "breaking"), false) {
            return Some(f);
        }
    }
    if let Some(pattern) = &expect.partial {
        if let Err(path) = partial::matches(pattern, Some(answer)) {
            return Some(Missed {
                kind: FailKind::Mismatch,
                message: format!("the answer does not match at {path}"),
                expected: pattern.clone(),
                observed: partial::project(pattern, Some(answer)),
            });
        }
    }
    for path in expect.present.iter().flatten() {
        let found = partial::lookup(answer, path).filter(|v| !v.is_null());
        if found.is_none() {
            return Some(miss(
                FailKind::Mismatch,
                format!("`{path}` is absent from the answer"),
                "present",
                json!(path),
                Value::Null,
            ));
        }
    }
    if let Some(paths) = &expect.same {
        if let Some(m) = compare("same", paths, true, answer, captures) {
            return Some(m);
        }
    }
    if let Some(paths) = &expect.differs {
        if let Some(m) = compare("differs", paths, false, answer, captures) {
            return Some(m);
        }
    }
    None
}

/// Judges a step's answers (one per request; several for `concurrent`).
pub fn judge(
    step: &Step,
    answers: &[&Value],
    captures: &BTreeMap<String, Value>,
) -> Option<Missed> {
    let natural = step.action.natural();
    if !matches!(step.action, Action::Concurrent(_)) {
        return answers
            .first()
            .and_then(|a| judge_one(&step.expect, natural, a, captures));
    }
    let type_only = Expect {
        answer_type: step.expect.answer_type.clone(),
        ..Expect::default()
    };
    for (i, a) in answers.iter().enumerate() {
        if let Some(mut f) = judge_one(&type_only, natural, a, captures) {
            f.message = format!("concurrent answer {}: {}", i + 1, f.message);
            return Some(f);
        }
    }
    let want = step.expect.allowed_count?;
    let got = answers
        .iter()
        .filter(|a| a.get("allowed") == Some(&Value::Bool(true)))
        .count();
    let kind = match got.cmp(&want) {
        std::cmp::Ordering::Equal => return None,
        std::cmp::Ordering::Greater => FailKind::Under,
        std::cmp::Ordering::Less => FailKind::Over,
    };
    Some(miss(
        kind,
        format!(
            "{got} of {} concurrent invokes were allowed; expected {want}",
            answers.len()
        ),
        "allowed_count",
        json!(want),
        json!(got),
    ))
}

/// Whether a step's expectation can fail `under` and whether it can fail `over`.
pub fn sides(step: &Step) -> (bool, bool) {
    let e = &step.expect;
    let mut under = false;
    let mut over = false;
    let mut add = |(u, o): (bool, bool)| {
        under |= u;
        over |= o;
    };
    let floor_sides = |m: &Option<Matcher<Band>>| match m {
        None => (true, false),
        Some(m) => m.can_miss(Band::ALL),
    };
    if let Some(m) = &e.band {
        add(m.can_miss(Band::ALL));
    }
    if let Some(m) = &e.declared {
        add(floor_sides(m));
    }
    if let Some(m) = &e.decision {
        add(m.can_miss(Decision::ALL));
    }
    for b in [e.allowed, e.granted].into_iter().flatten() {
        add((!b, b));
    }
    if let Some(b) = e.breaking {
        add((b, !b));
    }
    for m in e.declarations.iter().flat_map(|d| d.values()) {
        add(floor_sides(m));
    }
    if let Some(d) = &e.default_floor {
        add(floor_sides(&d.map(Matcher::Exact)));
    }
    if let (Some(n), Action::Concurrent(actions)) = (e.allowed_count, &step.action) {
        add((n < actions.len(), n > 0));
    }
    (under, over)
}
