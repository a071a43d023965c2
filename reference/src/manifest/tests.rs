use super::*;
use rbv_protocol::{Band, Severity};
use serde_json::{json, Value};

const S11: &str = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json";
const S10: &str = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
const NS: &str = EXTENSION_NAMESPACE;

fn bundle(manifest: Value) -> PluginBundle {
    PluginBundle {
        manifest: manifest.into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}

fn load_json(manifest: Value) -> LoadedPlugin {
    load(&bundle(manifest), &Profile::default(), None)
}

/// The default profile with one key changed.
fn profile(key: &str, value: &str) -> Profile {
    let mut p = Profile::default();
    p.set(key, value).unwrap();
    p
}

fn with_ops(ops: Value) -> Value {
    json!({"$schema": S11, "name": "p", "version": "1.0.0", "extensions": {NS: {"operations": ops}}})
}

fn has(report: &PluginReport, severity: Severity, code: &str, pointer: &str) -> bool {
    report
        .diagnostics
        .iter()
        .any(|d| d.severity == severity && d.code == code && d.pointer.as_deref() == Some(pointer))
}

#[test]
fn a_minimal_manifest_loads() {
    for schema in [S10, S11] {
        let p = load_json(json!({"$schema": schema, "name": "minimal-plugin"}));
        assert!(p.loaded(), "{:?}", p.report.diagnostics);
        assert_eq!(p.name(), Some("minimal-plugin"));
        assert!(p.report.declarations.is_empty() && p.report.default_floor.is_none());
    }
}

#[test]
fn the_base_specification_rejects_whole_plugins() {
    let rejected = [
        json!({"name": "p"}),
        json!({"$schema": "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", "name": "p"}),
        json!({"$schema": "https://open-plugins.com/schemas/1.0.0/plugin.schema.json", "name": "p"}),
        json!({"$schema": S11}),
        json!({"$schema": S11, "name": 7}),
        json!({"$schema": S11, "name": "p", "version": 2}),
        json!({"$schema": S11, "name": "p", "author": {"name": "a", "phone": "1"}}),
        json!({"$schema": S11, "name": "p", "author": {"name": 1}}),
        json!({"$schema": S11, "name": "p", "keywords": ["a", 1]}),
        json!({"$schema": S11, "name": "p", "icon": 3}),
        json!({"$schema": S11, "name": "p", "extensions": {"com.example": true}}),
        json!(["not", "an", "object"]),
    ];
    for m in rejected {
        let p = load_json(m.clone());
        assert!(!p.loaded(), "{m} loaded");
        assert!(
            p.report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error),
            "{m}"
        );
    }
}

#[test]
fn plugin_names_follow_section_5_5() {
    for good in ["my-plugin", "acme.tools", "lint3r", "a", &"a".repeat(64)] {
        assert!(base::valid_plugin_name(good), "{good}");
    }
    for bad in [
        "My-Plugin",
        "-start",
        "end-",
        "has--double",
        "too.many..dots",
        "",
        "a_b",
        "a b",
        &"a".repeat(65),
    ] {
        assert!(!base::valid_plugin_name(bad), "{bad}");
    }
}

#[test]
fn unknown_top_level_fields_are_reported_and_ignored() {
    let p = load_json(json!({"$schema": S11, "name": "p", "trusted": true, "bypass": true}));
    assert!(p.loaded());
    assert!(has(
        &p.report,
        Severity::Warning,
        "unknown-field",
        "/trusted"
    ));
    assert!(has(
        &p.report,
        Severity::Warning,
        "unknown-field",
        "/bypass"
    ));
    // 1.0.0 has no displayName or icon: unknown there, not fatal.
    let p = load_json(json!({"$schema": S10, "name": "p", "displayName": "P", "icon": 5}));
    assert!(p.loaded());
    assert!(has(&p.report, Severity::Warning, "unknown-field", "/icon"));
    // A non-object `extensions` is reported and ignored (§8.1).
    let p = load_json(json!({"$schema": S11, "name": "p", "extensions": [1]}));
    assert!(
        p.loaded()
            && has(
                &p.report,
                Severity::Warning,
                "extensions-not-object",
                "/extensions"
            )
    );
}

