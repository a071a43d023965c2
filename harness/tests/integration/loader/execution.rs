//! Executing cases against a scripted fake implementation: the judge's
//! directions, skips, captures, concurrency and protocol errors.

use super::*;
use rbv::transport::{Identity, Observation, Transport, TransportError};
use rbv::verdict::{ErrorKind, FailKind, Verdict};
use rbv_protocol::{HandshakeResponse, ImplementationInfo, RequestBody, Response};
use serde_json::{json, Value};

type Responder = Box<dyn FnMut(&str, &Value) -> Value>;

/// A scripted implementation: each request's JSON goes to `respond`, whose
/// answer body (with `type`) is wrapped in an envelope.
struct Fake {
    identity: Identity,
    respond: Responder,
    sent: Vec<Value>,
    session_override: Option<String>,
}

impl Fake {
    fn new(capabilities: &[&str], profile: Value, respond: Responder) -> Self {
        let handshake = HandshakeResponse {
            protocol_version: 1,
            implementation: ImplementationInfo {
                name: "fake".into(),
                version: "0".into(),
            },
            capabilities: capabilities.iter().map(|c| c.to_string()).collect(),
            profile: serde_json::from_value(profile).unwrap(),
        };
        Fake {
            identity: Identity::from_handshake(handshake),
            respond,
            sent: Vec::new(),
            session_override: None,
        }
    }
}

impl Transport for Fake {
    fn identity(&self) -> &Identity {
        &self.identity
    }
    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        let mut out = Vec::new();
        for body in bodies {
            let request = rbv_protocol::Request {
                id: self.sent.len() as u64,
                session: session.into(),
                body,
            }
            .to_value();
            let kind = request["type"].as_str().unwrap().to_owned();
            let mut value = (self.respond)(&kind, &request);
            value["id"] = request["id"].clone();
            value["session"] = json!(self.session_override.clone().unwrap_or(session.into()));
            self.sent.push(request);
            out.push(Observation {
                line: value.to_string(),
                response: Response::from_json(&value).map_err(|e| e.to_string()),
                value,
            });
        }
        Ok(out)
    }
}

const ALL: &[&str] = &[
    "manifest",
    "projection",
    "rule-of-two",
    "sql",
    "shell",
    "fetch",
    "tokens",
    "audit",
    "versioning",
];

fn projection(band: &'static str) -> Responder {
    Box::new(move |_, _| json!({"type": "projection", "band": band}))
}

fn fail_kind(v: &Verdict) -> FailKind {
    match v {
        Verdict::Fail(f) => f.kind,
        other => panic!("not a failure: {other:?}"),
    }
}

fn one_case(src: &str) -> Case {
    let suite = load(&[("c.yaml", &format!("{HEAD}{src}"))]).unwrap_or_else(|e| panic!("{e:?}"));
    suite.cases.into_iter().next().unwrap()
}

#[test]
fn band_matchers_fail_under_over_or_mismatch() {
    let cases = [
        ("escalate", "auto", Some(FailKind::Under)),
        ("escalate", "escalate", None),
        ("auto", "soft-ack", Some(FailKind::Over)),
        ("{at_least: soft-ack}", "escalate", None),
        ("{at_least: soft-ack}", "auto", Some(FailKind::Under)),
        ("{at_most: soft-ack}", "escalate", Some(FailKind::Over)),
        (
            "{one_of: [auto, escalate]}",
            "soft-ack",
            Some(FailKind::Mismatch),
        ),
    ];
    for (want, got, kind) in cases {
        let case = one_case(&format!(
            "steps:\n  - project: {{scope: local}}\n    expect: {{band: {want}}}\n"
        ));
        let mut fake = Fake::new(ALL, json!({}), projection(got));
        let run = case::execute(&case, &mut fake, "s1");
        match kind {
            None => assert_eq!(run.verdict, Verdict::Pass, "{want} vs {got}"),
            Some(k) => {
                assert_eq!(fail_kind(&run.verdict), k, "{want} vs {got}");
                let Verdict::Fail(f) = &run.verdict else {
                    unreachable!()
                };
                assert_eq!(f.step, 1);
                assert!(f.diff.contains("-") && f.diff.contains(got), "{}", f.diff);
            }
        }
        assert_eq!(run.exchanges.len(), 1);
        assert_eq!(
            run.exchanges[0].request_value(),
            json!({"type": "project", "scope": "local"})
        );
    }
}

