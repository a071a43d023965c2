//! Round 2 of the unplanted bug families, continued: client
//! policy and session state, Rule-of-Two, manifests, audit records, fetch
//! and versioning.

use super::c::replayed_after_reset;
use super::*;

/// A client that applies its policy floors on evaluate but decides invoke
/// without them: a mirror session gets everything but the floors, and a
/// tokenless invoke of a floored operation is answered there.
fn invoke_without_floors() -> Box<dyn Bug> {
    let mut floored: HashMap<String, HashSet<String>> = HashMap::new();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, r: Value| {
            let mirror = format!("{session}#unfloored");
            match type_of(&r) {
                "load_plugins" | "record_event" | "reset_session" => {
                    inner.call(&mirror, &r);
                }
                "set_policy" => {
                    if let Some(f) = r["floors"].as_object() {
                        floored
                            .entry(session.to_owned())
                            .or_default()
                            .extend(f.keys().cloned());
                    }
                    let mut m = r.clone();
                    m.as_object_mut().unwrap().remove("floors");
                    if m.get("critical").is_some() {
                        inner.call(&mirror, &m);
                    }
                }
                _ => {}
            }
            if type_of(&r) == "reset_session" {
                floored.remove(session);
            }
            if type_of(&r) == "invoke"
                && r.get("token").is_none()
                && floored.get(session).is_some_and(|f| f.contains(op_id(&r)))
            {
                return inner.call(&mirror, &r);
            }
            if type_of(&r) == "invoke" {
                inner.call(&mirror, &r);
            }
            inner.call(session, &r)
        },
    ))
}

