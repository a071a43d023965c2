//! Small tools the bug families are written with.

use super::proxy::{Bug, Inner, Simple, Stateful};
use serde_json::{json, Map, Value};

pub fn kind_of(r: &Value) -> &str {
    r.pointer("/operation/kind")
        .and_then(Value::as_str)
        .unwrap_or("tool")
}

pub fn type_of(r: &Value) -> &str {
    r["type"].as_str().unwrap_or("")
}

pub fn op_id(r: &Value) -> &str {
    r.pointer("/operation/id")
        .and_then(Value::as_str)
        .unwrap_or("")
}

pub fn is_call(r: &Value) -> bool {
    matches!(type_of(r), "evaluate" | "approve" | "invoke")
}

/// The inspected text of a call of `kind`, if it is one.
pub fn payload(r: &Value, kind: &str) -> Option<String> {
    let field = match kind {
        "sql" => "sql",
        "shell" => "command",
        "fetch" => "url",
        _ => return None,
    };
    if !is_call(r) || kind_of(r) != kind {
        return None;
    }
    r.pointer(&format!("/operation/arguments/{field}"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

pub fn set_payload(r: &mut Value, kind: &str, text: String) {
    let field = match kind {
        "sql" => "sql",
        "shell" => "command",
        _ => "url",
    };
    r["operation"]["arguments"][field] = json!(text);
}

pub fn rank(band: &str) -> u8 {
    match band {
        "auto" => 0,
        "soft-ack" => 1,
        _ => 2,
    }
}

pub fn decision_of(band: &str) -> &'static str {
    match band {
        "auto" => "allow",
        "soft-ack" => "note",
        _ => "ask",
    }
}

const PROBE: &str = "rbv-escapes-probe";

/// The band the reference gives `text` as the payload of a call like `r`
/// (same kind, dialect and method), trusted, undeclared, in an empty
/// session: what an inspector alone makes of it.
pub fn inspect(inner: &mut Inner, r: &Value, kind: &str, text: &str) -> (String, String) {
    let mut op = json!({"id": "client:probe", "kind": kind, "arguments": {}, "trust": "trusted"});
    if let Some(d) = r.pointer("/operation/dialect") {
        op["dialect"] = d.clone();
    }
    if let Some(m) = r.pointer("/operation/arguments/method") {
        op["arguments"]["method"] = m.clone();
    }
    let mut probe = json!({"type": "evaluate", "operation": op});
    set_payload(&mut probe, kind, text.to_owned());
    let a = inner.call(PROBE, &probe);
    let reason = a["reasons"][0].as_str().unwrap_or("").to_owned();
    (a["band"].as_str().unwrap_or("escalate").to_owned(), reason)
}

pub fn reads(inner: &mut Inner, r: &Value, kind: &str, text: &str) -> bool {
    inspect(inner, r, kind, text).0 == "auto"
}

/// A payload the reference reads as a harmless read, still distinct per
/// original (tokens keep binding to the original text).
pub fn disguised_read(kind: &str, original: &str) -> String {
    match kind {
        "sql" => format!(
            "SELECT 1 /* {} */",
            original.replace("*/", "* /").replace("/*", "/ *")
        ),
        "shell" => format!("echo '{}'", original.replace('\'', "'\\''")),
        _ => format!("http://127.0.0.1/?u={}", pct(original)),
    }
}

pub fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A client whose inspector of `kind` sees `view(payload)` instead of the
/// payload: when the reference reads the view as harmless, so does the
/// client, whatever the payload really does.
pub fn blind(kind: &'static str, view: fn(&str) -> Option<String>) -> Box<dyn Bug> {
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            if let Some(text) = payload(&r, kind) {
                if let Some(v) = view(&text) {
                    if v != text && reads(inner, &r, kind, &v) {
                        set_payload(&mut r, kind, disguised_read(kind, &text));
                    }
                }
            }
            inner.call(session, &r)
        },
    ))
}

pub fn rewrite(f: fn(&mut Value)) -> Box<dyn Bug> {
    Box::new(Simple {
        rewrite: f,
        edit: |_, _| {},
    })
}

pub fn edit(f: fn(&Value, &mut Value)) -> Box<dyn Bug> {
    Box::new(Simple {
        rewrite: |_| {},
        edit: f,
    })
}

/// Sets the band (and what follows from it) of an evaluation or
/// invocation, as a client with the bug would have answered.
pub fn restate(r: &Value, a: &mut Value, band: &str, deny: bool) {
    if !matches!(type_of(a), "evaluation" | "invocation") {
        return;
    }
    let decision = if deny { "deny" } else { decision_of(band) };
    a["band"] = json!(band);
    a["decision"] = json!(decision);
    if a.get("audit").is_some_and(Value::is_object) {
        a["audit"]["band"] = json!(band);
        a["audit"]["decision"] = json!(decision);
    }
    if type_of(a) == "invocation" {
        let redeemed = r.get("token").is_some()
            && a.pointer("/audit/authorized_by")
                .is_some_and(|v| !v.is_null());
        a["allowed"] = json!(!deny && (band != "escalate" || redeemed));
    }
}

