//! The case format's comparison features, each both ways: a case using it
//! passes against the in-process reference and fails against a plausible
//! wrong implementation (the reference behind a proxy that breaks one
//! thing): named sessions, `same`/`differs`, and value matchers in `match`.

use super::*;
use rbv::transport::InProcess;
use rbv::transport::{Identity, Observation, Transport, TransportError};
use rbv::verdict::{FailKind, Verdict};
use rbv_protocol::{RequestBody, Response};
use serde_json::Value;

/// The reference behind a proxy: every session folded into one (an
/// implementation that keeps one global state), and every answer edited.
struct Proxy {
    inner: InProcess,
    one_session: bool,
    edit: fn(&mut Value, u64),
    calls: u64,
    /// Every session a request was sent in, in order.
    seen: Vec<String>,
}

impl Proxy {
    fn new(one_session: bool, edit: fn(&mut Value, u64)) -> Self {
        Proxy {
            inner: InProcess::new(None),
            one_session,
            edit,
            calls: 0,
            seen: Vec::new(),
        }
    }

    fn reference() -> Self {
        Proxy::new(false, |_, _| {})
    }
}

impl Transport for Proxy {
    fn identity(&self) -> &Identity {
        self.inner.identity()
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        self.seen
            .extend(std::iter::repeat_n(session.to_owned(), bodies.len()));
        let inner_session = if self.one_session { "global" } else { session };
        let mut out = self.inner.exchange(inner_session, bodies)?;
        for o in &mut out {
            self.calls += 1;
            o.value["session"] = Value::from(session);
            (self.edit)(&mut o.value, self.calls);
            o.line = o.value.to_string();
            o.response = Response::from_json(&o.value).map_err(|e| e.to_string());
        }
        Ok(out)
    }
}

fn verdict(src: &str, proxy: &mut Proxy) -> Verdict {
    let suite = load(&[("c.yaml", &format!("{HEAD}{src}"))]).unwrap_or_else(|e| panic!("{e:?}"));
    let case = &suite.cases[0];
    case::execute(case, proxy, "0-1").verdict
}

fn assert_fails(v: &Verdict, kind: FailKind, step: usize) {
    match v {
        Verdict::Fail(f) => {
            assert_eq!(
                (f.kind, f.step),
                (kind, step),
                "{}\n{}",
                f.message,
                f.observed
            );
        }
        other => panic!("expected a failure, got {other:?}"),
    }
}

/// A token minted in the case's own session must not redeem in `b`.
const CROSS_SESSION: &str = r#"
steps:
  - evaluate: {id: "client:deploy"}
    session: b
  - approve: {operation: {id: "client:deploy"}}
    capture: {tok: token}
  - invoke: {operation: {id: "client:deploy"}, token: {capture: tok}}
    session: b
    expect: {allowed: false}
  - reset_session: {}
    session: b
  - invoke: {operation: {id: "client:deploy"}, token: {capture: tok}}
    expect: {allowed: true}
"#;

#[test]
fn named_sessions_are_distinct_sessions_of_one_implementation() {
    let mut reference = Proxy::reference();
    let v = verdict(CROSS_SESSION, &mut reference);
    assert_eq!(v, Verdict::Pass, "{v:?}");
    // The named session is used by its name, reset once before its first
    // use; the case's own session is never reset.
    assert_eq!(reference.seen, ["b", "b", "0-1", "b", "b", "0-1"]);
    // A report shows which session each request of a named session went to.
    let run = case::execute(
        &load(&[("c.yaml", &format!("{HEAD}{CROSS_SESSION}"))])
            .unwrap()
            .cases[0],
        &mut Proxy::reference(),
        "0-1",
    );
    let sessions: Vec<Option<String>> = run
        .exchanges
        .iter()
        .map(|e| {
            e.request_value()
                .get("session")
                .and_then(|s| s.as_str().map(str::to_owned))
        })
        .collect();
    let b = Some("b".to_owned());
    assert_eq!(sessions, [b.clone(), b.clone(), None, b.clone(), b, None]);
    // One global state lets the token redeem in `b`: an unsafe failure.
    let mut global = Proxy::new(true, |_, _| {});
    assert_fails(&verdict(CROSS_SESSION, &mut global), FailKind::Under, 3);
}

