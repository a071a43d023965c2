use super::*;
use serde_json::json;
use std::sync::{Arc, Barrier};

fn op(plugin: &str, id: &str, args: serde_json::Value) -> Operation {
    Operation {
        plugin: Some(plugin.into()),
        id: id.into(),
        kind: None,
        arguments: args.as_object().unwrap().clone(),
        trust: None,
        actor: None,
        dialect: None,
        workspace: None,
    }
}

fn del(target: &str) -> Operation {
    op(
        "db-tools",
        "mcp:db/delete_row",
        json!({"table": "t", "id": target}),
    )
}

#[test]
fn a_token_redeems_once_for_its_operation() {
    let store = TokenStore::default();
    let t = store.mint(None, &del("A"), "user");
    assert_eq!(store.redeem(None, &del("A"), &t), Ok("user".into()));
    assert_eq!(store.redeem(None, &del("A"), &t), Err(TokenError::Spent));
}

#[test]
fn a_token_binds_data_not_shape() {
    let store = TokenStore::default();
    let t = store.mint(None, &del("A"), "user");
    assert_eq!(
        store.redeem(None, &del("B"), &t),
        Err(TokenError::WrongOperation)
    );
    let other_plugin = op(
        "other",
        "mcp:db/delete_row",
        json!({"table": "t", "id": "A"}),
    );
    assert_eq!(
        store.redeem(None, &other_plugin, &t),
        Err(TokenError::WrongOperation)
    );
    let other_tool = op(
        "db-tools",
        "mcp:db/drop_row",
        json!({"table": "t", "id": "A"}),
    );
    assert_eq!(
        store.redeem(None, &other_tool, &t),
        Err(TokenError::WrongOperation)
    );
    let extra_arg = op(
        "db-tools",
        "mcp:db/delete_row",
        json!({"table": "t", "id": "A", "cascade": true}),
    );
    assert_eq!(
        store.redeem(None, &extra_arg, &t),
        Err(TokenError::WrongOperation)
    );
    // Key order is not data.
    let reordered = op(
        "db-tools",
        "mcp:db/delete_row",
        json!({"id": "A", "table": "t"}),
    );
    assert_eq!(store.redeem(None, &reordered, &t), Ok("user".into()));
}

#[test]
fn numbers_bind_by_every_digit() {
    let store = TokenStore::default();
    let big = |n: &str| {
        op(
            "p",
            "mcp:a/b",
            serde_json::from_str(&format!(r#"{{"n":{n}}}"#)).unwrap(),
        )
    };
    let t = store.mint(None, &big("9007199254740993"), "user");
    assert_eq!(
        store.redeem(None, &big("9007199254740992"), &t),
        Err(TokenError::WrongOperation)
    );
    assert!(store.redeem(None, &big("9007199254740993"), &t).is_ok());
}

#[test]
fn tokens_do_not_cross_sessions_and_cannot_be_forged() {
    let a = TokenStore::default();
    let b = TokenStore::default();
    let t = a.mint(None, &del("A"), "user");
    assert_eq!(
        b.redeem(None, &del("A"), &t),
        Err(TokenError::WrongOperation)
    );
    let forged = format!("rbv1.{}.{}", "00".repeat(16), "00".repeat(32));
    assert_eq!(
        a.redeem(None, &del("A"), &forged),
        Err(TokenError::WrongOperation)
    );
    for junk in [
        "",
        "approved",
        "rbv1.zz.zz",
        "rbv1.00.00.00",
        &signature(&del("A")),
    ] {
        assert_eq!(
            a.redeem(None, &del("A"), junk),
            Err(TokenError::Malformed),
            "{junk}"
        );
    }
    assert!(
        a.redeem(None, &del("A"), &t).is_ok(),
        "failed attempts must not spend the token"
    );
}

#[test]
fn two_concurrent_redemptions_never_both_succeed() {
    for _ in 0..1000 {
        let store = Arc::new(TokenStore::default());
        let token = Arc::new(store.mint(None, &del("A"), "user"));
        let barrier = Arc::new(Barrier::new(2));
        let racers: Vec<_> = (0..2)
            .map(|_| {
                let (store, token, barrier) = (store.clone(), token.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    store.redeem(None, &del("A"), &token).is_ok()
                })
            })
            .collect();
        let wins = racers
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|w| *w)
            .count();
        assert_eq!(wins, 1);
    }
}