#[test]
fn permissions_are_read_from_both_placements() {
    let top = json!({"$schema": S11, "name": "p",
        "permissions": {"operations": [{"id": "mcp:a/x", "band": "soft-ack"}]}});
    let p = load_json(top.clone());
    assert_eq!(p.report.declarations.get("mcp:a/x"), Some(&Band::SoftAck));
    assert!(has(
        &p.report,
        Severity::Warning,
        "unknown-field",
        "/permissions"
    ));
    let ext_only = load(
        &bundle(top),
        &profile("permissions_placement", "extension"),
        None,
    );
    assert!(
        ext_only.report.declarations.is_empty(),
        "extension placement must ignore top-level permissions"
    );

    let both = json!({"$schema": S11, "name": "p",
        "permissions": {"operations": [{"id": "mcp:a/x", "band": "auto"}]},
        "extensions": {NS: {"operations": [{"id": "mcp:a/x", "band": "escalate"}, {"id": "skill:y", "band": "auto"}]}}});
    let p = load_json(both);
    assert_eq!(p.report.declarations.get("mcp:a/x"), Some(&Band::Escalate));
    assert_eq!(p.report.declarations.get("skill:y"), Some(&Band::Auto));
}

#[test]
fn a_bad_entry_invalidates_only_itself() {
    let p = load_json(with_ops(json!([
        {"id": "mcp:a/ok", "band": "auto"},
        {"id": "mcp:a/case", "band": "Escalate"},
        {"id": "mcp:a/extra", "band": "auto", "bypass": true},
        {"id": "mcp:a", "band": "auto"},
        {"id": "client:shell", "band": "auto"},
        {"id": "mcp:a/axis", "scope": "remote"},
        {"id": "mcp:a/typed", "band": 1},
        {"id": "mcp:a/nothing"},
        {"id": "mcp:a/desc", "band": "auto", "description": 5},
        "mcp:a/bare"
    ])));
    assert!(p.loaded());
    assert_eq!(
        p.report.declarations.len(),
        1,
        "{:?}",
        p.report.declarations
    );
    assert_eq!(p.report.declarations.get("mcp:a/ok"), Some(&Band::Auto));
    let at = |i: usize, k: &str| format!("/extensions/{NS}/operations/{i}{k}");
    assert!(has(
        &p.report,
        Severity::Error,
        "invalid-entry",
        &at(1, "/band")
    ));
    assert!(has(
        &p.report,
        Severity::Error,
        "invalid-entry",
        &at(2, "/bypass")
    ));
    assert!(has(
        &p.report,
        Severity::Error,
        "invalid-entry",
        &at(3, "/id")
    ));
    assert!(has(
        &p.report,
        Severity::Error,
        "invalid-entry",
        &at(4, "/id")
    ));
    assert!(has(
        &p.report,
        Severity::Error,
        "invalid-entry",
        &at(5, "/scope")
    ));
    assert!(has(&p.report, Severity::Error, "invalid-entry", &at(9, "")));
}

#[test]
fn whole_plugin_invalid_mutant_rejects_the_plugin() {
    let m =
        with_ops(json!([{"id": "mcp:a/ok", "band": "auto"}, {"id": "mcp:a/bad", "band": "AUTO"}]));
    let p = load(
        &bundle(m.clone()),
        &Profile::default(),
        Some(Mutant::WholePluginInvalid),
    );
    assert!(!p.loaded() && p.report.declarations.is_empty());
    let clean = with_ops(json!([{"id": "mcp:a/ok", "band": "auto"}]));
    assert!(load(
        &bundle(clean),
        &Profile::default(),
        Some(Mutant::WholePluginInvalid)
    )
    .loaded());
}

#[test]
fn floors_combine_entries_band_and_axes() {
    let p = load_json(with_ops(json!([
        {"id": "mcp:a/dup", "band": "auto"},
        {"id": "mcp:a/dup", "band": "soft-ack"},
        {"id": "mcp:a/axes", "band": "auto", "reversibility": "reversible", "scope": "shared-remote", "trust": "trusted"},
        {"id": "mcp:a/band-wins", "band": "escalate", "reversibility": "reversible", "scope": "local", "trust": "trusted"},
        {"id": "mcp:a/no-trust", "reversibility": "reversible", "scope": "local"},
        {"id": "mcp:a/no-scope", "band": "auto", "reversibility": "reversible", "trust": "trusted"},
        {"id": "mcp:a/htr", "reversibility": "hard-to-reverse", "scope": "local", "trust": "trusted"}
    ])));
    let d = &p.report.declarations;
    assert_eq!(d["mcp:a/dup"], Band::SoftAck);
    assert_eq!(d["mcp:a/axes"], Band::SoftAck);
    assert_eq!(d["mcp:a/band-wins"], Band::Escalate);
    assert_eq!(d["mcp:a/no-trust"], Band::SoftAck);
    assert_eq!(d["mcp:a/no-scope"], Band::Escalate);
    assert_eq!(d["mcp:a/htr"], Band::Escalate);
    assert!(has(
        &p.report,
        Severity::Warning,
        "duplicate-operation",
        &format!("/extensions/{NS}/operations/1")
    ));
}

