//! Round 2 of the unplanted bug families: the shell's download
//! rules, SQL credential reads, token binding and scope, client policy and
//! session state. The rest of round 2 is in `families_d.rs`.

use super::*;

/// A payload the reference reads as `band` in an empty session, still
/// distinct per original; `None` where no such disguise is at hand.
pub fn disguise(kind: &str, band: &str, original: &str) -> Option<String> {
    let quoted = original.replace('\'', "'\\''");
    match (kind, band) {
        (_, "auto") => Some(disguised_read(kind, original)),
        ("shell", "soft-ack") => Some(format!(
            "curl -s 'https://example.com/?u={}'",
            pct(original)
        )),
        ("shell", "escalate") => Some(format!("rm -rf -- '{quoted}'")),
        ("sql", "escalate") => Some(format!(
            "DELETE FROM t /* {} */",
            original.replace("*/", "* /").replace("/*", "/ *")
        )),
        ("fetch", "soft-ack") => Some(format!("https://example.com/?u={}", pct(original))),
        _ => None,
    }
}

/// A client whose inspector of `kind` sees `view(payload)`: the reference
/// is handed a payload that reads as the view does, lower or higher.
pub fn sees(kind: &'static str, view: fn(&str) -> Option<String>) -> Box<dyn Bug> {
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            if let Some(text) = payload(&r, kind) {
                if let Some(v) = view(&text).filter(|v| *v != text) {
                    let (seen, _) = inspect(inner, &r, kind, &v);
                    let (real, _) = inspect(inner, &r, kind, &text);
                    if seen != real {
                        if let Some(d) = disguise(kind, &seen, &text) {
                            set_payload(&mut r, kind, d);
                        }
                    }
                }
            }
            inner.call(session, &r)
        },
    ))
}

/// A SQL client that reads `view(sql)` where the difference shows only in
/// the session (Rule-of-Two): the reference gets the view, the original in
/// a comment (tokens keep binding to it).
pub fn sql_reads(view: fn(&str) -> Option<String>) -> Box<dyn Bug> {
    rewrite_with(move |r| {
        if let Some(text) = payload(r, "sql") {
            if let Some(v) = view(&text).filter(|v| *v != text) {
                let note = text.replace("*/", "* /").replace("/*", "/ *");
                set_payload(r, "sql", format!("{v} /* {note} */"));
            }
        }
    })
}

fn rewrite_with(f: impl Fn(&mut Value) + Send + 'static) -> Box<dyn Bug> {
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, mut r: Value| {
            f(&mut r);
            inner.call(session, &r)
        },
    ))
}

/// Rewrites the words of every curl or wget segment of a command line.
pub fn downloads(cmd: &str, f: &dyn Fn(&str, Vec<String>) -> Vec<String>) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut any = false;
    for (a, b) in segments(cmd) {
        let words: Vec<String> = cmd[a..b].split_whitespace().map(str::to_owned).collect();
        let Some(prog) = words.first().cloned() else {
            continue;
        };
        if prog == "curl" || prog == "wget" {
            let new = f(&prog, words.clone());
            if new != words {
                out.push_str(&cmd[last..a]);
                out.push(' ');
                out.push_str(&new.join(" "));
                out.push(' ');
                last = b;
                any = true;
            }
        }
    }
    out.push_str(&cmd[last..]);
    any.then_some(out)
}

static SCHEMELESS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^'?[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z0-9-]+(:\d+)?(/\S*)?'?$"));

pub fn is_url(w: &str) -> bool {
    w.contains("://") || (!w.starts_with('-') && SCHEMELESS.is_match(w) && !w.ends_with(".txt"))
}

/// The session's requests of `types`, replayed after `reset_session`.
pub fn replayed_after_reset(types: &'static [&'static str]) -> Box<dyn Bug> {
    let mut kept: HashMap<String, Vec<Value>> = HashMap::new();
    Box::new(Stateful(
        move |inner: &mut Inner, session: &str, r: Value| {
            let a = inner.call(session, &r);
            if types.contains(&type_of(&r)) {
                kept.entry(session.to_owned()).or_default().push(r.clone());
            }
            if type_of(&r) == "reset_session" {
                for k in kept.get(session).cloned().unwrap_or_default() {
                    inner.call(session, &k);
                }
            }
            a
        },
    ))
}

fn number_values(v: &Value) -> Value {
    map_leaves(v, &|leaf| match leaf {
        Value::Number(n) => json!(n.as_f64()),
        other => other.clone(),
    })
}