fn evaluation(band: &str, decision: &str, declared: Value) -> Responder {
    let (band, decision) = (band.to_owned(), decision.to_owned());
    Box::new(
        move |_, _| json!({"type": "evaluation", "band": band, "decision": decision, "declared": declared}),
    )
}

#[test]
fn decision_declared_and_boolean_directions() {
    let eval = "steps:\n  - evaluate: {id: \"mcp:a/b\"}\n    expect: ";
    let checks: Vec<(String, Responder, Option<FailKind>)> = vec![
        (format!("{eval}{{decision: ask}}"), evaluation("escalate", "allow", Value::Null), Some(FailKind::Under)),
        (format!("{eval}{{decision: ask}}"), evaluation("escalate", "deny", Value::Null), Some(FailKind::Over)),
        (format!("{eval}{{declared: null}}"), evaluation("auto", "allow", json!("auto")), Some(FailKind::Under)),
        (format!("{eval}{{declared: null}}"), evaluation("auto", "allow", json!("escalate")), Some(FailKind::Mismatch)),
        (format!("{eval}{{declared: escalate}}"), evaluation("auto", "allow", json!("soft-ack")), Some(FailKind::Under)),
        (format!("{eval}{{declared: soft-ack}}"), evaluation("auto", "allow", Value::Null), Some(FailKind::Mismatch)),
        (format!("{eval}{{match: {{reasons: [x]}}}}"), evaluation("auto", "allow", Value::Null), Some(FailKind::Mismatch)),
        (
            "steps:\n  - invoke: {operation: {id: \"mcp:a/b\"}, token: forged}\n    expect: {allowed: false}".into(),
            Box::new(|_, _| json!({"type": "invocation", "allowed": true, "band": "escalate", "decision": "ask"})),
            Some(FailKind::Under),
        ),
        (
            "steps:\n  - invoke: {operation: {id: \"mcp:a/b\"}}\n    expect: {allowed: true}".into(),
            Box::new(|_, _| json!({"type": "invocation", "allowed": false, "band": "auto", "decision": "allow"})),
            Some(FailKind::Over),
        ),
        (
            "steps:\n  - approve: {operation: {id: \"mcp:a/b\"}, approver: {kind: model, name: m}}\n    expect: {granted: false}".into(),
            Box::new(|_, _| json!({"type": "approval", "granted": true, "token": "t"})),
            Some(FailKind::Under),
        ),
        (
            "steps:\n  - diff_manifests: {old: {manifest: {}}, new: {manifest: {}}}\n    expect: {breaking: true}".into(),
            Box::new(|_, _| json!({"type": "diff", "breaking": false, "version_change": "minor"})),
            Some(FailKind::Under),
        ),
        (
            "steps:\n  - diff_manifests: {old: {manifest: {}}, new: {manifest: {}}}\n    expect: {breaking: false}".into(),
            Box::new(|_, _| json!({"type": "diff", "breaking": true, "version_change": "minor"})),
            Some(FailKind::Over),
        ),
        (
            "steps:\n  - validate_manifest: {manifest: {}}\n    expect: {declarations: {\"mcp:a/b\": null}, default_floor: null}".into(),
            Box::new(|_, _| json!({"type": "validation", "plugin": {"name": "p", "loaded": true, "declarations": {"mcp:a/b": "auto"}}})),
            Some(FailKind::Under),
        ),
        (
            "steps:\n  - validate_manifest: {manifest: {}}\n    expect: {default_floor: null}".into(),
            Box::new(|_, _| json!({"type": "validation", "plugin": {"name": "p", "loaded": true, "default_floor": "auto"}})),
            Some(FailKind::Under),
        ),
        (
            "steps:\n  - validate_manifest: {manifest: {}}\n    expect: {loaded: false}".into(),
            Box::new(|_, _| json!({"type": "validation", "plugin": {"name": "p", "loaded": true}})),
            Some(FailKind::Mismatch),
        ),
        (
            format!("{eval}{{type: error}}"),
            evaluation("auto", "allow", Value::Null),
            Some(FailKind::Mismatch),
        ),
        (
            format!("{eval}{{band: escalate}}"),
            Box::new(|_, _| json!({"type": "error", "code": "bad", "message": "no"})),
            Some(FailKind::Mismatch),
        ),
    ];
    for (src, respond, kind) in checks {
        let case = one_case(&format!("{src}\n"));
        let mut fake = Fake::new(ALL, json!({}), respond);
        let run = case::execute(&case, &mut fake, "s");
        match kind {
            None => assert_eq!(run.verdict, Verdict::Pass, "{src}"),
            Some(k) => assert_eq!(fail_kind(&run.verdict), k, "{src}\n{:?}", run.verdict),
        }
    }
}

