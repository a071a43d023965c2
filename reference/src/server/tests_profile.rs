//! The server under every profile value: the handshake declares it and the
//! answers follow it.

use super::*;
use serde_json::{json, Value};

const NS: &str = crate::manifest::EXTENSION_NAMESPACE;
const SCHEMA: &str = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json";

fn server(assignments: &[&str]) -> Server {
    let mut profile = Profile::default();
    for a in assignments {
        profile.apply(a).unwrap();
    }
    super::server(None, profile)
}

fn send(s: &mut Server, body: Value) -> Value {
    let mut body = body;
    body["id"] = json!(1);
    body["session"] = json!("s");
    let answer: Value = serde_json::from_str(&s.handle_line(&body.to_string())).unwrap();
    assert!(
        Response::from_json(&answer).is_ok(),
        "not a valid response: {answer}"
    );
    answer
}

fn handshake(s: &mut Server) -> Value {
    send(
        s,
        json!({"type": "handshake", "protocol_version": 1, "harness": "t"}),
    )
}

fn project(s: &mut Server, r: &str, scope: &str, t: &str) -> Value {
    send(
        s,
        json!({"type": "project", "reversibility": r, "scope": scope, "trust": t}),
    )["band"]
        .clone()
}

fn evaluate(s: &mut Server, op: Value) -> Value {
    send(s, json!({"type": "evaluate", "operation": op}))
}

#[test]
fn the_handshake_declares_the_configured_profile() {
    let mut s = server(&[
        "permissions_placement=top-level",
        "rule_of_two_threshold=3",
        "hard_to_reverse_local=soft-ack",
        "undeclared_opaque_band=auto",
    ]);
    assert_eq!(
        handshake(&mut s)["profile"],
        json!({"permissions_placement": "top-level", "rule_of_two_threshold": 3,
               "hard_to_reverse_local": "soft-ack", "undeclared_opaque_band": "auto"})
    );
    let mut m = super::server(Some(Mutant::RuleOfTwoOff), *s.implementation().settings());
    let h = handshake(&mut m);
    assert_eq!(
        h["implementation"]["name"],
        "rbv-reference+mutant:rule-of-two-off"
    );
    assert_eq!(h["profile"]["rule_of_two_threshold"], 3);
    assert_eq!(
        handshake(&mut super::server(None, Profile::default()))["profile"],
        Value::from(serde_json::Map::from_iter(
            Profile::default().to_handshake_map()
        ))
    );
}

#[test]
fn project_follows_hard_to_reverse_local() {
    for (value, local) in [("escalate", "escalate"), ("soft-ack", "soft-ack")] {
        let mut s = server(&[&format!("hard_to_reverse_local={value}")]);
        for t in ["trusted", "untrusted"] {
            assert_eq!(project(&mut s, "hard-to-reverse", "local", t), local);
            assert_eq!(
                project(&mut s, "hard-to-reverse", "shared-remote", t),
                "escalate"
            );
            assert_eq!(
                project(&mut s, "hard-to-reverse", "external", t),
                "escalate"
            );
        }
        assert_eq!(project(&mut s, "reversible", "local", "trusted"), "auto");
        // A missing scope is external: escalate under every profile.
        let partial = send(
            &mut s,
            json!({"type": "project", "reversibility": "hard-to-reverse", "trust": "trusted"}),
        );
        assert_eq!(partial["band"], "escalate");
    }
}

#[test]
fn hard_to_reverse_local_calls_follow_the_profile() {
    // A declared tool (the declaration's axes) and a shell command whose
    // inspection yields hard-to-reverse ∧ local.
    let plugin = json!({"manifest": {"$schema": SCHEMA, "name": "git-local", "version": "1.0.0",
    "extensions": {NS: {"operations": [
        {"id": "mcp:git/drop_stash", "reversibility": "hard-to-reverse", "scope": "local", "trust": "trusted"},
        {"id": "mcp:git/force_push", "reversibility": "hard-to-reverse", "scope": "shared-remote", "trust": "trusted"}
    ]}}}});
    let drop = json!({"plugin": "git-local", "id": "mcp:git/drop_stash"});
    let force = json!({"plugin": "git-local", "id": "mcp:git/force_push"});
    let branch = json!({"id": "client:shell", "kind": "shell",
                        "arguments": {"command": "git branch -D feature/old"}});
    for (value, decision) in [("escalate", "ask"), ("soft-ack", "note")] {
        let mut s = server(&[&format!("hard_to_reverse_local={value}")]);
        send(
            &mut s,
            json!({"type": "load_plugins", "plugins": [plugin.clone()]}),
        );
        let e = evaluate(&mut s, drop.clone());
        assert_eq!(
            (
                e["band"].as_str(),
                e["declared"].as_str(),
                e["decision"].as_str()
            ),
            (Some(value), Some(value), Some(decision))
        );
        let f = evaluate(&mut s, force.clone());
        assert_eq!(
            (f["band"].as_str(), f["declared"].as_str()),
            (Some("escalate"), Some("escalate"))
        );
        assert_eq!(evaluate(&mut s, branch.clone())["band"], value);
    }
}