fn lowercased(v: &Value) -> Value {
    map_leaves(v, &|leaf| match leaf {
        Value::String(s) => json!(s.to_lowercase()),
        other => other.clone(),
    })
}

const PAYLOADS: [&str; 3] = ["sql", "command", "url"];

fn payload_only(a: &Value, b: &Value) -> bool {
    without(a, "arguments") == without(b, "arguments")
        && PAYLOADS.iter().any(|f| {
            a["arguments"].get(*f).is_some() && a["arguments"].get(*f) == b["arguments"].get(*f)
        })
}

static CREDENTIAL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(pg_authid|pg_shadow|pg_user_mappings?|pg_hba_file_rules|pg_ident_file_mappings)\b")
});

fn reads_credentials(inner: &mut Inner, r: &Value) -> bool {
    let Some(sql) = payload(r, "sql") else {
        return false;
    };
    let mut op =
        json!({"id": "client:probe", "kind": "sql", "arguments": {"sql": sql}, "trust": "trusted"});
    if let Some(d) = r.pointer("/operation/dialect") {
        op["dialect"] = d.clone();
    }
    let a = inner.call(
        "rbv-escapes-probe",
        &json!({"type": "evaluate", "operation": op}),
    );
    a["reasons"].as_array().is_some_and(|rs| {
        rs.iter()
            .any(|s| s.as_str().is_some_and(|s| s.contains("reads credentials")))
    })
}

