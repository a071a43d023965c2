//! Every engine-level mutant answers differently from the reference on a
//! scenario that only uses opaque tools (the classifier mutants are proven
//! by the classifier modules' own tests and by the case corpus).

use rbv_reference::{server, Mutant, Profile};
use serde_json::{json, Value};

const NS: &str = "org.agent-plugins.permissions";

fn manifest(ops: Value) -> Value {
    json!({"$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json",
           "name": "p", "version": "1.0.0", "extensions": {NS: {"default": "auto", "operations": ops}}})
}

/// Runs a scenario of request bodies in one session; returns the answers.
fn run(mutant: Option<Mutant>, steps: &[Value]) -> Vec<Value> {
    let mut server = server(mutant, Profile::default());
    let mut answers: Vec<Value> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let mut req = step.clone();
        // `{"$token": n}` stands for the token minted by answer n.
        if let Some(n) = req
            .get("token")
            .and_then(|t| t.get("$token"))
            .and_then(Value::as_u64)
        {
            req["token"] = answers[n as usize]["token"].clone();
        }
        req["id"] = json!(i);
        req["session"] = json!("s");
        answers.push(serde_json::from_str(&server.handle_line(&req.to_string())).unwrap());
    }
    answers
}

fn load(ops: Value) -> Value {
    json!({"type": "load_plugins", "plugins": [{"manifest": manifest(ops)}]})
}

fn op(id: &str, args: Value) -> Value {
    json!({"plugin": "p", "id": id, "kind": "tool", "arguments": args})
}

fn del(target: &str) -> Value {
    op("mcp:db/delete", json!({"id": target}))
}

fn human() -> Value {
    json!({"kind": "human", "name": "user"})
}

/// The scenario, and the field of its last answer that tells reference and mutant apart.
fn scenario(m: Mutant) -> (Vec<Value>, &'static str) {
    let ops = json!([{"id": "mcp:db/delete", "band": "escalate"}, {"id": "mcp:db/read", "band": "auto"},
                     {"id": "mcp:db/execute_sql", "band": "auto"},
                     {"id": "mcp:db/push", "reversibility": "reversible", "scope": "shared-remote", "trust": "trusted"}]);
    match m {
        Mutant::WorkspaceRootIgnored => (
            vec![
                json!({"type": "set_policy", "workspace": {"root": "/srv/app"}}),
                json!({"type": "evaluate", "operation": {"id": "client:shell", "kind": "shell",
                       "arguments": {"command": "make -C /srv/app test"}}}),
            ],
            "band",
        ),
        Mutant::SessionBypassFlag => (
            vec![
                load(ops),
                json!({"type": "record_event", "event": {"kind": "environment", "vars": {"RISK_GATE_DISABLE": "1"}}}),
                json!({"type": "evaluate", "operation": del("A")}),
            ],
            "band",
        ),
        Mutant::ShapeBoundToken => (
            vec![
                load(ops),
                json!({"type": "approve", "operation": del("A"), "approver": human()}),
                json!({"type": "invoke", "operation": del("B"), "token": {"$token": 1}}),
            ],
            "allowed",
        ),
        Mutant::ReplayableToken => (
            vec![
                load(ops),
                json!({"type": "approve", "operation": del("A"), "approver": human()}),
                json!({"type": "invoke", "operation": del("A"), "token": {"$token": 1}}),
                json!({"type": "invoke", "operation": del("A"), "token": {"$token": 1}}),
            ],
            "allowed",
        ),
        Mutant::ModelMintedToken => (
            vec![
                load(ops),
                json!({"type": "approve", "operation": del("A"), "approver": {"kind": "model", "name": "m"}}),
            ],
            "granted",
        ),
        Mutant::WholePluginInvalid => {
            let ops =
                json!([{"id": "mcp:db/read", "band": "auto"}, {"id": "mcp:db/x", "band": "Auto"}]);
            (vec![load(ops)], "plugins")
        }
        Mutant::PermissiveDefault => (
            vec![
                load(ops),
                json!({"type": "evaluate", "operation": op("mcp:db/other", json!({}))}),
            ],
            "band",
        ),
        Mutant::RuleOfTwoOff => (
            vec![
                load(ops),
                json!({"type": "record_event", "event": {"kind": "sensitive_data"}}),
                json!({"type": "evaluate", "operation": op("mcp:db/push", json!({}))}),
            ],
            "band",
        ),
        Mutant::DeclaredBandAsCeiling => {
            let drop = json!({"plugin": "p", "id": "mcp:db/execute_sql", "kind": "sql", "arguments": {"sql": "DROP TABLE users"}});
            (
                vec![load(ops), json!({"type": "evaluate", "operation": drop})],
                "band",
            )
        }
        Mutant::ToolLevelSql => {
            let select = json!({"plugin": "p", "id": "mcp:db/execute_sql", "kind": "sql", "arguments": {"sql": "SELECT 1"}});
            (
                vec![load(ops), json!({"type": "evaluate", "operation": select})],
                "reasons",
            )
        }
        Mutant::DialectBlindSql => {
            let hidden = json!({"plugin": "p", "id": "mcp:db/execute_sql", "kind": "sql", "dialect": "mysql",
                                "arguments": {"sql": "SELECT 1 /*! ; DROP TABLE users */"}});
            (
                vec![load(ops), json!({"type": "evaluate", "operation": hidden})],
                "band",
            )
        }
        Mutant::DenyListSqlFunctions => {
            let call = json!({"plugin": "p", "id": "mcp:db/execute_sql", "kind": "sql", "arguments": {"sql": "SELECT make_table()"}});
            (
                vec![load(ops), json!({"type": "evaluate", "operation": call})],
                "band",
            )
        }
        Mutant::QuotedStringBlind
        | Mutant::SubstringLoopback
        | Mutant::FirstKeywordSql
        | Mutant::UserinfoBlind
        | Mutant::InfrastructureBlind
        | Mutant::WhatwgOnlyHost
        | Mutant::ProgramOptionsAsData
        | Mutant::ModeChangeAsEdit
        | Mutant::BuildToolPrefixAllow
        | Mutant::SensitiveReadsOnly
        | Mutant::PushFlagsOnly
        | Mutant::SocketRedirectBlind
        | Mutant::WorkspaceBlind
        | Mutant::ExpansionCodeBlind
        | Mutant::ResolveBlind
        | Mutant::OptionPrefixExact
        | Mutant::PersistenceBlind
        | Mutant::ProbeDataBlind
        | Mutant::CredentialCatalogBlind
        | Mutant::GetBodyBlind
        | Mutant::WildcardDnsBlind
        | Mutant::ClusterNameBlind
        | Mutant::OutsideCodeBlind
        | Mutant::OptionFamilyBlind
        | Mutant::ReplacementAsData
        | Mutant::AwkSourcesBlind
        | Mutant::PositionalUnbound => (vec![], ""),
    }
}

