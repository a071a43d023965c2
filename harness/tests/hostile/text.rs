//! Text an implementation controls (its name, version, capabilities,
//! profile, messages) reaches people: the terminal, the CI log, junit.xml,
//! summary.md, and `rbv diff`/`compare` of its report.json. Escaped, never
//! a line of its own, always valid, never a live link or mention.

use super::*;

/// Runs the `evil-text` fake with a report; returns (stdout, report dir).
fn evil_run() -> (String, tempfile::TempDir) {
    let corpus = corpus();
    let reports = tempfile::tempdir().expect("temp dir");
    let dir = reports.path().join("report");
    let out = rbv_run(
        "evil-text",
        corpus.path(),
        &["--report", dir.to_str().unwrap()],
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}{out:?}");
    (stdout, reports)
}

/// No control character but newline and tab, no bidi control, and no
/// line that the implementation's text begins.
fn assert_terminal_safe(what: &str, text: &str) {
    let bad = text
        .chars()
        .find(|&c| rbv_report::text::is_hostile(c) && c != '\n' && c != '\t');
    assert_eq!(bad, None, "{what}: {text}");
    for line in text.lines() {
        let trimmed = line.trim_start();
        assert!(
            !trimmed.starts_with("::") && !trimmed.starts_with("rbv: 999"),
            "{what}: a forged line: {line:?}"
        );
    }
}

#[test]
fn implementation_text_on_the_terminal_is_escaped_and_starts_no_line() {
    let (stdout, _reports) = evil_run();
    assert_terminal_safe("rbv run", &stdout);
    assert!(stdout.contains("\\x1b]8;;http"), "{stdout}");
    assert!(
        stdout.ends_with("rbv: 0 passed, 4 failed, 0 skipped\n"),
        "{stdout}"
    );
}

#[test]
fn junit_xml_holds_only_characters_xml_allows() {
    let (_, reports) = evil_run();
    let path = reports.path().join("report/junit.xml");
    let xml = std::fs::read_to_string(&path).expect("junit.xml");
    let bad = xml.chars().find(|&c| !rbv_report::text::xml_allowed(c));
    assert_eq!(bad, None, "a character XML forbids");
    // Character references to forbidden characters are as invalid.
    for reference in ["&#x1b;", "&#27;", "&#xfffe;", "&#xFFFE;", "&#1;"] {
        assert!(!xml.contains(reference), "{reference}");
    }
    match Command::new("xmllint").arg("--noout").arg(&path).output() {
        Ok(out) => assert!(out.status.success(), "xmllint: {out:?}"),
        Err(_) => eprintln!("SKIPPED: xmllint is not installed; checked the characters only"),
    }
}

#[test]
fn summary_md_has_no_live_link_mention_or_bidi_control() {
    let (_, reports) = evil_run();
    let md = std::fs::read_to_string(reports.path().join("report/summary.md")).unwrap();
    assert!(md.contains("octocat"), "the text is still there");
    for live in ["\u{202e}", "\u{1b}"] {
        assert!(!md.contains(live), "{live:?} in summary.md:\n{md}");
    }
    // Outside fenced blocks (where nothing is live), no mention, no link.
    let mut fenced = false;
    for line in md.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for live in ["@octocat", "https://evil", "http://evil", "[a](http"] {
            assert!(!line.contains(live), "{live:?} in summary.md: {line}");
        }
    }
}

#[test]
fn a_hostile_handshake_is_bounded_and_its_report_reads_back() {
    let (_, reports) = evil_run();
    let json = reports.path().join("report/report.json");
    let size = std::fs::metadata(&json).unwrap().len();
    assert!(size < 512 * 1024, "report.json is {size} bytes");
    for args in [&["diff"][..], &["compare"]] {
        let out = rbv()
            .args(args)
            .arg(&json)
            .arg(&json)
            .output()
            .expect("rbv diff/compare");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_terminal_safe(args[0], &stdout);
    }
}

