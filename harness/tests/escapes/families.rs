//! The bug families: each a plausible coding mistake of a real client,
//! simulated at the protocol boundary.

use super::help::*;
use super::proxy::{Bug, Claims, Inner, Stateful};
use regex::Regex;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

pub struct Family {
    pub name: &'static str,
    pub area: &'static str,
    /// The cases the check runs it against (prefixes of ids); the report
    /// mode runs every family against the whole corpus.
    pub scope: &'static [&'static str],
    pub make: fn() -> Box<dyn Bug>,
}

macro_rules! family {
    ($name:literal, $area:literal, [$($scope:literal),*], $make:expr) => {
        Family { name: $name, area: $area, scope: &[$($scope),*], make: $make }
    };
}

fn re(s: &str) -> Regex {
    Regex::new(s).unwrap()
}

// ------------------------------------------------------------------ tokens

/// What a client remembers of the tokens it minted.
#[derive(Default)]
struct Minted {
    /// token → (session, operation, reset generation of the session)
    tokens: HashMap<String, (String, Value, u32)>,
    generation: HashMap<String, u32>,
    spent: HashSet<String>,
}

impl Minted {
    fn note(&mut self, session: &str, r: &Value, a: &Value) {
        if type_of(r) == "approve" {
            if let Some(t) = a["token"].as_str() {
                let g = self.generation.get(session).copied().unwrap_or(0);
                self.tokens.insert(
                    t.to_owned(),
                    (session.to_owned(), r["operation"].clone(), g),
                );
            }
        }
        if type_of(r) == "reset_session" {
            *self.generation.entry(session.to_owned()).or_default() += 1;
        }
        if type_of(r) == "invoke" && a["allowed"] == json!(true) {
            if let Some(t) = r["token"].as_str() {
                self.spent.insert(t.to_owned());
            }
        }
    }
}

fn key(op: &Value) -> Value {
    json!({"plugin": op.get("plugin"), "id": op.get("id"), "arguments": op.get("arguments").cloned().unwrap_or(json!({}))})
}

fn human_token(inner: &mut Inner, session: &str, op: &Value) -> Option<String> {
    let a = inner.call(
        session,
        &json!({"type": "approve", "operation": op, "approver": {"kind": "human", "name": "user"}}),
    );
    a["token"].as_str().map(str::to_owned)
}

/// A client whose token check compares calls with `same` instead of
/// equality of plugin, operation id and arguments.
fn loose_binding(same: fn(&Value, &Value) -> bool) -> Box<dyn Bug> {
    let mut m = Minted::default();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            if type_of(&r) == "invoke" {
                if let Some(t) = r["token"].as_str().map(str::to_owned) {
                    if let Some((s, op, _)) = m.tokens.get(&t).cloned() {
                        let mine = key(&r["operation"]);
                        if s == session
                            && !m.spent.contains(&t)
                            && key(&op) != mine
                            && same(&key(&op), &mine)
                        {
                            if let Some(fresh) = human_token(inner, session, &r["operation"]) {
                                r["token"] = json!(fresh);
                                m.spent.insert(t);
                            }
                        }
                    }
                }
            }
            let a = inner.call(session, &r);
            m.note(session, &r, &a);
            a
        },
    ))
}

fn without(k: &Value, field: &str) -> Value {
    let mut k = k.clone();
    k.as_object_mut().unwrap().remove(field);
    k
}

fn tool_name(k: &Value) -> Value {
    let mut k = without(k, "plugin");
    let id = k["id"].as_str().unwrap_or("").to_owned();
    k["id"] = json!(id.rsplit('/').next().unwrap_or(""));
    k
}

fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_nulls).collect()),
        v => v.clone(),
    }
}

fn trimmed(v: &Value) -> Value {
    match v {
        Value::String(s) => json!(s.trim()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), trimmed(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(trimmed).collect()),
        v => v.clone(),
    }
}

fn subset(minted: &Value, mine: &Value) -> bool {
    without(minted, "arguments") == without(mine, "arguments")
        && minted["arguments"]
            .as_object()
            .zip(mine["arguments"].as_object())
            .is_some_and(|(a, b)| a.iter().all(|(k, v)| b.get(k) == Some(v)))
}

fn survives_reset() -> Box<dyn Bug> {
    let mut m = Minted::default();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            if type_of(&r) == "invoke" {
                if let Some(t) = r["token"].as_str().map(str::to_owned) {
                    if let Some((s, op, g)) = m.tokens.get(&t).cloned() {
                        let now = m.generation.get(session).copied().unwrap_or(0);
                        if s == session && g < now && !m.spent.contains(&t) {
                            if let Some(fresh) = human_token(inner, session, &op) {
                                r["token"] = json!(fresh);
                                m.spent.insert(t);
                            }
                        }
                    }
                }
            }
            let a = inner.call(session, &r);
            m.note(session, &r, &a);
            a
        },
    ))
}

