use super::*;
use serde_json::json;

#[test]
fn requests_round_trip_through_a_line() {
    let req = Request {
        id: 7,
        session: "s1".into(),
        body: RequestBody::Invoke(InvokeRequest {
            operation: Operation {
                plugin: Some("db-tools".into()),
                id: "mcp:db/delete_row".into(),
                kind: None,
                arguments: json!({"id": 18446744073709551617u128.to_string()})
                    .as_object()
                    .unwrap()
                    .clone(),
                trust: None,
                actor: None,
            },
            token: Some("t".into()),
        }),
    };
    let line = req.to_line();
    assert!(line.contains(r#""type":"invoke""#), "{line}");
    assert_eq!(Request::from_line(&line).unwrap(), req);
}

#[test]
fn a_line_is_the_envelope_and_the_body_in_one_object() {
    let empty = Request {
        id: 3,
        session: "q\"s".into(),
        body: RequestBody::ResetSession(ResetSessionRequest {}),
    };
    assert_eq!(
        empty.to_line(),
        r#"{"id":3,"session":"q\"s","type":"reset_session"}"#
    );
    let answer = Response::error(None, "s", "bad-request", "x");
    assert_eq!(
        answer.to_line(),
        r#"{"id":null,"session":"s","type":"error","code":"bad-request","message":"x"}"#
    );
    for line in [empty.to_line(), answer.to_line()] {
        let value: Value = serde_json::from_str(&line).unwrap();
        assert!(value.is_object(), "{line}");
    }
    assert_eq!(Request::from_line(&empty.to_line()).unwrap(), empty);
    assert_eq!(Response::from_line(&answer.to_line()).unwrap(), answer);
    // Keys in any order, the envelope last; a nested tagged event.
    let line = r#"{"event":{"vars":{"N":"1"},"kind":"environment"},"type":"record_event","session":"s","id":9}"#;
    let req = Request::from_line(line).unwrap();
    assert_eq!(req.id, 9);
    assert!(matches!(req.body, RequestBody::RecordEvent(_)));
    assert_eq!(Request::from_line(&req.to_line()).unwrap(), req);
}

#[test]
fn no_body_has_a_field_named_like_the_envelope() {
    // A line is one object: such a field would repeat an envelope key.
    let schemas = RequestBody::body_schemas()
        .into_iter()
        .chain(ResponseBody::body_schemas());
    for (kind, schema) in schemas {
        let schema = serde_json::to_value(schema).unwrap();
        for key in ["id", "session", "type"] {
            assert!(schema["properties"].get(key).is_none(), "{kind}.{key}");
        }
    }
}

#[test]
fn numbers_keep_every_digit() {
    let line = r#"{"id":1,"session":"s","type":"evaluate","operation":{"id":"mcp:a/b","arguments":{"n":18446744073709551617,"f":0.10000000000000001,"g":1e400}}}"#;
    let req = Request::from_line(line).unwrap();
    let again = req.to_line();
    // `1e400` overflows f64: it must survive (as `1e+400`), not become null.
    for digits in ["18446744073709551617", "0.10000000000000001", "1e+400"] {
        assert!(again.contains(digits), "{digits} lost in {again}");
    }
}

#[test]
fn envelope_errors_are_typed() {
    assert!(matches!(
        Request::from_line("[1]"),
        Err(WireError::NotAnObject)
    ));
    assert!(matches!(
        Request::from_line("nope"),
        Err(WireError::Json(_))
    ));
    assert!(matches!(
        Request::from_line(r#"{"id":1,"session":"s","type":"fly"}"#),
        Err(WireError::UnknownType(t)) if t == "fly"
    ));
    assert!(matches!(
        Request::from_line(r#"{"id":"1","session":"s","type":"reset_session"}"#),
        Err(WireError::Envelope("id"))
    ));
    assert!(matches!(
        Request::from_line(r#"{"id":1,"session":"s","type":"project","scope":"Local"}"#),
        Err(WireError::Body { .. })
    ));
    assert!(matches!(
        Request::from_line(r#"{"session":"s","type":"reset_session"}"#),
        Err(WireError::Envelope("id"))
    ));
    assert!(matches!(
        Request::from_line(r#"{"id":1,"type":"reset_session"}"#),
        Err(WireError::Envelope("session"))
    ));
    assert!(matches!(
        Request::from_line(r#"{"id":1,"session":"s","type":"reset_session","x":1}"#),
        Err(WireError::Body { .. })
    ));
    assert!(matches!(
        Request::from_line(r#"{"id":1,"session":"s","type":"reset_session"} x"#),
        Err(WireError::Json(_))
    ));
}

#[test]
fn responses_parse_with_null_id_and_event_tags() {
    let r = Response::from_line(
        r#"{"id":null,"session":"","type":"error","code":"bad-request","message":"x"}"#,
    )
    .unwrap();
    assert_eq!(r.id, None);
    let ev: SessionEvent =
        serde_json::from_value(json!({"kind":"environment","vars":{"A":"1"}})).unwrap();
    assert!(matches!(ev, SessionEvent::Environment { .. }));
    assert_eq!(
        salvage_envelope(r#"{"id":3,"session":"q","type":1}"#),
        (Some(3), "q".into())
    );
}