/// Calls `f` on every manifest a request carries.
pub fn manifests(r: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    if let Some(ps) = r.get_mut("plugins").and_then(Value::as_array_mut) {
        ps.iter_mut().for_each(|p| f(&mut p["manifest"]));
    }
    for k in ["plugin", "old", "new"] {
        if let Some(p) = r.get_mut(k).filter(|p| p.is_object()) {
            f(&mut p["manifest"]);
        }
    }
}

pub const NAMESPACE: &str = "org.agent-plugins.permissions";

/// Calls `f` on every permissions object of every manifest of a request.
pub fn permissions(r: &mut Value, f: &dyn Fn(&mut Map<String, Value>)) {
    manifests(r, &mut |m| {
        if let Some(p) = m.get_mut("permissions").and_then(Value::as_object_mut) {
            f(p);
        }
        if let Some(p) = m
            .pointer_mut(&format!("/extensions/{NAMESPACE}"))
            .and_then(Value::as_object_mut)
        {
            f(p);
        }
    });
}

/// Calls `f` on the operation entries of every permissions object.
pub fn entries(r: &mut Value, f: fn(&mut Vec<Value>)) {
    permissions(r, &|p| {
        if let Some(ops) = p.get_mut("operations").and_then(Value::as_array_mut) {
            f(ops);
        }
    });
}

pub const AXES: [&str; 3] = ["reversibility", "scope", "trust"];
pub const SAFEST: [&str; 3] = ["reversible", "local", "trusted"];

pub fn valid_value(key: &str, v: &Value) -> bool {
    let ok: &[&str] = match key {
        "band" => &["auto", "soft-ack", "escalate"],
        "reversibility" => &["reversible", "hard-to-reverse", "irreversible"],
        "scope" => &["local", "shared-remote", "external"],
        _ => &["trusted", "untrusted"],
    };
    v.as_str().is_some_and(|s| ok.contains(&s))
}

/// Keeps one entry per id, chosen by `pick(kept, candidate)` → replace?
pub fn dedupe(ops: &mut Vec<Value>, replace: fn(&Value, &Value) -> bool) {
    let mut out: Vec<Value> = Vec::new();
    for e in ops.drain(..) {
        let id = e.get("id").cloned();
        match out
            .iter_mut()
            .find(|k| id.is_some() && k.get("id") == id.as_ref())
        {
            Some(k) => {
                if replace(k, &e) {
                    *k = e;
                }
            }
            None => out.push(e),
        }
    }
    *ops = out;
}

/// `(major, minor, patch, pre, build)` of a plain SemVer string.
pub fn semver(v: &Value) -> Option<(u64, u64, u64)> {
    let s = v.as_str()?;
    let core = s.split(['-', '+']).next()?;
    let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
    let t = (it.next()??, it.next()??, it.next()??);
    it.next().is_none().then_some(t)
}

/// Whether a diff lowers a floor or drops a declaration.
pub fn lowers(a: &Value, drops: bool) -> bool {
    a["changes"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| match (c["old"].as_str(), c["new"].as_str()) {
                (Some(o), Some(n)) => rank(n) < rank(o),
                (Some(_), None) => drops,
                _ => false,
            })
    })
}

/// `v` with every leaf (not object, not array) replaced by `f(leaf)`:
/// the spellings a loose token binding folds together.
pub fn map_leaves(v: &Value, f: &dyn Fn(&Value) -> Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), map_leaves(v, f)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| map_leaves(v, f)).collect()),
        leaf => f(leaf),
    }
}

/// Answers an invoke as the evaluation of the call: the reference never
/// counts it for Rule-of-Two.
pub fn uncounted_invoke(inner: &mut Inner, session: &str, r: &Value) -> Value {
    let mut e = r.clone();
    e["type"] = json!("evaluate");
    let mut a = inner.call(session, &e);
    let allowed = matches!(a["decision"].as_str(), Some("allow" | "note"));
    a["type"] = json!("invocation");
    a["allowed"] = json!(allowed);
    let o = a.as_object_mut().unwrap();
    o.remove("declared");
    o.remove("signature");
    if let Some(audit) = o.get_mut("audit").and_then(Value::as_object_mut) {
        audit.insert(
            "outcome".into(),
            json!(if allowed { "allowed" } else { "asked" }),
        );
    }
    a
}