pub const ALL: &[Family] = &[
    // Shell downloads (RBV-SH-016).
    family!(
        "shell: curl/wget judged by their first URL only",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|_, ws| {
                    let mut seen = false;
                    ws.into_iter()
                        .filter(|w| {
                            let drop = seen && is_url(w);
                            seen |= is_url(w);
                            !drop
                        })
                        .collect()
                })
            })
        }
    ),
    family!(
        "shell: curl's --url option not read as a URL",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|p, ws| {
                    if p != "curl" || !ws.iter().any(|w| w.starts_with("--url")) {
                        return ws;
                    }
                    let mut out = Vec::new();
                    let mut skip = false;
                    for w in ws {
                        if skip {
                            skip = false;
                        } else if w == "--url" {
                            skip = true;
                        } else if !w.starts_with("--url=") {
                            out.push(w);
                        }
                    }
                    if out.iter().any(|w| is_url(w)) {
                        out
                    } else {
                        vec!["true".into()]
                    }
                })
            })
        }
    ),
    family!(
        "shell: curl -o/-O not seen as saving to a file",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|p, ws| {
                    if p != "curl" {
                        return ws;
                    }
                    let mut out = Vec::new();
                    let mut skip = false;
                    for w in ws {
                        if skip {
                            skip = false;
                        } else if w == "-o" || w == "--output" {
                            skip = true;
                        } else if w.starts_with('-') && !w.starts_with("--") && w.ends_with('o') {
                            out.push(w[..w.len() - 1].to_owned());
                            skip = true;
                        } else if !(w == "-O" || w == "--remote-name" || w.starts_with("--output="))
                        {
                            out.push(w);
                        }
                    }
                    out.retain(|w| w != "-");
                    out
                })
            })
        }
    ),
    family!(
        "shell: wget's default read as writing to standard output",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|p, mut ws| {
                    let saves_elsewhere = ws.iter().any(|w| {
                        w.starts_with("-O")
                            || w.starts_with("--output-document")
                            || w == "--spider"
                            || (w.starts_with('-') && !w.starts_with("--") && w.contains('O'))
                    });
                    if p == "wget" && !saves_elsewhere {
                        ws.insert(1, "-O-".into());
                    }
                    ws
                })
            })
        }
    ),
    family!(
        "shell: a URL without a scheme not read as a URL",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|_, ws| {
                    ws.into_iter()
                        .map(|w| {
                            if is_url(&w) && !w.contains("://") {
                                "https://example.com/".to_owned()
                            } else {
                                w
                            }
                        })
                        .collect()
                })
            })
        }
    ),
    family!(
        "shell: curl -G ignored (any -d is an upload)",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|p, ws| {
                    if p != "curl" {
                        return ws;
                    }
                    ws.into_iter()
                        .filter(|w| w != "-G" && w != "--get")
                        .collect()
                })
            })
        }
    ),
    family!(
        "shell: a download's method compared case-sensitively",
        "shell",
        ["shell/"],
        || {
            sees("shell", |c| {
                downloads(c, &|_, ws| {
                    ws.into_iter()
                        .map(|w| {
                            static M: LazyLock<Regex> = LazyLock::new(|| {
                                re(r"(?i)^(--request=|--method=|-X)?(get|head|options)$")
                            });
                            match M.captures(&w) {
                                Some(c) if c[2] != c[2].to_uppercase() => {
                                    format!("{}PATCH", c.get(1).map_or("", |p| p.as_str()))
                                }
                                _ => w,
                            }
                        })
                        .collect()
                })
            })
        }
    ),
    // SQL credentials (RBV-SQL-017).
    family!(
        "SQL: credential catalogs matched case-sensitively",
        "sql",
        ["sql/"],
        || {
            sql_reads(|s| {
                let hit = CREDENTIAL
                    .find_iter(s)
                    .any(|m| m.as_str() != m.as_str().to_lowercase());
                hit.then(|| {
                    CREDENTIAL
                        .replace_all(s, |c: &regex::Captures| {
                            let m = &c[0];
                            if m == m.to_lowercase() {
                                m.to_owned()
                            } else {
                                "app_users".to_owned()
                            }
                        })
                        .into_owned()
                })
            })
        }
    ),
    family!(
        "SQL: credential catalogs matched only unqualified",
        "sql",
        ["sql/"],
        || {
            sql_reads(|s| {
                static Q: LazyLock<Regex> = LazyLock::new(|| {
                    re(
                        r#"(?i)("?\w+"?\s*\.\s*"?(pg_authid|pg_shadow|pg_user_mappings?|pg_hba_file_rules|pg_ident_file_mappings)\b"?|`?mysql`?\s*\.\s*`?(user|global_priv|db|proxies_priv)\b`?)"#,
                    )
                });
                Q.is_match(s)
                    .then(|| Q.replace_all(s, "public.app_users").into_owned())
            })
        }
    ),
    family!(
        "SQL: a credential read counts for its own call only",
        "sql",
        ["sql/", "rule-of-two/"],
        || {
            Box::new(Stateful(|inner: &mut Inner, session: &str, r: Value| {
                if type_of(&r) == "invoke"
                    && r.get("token").is_none()
                    && reads_credentials(inner, &r)
                {
                    return uncounted_invoke(inner, session, &r);
                }
                inner.call(session, &r)
            }))
        }
    ),
    // Tokens.
    family!(
        "token binding compares numbers by value (412 = 412.0 = 4.12e2)",
        "tokens",
        ["tokens/"],
        || { loose_binding(|a, b| number_values(a) == number_values(b)) }
    ),
    family!(
        "token binding ignores the case of string arguments",
        "tokens",
        ["tokens/"],
        || { loose_binding(|a, b| lowercased(a) == lowercased(b)) }
    ),
    family!(
        "token binds the inspected payload only (other arguments free)",
        "tokens",
        ["tokens/"],
        || { loose_binding(payload_only) }
    ),
    family!(
        "tokens not scoped to their session",
        "tokens",
        ["tokens/"],
        || {
            let mut m = Minted::default();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, mut r: Value| {
                    if type_of(&r) == "invoke" {
                        if let Some(t) = r["token"].as_str().map(str::to_owned) {
                            if let Some((s, op, g)) = m.tokens.get(&t).cloned() {
                                let now = m.generation.get(&s).copied().unwrap_or(0);
                                if s != session
                                    && g == now
                                    && !m.spent.contains(&t)
                                    && key(&op) == key(&r["operation"])
                                {
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
    ),
    family!(
        "a token shown for another call is spent",
        "tokens",
        ["tokens/"],
        || {
            let mut m = Minted::default();
            let mut void: HashSet<String> = HashSet::new();
            Box::new(Stateful(
                move |inner: &mut Inner, session: &str, mut r: Value| {
                    if type_of(&r) == "invoke" {
                        if let Some(t) = r["token"].as_str().map(str::to_owned) {
                            if void.contains(&t) {
                                r["token"] = json!("tok-void");
                            } else if let Some((s, op, _)) = m.tokens.get(&t) {
                                if *s == session && key(op) != key(&r["operation"]) {
                                    void.insert(t);
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
    ),
    family!(
        "a token shown for a call that needs none is not consumed",
        "tokens",
        ["tokens/"],
        || {
            Box::new(Stateful(
                |inner: &mut Inner, session: &str, mut r: Value| {
                    if type_of(&r) == "invoke" && r.get("token").is_some() {
                        let mut e = r.clone();
                        e["type"] = json!("evaluate");
                        e.as_object_mut().unwrap().remove("token");
                        let a = inner.call(session, &e);
                        if matches!(a["decision"].as_str(), Some("allow" | "note")) {
                            r.as_object_mut().unwrap().remove("token");
                        }
                    }
                    inner.call(session, &r)
                },
            ))
        }
    ),
];
