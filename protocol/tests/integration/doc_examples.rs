//! Every example line in PROTOCOL.md is a message of the protocol: it
//! decodes as a request or a response and passes the schemas. A document
//! whose examples drift from the wire types misleads every adapter author.

use rbv_protocol::schema::ProtocolValidator;
use rbv_protocol::{Request, Response, ResponseBody};
use serde_json::Value;

/// Every ```json block: its first line number and its lines.
fn json_blocks(text: &str) -> Vec<(usize, Vec<&str>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<&str>)> = None;
    for (n, line) in text.lines().enumerate() {
        match (line.trim(), current.as_mut()) {
            ("```json", None) => current = Some((n + 2, Vec::new())),
            ("```", Some(_)) => blocks.extend(current.take()),
            (l, Some((_, lines))) if !l.is_empty() => lines.push(l),
            _ => {}
        }
    }
    blocks
}

#[test]
fn every_example_in_protocol_md_is_a_valid_message() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../PROTOCOL.md");
    let text = std::fs::read_to_string(path).expect("PROTOCOL.md is in the repository");
    let validator = ProtocolValidator::new();
    let (mut requests, mut responses, mut fragments) = (0, 0, 0);
    let mut lines = Vec::new();
    for (first, block) in json_blocks(&text) {
        if block.iter().all(|l| l.starts_with(r#"{"id":"#)) {
            lines.extend(block.iter().enumerate().map(|(i, l)| (first + i, *l)));
        } else {
            // A fragment (one operation, say), spread over lines for reading.
            let joined = block.join(" ");
            serde_json::from_str::<Value>(&joined)
                .unwrap_or_else(|e| panic!("PROTOCOL.md:{first}: not JSON: {e}"));
            fragments += 1;
        }
    }
    assert!(lines.len() > 20, "only {} example lines found", lines.len());
    for (n, line) in lines {
        let value: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("PROTOCOL.md:{n}: not JSON: {e}"));
        // `handshake` is both a request and a response; a request has
        // `protocol_version` and `harness`, an answer `implementation`.
        let request = Request::from_line(line).ok();
        let response = Response::from_line(line).ok();
        match (request, response) {
            (Some(_), _) if validator.validate_request(&value).is_ok() => requests += 1,
            (_, Some(answer)) => {
                if let Err(errors) = validator.validate_response(&value) {
                    panic!("PROTOCOL.md:{n}: {errors:?}");
                }
                // A band is a floor, never a grant: the example must not
                // teach an effective band below the declared one.
                if let ResponseBody::Evaluation(e) = &answer.body {
                    assert!(
                        e.declared.is_none_or(|d| e.band >= d),
                        "PROTOCOL.md:{n}: band {:?} below declared {:?}",
                        e.band,
                        e.declared
                    );
                }
                responses += 1;
            }
            _ => panic!(
                "PROTOCOL.md:{n}: neither a request nor a response: {:?} / {:?}",
                Request::from_line(line).err(),
                Response::from_line(line).err()
            ),
        }
    }
    assert!(
        requests > 5 && responses > 5 && fragments > 0,
        "{requests} requests, {responses} responses, {fragments} fragments"
    );
}
