//! The bug families of tokens, the critical floor and client policy, and
//! manifests.

use super::*;

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
];