#[test]
fn undeclared_opaque_tools_get_the_profile_band() {
    let call = json!({"id": "mcp:weather/subscribe_alerts", "arguments": {"region": "CH-ZH"}});
    for band in ["auto", "soft-ack", "escalate"] {
        let mut s = server(&[&format!("undeclared_opaque_band={band}")]);
        let e = evaluate(&mut s, call.clone());
        assert_eq!(
            (&e["band"], &e["declared"]),
            (&json!(band), &Value::Null),
            "{band}"
        );
        // Call-time inspection is not the undeclared policy: a loopback GET
        // stays auto under every value.
        let get = evaluate(
            &mut s,
            json!({"id": "client:fetch", "kind": "fetch",
                   "arguments": {"url": "http://127.0.0.1:8080/health", "method": "GET"}}),
        );
        assert_eq!(get["band"], "auto", "{band}");
    }
}

#[test]
fn the_rule_of_two_threshold_follows_the_profile() {
    let push = json!({"id": "client:shell", "kind": "shell",
                      "arguments": {"command": "git push origin feature/x"}});
    for (threshold, two, three) in [("2", "escalate", "escalate"), ("3", "soft-ack", "escalate")] {
        let mut s = server(&[&format!("rule_of_two_threshold={threshold}")]);
        assert_eq!(evaluate(&mut s, push.clone())["band"], "soft-ack");
        send(
            &mut s,
            json!({"type": "record_event", "event": {"kind": "sensitive_data", "what": "read .env"}}),
        );
        assert_eq!(
            evaluate(&mut s, push.clone())["band"],
            two,
            "threshold {threshold}"
        );
        send(
            &mut s,
            json!({"type": "record_event", "event": {"kind": "untrusted_content", "source": "web"}}),
        );
        assert_eq!(
            evaluate(&mut s, push.clone())["band"],
            three,
            "threshold {threshold}"
        );
    }
}

#[test]
fn evaluation_and_diffs_read_only_the_profiles_placement() {
    let manifest = |version: &str, top: &str, ext: &str| {
        json!({"$schema": SCHEMA, "name": "deploy", "version": version,
               "permissions": {"operations": [{"id": "mcp:d/promote", "band": top}]},
               "extensions": {NS: {"operations": [{"id": "mcp:d/rollback", "band": ext}]}}})
    };
    let promote = json!({"plugin": "deploy", "id": "mcp:d/promote"});
    let rollback = json!({"plugin": "deploy", "id": "mcp:d/rollback"});
    for (placement, promote_declared, rollback_declared) in [
        ("top-level", json!("escalate"), Value::Null),
        ("extension", Value::Null, json!("escalate")),
        ("both", json!("escalate"), json!("escalate")),
    ] {
        let mut s = server(&[
            &format!("permissions_placement={placement}"),
            "undeclared_opaque_band=auto",
        ]);
        let loaded = send(
            &mut s,
            json!({"type": "load_plugins", "plugins": [{"manifest": manifest("1.0.0", "escalate", "escalate")}]}),
        );
        assert_eq!(loaded["plugins"][0]["loaded"], true);
        let p = evaluate(&mut s, promote.clone());
        let r = evaluate(&mut s, rollback.clone());
        assert_eq!(p["declared"], promote_declared, "{placement}");
        assert_eq!(r["declared"], rollback_declared, "{placement}");
        // Undeclared under this placement: the (auto) client policy.
        for (e, d) in [(&p, &promote_declared), (&r, &rollback_declared)] {
            let band = if d.is_null() { "auto" } else { "escalate" };
            assert_eq!(e["band"], band, "{placement}");
        }

        // Lowering a band only in the placement the profile does not read
        // is no breaking change for this client.
        let diff = send(
            &mut s,
            json!({"type": "diff_manifests",
                   "old": {"manifest": manifest("1.0.0", "escalate", "escalate")},
                   "new": {"manifest": manifest("1.0.1", "auto", "escalate")}}),
        );
        assert_eq!(diff["breaking"], placement != "extension", "{placement}");
    }
}
