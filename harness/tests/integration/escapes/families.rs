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
    map_leaves(v, &|leaf| match leaf {
        Value::String(s) => json!(s.trim()),
        other => other.clone(),
    })
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
// The families themselves, by area, in two files of their own.

#[path = "families_a.rs"]
mod a;
#[path = "families_b.rs"]
mod b;
#[path = "families_c.rs"]
mod c;
#[path = "families_d.rs"]
mod d;
#[path = "families_e.rs"]
mod e;
#[path = "families_f.rs"]
mod f;

/// Every guarded family, tokens first.
pub fn all() -> impl Iterator<Item = &'static Family> {
    a::ALL
        .iter()
        .chain(b::ALL.iter())
        .chain(c::ALL.iter())
        .chain(d::ALL.iter())
        .chain(e::ALL.iter())
        .chain(f::ALL.iter())
}

/// Families the corpus cannot catch under the reference's profile, or
/// that no requirement catches (the corpus may not hold a rule only the
/// reference knows). Run in the report only.
pub const UNGUARDED: &[Family] = &[
    // Under the default threshold a plain `pip install` already escalates
    // through Rule-of-Two (an untrusted download that changes state), so a
    // client blind to pip's package sources answers the same;
    // `shell/pip-sources/*` catch it under threshold 3.
    family!(
        "shell: pip's index and trusted-host options ignored",
        "shell",
        ["shell/"],
        || c::sees("shell", e::pip_sources_dropped)
    ),
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