#[test]
fn guards_follow_the_directions() {
    let sides = |expect: &str| {
        one_case(&format!(
            "steps:\n  - evaluate: {{id: \"mcp:a/b\"}}\n    expect: {expect}\n"
        ))
        .guards()
    };
    let s = sides("{band: {at_least: soft-ack}}");
    assert!(s.unsafe_side && !s.precision);
    let s = sides("{band: auto}");
    assert!(!s.unsafe_side && s.precision);
    let s = sides("{band: soft-ack}");
    assert!(s.unsafe_side && s.precision);
    let s = sides("{match: {reasons: []}}");
    assert!(!s.unsafe_side && !s.precision);
}

#[test]
fn skips_on_missing_capability_and_profile_mismatch() {
    let suite = good();
    let replay = suite.case("tokens/replay-is-blocked").unwrap();
    let mut fake = Fake::new(&["manifest"], json!({}), projection("auto"));
    let run = case::execute(replay, &mut fake, "s");
    assert_eq!(
        run.verdict,
        Verdict::Skip {
            reason: "needs capability tokens which fake does not claim".into()
        }
    );
    assert!(run.exchanges.is_empty() && fake.sent.is_empty());

    let r2 = suite.case("rule-of-two/threshold-three").unwrap();
    // Undeclared: the catalogue default (2) applies, and the case wants 3.
    let mut fake = Fake::new(ALL, json!({}), projection("auto"));
    let Verdict::Skip { reason } = case::execute(r2, &mut fake, "s").verdict else {
        panic!()
    };
    assert!(
        reason.contains("rule_of_two_threshold") && reason.contains("defaults to 2"),
        "{reason}"
    );
    let mut fake = Fake::new(ALL, json!({"rule_of_two_threshold": 2}), projection("auto"));
    assert!(matches!(
        case::execute(r2, &mut fake, "s").verdict,
        Verdict::Skip { .. }
    ));
    let mut fake = Fake::new(
        ALL,
        json!({"rule_of_two_threshold": 3}),
        Box::new(|kind, _| match kind {
            "record_event" => json!({"type": "ack"}),
            _ => {
                json!({"type": "evaluation", "band": "auto", "decision": "allow", "declared": null})
            }
        }),
    );
    assert_eq!(case::execute(r2, &mut fake, "s").verdict, Verdict::Pass);
}

#[test]
fn a_rule_of_two_threshold_condition_needs_rule_of_two() {
    // The catalogue says which capability a profile key means something
    // under: a client without Rule-of-Two skips a threshold case instead
    // of failing it for a capability it never claimed.
    let catalogue = |needs: &str| {
        format!(
            "requirements:\n  - {{id: R-1, title: t, rule: r, section: \"§1\", level: MUST}}\n\
             profiles:\n  - {{key: rule_of_two_threshold, values: [2, 3], default: 2, section: \"§2.3\", description: d{needs}}}\n"
        )
    };
    let case = "id: a/b\nrequirements: [R-1]\nsource: {proposal: \"§1\"}\n\
                profile: {rule_of_two_threshold: 2}\n\
                steps:\n  - record_event: {kind: state_change, what: w}\n  \
                - record_event: {kind: sensitive_data, what: w}\n  \
                - evaluate: {id: \"client:x\"}\n    expect: {band: escalate}\n";
    let load = |catalogue: String| {
        let files = vec![
            ("REQUIREMENTS.yaml".to_owned(), catalogue),
            ("c.yaml".to_owned(), case.to_owned()),
        ];
        case::load_files(&files).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let without: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|c| *c != "rule-of-two")
        .collect();
    // A client without Rule-of-Two: every call is what its inspector says.
    let no_rule_of_two = || -> Responder {
        Box::new(|kind, _| match kind {
            "record_event" => json!({"type": "ack"}),
            _ => {
                json!({"type": "evaluation", "band": "auto", "decision": "allow", "declared": null})
            }
        })
    };

    let suite = load(catalogue(", needs: rule-of-two"));
    assert!(suite.cases[0].needs.contains(&Capability::RuleOfTwo));
    let mut fake = Fake::new(&without, json!({}), no_rule_of_two());
    let verdict = case::execute(&suite.cases[0], &mut fake, "s").verdict;
    assert_eq!(
        verdict,
        Verdict::Skip {
            reason: "needs capability rule-of-two which fake does not claim".into()
        }
    );

    // Without the catalogue's word, the same case runs and fails: the
    // defect the `needs:` key prevents.
    let suite = load(catalogue(""));
    assert!(!suite.cases[0].needs.contains(&Capability::RuleOfTwo));
    let mut fake = Fake::new(&without, json!({}), no_rule_of_two());
    let verdict = case::execute(&suite.cases[0], &mut fake, "s").verdict;
    assert!(matches!(verdict, Verdict::Fail(_)), "{verdict:?}");
}

