//! `ProtocolValidator` accepts every well-formed message and names the field
//! of every malformed one.

use rbv_protocol::schema::ProtocolValidator;
use rbv_protocol::{
    AckResponse, EvaluationResponse, HandshakeResponse, ImplementationInfo, PluginReport, Request,
    Response, ResponseBody, ValidationResponse,
};
use serde_json::{json, Value};

fn line(text: &str) -> Value {
    serde_json::from_str(text).expect("test input is JSON")
}

fn rejected(result: Result<(), Vec<String>>, field: &str) -> Vec<String> {
    let errors = result.expect_err("must be rejected");
    assert!(
        errors.iter().any(|e| e.contains(field)),
        "no message names `{field}`: {errors:?}"
    );
    errors
}

#[test]
fn well_formed_answers_pass() {
    let v = ProtocolValidator::new();
    let answers = [
        ResponseBody::Handshake(HandshakeResponse {
            protocol_version: 1,
            implementation: ImplementationInfo {
                name: "x".into(),
                version: "1".into(),
            },
            capabilities: vec!["manifest".into(), "time-travel".into()],
            profile: [("rule_of_two_threshold".to_owned(), json!(2))].into(),
        }),
        ResponseBody::Ack(AckResponse {}),
        ResponseBody::Validation(ValidationResponse {
            plugin: PluginReport {
                name: None,
                loaded: false,
                diagnostics: vec![],
                declarations: Default::default(),
                default_floor: None,
            },
        }),
        ResponseBody::Evaluation(EvaluationResponse {
            band: rbv_protocol::Band::SoftAck,
            decision: rbv_protocol::Decision::Note,
            declared: None,
            reasons: vec!["fetch".into()],
            signature: Some("abc".into()),
            audit: None,
        }),
    ];
    for (i, body) in answers.into_iter().enumerate() {
        let value = Response {
            id: Some(i as u64),
            session: "s".into(),
            body,
        }
        .to_value();
        assert_eq!(v.validate_response(&value), Ok(()), "{value}");
    }
    let error = Response::error(None, "", "bad-json", "not JSON").to_value();
    assert_eq!(v.validate_response(&error), Ok(()));
    // Numbers beyond u64 and f64 in argument data are still valid requests.
    let request = line(
        r#"{"id":3,"session":"s","type":"evaluate","operation":{"id":"mcp:a/b","arguments":{"n":18446744073709551617,"g":1e400}}}"#,
    );
    assert!(Request::from_json(&request).is_ok());
    assert_eq!(v.validate_request(&request), Ok(()));
}

#[test]
fn a_wrong_enum_spelling_is_named() {
    let v = ProtocolValidator::new();
    rejected(
        v.validate_response(&line(
            r#"{"id":1,"session":"s","type":"projection","band":"Escalate"}"#,
        )),
        "/band",
    );
    rejected(
        v.validate_request(&line(
            r#"{"id":1,"session":"s","type":"project","scope":"shared_remote"}"#,
        )),
        "/scope",
    );
}

#[test]
fn a_missing_field_is_named() {
    let v = ProtocolValidator::new();
    rejected(
        v.validate_response(&line(
            r#"{"id":1,"session":"s","type":"evaluation","band":"auto"}"#,
        )),
        "decision",
    );
    rejected(
        v.validate_response(&line(r#"{"id":1,"type":"ack"}"#)),
        "session",
    );
    // Only an error may answer with a null id.
    rejected(
        v.validate_response(&line(r#"{"id":null,"session":"s","type":"ack"}"#)),
        "/id",
    );
    rejected(
        v.validate_response(&line(r#"{"id":-1,"session":"s","type":"ack"}"#)),
        "/id",
    );
}

#[test]
fn unknown_fields_of_strict_requests_are_named() {
    let v = ProtocolValidator::new();
    rejected(
        v.validate_request(&line(
            r#"{"id":1,"session":"s","type":"project","scop":"local"}"#,
        )),
        "scop",
    );
}

#[test]
fn an_unknown_or_missing_type_is_an_error() {
    let v = ProtocolValidator::new();
    rejected(
        v.validate_response(&line(r#"{"id":1,"session":"s","type":"teleported"}"#)),
        "type",
    );
    rejected(
        v.validate_response(&line(r#"{"id":1,"session":"s"}"#)),
        "type",
    );
    rejected(
        v.validate_response(&line(r#"{"id":1,"session":"s","type":7}"#)),
        "type",
    );
    rejected(v.validate_response(&line("[1]")), "object");
    // A request type is not a response type.
    rejected(
        v.validate_response(&line(r#"{"id":1,"session":"s","type":"evaluate"}"#)),
        "type",
    );
}

#[test]
fn every_generated_request_example_is_valid() {
    // The round-trip types of wire.rs, serialized, pass their own schemas.
    let v = ProtocolValidator::new();
    let lines = [
        r#"{"id":0,"session":"","type":"handshake","protocol_version":1,"harness":"rbv 0.1.0"}"#,
        r#"{"id":1,"session":"c1","type":"load_plugins","plugins":[{"manifest":{"name":"x"}}]}"#,
        r#"{"id":2,"session":"c1","type":"record_event","event":{"kind":"environment","vars":{"A":"1"}}}"#,
        r#"{"id":3,"session":"c1","type":"approve","operation":{"id":"mcp:db/drop"},"approver":{"kind":"human","name":"user"}}"#,
        r#"{"id":4,"session":"c1","type":"reset_session"}"#,
    ];
    for text in lines {
        let value = line(text);
        let typed = Request::from_json(&value).expect("a valid request");
        assert_eq!(v.validate_request(&typed.to_value()), Ok(()), "{text}");
    }
}

#[test]
fn an_audit_timestamp_must_be_rfc_3339() {
    let v = ProtocolValidator::new();
    let answer = |timestamp: &str| {
        json!({"id": 1, "session": "s", "type": "evaluation", "band": "auto",
            "decision": "allow", "declared": null, "reasons": [], "signature": "ab",
            "audit": {"timestamp": timestamp, "actor": "model", "plugin": null,
                "plugin_version": null, "operation": "client:x", "signature": "ab",
                "band": "auto", "decision": "allow", "gate": "manifest",
                "authorized_by": null, "outcome": "allowed"}})
    };
    assert_eq!(v.validate_response(&answer("2026-11-30T10:00:00Z")), Ok(()));
    assert_eq!(
        v.validate_response(&answer("2026-11-30T10:00:00.123+02:00")),
        Ok(())
    );
    for bad in [
        "1764547200",
        "2026-11-30",
        "30/11/2026 10:00",
        "2026-11-30T25:00:00Z",
    ] {
        // `audit` is nullable (an `anyOf`): the violation is named at `/audit`.
        rejected(v.validate_response(&answer(bad)), "/audit");
    }
}
