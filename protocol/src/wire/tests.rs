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
                dialect: None,
                workspace: None,
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
        for key in ENVELOPE {
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

/// The variant of a decoding error, for comparing two decoders.
fn error_kind(e: &WireError) -> String {
    match e {
        WireError::Envelope(key) => format!("envelope {key}"),
        WireError::UnknownType(t) => format!("type {t}"),
        other => format!("{:?}", std::mem::discriminant(other)),
    }
}

#[test]
fn from_json_decodes_what_from_line_decodes() {
    let lines = [
        r#"{"id":9,"session":"s","type":"record_event","event":{"vars":{"N":"1"},"kind":"environment"}}"#,
        r#"{"id":1,"session":"s","type":"evaluate","operation":{"id":"mcp:a/b","arguments":{"n":18446744073709551617,"f":0.10000000000000001,"g":1e400}}}"#,
        r#"{"id":3,"session":"q\"s","type":"reset_session"}"#,
        r#"{"id":1,"session":"s","type":"fly"}"#,
        r#"{"id":"1","session":"s","type":"reset_session"}"#,
        r#"{"id":-1,"session":"s","type":"reset_session"}"#,
        r#"{"session":"s","type":"reset_session"}"#,
        r#"{"id":1,"type":"reset_session"}"#,
        r#"{"id":1,"session":"s","type":7}"#,
        r#"{"id":1,"session":"s","type":"project","scope":"Local"}"#,
        r#"{"id":1,"session":"s","type":"reset_session","x":1}"#,
        "[1]",
    ];
    for line in lines {
        let value: Value = serde_json::from_str(line).unwrap();
        match (Request::from_line(line), Request::from_json(&value)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{line}"),
            (Err(a), Err(b)) => assert_eq!(error_kind(&a), error_kind(&b), "{line}"),
            (a, b) => panic!("{line}: from_line {a:?}, from_json {b:?}"),
        }
    }
    let answers = [
        r#"{"id":null,"session":"","type":"error","code":"bad-request","message":"x"}"#,
        r#"{"id":4,"session":"s","type":"projection","band":"soft-ack"}"#,
        r#"{"id":4,"session":"s","type":"projection","band":"Escalate"}"#,
        r#"{"id":4,"session":"s","type":"ack","extra":true}"#,
    ];
    for line in answers {
        let value: Value = serde_json::from_str(line).unwrap();
        match (Response::from_line(line), Response::from_json(&value)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{line}"),
            (Err(a), Err(b)) => assert_eq!(error_kind(&a), error_kind(&b), "{line}"),
            (a, b) => panic!("{line}: from_line {a:?}, from_json {b:?}"),
        }
    }
}

#[test]
fn typed_json_is_the_line_without_id_and_session() {
    let req = Request {
        id: 12,
        session: "s".into(),
        body: RequestBody::Project(ProjectRequest {
            reversibility: Some(Reversibility::Irreversible),
            scope: None,
            trust: None,
        }),
    };
    let line: Value = serde_json::from_str(&req.to_line()).unwrap();
    let typed: Value = serde_json::from_str(&req.body.typed_json()).unwrap();
    let mut expected = line.as_object().unwrap().clone();
    expected.remove("id");
    expected.remove("session");
    assert_eq!(typed, Value::Object(expected));
    let empty = RequestBody::ResetSession(ResetSessionRequest {});
    assert_eq!(empty.typed_json(), r#"{"type":"reset_session"}"#);
}

/// Only spaces and tabs make a line blank, with one `\r` at its end; every
/// other whitespace-like character leaves a line that must be answered.
#[test]
fn blank_lines_are_spaces_and_tabs_only() {
    for blank in ["", " ", "\t", " \t ", "\r", "  \r"] {
        assert!(is_blank_line(blank.as_bytes()), "{blank:?}");
    }
    for answered in [
        "\u{b}", "\u{c}", "\u{1c}", "\u{1f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{2029}",
        "\u{feff}", "\u{3000}", "\r\r", "\r ", " x", "\0",
    ] {
        assert!(!is_blank_line(answered.as_bytes()), "{answered:?}");
    }
}

#[test]
fn a_workspace_is_absolute_paths_and_cwd_defaults_to_root() {
    let line = r#"{"id":4,"session":"s","type":"set_policy","workspace":{"root":"/srv/app","home":"/home/me"}}"#;
    let Ok(Request {
        body: RequestBody::SetPolicy(policy),
        ..
    }) = Request::from_line(line)
    else {
        panic!("{line} reads as a set_policy");
    };
    let ws = policy.workspace.expect("the workspace is kept");
    assert_eq!(ws.cwd().as_str(), "/srv/app");
    assert_eq!(ws.home.as_ref().map(AbsolutePath::as_str), Some("/home/me"));
    let again = Request::from_line(line).unwrap();
    assert_eq!(Request::from_line(&again.to_line()).unwrap(), again);
    let refused = |ws: &str| {
        let line = format!(
            r#"{{"id":5,"session":"s","type":"evaluate","operation":{{"id":"client:shell","workspace":{ws}}}}}"#
        );
        Request::from_line(&line).expect_err(&line).to_string()
    };
    for relative in [
        r#"{"root":"srv/app"}"#,
        r#"{"root":"/srv/app","cwd":"./web"}"#,
        r#"{"root":"/srv/app","home":"~"}"#,
        r#"{"root":""}"#,
    ] {
        let err = refused(relative);
        assert!(err.contains("not an absolute path"), "{relative}: {err}");
    }
    for malformed in [
        r#"{"cwd":"/srv/app"}"#,
        r#"{"root":"/srv/app","shell":"bash"}"#,
    ] {
        let err = refused(malformed);
        assert!(
            err.contains("root") || err.contains("shell"),
            "{malformed}: {err}"
        );
    }
}
