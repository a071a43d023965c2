//! The loop and the dispatch, on lines as rbv sends them.

use super::*;
use serde_json::{json, Value};

/// Claims projection and implements it (a toy rule: trusted reversible
/// local is auto, anything else escalates) and counts `record_event`s per
/// session, to show state is per session and reset.
#[derive(Default)]
struct Toy;

#[derive(Default)]
struct ToySession {
    events: usize,
}

impl Implementation for Toy {
    type Session = ToySession;
    fn name(&self) -> String {
        "toy".into()
    }
    fn version(&self) -> String {
        "1.2.3".into()
    }
    fn capabilities(&self) -> Vec<Capability> {
        vec![Capability::Projection]
    }
    fn profile(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([("rule_of_two_threshold".to_owned(), json!(3))])
    }
    fn project(&mut self, req: ProjectRequest) -> Answer<ProjectionResponse> {
        let safe = req.reversibility == Some(Reversibility::Reversible)
            && req.scope == Some(Scope::Local)
            && req.trust == Some(Trust::Trusted);
        if req.scope == Some(Scope::SharedRemote) && req.trust == Some(Trust::Trusted) {
            panic!("toy panic");
        }
        Ok(ProjectionResponse {
            band: if safe { Band::Auto } else { Band::Escalate },
        })
    }
    fn record_event(
        &mut self,
        session: &mut ToySession,
        _req: RecordEventRequest,
    ) -> Answer<AckResponse> {
        session.events += 1;
        if session.events > 1 {
            // Observable through the answer: the second event of a session
            // is refused with an error naming the count.
            return Err(Refusal::error(
                "second",
                format!("{} events", session.events),
            ));
        }
        Ok(AckResponse {})
    }
}

/// Runs `input` through the stdio loop and returns each answer as JSON.
fn serve_lines(input: &str, max_line: usize) -> Vec<Value> {
    let mut out = Vec::new();
    serve(Toy, input.as_bytes(), &mut out, max_line).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with('\n') || text.is_empty());
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn types(answers: &[Value]) -> Vec<&str> {
    answers
        .iter()
        .map(|a| a["type"].as_str().unwrap())
        .collect()
}

const HANDSHAKE: &str =
    r#"{"id":0,"session":"handshake","type":"handshake","protocol_version":1,"harness":"t"}"#;
const EVENT: &str = r#""type":"record_event","event":{"kind":"state_change"}"#;

#[test]
fn the_handshake_is_built_from_the_trait() {
    let a = serve_lines(&format!("{HANDSHAKE}\n"), MAX_LINE);
    assert_eq!(
        a[0],
        json!({"id": 0, "session": "handshake", "type": "handshake", "protocol_version": 1,
               "implementation": {"name": "toy", "version": "1.2.3"},
               "capabilities": ["projection"], "profile": {"rule_of_two_threshold": 3}})
    );
    let other = HANDSHAKE.replace("\"protocol_version\":1", "\"protocol_version\":2");
    let a = serve_lines(&format!("{other}\n"), MAX_LINE);
    assert_eq!(a[0]["type"], "error");
    assert_eq!(a[0]["code"], "protocol-version");
}

#[test]
fn bad_lines_get_errors_echoing_what_is_readable_and_the_loop_survives() {
    let input = [
        "{not json",
        "[1,2]",
        r#"{"id":"7","session":"s","type":"project"}"#,
        r#"{"id":-1,"session":"s","type":"project"}"#,
        r#"{"id":18446744073709551616,"session":"s","type":"project"}"#,
        r#"{"id":5,"session":7,"type":"project"}"#,
        r#"{"id":6,"session":"s","type":"project","scope":"Local"}"#,
        r#"{"id":8,"session":"s","type":"project","colour":"red"}"#,
        r#"{"id":9,"session":"s","type":"project","reversibility":"reversible","scope":"local","trust":"trusted"}"#,
    ]
    .join("\n");
    let a = serve_lines(&input, MAX_LINE);
    assert_eq!(a.len(), 9, "{a:?}");
    assert_eq!(a[0]["code"], "bad-json");
    for (i, (id, session)) in [
        (Value::Null, ""),
        (Value::Null, ""),
        (Value::Null, "s"),
        (Value::Null, "s"),
        (Value::Null, "s"),
        (json!(5), ""),
        (json!(6), "s"),
        (json!(8), "s"),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(a[i]["type"], "error", "line {i}: {}", a[i]);
        assert_eq!(
            (&a[i]["id"], a[i]["session"].as_str().unwrap()),
            (&id, session),
            "line {i}"
        );
    }
    assert_eq!(
        a[8],
        json!({"id": 9, "session": "s", "type": "projection", "band": "auto"})
    );
}