/// One live token per call: a second approval replaces the first
/// (`superseded`), or a redemption spends every token of the call.
fn one_token_per_call(redemption_spends_all: bool) -> Box<dyn Bug> {
    let mut m = Minted::default();
    let mut latest: HashMap<(String, String), String> = HashMap::new();
    let mut void: HashSet<String> = HashSet::new();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            let k = (session.to_owned(), key(&r["operation"]).to_string());
            if type_of(&r) == "invoke" {
                if let Some(t) = r["token"].as_str().map(str::to_owned) {
                    let stale = !redemption_spends_all
                        && m.tokens.contains_key(&t)
                        && latest.get(&k).is_some_and(|l| *l != t);
                    if stale || void.contains(&t) {
                        r["token"] = json!("tok-void");
                    }
                }
            }
            let a = inner.call(session, &r);
            m.note(session, &r, &a);
            if type_of(&r) == "approve" {
                if let Some(t) = a["token"].as_str() {
                    latest.insert(k.clone(), t.to_owned());
                }
            }
            if redemption_spends_all
                && type_of(&r) == "invoke"
                && a.pointer("/audit/authorized_by")
                    .is_some_and(|v| !v.is_null())
            {
                for (t, (s, op, _)) in &m.tokens {
                    let op_key = key(op).to_string();
                    if *s == session && op_key == k.1 {
                        void.insert(t.clone());
                    }
                }
            }
            a
        },
    ))
}

/// The session's client policy as the proxy keeps it.
#[derive(Default, Clone)]
struct Policy {
    floors: Map<String, Value>,
    critical: Vec<String>,
}

/// A client that keeps policy itself: `forward` says what of a
/// `set_policy` still reaches the reference, `judge` decides a call from
/// the kept policy (band after, deny?).
fn policy_bug(
    replace: bool,
    forward: fn(&mut Value),
    judge: fn(&Policy, &str, &str) -> Option<(String, bool)>,
) -> Box<dyn Bug> {
    let mut kept: HashMap<String, Policy> = HashMap::new();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            match type_of(&r) {
                "set_policy" => {
                    let p = kept.entry(session.to_owned()).or_default();
                    if replace {
                        *p = Policy::default();
                    }
                    if let Some(f) = r["floors"].as_object() {
                        p.floors.extend(f.clone());
                    }
                    if let Some(c) = r["critical"].as_array() {
                        p.critical
                            .extend(c.iter().filter_map(|v| v.as_str().map(str::to_owned)));
                    }
                    forward(&mut r);
                    if r.get("floors").is_none() && r.get("critical").is_none() {
                        return json!({"id": 1, "type": "ack"});
                    }
                }
                "reset_session" => {
                    kept.remove(session);
                }
                _ => {}
            }
            let mut a = inner.call(session, &r);
            if is_call(&r) {
                let p = kept.get(session).cloned().unwrap_or_default();
                let band = a["band"].as_str().unwrap_or("").to_owned();
                if type_of(&r) == "approve" {
                    if judge(&p, op_id(&r), "escalate").is_some_and(|(_, deny)| deny) {
                        a["granted"] = json!(false);
                        a.as_object_mut().unwrap().remove("token");
                    }
                } else if a["decision"] != "deny" {
                    if let Some((b, deny)) = judge(&p, op_id(&r), &band) {
                        restate(&r, &mut a, &b, deny);
                    }
                }
            }
            a
        },
    ))
}

fn floors_only(r: &mut Value) {
    r.as_object_mut().unwrap().remove("floors");
}

fn nothing(r: &mut Value) {
    let o = r.as_object_mut().unwrap();
    o.remove("floors");
    o.remove("critical");
}

fn floor_of(p: &Policy, op: &str) -> Option<String> {
    p.floors.get(op).and_then(Value::as_str).map(str::to_owned)
}

/// A client that consults the critical list on evaluate and invoke but not
/// on approve: it grants a token (which never redeems).
fn approve_ignores_critical() -> Box<dyn Bug> {
    let mut critical: HashMap<String, HashSet<String>> = HashMap::new();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, r: Value| {
            if type_of(&r) == "set_policy" {
                if let Some(c) = r["critical"].as_array() {
                    critical
                        .entry(session.to_owned())
                        .or_default()
                        .extend(c.iter().filter_map(|v| v.as_str().map(str::to_owned)));
                }
            }
            if type_of(&r) == "reset_session" {
                critical.remove(session);
            }
            let mut a = inner.call(session, &r);
            if type_of(&r) == "approve"
                && critical.get(session).is_some_and(|c| c.contains(op_id(&r)))
                && r.pointer("/approver/kind") == Some(&json!("human"))
            {
                a["granted"] = json!(true);
                a["token"] = json!("tok-critical");
                if a.get("audit").is_some_and(Value::is_object) {
                    a["audit"]["outcome"] = json!("minted");
                }
            }
            a
        },
    ))
}

// ------------------------------------------------------------------ SQL

static WRITE_WORDS: &str = r"\b(INSERT|UPDATE|DELETE|MERGE|DROP|CREATE|ALTER|TRUNCATE|GRANT|REVOKE|COPY|CALL|DO|VACUUM|REINDEX|CLUSTER|COMMENT|LOCK|REFRESH|IMPORT|SECURITY|REASSIGN|LOAD|REPLACE|INTO)\b";
static WRITE_CS: LazyLock<Regex> = LazyLock::new(|| re(WRITE_WORDS));
static WRITE_CI: LazyLock<Regex> = LazyLock::new(|| re(&format!("(?i){WRITE_WORDS}")));

/// Statements split at every `;` outside single quotes.
fn statements(sql: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in sql.chars() {
        if c == '\'' {
            quoted = !quoted;
        }
        if c == ';' && !quoted {
            out.push(String::new());
        } else {
            out.last_mut().unwrap().push(c);
        }
    }
    out.retain(|s| !s.trim().is_empty());
    out
}