/// One string with every attack on a reader: characters XML forbids,
/// a lone surrogate's escape as text, C0 and C1 controls, terminal
/// escapes, bidi overrides, the ends of a CDATA section and of a script,
/// Markdown and HTML that would be live, a forged line; and a mark to
/// find it by.
fn hostile_text() -> String {
    let mut s = String::from(
        "HOSTILE-MARK\u{fffe}\u{ffff}\\ud800\u{0}\u{1}\u{7}\u{8}\u{b}\u{c}\u{1f}\u{7f}",
    );
    s.push_str("\u{80}\u{9b}31m\u{9d}8;;x\u{9c}\u{85}\x1b[2J\x1b]8;;http://evil.example\x07link\x1b]8;;\x07");
    s.push_str("\u{202e}gnp.exe\u{2066}\u{200b}\u{feff}]]></x><![CDATA[x]]></script><script>alert(1)</script>");
    s.push_str("<img src=x onerror=alert(1)> | `code` ** [a](http://evil.example) ![i](https://evil.example/i.png) @octocat www.evil.example");
    s.push_str("\n# heading\n---\n```\nrbv: 999 passed, 0 failed, 0 skipped\r\n::warning::pwned\n&amp;&#1;&#xfffe;");
    s
}

/// `schema` (a JSON Schema from the protocol's types) with the hostile
/// text in every string it holds: every leaf, every key of a map, every
/// element of a list.
fn hostile_value(
    schema: &serde_json::Value,
    defs: &serde_json::Value,
    depth: usize,
) -> serde_json::Value {
    use serde_json::{json, Value};
    let h = hostile_text();
    if depth > 6 {
        return json!(h);
    }
    if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
        let def = name.rsplit('/').next().and_then(|n| defs.get(n));
        return def.map_or(json!(h), |d| hostile_value(d, defs, depth + 1));
    }
    for any in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema
            .get(any)
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find(|s| s.get("type") != Some(&json!("null"))))
        {
            return hostile_value(first, defs, depth + 1);
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if types.contains(&"array") {
        let item = schema
            .get("items")
            .map_or(json!(h), |i| hostile_value(i, defs, depth + 1));
        json!([item])
    } else if types.contains(&"object") {
        let mut map = serde_json::Map::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (key, sub) in props {
                map.insert(key.clone(), hostile_value(sub, defs, depth + 1));
            }
        }
        map.insert(h.clone(), json!(h));
        Value::Object(map)
    } else {
        json!(h)
    }
}

/// Every answer an implementation could give, each with the hostile text
/// in one field (and one per type with it in all), enumerated from the
/// protocol's own schemas: a field added to a type is in the table.
fn hostile_answers() -> Vec<serde_json::Value> {
    use serde_json::{json, Value};
    let h = hostile_text();
    let mut out = vec![
        json!({"type": h}),
        json!({"type": "projection", "band": "auto", "session": h}),
    ];
    for (kind, schema) in rbv_protocol::wire::ResponseBody::body_schemas() {
        if kind == "handshake" {
            continue;
        }
        let schema = serde_json::to_value(&schema).unwrap();
        let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
        let Value::Object(all) = hostile_value(&schema, &defs, 0) else {
            panic!("{kind}: a body is an object")
        };
        for (key, value) in &all {
            let mut one = serde_json::Map::new();
            one.insert("type".into(), json!(kind));
            one.insert(key.clone(), value.clone());
            out.push(Value::Object(one));
        }
        let mut every = all;
        every.insert("type".into(), json!(kind));
        out.push(Value::Object(every));
    }
    out
}

