//! The cases of the unplanted-bug classes each fail against a plausible wrong
//! implementation none of the planted mutants is: the reference behind a
//! proxy that simulates one realistic defect (one state for every session,
//! a signature blind to data, declarations looked up in a plain object,
//! policy ignored, loose equality in token binding, …). Every case of a
//! family must fail against its defect and pass against the reference.

use super::*;
use rbv::transport::InProcess;
use rbv::transport::{Identity, Observation, Transport, TransportError};
use rbv::verdict::Verdict;
use rbv_protocol::{Request, RequestBody, Response};
use serde_json::{json, Value};

/// Rewrites a request (its JSON, with `type`); `false` drops it and
/// answers `ack` in the implementation's place.
type Rewrite = fn(&mut Value) -> bool;
/// Edits an answer, given the request it answers.
type Edit = fn(&Value, &mut Value);

struct Defect {
    inner: InProcess,
    one_session: bool,
    rewrite: Rewrite,
    edit: Edit,
}

impl Defect {
    fn new(one_session: bool, rewrite: Rewrite, edit: Edit) -> Self {
        Defect {
            inner: InProcess::new(None),
            one_session,
            rewrite,
            edit,
        }
    }
    fn answers(edit: Edit) -> Self {
        Defect::new(false, |_| true, edit)
    }
    fn requests(rewrite: Rewrite) -> Self {
        Defect::new(false, rewrite, |_, _| {})
    }
}

fn observation(value: Value) -> Observation {
    Observation {
        line: value.to_string(),
        response: Response::from_json(&value).map_err(|e| e.to_string()),
        value,
    }
}

impl Transport for Defect {
    fn identity(&self) -> &Identity {
        self.inner.identity()
    }

    fn exchange(
        &mut self,
        session: &str,
        bodies: Vec<RequestBody>,
    ) -> Result<Vec<Observation>, TransportError> {
        let inner_session = if self.one_session { "global" } else { session };
        let mut out = Vec::new();
        for body in bodies {
            let mut request: Value = serde_json::from_str(&body.typed_json()).unwrap();
            if !(self.rewrite)(&mut request) {
                out.push(observation(
                    json!({"id": out.len(), "session": session, "type": "ack"}),
                ));
                continue;
            }
            let mut envelope = request.clone();
            envelope["id"] = json!(1);
            envelope["session"] = json!(inner_session);
            let body = Request::from_json(&envelope)
                .expect("a rewritten request parses")
                .body;
            let mut o = self.inner.exchange(inner_session, vec![body])?.remove(0);
            o.value["session"] = Value::from(session);
            (self.edit)(&request, &mut o.value);
            out.push(observation(o.value));
        }
        Ok(out)
    }
}

const BUILTINS: [&str; 6] = [
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
    "__class__",
    "__dict__",
];

fn arguments_mut(request: &mut Value) -> Option<&mut serde_json::Map<String, Value>> {
    request
        .get_mut("operation")
        .and_then(|op| op.get_mut("arguments"))
        .and_then(Value::as_object_mut)
}

/// JavaScript-like loose equality applied before binding: booleans become
/// numbers, numbers lose their spelling, "" and [] become null and {}.
fn loosen(v: &mut Value) {
    match v {
        Value::Bool(b) => *v = json!(u8::from(*b)),
        Value::Number(n) => {
            let f: f64 = n.to_string().parse().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 1e15 {
                *v = json!(f as i64);
            }
        }
        Value::String(s) if s.is_empty() => *v = Value::Null,
        Value::Array(a) if a.is_empty() => *v = json!({}),
        Value::Array(a) => a.iter_mut().for_each(loosen),
        Value::Object(o) => o.values_mut().for_each(loosen),
        _ => {}
    }
}

/// Rewrites every declaration of `band: auto` in a request to the axes of a
/// local, reversible read.
fn declared_auto_reads(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.get("band") == Some(&json!("auto")) && o.contains_key("scope") {
                o.insert("scope".into(), json!("local"));
                o.insert("reversibility".into(), json!("reversible"));
            }
            o.values_mut().for_each(declared_auto_reads);
        }
        Value::Array(a) => a.iter_mut().for_each(declared_auto_reads),
        _ => {}
    }
}