fn first_word(s: &str) -> String {
    s.trim_start()
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// Replaces every statement whose first keyword is one of `words` by a read.
fn statements_as_reads(sql: &str, words: &[&str]) -> Option<String> {
    let st = statements(sql);
    if !st.iter().any(|s| words.contains(&first_word(s).as_str())) {
        return None;
    }
    Some(
        st.iter()
            .map(|s| {
                if words.contains(&first_word(s).as_str()) {
                    "SELECT 1".to_owned()
                } else {
                    s.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(";"),
    )
}

/// The CTE bodies of a `WITH` statement, its main statement replaced by a read.
fn cte_bodies(sql: &str) -> Option<String> {
    if first_word(sql) != "WITH" {
        return None;
    }
    let mut depth = 0i32;
    let mut quoted = false;
    for (i, c) in sql.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => {
                depth -= 1;
                // The CTE list ends at a closing parenthesis not followed by
                // a comma: the main statement starts there.
                if depth == 0 && !sql[i + 1..].trim_start().starts_with(',') {
                    let main = first_word(&sql[i + 1..]);
                    return matches!(main.as_str(), "INSERT" | "UPDATE" | "DELETE" | "MERGE")
                        .then(|| format!("{} SELECT 1", &sql[..=i]));
                }
            }
            _ => {}
        }
    }
    None
}

// ------------------------------------------------------------------ shell

/// Segments of a command line split at `;`, `&`, `|` and newlines outside quotes.
fn segments(cmd: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut start, mut q) = (0, None::<char>);
    for (i, c) in cmd.char_indices() {
        match (q, c) {
            (None, '\'' | '"') => q = Some(c),
            (Some(x), _) if x == c => q = None,
            (None, ';' | '&' | '|' | '\n' | '(' | ')') => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, cmd.len()));
    out
}

/// Replaces each segment `hit` accepts by `true`.
fn segments_replaced(cmd: &str, hit: fn(&[&str]) -> bool) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut any = false;
    for (a, b) in segments(cmd) {
        let words: Vec<&str> = cmd[a..b].split_whitespace().collect();
        if !words.is_empty() && hit(&words) {
            out.push_str(&cmd[last..a]);
            out.push_str(" true ");
            last = b;
            any = true;
        }
    }
    out.push_str(&cmd[last..]);
    any.then_some(out)
}

const WRAPPERS: [&str; 9] = [
    "env", "nice", "nohup", "timeout", "time", "command", "stdbuf", "ionice", "xargs",
];

// ------------------------------------------------------------------ fetch

/// The host of a URL as naive code reads it: between `://` and the next
/// `/`, `?` or `#`, after the last `@`, without a port.
fn raw_host(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let auth = rest.split(['/', '?', '#']).next()?;
    let host = auth.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next()?.to_owned()
    } else {
        host.split(':').next()?.to_owned()
    };
    Some((scheme.to_owned(), host))
}

/// Whether the reference reads the URL's host as loopback (asked with GET).
fn loopback_by_reference(inner: &mut Inner, r: &Value, url: &str) -> bool {
    let mut get = r.clone();
    get["operation"]["arguments"]["method"] = json!("GET");
    inspect(inner, &get, "fetch", url).1.contains("is loopback")
}

/// A client that decides loopback with `naive(scheme, host)`, where the
/// reference (WHATWG) says the URL is loopback.
fn loopback_precision(naive: fn(&str, &str) -> bool) -> Box<dyn Bug> {
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            if let Some(url) = payload(&r, "fetch") {
                if let Some((scheme, host)) = raw_host(&url) {
                    if !naive(&scheme, &host) && loopback_by_reference(inner, &r, &url) {
                        set_payload(
                            &mut r,
                            "fetch",
                            format!("http://example.com/?u={}", pct(&url)),
                        );
                    }
                }
            }
            inner.call(session, &r)
        },
    ))
}

fn method(r: &Value) -> String {
    r.pointer("/operation/arguments/method")
        .and_then(Value::as_str)
        .unwrap_or("GET")
        .to_owned()
}

// ------------------------------------------------------------------ families

