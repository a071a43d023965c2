//! The example adapter in `adapters/python` answers with messages that the
//! protocol's schemas accept (what `rbv run --validate-protocol` checks).

use rbv_protocol::schema::ProtocolValidator;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn the_python_example_speaks_valid_protocol() {
    let adapter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../adapters/python/examples/toy_adapter.py"
    );
    let schema = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json";
    let manifest = json!({
        "$schema": schema, "name": "p", "version": "1.0.0", "colour": 1,
        "permissions": {"default": "escalate", "operations": [
            {"id": "skill:x", "band": "auto"}, {"id": "bad", "band": "auto"}]}
    });
    let requests = [
        json!({"id": 0, "session": "handshake", "type": "handshake", "protocol_version": 1, "harness": "test"}),
        json!({"id": 1, "session": "s", "type": "load_plugins",
               "plugins": [{"manifest": manifest}, {"manifest": {"name": "X"}}]}),
        json!({"id": 2, "session": "s", "type": "validate_manifest", "plugin": {"manifest": manifest}}),
        json!({"id": 3, "session": "s", "type": "project", "scope": "local"}),
        json!({"id": 4, "session": "s", "type": "record_event", "event": {"kind": "sensitive_data"}}),
        json!({"id": 5, "session": "s", "type": "evaluate", "operation": {"id": "mcp:a/b", "kind": "sql", "arguments": {"sql": "SELECT 1"}}}),
        json!({"id": 6, "session": "s", "type": "project", "scope": "Local"}),
        json!({"id": 7, "session": "s", "type": "reset_session"}),
    ];
    let validator = ProtocolValidator::new();
    let mut input = String::new();
    for request in &requests {
        // Request 6 is invalid on purpose (`Local`): the adapter must answer `error`.
        let valid = request["id"] != 6;
        assert_eq!(
            validator.validate_request(request).is_ok(),
            valid,
            "{request}"
        );
        input.push_str(&format!("{request}\n"));
    }
    input.push_str("garbage\n");
    let mut child = Command::new("python3")
        .arg(adapter)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs the example adapter");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let types: Vec<_> = answers
        .iter()
        .map(|a| a["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "handshake",
            "loaded",
            "validation",
            "projection",
            "ack",
            "unsupported",
            "error",
            "ack",
            "error"
        ]
    );
    for answer in &answers {
        assert_eq!(validator.validate_response(answer), Ok(()), "{answer}");
        // The typed reader of the harness accepts it too.
        rbv_protocol::Response::from_json(answer).expect("a typed response");
    }
}