#[test]
fn every_threshold_case_of_the_corpus_needs_rule_of_two() {
    let suite = case::load_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../cases")))
        .unwrap_or_else(|e| panic!("{} load errors", e.len()));
    let threshold: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| c.profile.contains_key("rule_of_two_threshold"))
        .collect();
    assert!(threshold.len() > 50, "{}", threshold.len());
    for case in threshold {
        assert!(case.needs.contains(&Capability::RuleOfTwo), "{}", case.id);
    }
}

/// A token minted by `approve`, single-use: the fake behaves correctly.
fn token_impl() -> Responder {
    let mut redeemed = false;
    Box::new(move |kind, req| match kind {
        "load_plugins" => {
            json!({"type": "loaded", "plugins": [{"name": "db-tools", "loaded": true}]})
        }
        "approve" => json!({"type": "approval", "granted": true, "token": "tok-123"}),
        "invoke" => {
            let ok = req["token"] == "tok-123" && !redeemed;
            redeemed |= ok;
            json!({"type": "invocation", "allowed": ok, "band": "escalate", "decision": "ask"})
        }
        other => panic!("unexpected {other}"),
    })
}

#[test]
fn a_capture_flows_into_later_steps() {
    let suite = good();
    let replay = suite.case("tokens/replay-is-blocked").unwrap();
    let mut fake = Fake::new(ALL, json!({}), token_impl());
    let run = case::execute(replay, &mut fake, "s");
    assert_eq!(run.verdict, Verdict::Pass, "{:#?}", run.exchanges);
    let steps: Vec<usize> = run.exchanges.iter().map(|e| e.step).collect();
    assert_eq!(steps, [0, 1, 2, 3]);
    assert_eq!(fake.sent[2]["token"], "tok-123");
    assert_eq!(run.exchanges[2].request_value()["token"], "tok-123");
    assert_eq!(fake.sent[2]["operation"]["arguments"]["id"], 1);

    // A token that can be replayed fails `under` on the third step.
    let mut fake = Fake::new(
        ALL,
        json!({}),
        Box::new(|kind, _| match kind {
            "load_plugins" => json!({"type": "loaded", "plugins": []}),
            "approve" => json!({"type": "approval", "granted": true, "token": "t"}),
            _ => {
                json!({"type": "invocation", "allowed": true, "band": "escalate", "decision": "ask"})
            }
        }),
    );
    let Verdict::Fail(f) = case::execute(replay, &mut fake, "s").verdict else {
        panic!()
    };
    assert_eq!((f.kind, f.step), (FailKind::Under, 3));
}

#[test]
fn concurrent_invokes_are_pipelined_and_counted() {
    let suite = good();
    let case = suite.case("tokens/concurrent-redemption").unwrap();
    let mut fake = Fake::new(ALL, json!({}), token_impl());
    let run = case::execute(case, &mut fake, "s");
    assert_eq!(run.verdict, Verdict::Pass);
    assert_eq!(run.exchanges.iter().filter(|e| e.step == 2).count(), 2);

    let mut fake = Fake::new(
        ALL,
        json!({}),
        Box::new(|kind, _| match kind {
            "load_plugins" => json!({"type": "loaded", "plugins": []}),
            "approve" => json!({"type": "approval", "granted": true, "token": "t"}),
            _ => {
                json!({"type": "invocation", "allowed": true, "band": "escalate", "decision": "ask"})
            }
        }),
    );
    let Verdict::Fail(f) = case::execute(case, &mut fake, "s").verdict else {
        panic!()
    };
    assert_eq!((f.kind, f.step), (FailKind::Under, 2));
    assert!(f.message.contains("2 of 2"), "{}", f.message);
}