#[test]
fn classification_and_authorization_keys_differ() {
    let sql = |s: &str| Operation {
        kind: Some(OperationKind::Sql),
        ..op("db-tools", "mcp:db/execute_sql", json!({"sql": s}))
    };
    let (a, b) = (
        sql("DELETE FROM t WHERE id = 'A'"),
        sql("DELETE FROM t WHERE id = 'B'"),
    );
    assert_eq!(classification_key(&a), classification_key(&b));
    assert_ne!(authorization_form(&a), authorization_form(&b));
    assert_ne!(signature(&a), signature(&b));
    assert_ne!(classification_key(&a), authorization_form(&a));
    assert_eq!(classification_key(&del("A")), classification_key(&del("B")));
}

#[test]
fn mutants_weaken_exactly_their_property() {
    let shape = Some(Mutant::ShapeBoundToken);
    let store = TokenStore::default();
    let t = store.mint(shape, &del("A"), "user");
    assert!(
        store.redeem(shape, &del("B"), &t).is_ok(),
        "shape-bound tokens approve other data"
    );

    let replay = Some(Mutant::ReplayableToken);
    let t = store.mint(replay, &del("A"), "user");
    assert!(
        store.redeem(replay, &del("A"), &t).is_ok() && store.redeem(replay, &del("A"), &t).is_ok()
    );
    assert_eq!(
        store.redeem(replay, &del("B"), &t),
        Err(TokenError::WrongOperation)
    );
    // The same store under the reference: spent once, bound to the data.
    let t = store.mint(None, &del("A"), "user");
    assert_eq!(
        store.redeem(None, &del("B"), &t),
        Err(TokenError::WrongOperation)
    );
    assert!(store.redeem(None, &del("A"), &t).is_ok());
    assert_eq!(store.redeem(None, &del("A"), &t), Err(TokenError::Spent));
}

#[test]
fn the_authorization_form_is_the_canonical_json_of_plugin_id_and_arguments() {
    let escapes = "q\"b\\s\u{8}\t\n\u{c}\r\u{1}\u{1f}é\u{1f600}";
    let mut anonymous = op("p", "x", json!({}));
    anonymous.plugin = None;
    for o in [
        del("A"),
        anonymous,
        op(
            escapes,
            escapes,
            json!({"b": [1.50, 18446744073709551617u128, null, true], escapes: {"z": escapes, "a": -0}}),
        ),
    ] {
        let generic = crate::canonical::to_canonical(&json!({
            "plugin": o.plugin,
            "id": o.id,
            "arguments": serde_json::Value::Object(o.arguments.clone()),
        }));
        assert_eq!(authorization_form(&o), generic);
    }
    assert_eq!(
        authorization_form(&del("A")),
        r#"{"arguments":{"id":"A","table":"t"},"id":"mcp:db/delete_row","plugin":"db-tools"}"#
    );
}

#[test]
fn hex_is_lowercase_two_digits_per_byte() {
    assert_eq!(hex::encode([0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
    assert_eq!(unhex("000fa0ff"), Some(vec![0x00, 0x0f, 0xa0, 0xff]));
    for bad in ["0", "0A", "0g", "+1", "é"] {
        assert_eq!(unhex(bad), None, "{bad}");
    }
}

#[test]
fn every_token_and_every_session_secret_is_distinct() {
    let a = TokenStore::default();
    let b = TokenStore::default();
    assert_ne!(a.secret, b.secret);
    // Approving the same call twice gives two tokens, each good once.
    let (t1, t2) = (
        a.mint(None, &del("A"), "user"),
        a.mint(None, &del("A"), "user"),
    );
    assert_ne!(t1, t2);
    assert_eq!(a.redeem(None, &del("A"), &t2), Ok("user".into()));
    assert_eq!(a.redeem(None, &del("A"), &t1), Ok("user".into()));
    assert_eq!(a.redeem(None, &del("A"), &t1), Err(TokenError::Spent));
    // The same nonce under another session's secret is another MAC.
    assert_ne!(t1, b.mint(None, &del("A"), "user"));
}