#[test]
fn default_and_unknown_object_keys() {
    let m = json!({"$schema": S11, "name": "p", "extensions": {NS: {
        "default": "auto", "trusted": true, "pre-approved": ["mcp:a/x"], "operations": []}}});
    let p = load_json(m);
    assert!(p.loaded());
    assert_eq!(p.report.default_floor, Some(Band::Auto));
    assert!(p.report.declarations.is_empty());
    assert!(has(
        &p.report,
        Severity::Warning,
        "unknown-permissions-key",
        &format!("/extensions/{NS}/trusted")
    ));
    let bad_default = json!({"$schema": S11, "name": "p", "extensions": {NS: {"default": "Auto"}}});
    assert_eq!(load_json(bad_default).report.default_floor, None);
}

#[test]
fn a_rejected_plugin_contributes_nothing() {
    let m = json!({"$schema": S11, "name": "Bad_Name",
        "extensions": {NS: {"default": "escalate", "operations": [{"id": "mcp:a/x", "band": "escalate"}]}}});
    let p = load_json(m);
    assert!(!p.loaded());
    assert!(
        p.report.declarations.is_empty()
            && p.report.default_floor.is_none()
            && p.declarations.is_empty()
    );
}

#[test]
fn mcp_json_failure_boundaries() {
    let mcp11 = "https://agent-plugins.org/schemas/1.1.0/mcp.schema.json";
    let mut b = bundle(with_ops(json!([{"id": "mcp:gone/x", "band": "soft-ack"}])));
    b.mcp = Some(json!({"$schema": mcp11, "mcpServers": {
        "ok": {"type": "stdio", "command": "./bin/server", "args": ["--x"], "cwd": "${PLUGIN_DATA}/x"},
        "web": {"type": "streamable-http", "url": "https://example.com/mcp", "headers": {"X-A": "1"}},
        "local": {"type": "sse", "url": "http://127.0.0.1:8080/sse"},
        "mixed": {"type": "stdio", "command": "x", "url": "https://e.com"},
        "plain-http": {"type": "streamable-http", "url": "http://example.com/mcp"},
        "escape": {"type": "stdio", "command": "../bin/server"},
        "dup-header": {"type": "sse", "url": "https://e.com", "headers": {"X-A": "1", "x-a": "2"}},
        "bad-cwd": {"type": "stdio", "command": "x", "cwd": "data"}
    }}).into());
    let p = load(&b, &Profile::default(), None);
    assert!(p.loaded());
    for bad in ["mixed", "plain-http", "escape", "dup-header", "bad-cwd"] {
        assert!(
            has(
                &p.report,
                Severity::Warning,
                "invalid-server",
                &format!("/mcp/mcpServers/{bad}")
            ),
            "{bad}"
        );
    }
    for good in ["ok", "web", "local"] {
        assert!(
            !has(
                &p.report,
                Severity::Warning,
                "invalid-server",
                &format!("/mcp/mcpServers/{good}")
            ),
            "{good}"
        );
    }
    // The declaration for an unconfigured server is tolerated and reported.
    assert_eq!(
        p.report.declarations.get("mcp:gone/x"),
        Some(&Band::SoftAck)
    );
    assert!(p
        .report
        .diagnostics
        .iter()
        .any(|d| d.code == "undiscovered-operation"));

    let mcp10 = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";
    b.mcp = Some(json!({"$schema": mcp10, "mcpServers": {}}).into());
    let p = load(&b, &Profile::default(), None);
    assert!(
        p.loaded()
            && p.report
                .diagnostics
                .iter()
                .any(|d| d.code == "mcp-disabled")
    );
}