#[test]
fn ids_come_back_digit_for_digit_up_to_2_to_the_64() {
    let input = format!(
        "{{\"id\":18446744073709551615,\"session\":\"s\",{EVENT}}}\n\
         {{\"id\":9007199254740993,\"session\":\"t\",{EVENT}}}\n\
         {{\"id\":18446744073709551615,\"session\":\"s\",\"type\":\"no_such_type\"}}\n"
    );
    let mut out = Vec::new();
    serve(Toy, input.as_bytes(), &mut out, MAX_LINE).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(r#"{"id":18446744073709551615,"session":"s","type":"ack""#));
    assert!(lines[1].starts_with(r#"{"id":9007199254740993,"session":"t","type":"ack""#));
    assert!(
        lines[2].starts_with(r#"{"id":18446744073709551615,"session":"s","type":"unsupported""#)
    );
}

#[test]
fn unknown_types_and_unimplemented_requests_are_unsupported() {
    let input = [
        r#"{"id":1,"session":"s","type":"teleport"}"#,
        r#"{"id":2,"session":"s","type":"evaluate","operation":{"id":"mcp:a/b"}}"#,
        r#"{"id":3,"session":"s","type":"approve","operation":{"id":"mcp:a/b"},"approver":{"kind":"human","name":"u"}}"#,
        r#"{"id":4,"session":"s","type":"invoke","operation":{"id":"mcp:a/b"}}"#,
        r#"{"id":5,"session":"s","type":"load_plugins","plugins":[]}"#,
        r#"{"id":6,"session":"s","type":"validate_manifest","plugin":{"manifest":{}}}"#,
        r#"{"id":7,"session":"s","type":"set_policy"}"#,
        r#"{"id":8,"session":"s","type":"diff_manifests","old":{"manifest":{}},"new":{"manifest":{}}}"#,
        // Supported by default: the SDK owns the state it resets.
        r#"{"id":9,"session":"s","type":"reset_session"}"#,
    ]
    .join("\n");
    let a = serve_lines(&input, MAX_LINE);
    let mut want = vec!["unsupported"; 8];
    want.push("ack");
    assert_eq!(types(&a), want);
    assert!(a[0]["message"].as_str().unwrap().contains("teleport"));
    assert!(a[6]["message"].as_str().unwrap().contains("set_policy"));
}

#[test]
fn pipelined_requests_are_answered_in_order_with_state_per_session() {
    let mut input = String::new();
    for (id, session) in [(1, "a"), (2, "b"), (3, "a"), (5, "a")] {
        input.push_str(&format!(
            "{{\"id\":{id},\"session\":\"{session}\",{EVENT}}}\n"
        ));
        if id == 3 {
            input.push_str("{\"id\":4,\"session\":\"a\",\"type\":\"reset_session\"}\r\n\n   \n");
        }
    }
    let a = serve_lines(&input, MAX_LINE);
    let ids: Vec<u64> = a.iter().map(|x| x["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    // `a`'s second event errs, `b` is its own session, and after the reset
    // `a` starts from nothing again.
    assert_eq!(types(&a), ["ack", "ack", "error", "ack", "ack"]);
    assert_eq!(a[2]["code"], "second");
}

#[test]
fn a_panic_is_an_error_answer_and_the_loop_goes_on() {
    let input = [
        r#"{"id":1,"session":"s","type":"project","reversibility":"reversible","scope":"shared-remote","trust":"trusted"}"#,
        r#"{"id":2,"session":"s","type":"project"}"#,
    ]
    .join("\n");
    let a = serve_lines(&input, MAX_LINE);
    assert_eq!(types(&a), ["error", "projection"]);
    assert_eq!(a[0]["code"], "internal");
    assert!(a[0]["message"].as_str().unwrap().contains("toy panic"));
    assert_eq!(a[1]["band"], "escalate");
}

#[test]
fn an_overlong_or_non_utf8_line_is_an_error_and_the_next_line_is_read() {
    let long = format!(
        "{{\"id\":1,\"session\":\"s\",\"type\":\"project\",\"x\":\"{}\"}}",
        "a".repeat(300)
    );
    let ok = r#"{"id":2,"session":"s","type":"project"}"#;
    let a = serve_lines(&format!("{long}\n{ok}\n"), 64);
    assert_eq!(types(&a), ["error", "projection"]);
    assert_eq!(
        (&a[0]["id"], &a[0]["code"]),
        (&Value::Null, &json!("too-long"))
    );
    // A reader that hands the line over in small pieces gives the same.
    let both = format!("{long}\n{ok}");
    let reader = std::io::BufReader::with_capacity(7, both.as_bytes());
    let mut out = Vec::new();
    serve(Toy, reader, &mut out, 64).unwrap();
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 2);

    let mut bytes = b"{\"id\":1,\"session\":\"s\xff\",\"type\":\"project\"}\n".to_vec();
    bytes.extend_from_slice(ok.as_bytes());
    let mut out = Vec::new();
    serve(Toy, bytes.as_slice(), &mut out, MAX_LINE).unwrap();
    let text = String::from_utf8(out).unwrap();
    let a: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(types(&a), ["error", "projection"]);
    assert_eq!(a[0]["code"], "bad-json");
}

#[test]
fn dispatcher_handle_line_is_what_the_loop_writes() {
    let mut d = Dispatcher::new(Toy);
    let line = r#"{"id":3,"session":"x","type":"project","reversibility":"reversible","scope":"local","trust":"trusted"}"#;
    let direct = d.handle_line(line);
    assert_eq!(
        serve_lines(&format!("{line}\n"), MAX_LINE)[0],
        serde_json::from_str::<Value>(&direct).unwrap()
    );
    assert_eq!(d.handshake().capabilities, ["projection"]);
}

/// Only spaces and tabs (and a `\r` before the newline) make a line blank:
/// a line of any other whitespace-like character is not JSON and gets an
/// `error`, or the request after it would be charged with the silence.
#[test]
fn every_line_that_is_not_blank_is_answered() {
    let odd = [
        "\u{b}", "\u{c}", "\u{1c}", "\u{1f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{2029}",
        "\u{3000}", "\u{feff}", "\r\r", " \u{b}\t",
    ];
    let mut input = format!("{HANDSHAKE}\n\n \t\n\t\r\n");
    for line in odd {
        input.push_str(line);
        input.push('\n');
    }
    input.push_str(r#"{"id":9,"session":"s","type":"project"}"#);
    let a = serve_lines(&input, MAX_LINE);
    let mut expected = vec!["handshake"];
    expected.extend(odd.map(|_| "error"));
    expected.push("projection");
    assert_eq!(types(&a), expected);
    assert!(a[1..=odd.len()]
        .iter()
        .all(|e| e["id"].is_null() && e["session"] == "" && e["code"] == "bad-json"));
}

/// Keeps the session's declared workspace and answers each evaluation
/// with the workspace it would judge the call in.
#[derive(Default)]
struct Rooted;

#[derive(Default)]
struct RootedSession {
    workspace: Option<Workspace>,
}

impl Implementation for Rooted {
    type Session = RootedSession;
    fn name(&self) -> String {
        "rooted".into()
    }
    fn version(&self) -> String {
        "1".into()
    }
    fn capabilities(&self) -> Vec<Capability> {
        vec![Capability::Shell, Capability::Workspace]
    }
    fn set_policy(
        &mut self,
        session: &mut RootedSession,
        req: SetPolicyRequest,
    ) -> Answer<AckResponse> {
        if let Some(ws) = req.workspace {
            session.workspace = Some(ws);
        }
        Ok(AckResponse {})
    }
    fn evaluate(
        &mut self,
        session: &mut RootedSession,
        req: EvaluateRequest,
    ) -> Answer<EvaluationResponse> {
        let ws = req
            .operation
            .workspace
            .as_ref()
            .or(session.workspace.as_ref());
        let reason = ws.map_or("default rule".to_owned(), |w| {
            format!("{} in {}", w.cwd().as_str(), w.root.as_str())
        });
        Ok(EvaluationResponse {
            band: Band::Auto,
            decision: Decision::Allow,
            declared: None,
            reasons: vec![reason],
            signature: None,
            audit: None,
        })
    }
}

#[test]
fn a_workspace_reaches_the_trait_typed_and_a_relative_one_is_an_error() {
    let input = [
        HANDSHAKE,
        r#"{"id":1,"session":"a","type":"evaluate","operation":{"id":"client:shell"}}"#,
        r#"{"id":2,"session":"a","type":"set_policy","workspace":{"root":"/srv/app"}}"#,
        r#"{"id":3,"session":"a","type":"evaluate","operation":{"id":"client:shell"}}"#,
        r#"{"id":4,"session":"a","type":"evaluate","operation":{"id":"client:shell","workspace":{"root":"/work/p","cwd":"/work/p/web"}}}"#,
        r#"{"id":5,"session":"a","type":"set_policy","workspace":{"root":"srv/app"}}"#,
    ]
    .join("\n");
    let mut out = Vec::new();
    serve(Rooted, input.as_bytes(), &mut out, MAX_LINE).unwrap();
    let answers: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers[1]["reasons"][0], "default rule");
    assert_eq!(answers[2]["type"], "ack");
    assert_eq!(answers[3]["reasons"][0], "/srv/app in /srv/app");
    assert_eq!(answers[4]["reasons"][0], "/work/p/web in /work/p");
    let refused = &answers[5];
    assert_eq!(
        (refused["type"].as_str(), refused["id"].as_u64()),
        (Some("error"), Some(5))
    );
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("not an absolute path"), "{message}");
}