const GIT_HOSTING: &str = include_str!("../../../../cases/plugins/git-hosting.yaml");

#[test]
fn resetting_one_named_session_leaves_the_others() {
    // Untrusted content in `b` raises a pull request there (Rule-of-Two),
    // and only there; resetting `b` clears it.
    let src = r#"
plugins: [{fixture: git-hosting}]
steps:
  - load_plugins: [{fixture: git-hosting}]
    session: b
  - record_event: {kind: untrusted_content, source: web}
    session: b
  - evaluate: &pr {plugin: git-hosting, id: "mcp:forge/create_pull_request", arguments: {head: x, base: main, title: x}}
    session: b
    expect: {band: escalate}
  - evaluate: *pr
    expect: {band: soft-ack}
  - reset_session: {}
    session: b
  - load_plugins: [{fixture: git-hosting}]
    session: b
  - evaluate: *pr
    session: b
    expect: {band: soft-ack}
"#;
    let run = |proxy: &mut Proxy| {
        let files = [
            ("plugins/git-hosting.yaml", GIT_HOSTING),
            ("c.yaml", &format!("{HEAD}{src}")),
        ];
        let suite = load(&files).unwrap_or_else(|e| panic!("{e:?}"));
        case::execute(&suite.cases[0], proxy, "0-1").verdict
    };
    assert_eq!(run(&mut Proxy::reference()), Verdict::Pass);
    assert_fails(&run(&mut Proxy::new(true, |_, _| {})), FailKind::Over, 4);
}

#[test]
fn a_named_session_that_cannot_be_reset_fails_the_step() {
    let refuse = |v: &mut Value, _| {
        if v["type"] == "ack" {
            *v = serde_json::json!({"id": v["id"], "session": v["session"],
                "type": "error", "code": "bad-request", "message": "no"});
        }
    };
    let v = verdict(CROSS_SESSION, &mut Proxy::new(false, refuse));
    assert_fails(&v, FailKind::Mismatch, 1);
    let Verdict::Fail(f) = v else { unreachable!() };
    assert!(f.message.contains("before its first use"), "{}", f.message);
}

const SIGNATURES: &str = r#"
steps:
  - evaluate: {id: "client:pay", arguments: {amount: 1}}
    capture: {one: signature}
  - evaluate: {id: "client:pay", arguments: {amount: 2}}
    expect: {differs: {signature: one}}
  - evaluate: {id: "client:pay", arguments: {amount: 1}}
    expect: {same: {signature: one, audit.signature: one}}
"#;

#[test]
fn same_and_differs_compare_with_captured_values() {
    assert_eq!(verdict(SIGNATURES, &mut Proxy::reference()), Verdict::Pass);
    // A signature that ignores argument data: `differs` fails.
    let constant = |v: &mut Value, _| {
        if v.get("signature").is_some() {
            v["signature"] = Value::from("sig");
            v["audit"]["signature"] = Value::from("sig");
        }
    };
    assert_fails(
        &verdict(SIGNATURES, &mut Proxy::new(false, constant)),
        FailKind::Mismatch,
        2,
    );
    // A signature with a nonce: `same` fails.
    let nonce = |v: &mut Value, n: u64| {
        if let Some(Value::String(s)) = v.get("signature").cloned() {
            v["signature"] = Value::from(format!("{s}{n}"));
        }
    };
    let v = verdict(SIGNATURES, &mut Proxy::new(false, nonce));
    assert_fails(&v, FailKind::Mismatch, 3);
    let Verdict::Fail(f) = v else { unreachable!() };
    assert!(f.message.contains("capture `one`"), "{}", f.message);
}

