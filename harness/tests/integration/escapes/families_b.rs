//! The bug families of Rule-of-Two, the three inspectors, audit records
//! and versioning.

use super::*;

pub const ALL: &[Family] = &[
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
                uncounted_invoke(inner, session, &r)
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