/// The handshake with the hostile text in every field the schema names
/// (but the protocol version, in `valid`; `capabilities` keeps the real
/// ones beside it, so that cases run), and in a profile key and value.
fn hostile_handshake(valid: bool) -> serde_json::Value {
    use serde_json::{json, Value};
    let h = hostile_text();
    let (_, schema) = rbv_protocol::wire::ResponseBody::body_schemas()
        .into_iter()
        .find(|(kind, _)| *kind == "handshake")
        .expect("a handshake type");
    let schema = serde_json::to_value(&schema).unwrap();
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let Value::Object(mut body) = hostile_value(&schema, &defs, 0) else {
        panic!("the handshake is an object")
    };
    body.remove(&h);
    if valid {
        body.insert("protocol_version".into(), json!(1));
        body.insert(
            "capabilities".into(),
            json!([
                "manifest",
                "projection",
                "rule-of-two",
                "sql",
                "shell",
                "fetch",
                "tokens",
                "audit",
                h
            ]),
        );
        // One very long field: caps cut it, the cut must not undo an escape.
        let long = format!("{h}{}{h}", "v".repeat(100_000));
        body["implementation"]["version"] = json!(long);
    }
    body.insert("profile".into(), json!({ h.clone(): h, "plain": h }));
    Value::Object(body)
}

/// A corpus of `n` one-step cases, each a `project` request.
fn many_cases(n: usize) -> tempfile::TempDir {
    let corpus = tempfile::tempdir().expect("temp dir");
    std::fs::write(corpus.path().join("REQUIREMENTS.yaml"), REQUIREMENTS).unwrap();
    std::fs::create_dir(corpus.path().join("hostile")).unwrap();
    let cases: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "id: hostile/field-{i:03}\nrequirements: [RBV-PRJ-001]\nsource: {{note: hostile battery}}\n\
                 steps:\n  - project: {{reversibility: irreversible, scope: local, trust: trusted}}\n    \
                 expect: {{band: escalate}}\n"
            )
        })
        .collect();
    std::fs::write(
        corpus.path().join("hostile/cases.yaml"),
        cases.join("---\n"),
    )
    .unwrap();
    corpus
}

/// Whether `xml` is well-formed: quick-xml reads it to its end (and
/// xmllint agrees, where it is installed).
fn assert_well_formed_xml(what: &str, path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{what}: {e}"));
    let bad = text.chars().find(|&c| !rbv_report::text::xml_allowed(c));
    assert_eq!(bad, None, "{what}: a character XML forbids");
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(e)) => {
                depth += 1;
                for a in e.attributes() {
                    a.unwrap_or_else(|e| panic!("{what}: attribute: {e}"));
                }
            }
            Ok(quick_xml::events::Event::Empty(e)) => {
                for a in e.attributes() {
                    a.unwrap_or_else(|e| panic!("{what}: attribute: {e}"));
                }
            }
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Text(t)) => {
                t.decode().unwrap_or_else(|e| panic!("{what}: text: {e}"));
            }
            Ok(_) => {}
            Err(e) => panic!(
                "{what}: not well-formed at {}: {e}",
                reader.buffer_position()
            ),
        }
    }
    assert_eq!(depth, 0, "{what}: unbalanced");
    for reference in ["&#1;", "&#x1b;", "&#27;", "&#xfffe;", "&#xFFFE;", "&#0;"] {
        assert!(!text.contains(reference), "{what}: {reference}");
    }
    match Command::new("xmllint").arg("--noout").arg(path).output() {
        Ok(out) => assert!(out.status.success(), "{what}: xmllint: {out:?}"),
        Err(_) => eprintln!("SKIPPED: xmllint is not installed; {what} read by quick-xml only"),
    }
}

/// The lines of a Markdown document outside its fenced blocks (a fence
/// closes only at a run of at least as many backticks as opened it).
fn unfenced(md: &str) -> Vec<&str> {
    let mut open: Option<usize> = None;
    let mut out = Vec::new();
    for line in md.lines() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match open {
            None if ticks >= 3 => open = Some(ticks),
            Some(n) if ticks >= n && line.trim_start_matches('`').trim().is_empty() => open = None,
            None => out.push(line),
            Some(_) => {}
        }
    }
    out
}