/// `(name, default floor)` of every plugin a `loaded` answer reports.
fn defaults_of(a: &Value) -> Vec<(String, String)> {
    a["plugins"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .filter_map(|p| {
                    Some((
                        p["name"].as_str()?.to_owned(),
                        p["default_floor"].as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn is_private(host: &str) -> bool {
    let o: Vec<u8> = host.split('.').filter_map(|p| p.parse().ok()).collect();
    o.len() == 4
        && host.split('.').count() == 4
        && ((o[0] == 172 && (16..32).contains(&o[1]))
            || (o[0] == 192 && o[1] == 168)
            || (o[0] == 100 && (64..128).contains(&o[1])))
}

pub const ALL: &[Family] = &[
    // Client policy and session state.
    family!(
        "policy floors not applied on invoke",
        "policy",
        [
            "manifest/policy-paths/",
            "manifest/effective/",
            "audit/",
            "critical-floor/"
        ],
        invoke_without_floors
    ),
    family!(
        "critical list matched by tool name, server ignored",
        "critical-floor",
        ["critical-floor/", "manifest/policy-paths/"],
        || {
            policy_bug(
                false,
                |_| {},
                |p, op, _| {
                    let tool = |s: &str| s.rsplit('/').next().unwrap_or("").to_owned();
                    p.critical
                        .iter()
                        .any(|c| c != op && c.contains('/') && tool(c) == tool(op))
                        .then(|| ("escalate".to_owned(), true))
                },
            )
        }
    ),
    family!(
        "reset_session keeps the session's policy",
        "policy",
        ["manifest/", "critical-floor/", "rule-of-two/", "tokens/"],
        || replayed_after_reset(&["set_policy"])
    ),
    family!(
        "reset_session keeps the loaded plugins",
        "manifest",
        ["manifest/", "rule-of-two/", "tokens/"],
        || replayed_after_reset(&["load_plugins"])
    ),
    // Rule-of-Two.
    family!(
        "Rule-of-Two counts events, not booleans",
        "rule-of-two",
        ["rule-of-two/"],
        || {
            let mut seen: HashMap<String, Vec<String>> = HashMap::new();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, mut r: Value| {
                    const KINDS: [&str; 3] =
                        ["untrusted_content", "sensitive_data", "state_change"];
                    if type_of(&r) == "reset_session" {
                        seen.remove(session);
                    }
                    if type_of(&r) == "record_event" {
                        let k = r["event"]["kind"].as_str().unwrap_or("").to_owned();
                        let s = seen.entry(session.to_owned()).or_default();
                        if KINDS.contains(&k.as_str()) {
                            if s.contains(&k) {
                                if let Some(n) = KINDS.iter().find(|n| !s.iter().any(|x| x == *n)) {
                                    r["event"] = json!({"kind": n});
                                    s.push((*n).to_owned());
                                }
                            } else {
                                s.push(k);
                            }
                        }
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
    family!(
        "refused calls count for Rule-of-Two",
        "rule-of-two",
        ["rule-of-two/", "tokens/"],
        || {
            Box::new(Stateful(|inner: &mut Inner, session: &str, r: Value| {
                let a = inner.call(session, &r);
                if type_of(&r) == "invoke" && a["allowed"] == json!(false) && a["decision"] == "ask"
                {
                    if let Some(t) = human_token(inner, session, &r["operation"]) {
                        let mut i = r.clone();
                        i["token"] = json!(t);
                        inner.call(session, &i);
                    }
                }
                a
            }))
        }
    ),
    family!(
        "an environment event counted as untrusted content",
        "rule-of-two",
        ["rule-of-two/", "bypass/"],
        || {
            rewrite(|r| {
                if type_of(r) == "record_event" && r["event"]["kind"] == "environment" {
                    r["event"] = json!({"kind": "untrusted_content"});
                }
            })
        }
    ),
    // Manifest.
    family!(
        "a plugin's default floors other plugins' unlisted operations",
        "manifest",
        ["manifest/"],
        || {
            let mut defaults: HashMap<String, Vec<(String, String)>> = HashMap::new();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, r: Value| {
                    let mut a = inner.call(session, &r);
                    match type_of(&r) {
                        "load_plugins" => defaults
                            .entry(session.to_owned())
                            .or_default()
                            .extend(defaults_of(&a)),
                        "reset_session" => {
                            defaults.remove(session);
                        }
                        "evaluate" | "invoke" if a["decision"] != "deny" => {
                            let mine = r.pointer("/operation/plugin").and_then(Value::as_str);
                            let band = a["band"].as_str().unwrap_or("escalate").to_owned();
                            let undeclared = a["declared"].is_null();
                            let top = defaults
                                .get(session)
                                .into_iter()
                                .flatten()
                                .filter(|(p, _)| Some(p.as_str()) != mine)
                                .map(|(_, d)| d.clone())
                                .max_by_key(|d| rank(d));
                            if let Some(d) = top.filter(|d| undeclared && rank(d) > rank(&band)) {
                                restate(&r, &mut a, &d, false);
                            }
                        }
                        _ => {}
                    }
                    a
                },
            ))
        }
    ),
    family!(
        "operation ids matched case-insensitively",
        "manifest",
        ["manifest/"],
        || {
            rewrite(|r| {
                entries(r, |ops| {
                    for e in ops.iter_mut() {
                        if let Some(id) = e["id"].as_str() {
                            e["id"] = json!(id.to_lowercase());
                        }
                    }
                });
                if is_call(r) {
                    let id = op_id(r).to_lowercase();
                    r["operation"]["id"] = json!(id);
                }
                if type_of(r) == "set_policy" {
                    if let Some(f) = r.get_mut("floors").and_then(Value::as_object_mut) {
                        *f = f
                            .iter()
                            .map(|(k, v)| (k.to_lowercase(), v.clone()))
                            .collect();
                    }
                }
            })
        }
    ),
    // Audit.
    family!(
        "audit: band recorded before Rule-of-Two and policy",
        "audit",
        ["audit/"],
        || {
            edit(|_, a| {
                let gate = a.pointer("/audit/gate").and_then(Value::as_str);
                if matches!(gate, Some("rule-of-two" | "policy")) {
                    let final_band = a["audit"]["band"].as_str().unwrap_or("auto").to_owned();
                    let mut b = a["declared"].as_str().unwrap_or("auto").to_owned();
                    if rank(&b) >= rank(&final_band) {
                        b = if final_band == "escalate" {
                            "soft-ack"
                        } else {
                            "auto"
                        }
                        .to_owned();
                    }
                    a["audit"]["band"] = json!(b);
                    a["audit"]["decision"] = json!(decision_of(&b));
                }
            })
        }
    ),
    family!(
        "audit: authorized_by names the approver's kind",
        "audit",
        ["audit/"],
        || {
            edit(|_, a| {
                if a.pointer("/audit/authorized_by")
                    .is_some_and(Value::is_string)
                {
                    a["audit"]["authorized_by"] = json!("human");
                }
            })
        }
    ),
    // Fetch.
    family!(
        "fetch: only known write methods send data",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if payload(r, "fetch").is_some()
                    && !matches!(method(r).as_str(), "POST" | "PUT" | "PATCH" | "DELETE")
                {
                    r["operation"]["arguments"]["method"] = json!("GET");
                }
            })
        }
    ),
    family!(
        "fetch: metadata service only as the literal 169.254.169.254",
        "fetch",
        ["fetch/", "shell/downloads/"],
        || {
            Box::new(Stateful(
                |inner: &mut Inner, session: &str, mut r: Value| {
                    if let Some(url) = payload(&r, "fetch") {
                        let literal = raw_host(&url).is_some_and(|(_, h)| h == "169.254.169.254");
                        let mut get = r.clone();
                        get["operation"]["arguments"]["method"] = json!("GET");
                        let (_, why) = inspect(inner, &get, "fetch", &url);
                        if !literal && why.contains("metadata") {
                            set_payload(
                                &mut r,
                                "fetch",
                                format!("https://example.com/?u={}", pct(&url)),
                            );
                        }
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
    family!(
        "fetch: private network only as 10.0.0.0/8",
        "fetch",
        ["fetch/"],
        || {
            rewrite(|r| {
                if let Some(url) = payload(r, "fetch") {
                    if raw_host(&url).is_some_and(|(_, h)| is_private(&h)) {
                        set_payload(r, "fetch", format!("https://example.com/?u={}", pct(&url)));
                    }
                }
            })
        }
    ),
    // Versioning.
    family!(
        "versioning: a patch bump reported as minor",
        "versioning",
        ["versioning/"],
        || {
            edit(|_, a| {
                if type_of(a) == "diff" && a["version_change"] == "patch" {
                    a["version_change"] = json!("minor");
                }
            })
        }
    ),
    family!(
        "versioning: a v-prefixed version read as SemVer",
        "versioning",
        ["versioning/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    if let Some(v) = m["version"]
                        .as_str()
                        .and_then(|v| v.strip_prefix(['v', 'V']))
                    {
                        m["version"] = json!(v);
                    }
                })
            })
        }
    ),
    family!(
        "versioning: leading zeros accepted",
        "versioning",
        ["versioning/"],
        || {
            rewrite(|r| {
                manifests(r, &mut |m| {
                    if let Some(v) = m["version"].as_str() {
                        let (core, rest) = v.split_at(v.find(['-', '+']).unwrap_or(v.len()));
                        let parts: Vec<&str> = core.split('.').collect();
                        if parts.len() == 3 && parts.iter().all(|p| p.parse::<u64>().is_ok()) {
                            let fixed: Vec<String> = parts
                                .iter()
                                .map(|p| p.parse::<u64>().unwrap().to_string())
                                .collect();
                            m["version"] = json!(format!("{}{rest}", fixed.join(".")));
                        }
                    }
                })
            })
        }
    ),
    family!(
        "versioning: a lowered default is not breaking",
        "versioning",
        ["versioning/"],
        || {
            edit(|_, a| {
                if type_of(a) != "diff" || a["breaking"] != json!(true) {
                    return;
                }
                let other = a["changes"].as_array().is_some_and(|cs| {
                    cs.iter().any(|c| {
                        c["operation"] != "default"
                            && match (c["old"].as_str(), c["new"].as_str()) {
                                (Some(o), Some(n)) => rank(n) < rank(o),
                                (Some(_), None) => true,
                                _ => false,
                            }
                    })
                });
                if !other {
                    a["breaking"] = json!(false);
                }
            })
        }
    ),
];