#[test]
fn value_matchers_judge_inside_match() {
    let src = r#"
steps:
  - evaluate: {id: "client:pay", arguments: {amount: 1}}
    expect:
      match:
        decision: {$one_of: [ask, deny]}
        reasons: {$min_length: 1}
        audit:
          timestamp: {$format: date-time}
          operation: {$regex: "client:[a-z]+"}
"#;
    assert_eq!(verdict(src, &mut Proxy::reference()), Verdict::Pass);
    let epoch = |v: &mut Value, _| {
        if v.get("audit").is_some() {
            v["audit"]["timestamp"] = Value::from("1764547200");
        }
    };
    let v = verdict(src, &mut Proxy::new(false, epoch));
    assert_fails(&v, FailKind::Mismatch, 1);
    let Verdict::Fail(f) = v else { unreachable!() };
    assert!(f.message.contains("/audit/timestamp"), "{}", f.message);
    let allow = |v: &mut Value, _| {
        if v.get("decision").is_some() {
            v["decision"] = Value::from("allow");
            v["audit"]["decision"] = Value::from("allow");
        }
    };
    assert_fails(
        &verdict(src, &mut Proxy::new(false, allow)),
        FailKind::Mismatch,
        1,
    );
    let no_reasons = |v: &mut Value, _| {
        if v.get("reasons").is_some() {
            v["reasons"] = Value::Array(Vec::new());
        }
    };
    assert_fails(
        &verdict(src, &mut Proxy::new(false, no_reasons)),
        FailKind::Mismatch,
        1,
    );
}

#[test]
fn malformed_uses_are_load_errors() {
    let bad = [
        (
            "steps:\n  - evaluate: {id: \"client:x\"}\n    expect: {same: {signature: nope}}\n",
            "capture `nope` is compared before",
        ),
        (
            "steps:\n  - evaluate: {id: \"client:x\"}\n    session: \"0-3\"\n",
            "runner's form",
        ),
        (
            "steps:\n  - evaluate: {id: \"client:x\"}\n    session: \"\"\n",
            "non-empty",
        ),
        (
            "steps:\n  - evaluate: {id: \"client:x\"}\n    expect: {match: {audit: {timestamp: {$format: uuid}}}}\n",
            "`$format` is one of",
        ),
        (
            "steps:\n  - evaluate: {id: \"client:x\"}\n    expect: {match: {band: {$regex: \"(\"}}}\n",
            "`$regex`",
        ),
        (
            "steps:\n  - evaluate: {id: \"client:x\"}\n    expect: {match: {band: {$regex: a, b: 1}}}\n",
            "beside value matchers",
        ),
    ];
    for (steps, want) in bad {
        let errs = errors(&[("c.yaml", &format!("{HEAD}{steps}"))]);
        assert!(
            errs.iter().any(|e| e.message.contains(want) && e.line >= 4),
            "{want}: {errs:?}"
        );
    }
}

#[test]
fn lint_flags_a_capture_nothing_compares() {
    let unused = "steps:\n  - evaluate: {id: \"client:x\"}\n    capture: {s: signature}\n  - evaluate: {id: \"client:x\"}\n    expect: {band: escalate}\n";
    let used = "steps:\n  - evaluate: {id: \"client:x\"}\n    capture: {s: signature}\n  - evaluate: {id: \"client:x\"}\n    expect: {band: escalate, same: {signature: s}}\n";
    let lint = |src: &str| case::lint(&load(&[("c.yaml", &format!("{HEAD}{src}"))]).unwrap());
    let report = lint(unused);
    assert!(
        report
            .errors
            .iter()
            .any(|e| e.message.contains("captures `s` but no step uses it")),
        "{:?}",
        report.errors
    );
    let report = lint(used);
    assert!(
        !report.errors.iter().any(|e| e.message.contains("captures")),
        "{:?}",
        report.errors
    );
}