/// The hostile text in every field an implementation controls (handshake
/// name, version, capabilities, profile keys and values; every field of
/// every answer type; a raw line with a lone surrogate; its stderr):
/// every output stays well-formed and inert, and still shows the text.
#[test]
fn hostile_text_in_every_field_leaves_every_output_well_formed_and_inert() {
    let h = hostile_text();
    let mut answers = hostile_answers();
    answers.push(serde_json::json!(
        r#"{"id":{ID},"session":"{SESSION}","type":"unsupported","message":"\ud800 HOSTILE-MARK"}"#
    ));
    answers.push(serde_json::json!(format!(
        "not json {}",
        h.replace('\n', " ")
    )));
    for valid in [true, false] {
        let corpus = many_cases(answers.len() + 2);
        let scratch = tempfile::tempdir().expect("temp dir");
        let script = scratch.path().join("script.json");
        let body = serde_json::json!({
            "handshake": hostile_handshake(valid),
            "answers": answers,
            "stderr": format!("{h}\n"),
        });
        std::fs::write(&script, serde_json::to_string(&body).unwrap()).unwrap();
        let dir = scratch.path().join("report");
        let out = rbv()
            .args(["run", "--jobs", "1", "--impl"])
            .arg(format!(
                "{} '{}'",
                fake_command("scripted"),
                script.display()
            ))
            .arg("--cases")
            .arg(corpus.path())
            .arg("--report")
            .arg(&dir)
            .stdin(Stdio::null())
            .output()
            .expect("run rbv");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = |name: &str| format!("{name} (valid handshake: {valid})");
        assert!(matches!(out.status.code(), Some(1 | 2)), "{stdout}{out:?}");
        assert_terminal_safe(&what("stdout"), &stdout);
        assert_terminal_safe(&what("stderr"), &stderr);
        assert!(
            stdout.contains("HOSTILE-MARK"),
            "{}: the text is shown",
            what("stdout")
        );
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
        };

        let json = read("report.json");
        let parsed: serde_json::Value = serde_json::from_str(&json).expect("report.json parses");
        assert!(parsed.to_string().contains("HOSTILE-MARK"));
        let bad = json.chars().find(|&c| {
            c != '\n' && rbv_report::text::is_hostile(c) || !rbv_report::text::xml_allowed(c)
        });
        assert_eq!(bad, None, "{}: raw", what("report.json"));

        for name in ["junit.xml", "badge.svg"] {
            assert_well_formed_xml(&what(name), &dir.join(name));
        }
        assert!(read("junit.xml").contains("HOSTILE-MARK"));

        let html = read("report.html");
        assert!(html.contains("HOSTILE-MARK"));
        let bad = html.chars().find(|&c| {
            c != '\n' && c != '\t' && rbv_report::text::is_hostile(c)
                || !rbv_report::text::xml_allowed(c)
        });
        assert_eq!(bad, None, "{}: raw", what("report.html"));
        assert_eq!(
            html.matches("<script").count(),
            1,
            "{}: only rbv's own script",
            what("report.html")
        );
        assert_eq!(
            html.matches("</script").count(),
            1,
            "{}",
            what("report.html")
        );
        for live in [
            "<img",
            "onerror=",
            "]]>",
            "http://evil",
            "https://evil",
            "<x",
        ] {
            assert!(!html.contains(live), "{}: {live:?}", what("report.html"));
        }

        let md = read("summary.md");
        assert!(md.contains("HOSTILE-MARK"));
        let bad = md
            .chars()
            .find(|&c| !matches!(c, '\n' | '\t' | '\u{200b}') && rbv_report::text::is_hostile(c));
        assert_eq!(bad, None, "{}: raw", what("summary.md"));
        for line in unfenced(&md) {
            for live in [
                "<img",
                "<script",
                "</script",
                "@octocat",
                "https://evil",
                "http://evil",
                "www.evil",
                "](http://",
                "](https://",
            ] {
                assert!(
                    !line.contains(live),
                    "{}: {live:?} in {line}",
                    what("summary.md")
                );
            }
            assert!(
                !line.starts_with("# heading") && !line.starts_with("::"),
                "{}: {line}",
                what("summary.md")
            );
        }
    }
}