pub const ALL: &[Family] = &[
    // Tokens.
    family!(
        "token survives reset_session",
        "tokens",
        ["tokens/", "rule-of-two/"],
        survives_reset
    ),
    family!(
        "token binds the operation id, not the plugin",
        "tokens",
        ["tokens/"],
        || { loose_binding(|a, b| without(a, "plugin") == without(b, "plugin")) }
    ),
    family!(
        "token binds the tool name, not the server",
        "tokens",
        ["tokens/"],
        || { loose_binding(|a, b| tool_name(a) == tool_name(b)) }
    ),
    family!(
        "token accepts extra arguments (approved keys match)",
        "tokens",
        ["tokens/"],
        || { loose_binding(subset) }
    ),
    family!(
        "token binding drops null-valued keys",
        "tokens",
        ["tokens/"],
        || { loose_binding(|a, b| strip_nulls(a) == strip_nulls(b)) }
    ),
    family!(
        "token binding trims string arguments",
        "tokens",
        ["tokens/"],
        || { loose_binding(|a, b| trimmed(a) == trimmed(b)) }
    ),
    family!(
        "tool and plugin approvers mint (only model refused)",
        "tokens",
        ["tokens/", "audit/"],
        || {
            rewrite(|r| {
                if type_of(r) == "approve"
                    && matches!(
                        r.pointer("/approver/kind").and_then(Value::as_str),
                        Some("tool" | "plugin")
                    )
                {
                    r["approver"]["kind"] = json!("human");
                }
            })
        }
    ),
    family!(
        "a second approval of a call voids the first token",
        "tokens",
        ["tokens/"],
        || one_token_per_call(false)
    ),
    family!(
        "redeeming a call spends every token for it",
        "tokens",
        ["tokens/"],
        || one_token_per_call(true)
    ),
    // Critical floor and client policy.
    family!(
        "token minted before the operation became critical redeems",
        "critical-floor",
        ["critical-floor/", "tokens/"],
        || {
            let mut m = Minted::default();
            let mut critical: HashMap<String, HashSet<String>> = HashMap::new();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, r: Value| {
                    if type_of(&r) == "set_policy" {
                        if let Some(c) = r["critical"].as_array() {
                            critical
                                .entry(session.to_owned())
                                .or_default()
                                .extend(c.iter().filter_map(|v| v.as_str().map(str::to_owned)));
                        }
                    }
                    if type_of(&r) == "reset_session" {
                        critical.remove(session);
                    }
                    let mut a = inner.call(session, &r);
                    if type_of(&r) == "invoke"
                        && critical.get(session).is_some_and(|c| c.contains(op_id(&r)))
                    {
                        if let Some(t) = r["token"].as_str() {
                            if m.tokens.get(t).is_some_and(|(s, op, _)| {
                                s == session && key(op) == key(&r["operation"])
                            }) && !m.spent.contains(t)
                            {
                                a["allowed"] = json!(true);
                                m.spent.insert(t.to_owned());
                            }
                        }
                    }
                    m.note(session, &r, &a);
                    a
                },
            ))
        }
    ),
    family!(
        "approve ignores the critical list",
        "critical-floor",
        ["critical-floor/", "audit/"],
        approve_ignores_critical
    ),
    family!(
        "critical list matched by prefix",
        "critical-floor",
        ["critical-floor/", "manifest/policy-paths/"],
        || {
            policy_bug(
                false,
                |_| {},
                |p, op, _| {
                    p.critical
                        .iter()
                        .any(|c| op.starts_with(c.as_str()) && op != c)
                        .then(|| ("escalate".to_owned(), true))
                },
            )
        }
    ),
    family!(
        "critical list matched case-insensitively",
        "critical-floor",
        ["critical-floor/", "manifest/policy-paths/"],
        || {
            policy_bug(
                false,
                |_| {},
                |p, op, _| {
                    p.critical
                        .iter()
                        .any(|c| op.eq_ignore_ascii_case(c) && op != c)
                        .then(|| ("escalate".to_owned(), true))
                },
            )
        }
    ),
    family!(
        "policy floors compare band names as strings",
        "policy",
        [
            "manifest/policy-paths/",
            "manifest/effective/",
            "manifest/contributor-pairs/",
            "audit/",
            "critical-floor/"
        ],
        || {
            policy_bug(false, floors_only, |p, op, band| {
                floor_of(p, op).map(|f| {
                    (
                        if f.as_str() > band {
                            f
                        } else {
                            band.to_owned()
                        },
                        false,
                    )
                })
            })
        }
    ),
    family!(
        "policy floor sets the band instead of raising it",
        "policy",
        [
            "manifest/policy-paths/",
            "manifest/effective/",
            "manifest/contributor-pairs/",
            "audit/",
            "critical-floor/"
        ],
        || {
            policy_bug(false, floors_only, |p, op, _| {
                floor_of(p, op).map(|f| (f, false))
            })
        }
    ),
    family!(
        "policy ignored for the client's own tools",
        "policy",
        [
            "manifest/policy-paths/",
            "manifest/effective/",
            "manifest/contributor-pairs/",
            "audit/",
            "critical-floor/"
        ],
        || {
            rewrite(|r| {
                if type_of(r) == "set_policy" {
                    if let Some(f) = r.get_mut("floors").and_then(Value::as_object_mut) {
                        f.retain(|k, _| !k.starts_with("client:"));
                    }
                    if let Some(c) = r.get_mut("critical").and_then(Value::as_array_mut) {
                        c.retain(|k| !k.as_str().unwrap_or("").starts_with("client:"));
                    }
                }
            })
        }
    ),
    family!(
        "set_policy replaces the session's policy",
        "policy",
        [
            "manifest/policy-paths/",
            "manifest/effective/",
            "manifest/contributor-pairs/",
            "audit/",
            "critical-floor/"
        ],
        || {
            policy_bug(true, nothing, |p, op, band| {
                if p.critical.iter().any(|c| c == op) {
                    return Some(("escalate".to_owned(), true));
                }
                floor_of(p, op)
                    .filter(|f| rank(f) > rank(band))
                    .map(|f| (f, false))
            })
        }
    ),
    family!(
        "floors read from the session's first policy only",
        "policy",
        ["manifest/policy-paths/"],
        || {
            let mut seen: HashSet<String> = HashSet::new();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, mut r: Value| {
                    if type_of(&r) == "set_policy" && !seen.insert(session.to_owned()) {
                        r.as_object_mut().unwrap().remove("floors");
                    }
                    if type_of(&r) == "reset_session" {
                        seen.remove(session);
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
    // Manifest.
    family!(
        "top-level permissions ignored",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    if let Some(o) = m.as_object_mut() {
                        o.remove("permissions");
                    }
                })
            })
        }
    ),
    family!(
        "default replaces the floors of declared operations",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                permissions(r, &|p| {
                    let Some(d) = p.get("default").filter(|d| valid_value("band", d)).cloned()
                    else {
                        return;
                    };
                    if let Some(ops) = p.get_mut("operations").and_then(Value::as_array_mut) {
                        for e in ops.iter_mut().filter_map(Value::as_object_mut) {
                            e.insert("band".into(), d.clone());
                            AXES.iter().for_each(|a| {
                                e.remove(*a);
                            });
                        }
                    }
                })
            })
        }
    ),
    family!(
        "default is a floor for declared operations too",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                permissions(r, &|p| {
                    let Some(d) = p.get("default").filter(|d| valid_value("band", d)).cloned()
                    else {
                        return;
                    };
                    if let Some(ops) = p.get_mut("operations").and_then(Value::as_array_mut) {
                        for e in ops.iter_mut().filter_map(Value::as_object_mut) {
                            let b = e.get("band").and_then(Value::as_str).unwrap_or("auto");
                            if valid_value("band", &json!(b)) && rank(d.as_str().unwrap()) > rank(b)
                            {
                                e.insert("band".into(), d.clone());
                            }
                        }
                    }
                })
            })
        }
    ),
    family!(
        "unknown axis or band value read as the safest",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                entries(r, |ops| {
                    for e in ops.iter_mut().filter_map(Value::as_object_mut) {
                        if e.get("band").is_some_and(|v| !valid_value("band", v)) {
                            e.insert("band".into(), json!("auto"));
                        }
                        for (a, s) in AXES.iter().zip(SAFEST) {
                            if e.get(*a).is_some_and(|v| !valid_value(a, v)) {
                                e.insert((*a).into(), json!(s));
                            }
                        }
                    }
                })
            })
        }
    ),
    family!(
        "duplicate entries: the first wins",
        "manifest",
        ["manifest/"],
        || { rewrite(|r| entries(r, |ops| dedupe(ops, |_, _| false))) }
    ),
    family!(
        "duplicate entries: the last wins",
        "manifest",
        ["manifest/"],
        || { rewrite(|r| entries(r, |ops| dedupe(ops, |_, _| true))) }
    ),
    family!(
        "duplicate entries: band names compared as strings",
        "manifest",
        ["manifest/", "regressions/manifest/"],
        || {
            rewrite(|r| {
                entries(r, |ops| {
                    dedupe(ops, |k, e| {
                        let b = |v: &Value| {
                            v.get("band")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned()
                        };
                        b(e) > b(k)
                    })
                })
            })
        }
    ),
    family!(
        "an axis left out counts as its safest value",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                entries(r, |ops| {
                    for e in ops.iter_mut().filter_map(Value::as_object_mut) {
                        if AXES.iter().any(|a| e.contains_key(*a)) {
                            for (a, s) in AXES.iter().zip(SAFEST) {
                                e.entry(*a).or_insert(json!(s));
                            }
                        }
                    }
                })
            })
        }
    ),
    family!(
        "a band given, the axes are ignored",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                entries(r, |ops| {
                    for e in ops.iter_mut().filter_map(Value::as_object_mut) {
                        if e.contains_key("band") && AXES.iter().any(|a| e.contains_key(*a)) {
                            AXES.iter().for_each(|a| {
                                e.remove(*a);
                            });
                        }
                    }
                })
            })
        }
    ),
    family!(
        "any agent-plugins.org $schema version accepted",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    static SCHEMA: LazyLock<Regex> = LazyLock::new(|| {
                        re(r"^https://agent-plugins\.org/schemas/[^/]+/plugin\.schema\.json$")
                    });
                    if m["$schema"].as_str().is_some_and(|s| SCHEMA.is_match(s)) {
                        m["$schema"] =
                            json!("https://agent-plugins.org/schemas/1.1.0/plugin.schema.json");
                    }
                })
            })
        }
    ),
    family!(
        "unknown top-level fields reject the plugin",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    const KNOWN: [&str; 12] = [
                        "$schema",
                        "name",
                        "displayName",
                        "icon",
                        "version",
                        "description",
                        "author",
                        "homepage",
                        "repository",
                        "license",
                        "keywords",
                        "extensions",
                    ];
                    if m.as_object()
                        .is_some_and(|o| o.keys().any(|k| !KNOWN.contains(&k.as_str())))
                    {
                        m["$schema"] =
                            json!("https://agent-plugins.org/schemas/9.9.9/plugin.schema.json");
                    }
                })
            })
        }
    ),
    // Rule-of-Two.
    family!(
        "Rule-of-Two escalates only at 3 (off by one)",
        "rule-of-two",
        ["rule-of-two/"],
        || { Box::new(Claims("rule_of_two_threshold", "3")) }
    ),
    family!(
        "events of named sessions dropped",
        "rule-of-two",
        ["rule-of-two/"],
        || {
            Box::new(Stateful(|inner: &mut Inner, session: &str, r: Value| {
                if type_of(&r) == "record_event" && !session.contains('-') {
                    return json!({"id": 1, "type": "ack"});
                }
                inner.call(session, &r)
            }))
        }
    ),
    family!(
        "reset_session keeps the Rule-of-Two events",
        "rule-of-two",
        ["rule-of-two/"],
        || {
            let mut events: HashMap<String, Vec<Value>> = HashMap::new();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, r: Value| {
                    let a = inner.call(session, &r);
                    if type_of(&r) == "record_event" {
                        events
                            .entry(session.to_owned())
                            .or_default()
                            .push(r.clone());
                    }
                    if type_of(&r) == "reset_session" {
                        for e in events.get(session).cloned().unwrap_or_default() {
                            inner.call(session, &e);
                        }
                    }
                    a
                },
            ))
        }
    ),
    family!(
        "invocations do not count for Rule-of-Two",
        "rule-of-two",
        ["rule-of-two/", "shell/build/", "shell/sensitive/"],
        || {
            Box::new(Stateful(|inner: &mut Inner, session: &str, r: Value| {
                if type_of(&r) != "invoke" || r.get("token").is_some() {
                    return inner.call(session, &r);
                }
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
            }))
        }
    ),
    family!(
        "evaluate records the call it evaluates",
        "rule-of-two",
        ["rule-of-two/"],
        || {
            Box::new(Stateful(|inner: &mut Inner, session: &str, r: Value| {
                let a = inner.call(session, &r);
                if type_of(&r) == "evaluate"
                    && matches!(a["decision"].as_str(), Some("allow" | "note"))
                {
                    let mut i = r.clone();
                    i["type"] = json!("invoke");
                    inner.call(session, &i);
                }
                a
            }))
        }
    ),
    // SQL.
    family!(
        "SQL: `--` comments to the end of the text",
        "sql",
        ["sql/"],
        || {
            blind("sql", |s| {
                let mut quoted = false;
                let cs: Vec<char> = s.chars().collect();
                for i in 0..cs.len() {
                    if cs[i] == '\'' {
                        quoted = !quoted;
                    }
                    if !quoted && cs[i] == '-' && cs.get(i + 1) == Some(&'-') {
                        return Some(cs[..i].iter().collect());
                    }
                }
                None
            })
        }
    ),
    family!(
        "SQL: write keywords matched case-sensitively",
        "sql",
        ["sql/"],
        || {
            blind("sql", |s| {
                (WRITE_CI.is_match(s) && !WRITE_CS.is_match(s)).then(|| "SELECT 1".to_owned())
            })
        }
    ),
    family!(
        "SQL: a WITH statement judged by its CTEs",
        "sql",
        ["sql/"],
        || blind("sql", cte_bodies)
    ),
    family!(
        "SQL: COPY … TO is an export, whatever the target",
        "sql",
        ["sql/"],
        || {
            blind("sql", |s| {
                static TO: LazyLock<Regex> = LazyLock::new(|| re(r"(?is)^\s*COPY\b.*\bTO\b"));
                static FROM: LazyLock<Regex> =
                    LazyLock::new(|| re(r"(?i)\bFROM\s+(STDIN|PROGRAM|')"));
                (TO.is_match(s) && !FROM.is_match(s) && statements(s).len() == 1)
                    .then(|| "SELECT 1".to_owned())
            })
        }
    ),
    family!(
        "SQL: SELECT … INTO read as a SELECT",
        "sql",
        ["sql/"],
        || {
            blind("sql", |s| {
                static INTO: LazyLock<Regex> = LazyLock::new(|| {
                    re(
                        r"(?i)\bINTO\s+(TEMP(ORARY)?\s+|UNLOGGED\s+|TABLE\s+)*[A-Za-z_][A-Za-z0-9_.]*",
                    )
                });
                (first_word(s) == "SELECT" && INTO.is_match(s))
                    .then(|| INTO.replace_all(s, "").into_owned())
            })
        }
    ),
    family!(
        "SQL: CALL and DO read as function calls",
        "sql",
        ["sql/"],
        || { blind("sql", |s| statements_as_reads(s, &["CALL", "DO"])) }
    ),
    family!("SQL: every EXPLAIN is a read", "sql", ["sql/"], || {
        blind("sql", |s| statements_as_reads(s, &["EXPLAIN"]))
    }),
    family!(
        "SQL: transaction control is harmless",
        "sql",
        ["sql/"],
        || {
            blind("sql", |s| {
                statements_as_reads(
                    s,
                    &[
                        "COMMIT",
                        "END",
                        "ROLLBACK",
                        "ABORT",
                        "BEGIN",
                        "START",
                        "SAVEPOINT",
                        "RELEASE",
                        "PREPARE",
                    ],
                )
            })
        }
    ),
    family!("SQL: only FOR UPDATE is a lock", "sql", ["sql/"], || {
        blind("sql", |s| {
            static LOCK: LazyLock<Regex> =
                LazyLock::new(|| re(r"(?i)\bFOR\s+(NO\s+KEY\s+UPDATE|KEY\s+SHARE|SHARE)\b"));
            LOCK.is_match(s)
                .then(|| LOCK.replace_all(s, "").into_owned())
        })
    }),
    family!(
        "SQL: `;`-split fragments that do not parse are skipped",
        "sql",
        ["sql/"],
        || {
            Box::new(Stateful(
                |inner: &mut Inner, session: &str, mut r: Value| {
                    if let Some(s) = payload(&r, "sql") {
                        if s.contains(';') {
                            let all = s.split(';').filter(|f| !f.trim().is_empty()).all(|f| {
                                let (band, reason) = inspect(inner, &r, "sql", f);
                                band == "auto" || reason.contains("unparseable")
                            });
                            if all {
                                set_payload(&mut r, "sql", disguised_read("sql", &s));
                            }
                        }
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
    // Shell.
    family!(
        "shell: wrappers (env, nice, timeout, xargs…) judged as themselves",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                segments_replaced(c, |w| WRAPPERS.contains(&w[0]))
            })
        }
    ),
    family!(
        "shell: `bash -c` judged by its first command",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                static C: LazyLock<Regex> =
                    LazyLock::new(|| re(r#"\b(bash|sh|zsh|dash)\s+-c\s+('([^']*)'|"([^"]*)")"#));
                let m = C.captures(c)?;
                let inner = m.get(3).or(m.get(4))?.as_str();
                let first = inner.split([';', '&', '|', '\n']).next().unwrap_or("");
                Some(c.replace(m.get(0)?.as_str(), first))
            })
        }
    ),
    family!(
        "shell: find's -delete and -fprint as data",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                static D: LazyLock<Regex> = LazyLock::new(|| {
                    re(r"\s-(delete|fprint0?\s+\S+|fprintf\s+\S+\s+\S+|fls\s+\S+)")
                });
                (c.contains("find") && D.is_match(c)).then(|| D.replace_all(c, "").into_owned())
            })
        }
    ),
    family!(
        "shell: git with a global option read as an info query",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                segments_replaced(c, |w| {
                    w[0] == "git" && w.get(1).is_some_and(|a| a.starts_with('-'))
                })
            })
        }
    ),
    family!(
        "shell: `>|` and `&>` not seen as redirections",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                static R: LazyLock<Regex> = LazyLock::new(|| re(r"(>\||&>)\s*\S+"));
                R.is_match(c).then(|| R.replace_all(c, "").into_owned())
            })
        }
    ),
    family!(
        "shell: process substitution as a plain word",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                static P: LazyLock<Regex> = LazyLock::new(|| re(r"[<>]\([^)]*\)"));
                P.is_match(c)
                    .then(|| P.replace_all(c, "/dev/null").into_owned())
            })
        }
    ),
    family!(
        "shell: a newline does not separate commands",
        "shell",
        ["shell/", "bypass/inline/"],
        || {
            blind("shell", |c| {
                c.contains('\n')
                    .then(|| c.split('\n').next().unwrap_or("").to_owned())
            })
        }
    ),
    family!(
        "shell: all double-quoted text is data",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                static Q: LazyLock<Regex> = LazyLock::new(|| re(r#""[^"]*""#));
                Q.is_match(c).then(|| Q.replace_all(c, "x").into_owned())
            })
        }
    ),
    family!(
        "shell: a program path judged by its basename",
        "shell",
        ["shell/"],
        || {
            blind("shell", |c| {
                static P: LazyLock<Regex> =
                    LazyLock::new(|| re(r"(^|[;&|(\s])(\.{0,2}/[^\s;&|]*/)([A-Za-z0-9_.-]+)"));
                P.is_match(c).then(|| P.replace_all(c, "$1$3").into_owned())
            })
        }
    ),
    // Fetch.
    family!(
        "fetch: loopback only as literal localhost/127.x/[::1]",
        "fetch",
        ["fetch/"],
        || {
            loopback_precision(|scheme, host| {
                static L: LazyLock<Regex> =
                    LazyLock::new(|| re(r"^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$"));
                !matches!(scheme, "http" | "https") || L.is_match(host)
            })
        }
    ),
    family!(
        "fetch: scheme compared case-sensitively",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if let Some(u) = payload(r, "fetch") {
                    if let Some((scheme, rest)) = u.split_once(':') {
                        if scheme.chars().any(|c| c.is_ascii_uppercase())
                            && scheme.eq_ignore_ascii_case("http")
                                | scheme.eq_ignore_ascii_case("https")
                        {
                            set_payload(r, "fetch", format!("x-unknown:{rest}"));
                        }
                    }
                }
            })
        }
    ),
    family!(
        "fetch: only GET reads (HEAD, OPTIONS send data)",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if payload(r, "fetch").is_some() && matches!(method(r).as_str(), "HEAD" | "OPTIONS")
                {
                    r["operation"]["arguments"]["method"] = json!("POST");
                }
            })
        }
    ),
    family!(
        "fetch: any method to loopback is carved out",
        "fetch",
        ["fetch/", "rule-of-two/"],
        || {
            Box::new(Stateful(
                |inner: &mut Inner, session: &str, mut r: Value| {
                    if let Some(url) = payload(&r, "fetch") {
                        if !matches!(method(&r).as_str(), "GET" | "HEAD" | "OPTIONS")
                            && loopback_by_reference(inner, &r, &url)
                            && url.to_ascii_lowercase().starts_with("http")
                        {
                            r["operation"]["arguments"]["method"] = json!("GET");
                        }
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
    family!(
        "fetch: ws/wss read like http/https",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if let Some(u) = payload(r, "fetch") {
                    let l = u.to_ascii_lowercase();
                    if l.starts_with("ws:") || l.starts_with("wss:") {
                        set_payload(r, "fetch", format!("http{}", &u[2..]));
                    }
                }
            })
        }
    ),
    family!(
        "fetch: ftp gets the loopback carve-out",
        "fetch",
        ["fetch/"],
        || {
            Box::new(Stateful(
                |inner: &mut Inner, session: &str, mut r: Value| {
                    if let Some(u) = payload(&r, "fetch") {
                        if u.to_ascii_lowercase().starts_with("ftp:") {
                            let h = format!("http{}", &u[3..]);
                            if loopback_by_reference(inner, &r, &h) {
                                set_payload(&mut r, "fetch", h);
                            }
                        }
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
    family!(
        "fetch: 0.0.0.0 and [::] are loopback",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if let Some(u) = payload(r, "fetch") {
                    if let Some((scheme, host)) = raw_host(&u) {
                        if matches!(scheme.as_str(), "http" | "https")
                            && matches!(host.as_str(), "0.0.0.0" | "[::]" | "0")
                        {
                            set_payload(r, "fetch", disguised_read("fetch", &u));
                        }
                    }
                }
            })
        }
    ),
    // Audit.
    family!(
        "audit: escalate recorded as note",
        "audit",
        ["audit/"],
        || {
            edit(|_, a| {
                if a.pointer("/audit/decision") == Some(&json!("ask")) {
                    a["audit"]["decision"] = json!("note");
                }
            })
        }
    ),
    family!(
        "audit: a refused approval names its approver as authorizer",
        "audit",
        ["audit/"],
        || {
            edit(|r, a| {
                if type_of(a) == "approval"
                    && a["granted"] == json!(false)
                    && a.get("audit").is_some_and(Value::is_object)
                {
                    a["audit"]["authorized_by"] = r
                        .pointer("/approver/name")
                        .cloned()
                        .unwrap_or(json!("user"));
                }
            })
        }
    ),
    family!(
        "audit: a presented token recorded as redeemed",
        "audit",
        ["audit/", "tokens/"],
        || {
            edit(|r, a| {
                if type_of(a) == "invocation"
                    && r.get("token").is_some()
                    && a.pointer("/audit/outcome") == Some(&json!("rejected"))
                {
                    a["audit"]["outcome"] = json!("redeemed");
                    a["audit"]["authorized_by"] = json!("user");
                }
            })
        }
    ),
    family!("audit: actor always model", "audit", ["audit/"], || {
        edit(|_, a| {
            if a.get("audit").is_some_and(Value::is_object) {
                a["audit"]["actor"] = json!("model");
            }
        })
    }),
    family!("audit: gate always manifest", "audit", ["audit/"], || {
        edit(|_, a| {
            if a.get("audit").is_some_and(Value::is_object) {
                a["audit"]["gate"] = json!("manifest");
            }
        })
    }),
    // Versioning.
    family!(
        "versioning: build metadata makes a version not SemVer",
        "versioning",
        ["versioning/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    if m["version"].as_str().is_some_and(|v| v.contains('+')) {
                        m["version"] = json!("not-semver");
                    }
                })
            })
        }
    ),
    family!(
        "versioning: components compared as strings",
        "versioning",
        ["versioning/"],
        || {
            edit(|r, a| {
                if type_of(a) != "diff" {
                    return;
                }
                let (o, n) = (
                    &r["old"]["manifest"]["version"],
                    &r["new"]["manifest"]["version"],
                );
                if let (Some(_), Some(_)) = (semver(o), semver(n)) {
                    let major =
                        |v: &Value| v.as_str().unwrap().split('.').next().unwrap().to_owned();
                    let up = major(n) > major(o);
                    a["breaking"] = json!(lowers(a, true) && !up);
                }
            })
        }
    ),
    family!(
        "versioning: a dropped declaration is not breaking",
        "versioning",
        ["versioning/"],
        || {
            edit(|_, a| {
                if type_of(a) == "diff" && a["breaking"] == json!(true) && !lowers(a, false) {
                    a["breaking"] = json!(false);
                }
            })
        }
    ),
    family!(
        "versioning: a major downgrade counts as a major bump",
        "versioning",
        ["versioning/"],
        || {
            edit(|r, a| {
                if type_of(a) != "diff" {
                    return;
                }
                if let (Some(o), Some(n)) = (
                    semver(&r["old"]["manifest"]["version"]),
                    semver(&r["new"]["manifest"]["version"]),
                ) {
                    if n.0 < o.0 {
                        a["breaking"] = json!(false);
                    }
                }
            })
        }
    ),
    family!(
        "versioning: an added declaration is breaking",
        "versioning",
        ["versioning/"],
        || {
            edit(|_, a| {
                if type_of(a) == "diff"
                    && a["changes"]
                        .as_array()
                        .is_some_and(|c| c.iter().any(|c| c["old"].is_null()))
                {
                    a["breaking"] = json!(true);
                }
            })
        }
    ),
];