#[test]
fn the_new_cases_catch_the_defects_they_were_written_for() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    if !root.join(case::CATALOGUE).exists() {
        return;
    }
    let suite = case::load_dir(&root).unwrap_or_else(|e| panic!("{e:?}"));
    let check = |prefixes: &[&str], except: &[&str], make: &dyn Fn() -> Defect| {
        let mut total = 0;
        let selected = suite.cases.iter().filter(|c| {
            prefixes.iter().any(|p| c.id.starts_with(p))
                && !except.iter().any(|e| c.id.ends_with(e))
        });
        for c in selected {
            let on_reference = case::execute(c, &mut Defect::answers(|_, _| {}), "0-1").verdict;
            if matches!(on_reference, Verdict::Skip { .. }) {
                continue;
            }
            assert_eq!(on_reference, Verdict::Pass, "{}", c.id);
            let v = case::execute(c, &mut make(), "0-1").verdict;
            assert!(
                matches!(v, Verdict::Fail(_)),
                "{} passes the defect {prefixes:?} targets: {v:?}",
                c.id
            );
            total += 1;
        }
        assert!(total >= 2, "{prefixes:?}: only {total} cases");
    };

    // One state for every session.
    check(
        &[
            "tokens/sessions/",
            "manifest/sessions/",
            "rule-of-two/sessions/",
        ],
        &[],
        &|| Defect::new(true, |_| true, |_, _| {}),
    );
    // A signature that ignores argument data.
    check(&["audit/signature/differs-"], &[], &|| {
        Defect::answers(|_, v| {
            if v.get("signature").is_some() {
                v["signature"] = json!("sig");
                v["audit"]["signature"] = json!("sig");
            }
        })
    });
    // A signature that carries a per-answer nonce.
    check(
        &[
            "audit/signature/one-call",
            "audit/signature/key-order",
            "audit/final-band/",
        ],
        &[],
        &|| {
            Defect::answers(|_, v| {
                let nonce = format!("-{}", v["id"]);
                for path in ["/signature", "/audit/signature"] {
                    if let Some(Value::String(s)) = v.pointer_mut(path) {
                        s.push_str(&nonce);
                    }
                }
            })
        },
    );
    // A record that states the declared floor, not the final band.
    check(&["audit/final-band/"], &[], &|| {
        Defect::answers(|_, v| {
            if v.get("audit").is_some() {
                v["audit"]["band"] = json!("soft-ack");
                v["audit"]["decision"] = json!("note");
            }
        })
    });
    // A record written before the other contributors had their say: it
    // states the band of the declaration alone.
    check(&["manifest/contributor-pairs/"], &[], &|| {
        Defect::answers(|_, v| {
            if let Some(audit) = v.get_mut("audit") {
                audit["band"] = json!("auto");
                audit["decision"] = json!("allow");
            }
        })
    });
    // Declarations looked up in a plain object: built-in names are found.
    check(
        &[
            "manifest/builtin-names/operation-",
            "manifest/builtin-names/plugin-",
        ],
        &[],
        &|| {
            Defect::answers(|request, v| {
                let op = request
                    .pointer("/operation/id")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let plugin = request
                    .pointer("/operation/plugin")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let segments = op.split([':', '/']).chain([plugin]);
                if segments.into_iter().any(|s| BUILTINS.contains(&s)) && v.get("band").is_some() {
                    v["band"] = json!("auto");
                    v["decision"] = json!("allow");
                    v["declared"] = json!("auto");
                    if v["type"] == "invocation" {
                        v["allowed"] = json!(true);
                        v.as_object_mut().unwrap().remove("declared");
                    }
                }
            })
        },
    );
    // Built-in keys dropped from argument data before binding (a client
    // that copies arguments into a plain object).
    check(
        &["manifest/builtin-names/argument-key-"],
        &["dict-same"],
        &|| {
            Defect::requests(|r| {
                if let Some(args) = arguments_mut(r) {
                    args.retain(|k, _| !BUILTINS.contains(&k.as_str()));
                }
                true
            })
        },
    );
    // Loose equality in binding.
    check(
        &[
            "tokens/binds-data/forge-integer-vs-",
            "tokens/binds-data/forge-decimal-",
            "tokens/binds-data/forge-true-vs-one",
            "tokens/binds-data/forge-false-vs-zero",
            "tokens/binds-data/forge-empty-",
        ],
        &["integer-vs-string", "integer-vs-float"],
        &|| {
            Defect::requests(|r| {
                if let Some(args) = arguments_mut(r) {
                    args.values_mut().for_each(loosen);
                }
                true
            })
        },
    );
    // Client policy ignored (acknowledged, never applied).
    check(
        &[
            "manifest/policy-paths/",
            "audit/final-band/raised-by-client-policy",
        ],
        &[],
        &|| Defect::requests(|r| r["type"] != "set_policy"),
    );
    // Ingested content not tracked: trust taken from the call alone.
    check(
        &["manifest/implicit/no-trust-after-untrusted/"],
        &[],
        &|| Defect::requests(|r| r["type"] != "record_event"),
    );
    // Operations of plugins nobody loaded are taken as the client's own
    // harmless tools; plugins that failed to load still declare.
    check(
        &["manifest/implicit/plugin-"],
        &["never-loaded/auto"],
        &|| {
            Defect::answers(|request, v| {
                let plugin = request.pointer("/operation/plugin").and_then(Value::as_str);
                if plugin.is_some() && v.pointer("/audit/plugin_version") == Some(&Value::Null) {
                    v["band"] = json!("auto");
                    v["decision"] = json!("allow");
                    if v["type"] == "invocation" {
                        v["allowed"] = json!(true);
                    } else {
                        v["declared"] = json!("auto");
                    }
                }
            })
        },
    );
    // Inspectors run on evaluate only; invoke lets the call through.
    let reads = [
        "/select",
        "/literal-holds-drop",
        "/quoted-rm",
        "/heredoc-data",
        "/loopback-get",
        "/rg-without-pre",
        "/hash-comment-data",
        "/pragma-read",
        "/builtin-function",
    ];
    check(
        &[
            "sql/invoke-path/",
            "shell/invoke-path/",
            "fetch/invoke-path/",
        ],
        &reads,
        &|| {
            Defect::answers(|request, v| {
                if v["type"] == "invocation" && request.pointer("/operation/kind").is_some() {
                    v["allowed"] = json!(true);
                    v["band"] = json!("auto");
                    v["decision"] = json!("allow");
                }
            })
        },
    );
    // A record with the outcome left out (an empty word).
    check(&["audit/outcome/"], &[], &|| {
        Defect::answers(|_, v| {
            if v.get("audit").is_some() {
                v["audit"]["outcome"] = json!("");
            }
        })
    });
    // The gate named by the kind of operation, not by what set the band.
    check(
        &["audit/gate/"],
        &[
            "sql-inspector-alone",
            "shell-inspector-alone",
            "fetch-inspector-alone",
        ],
        &|| {
            Defect::answers(|request, v| {
                if v.get("audit").is_some() {
                    let kind = request
                        .pointer("/operation/kind")
                        .and_then(Value::as_str)
                        .unwrap_or("tool");
                    v["audit"]["gate"] = json!(kind);
                }
            })
        },
    );
    // The gate always the manifest's, whoever raised the band.
    check(
        &["audit/gate/", "audit/outcome/invoke-redeemed"],
        &["declared-floor-alone"],
        &|| {
            Defect::answers(|_, v| {
                if v.get("audit").is_some() {
                    v["audit"]["gate"] = json!("manifest");
                }
            })
        },
    );
    // Date arithmetic gone wrong: a well-formed timestamp a day off.
    check(&["audit/timestamp/"], &[], &|| {
        Defect::answers(|_, v| {
            if v.get("audit").is_some() {
                v["audit"]["timestamp"] = json!("2026-01-01T10:00:00.000Z");
            }
        })
    });
    // Rule-of-Two that takes "changes state" from the declared band alone:
    // an operation declared `auto` is counted as a read whatever its axes
    // say (the client believes its own floor, not the operation's effect).
    check(
        &["rule-of-two/declared-auto-changes-state/"],
        &["sensitive-then-read"],
        &|| {
            Defect::requests(|r| {
                if r["type"] == "load_plugins" {
                    declared_auto_reads(r);
                }
                true
            })
        },
    );
    // Strict SemVer below 1.0.0 both ways: nothing in 0.y.z can break, or a
    // 0.y minor is only a minor.
    check(
        &["versioning/zero-major/"],
        &[
            "minor-of-0.1-is-a-major",
            "patch-of-0.0.1-is-a-major",
            "zero-to-one",
        ],
        &|| {
            Defect::answers(|request, v| {
                let zero = |side: &str| {
                    request
                        .pointer(&format!("/{side}/manifest/version"))
                        .and_then(Value::as_str)
                        .is_some_and(|s| s.starts_with("0."))
                };
                if v["type"] == "diff" && (zero("old") || zero("new")) {
                    v["breaking"] = json!(false);
                }
            })
        },
    );
    check(
        &["versioning/zero-major/"],
        &[
            "patch-of-0.1",
            "one-back-to-zero",
            "zero-pre-release-of-same",
            "zero-major-downgrade",
            "zero-to-one",
        ],
        &|| {
            Defect::answers(|_, v| {
                if v["type"] == "diff" && v["version_change"] != json!("major") {
                    v["breaking"] = json!(true);
                }
            })
        },
    );
}