#[test]
fn each_placement_reads_its_object_and_reports_the_other_as_ignored() {
    let manifest = json!({"$schema": S11, "name": "p",
        "permissions": {"default": "escalate", "operations": [{"id": "mcp:a/top", "band": "soft-ack"}]},
        "extensions": {NS: {"operations": [{"id": "mcp:a/ext", "band": "auto"}]}}});
    let read = |placement: &str| {
        let p = load(
            &bundle(manifest.clone()),
            &profile("permissions_placement", placement),
            None,
        );
        assert!(p.loaded(), "{placement}");
        p.report
    };
    let ignored = "permissions-placement-not-read";

    let top = read("top-level");
    assert_eq!(top.declarations.keys().collect::<Vec<_>>(), ["mcp:a/top"]);
    assert_eq!(top.default_floor, Some(Band::Escalate));
    assert!(has(
        &top,
        Severity::Warning,
        ignored,
        &format!("/extensions/{NS}")
    ));
    assert!(!has(&top, Severity::Warning, ignored, "/permissions"));

    let ext = read("extension");
    assert_eq!(ext.declarations.keys().collect::<Vec<_>>(), ["mcp:a/ext"]);
    assert_eq!(
        ext.default_floor, None,
        "the unread `default` means nothing"
    );
    assert!(has(&ext, Severity::Warning, ignored, "/permissions"));
    assert!(!has(
        &ext,
        Severity::Warning,
        ignored,
        &format!("/extensions/{NS}")
    ));

    let both = read("both");
    assert_eq!(
        both.declarations.keys().collect::<Vec<_>>(),
        ["mcp:a/ext", "mcp:a/top"]
    );
    assert!(both.diagnostics.iter().all(|d| d.code != ignored));
}

#[test]
fn an_unread_placement_is_not_validated() {
    // Broken in the top-level object only: a client that does not read it
    // has nothing to say about its entries.
    let manifest = json!({"$schema": S11, "name": "p",
        "permissions": {"operations": [{"id": "mcp:a/x", "band": "Escalate"}, {"id": "nope", "band": "auto"}]}});
    let ext = load(
        &bundle(manifest.clone()),
        &profile("permissions_placement", "extension"),
        None,
    );
    assert!(ext.loaded());
    assert!(
        ext.report
            .diagnostics
            .iter()
            .all(|d| d.severity == Severity::Warning
                && !d
                    .pointer
                    .as_deref()
                    .unwrap_or("")
                    .starts_with("/permissions/")),
        "{:?}",
        ext.report.diagnostics
    );
    let top = load(
        &bundle(manifest),
        &profile("permissions_placement", "top-level"),
        None,
    );
    assert!(top.report.diagnostics.iter().any(|d| d
        .pointer
        .as_deref()
        .unwrap_or("")
        .starts_with("/permissions/operations/")));
}

#[test]
fn declared_axes_project_under_the_profile() {
    let m = with_ops(json!([
        {"id": "mcp:a/local", "reversibility": "hard-to-reverse", "scope": "local", "trust": "trusted"},
        {"id": "mcp:a/remote", "reversibility": "hard-to-reverse", "scope": "shared-remote", "trust": "trusted"},
        {"id": "mcp:a/banded", "reversibility": "hard-to-reverse", "scope": "local", "trust": "trusted", "band": "escalate"}
    ]));
    let soft = load(
        &bundle(m.clone()),
        &profile("hard_to_reverse_local", "soft-ack"),
        None,
    );
    let d = &soft.report.declarations;
    assert_eq!(d["mcp:a/local"], Band::SoftAck);
    assert_eq!(d["mcp:a/remote"], Band::Escalate);
    assert_eq!(
        d["mcp:a/banded"],
        Band::Escalate,
        "the declared band stays a floor"
    );
    let default = load_json(m);
    assert_eq!(default.report.declarations["mcp:a/local"], Band::Escalate);
}

#[test]
fn pointers_escape_tilde_and_slash_per_rfc_6901() {
    assert_eq!(Pointer::root().to_string(), "");
    let p = Pointer::root().push("extensions").push("a/b~c").push("0");
    assert_eq!(p.to_string(), "/extensions/a~1b~0c/0");
    // `~1` in a key is data: its tilde is escaped first.
    assert_eq!(Pointer::root().push("~1").to_string(), "/~01");
}