/// Families the corpus cannot catch under the reference's profile, or
/// that no requirement catches (the corpus may not hold a rule only the
/// reference knows). Run in the report only.
pub const UNGUARDED: &[Family] = &[
    // Under the default threshold a local `file:` read escalates through
    // Rule-of-Two (untrusted content and sensitive data) just as a share
    // does; `fetch/scheme/escapes-threshold-3-*` catch it under threshold 3.
    family!(
        "fetch: the host of a file: URL ignored",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if let Some(u) = payload(r, "fetch") {
                    if let Some(rest) = u.strip_prefix("file://") {
                        if !rest.starts_with('/')
                            && !rest.to_ascii_lowercase().starts_with("localhost/")
                        {
                            let path = rest.find('/').map(|i| &rest[i..]).unwrap_or("/");
                            set_payload(r, "fetch", format!("file://{path}"));
                        }
                    }
                }
            })
        }
    ),
    // The reference reads a difference only in pre-release as `none`
    // (reference/src/diff.rs), which is exactly what a client that strips
    // pre-releases computes; no requirement orders pre-releases.
    family!(
        "versioning: pre-release ignored",
        "versioning",
        ["versioning/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    if let Some(v) = m["version"].as_str() {
                        if let Some((core, _)) = v.split_once('-') {
                            let build = v
                                .split_once('+')
                                .map(|(_, b)| format!("+{b}"))
                                .unwrap_or_default();
                            m["version"] = json!(format!("{core}{build}"));
                        }
                    }
                })
            })
        }
    ),
];