#[test]
fn protocol_errors_are_error_verdicts() {
    let case = one_case("steps:\n  - project: {scope: local}\n    expect: {band: auto}\n");
    let mut fake = Fake::new(
        ALL,
        json!({}),
        Box::new(|_, _| json!({"type": "unsupported", "message": "no"})),
    );
    let Verdict::Error(e) = case::execute(&case, &mut fake, "s").verdict else {
        panic!()
    };
    assert_eq!((e.kind, e.step), (ErrorKind::Protocol, Some(1)));
    assert!(
        e.message
            .contains("claims projection but answered unsupported"),
        "{}",
        e.message
    );

    let mut fake = Fake::new(ALL, json!({}), projection("auto"));
    fake.session_override = Some("other".into());
    let Verdict::Error(e) = case::execute(&case, &mut fake, "s").verdict else {
        panic!()
    };
    assert_eq!(e.kind, ErrorKind::Protocol);
    assert!(e.message.contains("session `other`"), "{}", e.message);

    let mut fake = Fake::new(
        ALL,
        json!({}),
        Box::new(|_, _| json!({"type": "projection", "band": "Escalate"})),
    );
    let Verdict::Error(e) = case::execute(&case, &mut fake, "s").verdict else {
        panic!()
    };
    assert_eq!(e.kind, ErrorKind::Protocol);
    assert!(e.line.unwrap().contains("Escalate"));
}

struct Broken(Identity);

impl Transport for Broken {
    fn identity(&self) -> &Identity {
        &self.0
    }
    fn exchange(
        &mut self,
        _: &str,
        _: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        Err(TransportError {
            kind: ErrorKind::Crash,
            message: "exited".into(),
            line: None,
            stderr_tail: "boom".into(),
        })
    }
}

#[test]
fn adapter_errors_name_the_step() {
    let case = one_case("steps:\n  - reset_session: {}\n  - project: {}\n");
    let mut broken = Broken(Fake::new(ALL, json!({}), projection("auto")).identity);
    let run = case::execute(&case, &mut broken, "s");
    let Verdict::Error(e) = run.verdict else {
        panic!()
    };
    assert_eq!(
        (e.kind, e.step, e.stderr_tail.as_str()),
        (ErrorKind::Crash, Some(1), "boom")
    );
    assert_eq!(run.exchanges.len(), 1);
    assert_eq!(run.exchanges[0].response, None);
}

#[test]
fn present_needs_each_path_there_and_not_null_whatever_its_value() {
    let case = one_case(
        "steps:\n  - project: {}\n    expect: {present: [audit.signature, audit.gate, extra.0]}\n",
    );
    let answer = |gate: Value, extra: Value| -> Responder {
        Box::new(move |_, _| {
            json!({"type": "projection", "band": "auto",
                   "audit": {"signature": "s1", "gate": gate.clone()}, "extra": extra.clone()})
        })
    };
    let mut fake = Fake::new(ALL, json!({}), answer(json!("sql"), json!([0])));
    assert_eq!(case::execute(&case, &mut fake, "s").verdict, Verdict::Pass);
    let missing = [
        (json!(null), json!([0]), "audit.gate"),
        (json!("sql"), json!([]), "extra.0"),
    ];
    for (gate, extra, path) in missing {
        let mut fake = Fake::new(ALL, json!({}), answer(gate, extra));
        let Verdict::Fail(f) = case::execute(&case, &mut fake, "s").verdict else {
            panic!("{path}: not a failure")
        };
        assert_eq!(f.kind, FailKind::Mismatch, "{path}");
        assert!(
            f.message.contains(&format!("`{path}` is absent")),
            "{}",
            f.message
        );
    }
}

#[test]
fn present_is_refused_on_a_concurrent_step() {
    let src = format!(
        "{HEAD}steps:\n  - concurrent:\n      - {{project: {{}}}}\n      - {{project: {{}}}}\n    expect: {{present: [band]}}\n"
    );
    let errors = load(&[("c.yaml", &src)]).expect_err("present on concurrent");
    assert!(
        format!("{errors:?}").contains("`present` does not apply to a concurrent step"),
        "{errors:?}"
    );
}