#[test]
fn lint_coverage_names_paths_and_contributors_and_fails_a_must_without_one() {
    let catalogue = |paths: &str| {
        format!("requirements:\n  - {{id: R-1, title: t, rule: r, section: \"§1\", level: MUST, capability: manifest, contributors: []{paths}}}\n")
    };
    let evaluate_only = "id: a/e\nrequirements: [R-1]\nsource: {note: n}\nplugins: [{manifest: {name: p, version: 1.0.0, permissions: {default: soft-ack, operations: [{id: \"mcp:p/x\", band: auto}]}}}]\nsteps:\n  - record_event: {kind: untrusted_content}\n  - set_policy: {floors: {\"mcp:p/x\": soft-ack}}\n  - evaluate: {plugin: p, id: \"mcp:p/x\"}\n    expect: {band: soft-ack, match: {audit: {band: soft-ack}}}\n  - evaluate: {id: \"client:sh\", kind: shell, arguments: {command: ls}}\n    expect: {band: auto}\n";
    let invoke = "id: a/i\nrequirements: [R-1]\nsource: {note: n}\nsteps:\n  - set_policy: {critical: [\"client:y\"]}\n  - invoke: {operation: {id: \"client:y\"}}\n    expect: {allowed: false}\n";
    let lint = |paths: &str, cases: &[&str]| {
        let mut files = vec![("REQUIREMENTS.yaml".to_owned(), catalogue(paths))];
        for (i, c) in cases.iter().enumerate() {
            files.push((format!("c{i}.yaml"), c.to_string()));
        }
        case::lint(&case::load_files(&files).unwrap_or_else(|e| panic!("{e:?}")))
    };
    let report = lint("", &[evaluate_only]);
    assert!(
        report
            .errors
            .iter()
            .any(|e| e.subject == "R-1" && e.message.contains("through invoke")),
        "{:?}",
        report.errors
    );
    let row = &report.coverage[0];
    let shown = report.to_string();
    assert!(
        shown.contains("| evaluate, audit | declared, default, inspector, rule-of-two, policy |"),
        "{shown}"
    );
    assert_eq!(row.paths.len(), 2);
    // An invoke case closes the gap; its contributors join the row.
    let report = lint("", &[evaluate_only, invoke]);
    assert!(report.is_ok(), "{:?}", report.errors);
    assert!(
        report.to_string().contains("| evaluate, invoke, audit | declared, default, undeclared, inspector, rule-of-two, policy, critical |"),
        "{report}"
    );
    // A requirement may name the paths that can observe it.
    assert!(lint(", paths: [evaluate]", &[evaluate_only]).is_ok());
    let report = lint(", paths: [approve]", &[evaluate_only]);
    assert!(report
        .errors
        .iter()
        .any(|e| e.message.contains("through approve")));
    let report = lint(", paths: [telepathy]", &[evaluate_only, invoke]);
    assert!(report
        .errors
        .iter()
        .any(|e| e.message.contains("unknown path `telepathy`")));
}

#[test]
fn a_list_profile_condition_is_any_of_its_values() {
    let src =
        "profile: {rule_of_two_threshold: [2, 3]}\nsteps:\n  - evaluate: {id: \"client:x\"}\n";
    let suite = load(&[("c.yaml", &format!("{HEAD}{src}"))]).unwrap_or_else(|e| panic!("{e:?}"));
    let case = &suite.cases[0];
    // The reference declares 2: the case runs.
    let v = case::execute(case, &mut Proxy::reference(), "0-1").verdict;
    assert_eq!(v, Verdict::Pass);
    let only_three =
        "profile: {rule_of_two_threshold: [3]}\nsteps:\n  - evaluate: {id: \"client:x\"}\n";
    let suite = load(&[("c.yaml", &format!("{HEAD}{only_three}"))]).unwrap();
    let v = case::execute(&suite.cases[0], &mut Proxy::reference(), "0-1").verdict;
    assert!(matches!(v, Verdict::Skip { .. }), "{v:?}");
    for bad in ["[2, 4]", "[]"] {
        let src = format!("profile: {{rule_of_two_threshold: {bad}}}\nsteps:\n  - evaluate: {{id: \"client:x\"}}\n");
        let errs = errors(&[("c.yaml", &format!("{HEAD}{src}"))]);
        assert!(
            errs.iter()
                .any(|e| e.message.contains("rule_of_two_threshold")),
            "{bad}: {errs:?}"
        );
    }
}