#[test]
fn every_engine_mutant_is_live() {
    for &m in Mutant::ALL {
        let (steps, field) = scenario(m);
        if steps.is_empty() {
            continue;
        }
        let reference = run(None, &steps);
        let mutant = run(Some(m), &steps);
        let (r, x) = (
            &reference.last().unwrap()[field],
            &mutant.last().unwrap()[field],
        );
        assert_ne!(r, x, "{m}: the mutant answers like the reference");
        // Everything before the last step is answered alike (one defect only).
        for (a, b) in reference.iter().zip(&mutant).take(steps.len() - 1) {
            assert_eq!(a["type"], b["type"], "{m}");
        }
    }
}

#[test]
fn mutant_answers_are_the_unsafe_ones() {
    let last = |m, f: &str| {
        let (steps, _) = scenario(m);
        run(Some(m), &steps).last().unwrap()[f].clone()
    };
    assert_eq!(last(Mutant::SessionBypassFlag, "band"), "auto");
    assert_eq!(last(Mutant::ShapeBoundToken, "allowed"), true);
    assert_eq!(last(Mutant::ReplayableToken, "allowed"), true);
    assert_eq!(last(Mutant::ModelMintedToken, "granted"), true);
    assert_eq!(
        last(Mutant::WholePluginInvalid, "plugins")[0]["loaded"],
        false
    );
    assert_eq!(last(Mutant::PermissiveDefault, "band"), "auto");
    assert_eq!(last(Mutant::RuleOfTwoOff, "band"), "soft-ack");
    assert_eq!(last(Mutant::DeclaredBandAsCeiling, "band"), "auto");
    assert_eq!(last(Mutant::DenyListSqlFunctions, "band"), "auto");
    let reasons = last(Mutant::ToolLevelSql, "reasons");
    assert!(
        reasons
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap().contains("tool-level")),
        "{reasons}"
    );
}
