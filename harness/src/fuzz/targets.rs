//! The fuzz targets: generator → subject → oracle. A transport failure
//! (no answer) is the subject's problem, reported by the conformance run:
//! the oracles judge answers only.

use super::finding::{yaml_json, CaseDraft, Finding};
use super::gen::{self, Labeled, Truth};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::{json, Value};

pub use super::req;

pub type Check = fn(&mut Unstructured, &mut dyn Subject) -> Result<Option<Finding>>;

/// A fuzz target: its name (the cargo-fuzz binary and `rbv fuzz --target`),
/// the capabilities it needs, and its check.
pub struct Target {
    pub name: &'static str,
    pub needs: &'static [Capability],
    pub check: Check,
}

// One constant per target, so that a cargo-fuzz binary names only its own:
// a binary that went through `TARGETS` (or `by_name`) would keep every
// target's code reachable, and libFuzzer scans the coverage counters of all
// linked code after each input.

pub const TOKEN_BINDING: Target = Target {
    name: "token_binding",
    needs: &[Capability::Tokens, Capability::Manifest],
    check: token_binding,
};

pub const SQL_BYPASS: Target = Target {
    name: "sql_bypass",
    needs: &[Capability::Sql, Capability::Manifest],
    check: sql_bypass,
};

pub const SHELL_BYPASS: Target = Target {
    name: "shell_bypass",
    needs: &[Capability::Shell],
    check: shell_bypass,
};

pub const URL_LOOPBACK: Target = Target {
    name: "url_loopback",
    needs: &[Capability::Fetch],
    check: url_loopback,
};

pub const MANIFEST: Target = Target {
    name: "manifest",
    needs: &[Capability::Manifest],
    check: manifest,
};

pub const CASE_LOADER: Target = Target {
    name: "case_loader",
    needs: &[],
    check: case_loader,
};

pub const PROTOCOL_DECODER: Target = Target {
    name: "protocol_decoder",
    needs: &[],
    check: protocol_decoder,
};

pub const TARGETS: &[Target] = &[
    TOKEN_BINDING,
    SQL_BYPASS,
    SHELL_BYPASS,
    URL_LOOPBACK,
    MANIFEST,
    CASE_LOADER,
    PROTOCOL_DECODER,
];

pub fn by_name(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

// ---------------------------------------------------------------- tokens

/// A plugin that declares every operation the token generator uses as
/// escalate, so that each needs an approval in any implementation.
fn escalating_plugins(ops: &[&Operation]) -> Vec<PluginBundle> {
    let mut names: Vec<&str> = ops.iter().filter_map(|o| o.plugin.as_deref()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let mut ids: Vec<&str> = ops.iter().map(|o| o.id.as_str()).collect();
            ids.sort();
            ids.dedup();
            let operations: Vec<Value> = ids
                .iter()
                .map(|id| json!({"id": id, "band": "escalate", "reversibility": "irreversible", "scope": "external"}))
                .collect();
            PluginBundle {
                manifest: json!({
                    "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
                    "name": name,
                    "version": "1.0.0",
                    "permissions": {"operations": operations},
                })
                .into(),
                mcp: None,
                skills: vec![],
                tools: Default::default(),
            }
        })
        .collect()
}

fn plugins_yaml(plugins: &[PluginBundle]) -> String {
    let mut out = String::new();
    for p in plugins {
        out.push_str(&format!("      - manifest: {}\n", yaml_json(&p.manifest)));
    }
    out
}

fn op_json(op: &Operation) -> String {
    yaml_json(&serde_json::to_value(op).expect("operations serialize"))
}

fn token_binding(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    use gen::token::{input, same_data, Probe};
    let t = input(u)?;
    let plugins = escalating_plugins(&[&t.a, &t.b]);
    let session = subject.fresh_session();
    let human = Approver {
        kind: ApproverKind::Human,
        name: "user".into(),
    };
    // Every probe approves once, first: the plugins load in the same batch
    // (neither waits on the other's answer; over a pipe, one round trip).
    let approve = |subject: &mut dyn Subject, op: &Operation, approver: Approver| {
        let load = RequestBody::LoadPlugins(LoadPluginsRequest {
            plugins: plugins.clone(),
        });
        let approve = RequestBody::Approve(ApproveRequest {
            operation: op.clone(),
            approver,
        });
        match subject.call_batch(&session, vec![load, approve]).pop() {
            Some(Ok(ResponseBody::Approval(a))) if a.granted => a.token,
            _ => None,
        }
    };
    // Whether every one of `times` redemptions of the token is allowed,
    // all sent in one batch.
    let invoke = |subject: &mut dyn Subject, op: &Operation, token: &str, times: usize| {
        let body = RequestBody::Invoke(InvokeRequest {
            operation: op.clone(),
            token: Some(token.to_owned()),
        });
        let answers = subject.call_batch(&session, vec![body; times]);
        answers
            .iter()
            .all(|a| matches!(a, Ok(ResponseBody::Invocation(i)) if i.allowed))
    };
    // Only a finding needs its case text.
    let load = || format!("  - load_plugins:\n{}", plugins_yaml(&plugins));
    match t.probe {
        Probe::Binding => {
            if same_data(&t.a, &t.b) {
                return Ok(None);
            }
            let Some(token) = approve(subject, &t.a, human) else {
                return Ok(None);
            };
            if !invoke(subject, &t.b, &token, 1) {
                return Ok(None);
            }
            Ok(Some(Finding {
                target: "token_binding",
                requirement: req::TOKEN_BINDING,
                kind: FailKind::Under,
                summary: format!(
                    "a token approved for {} also authorized a call that differs by {:?}",
                    op_json(&t.a),
                    t.mutation
                ),
                payload: None,
                case: CaseDraft {
                    area: "tokens",
                    title: format!("A token for one call does not authorize a call changed by {:?}", t.mutation),
                    tags: vec!["tokens", "bypass"],
                    steps: format!(
                        "{load}  - approve: {{operation: {a}}}\n    capture: {{tok: token}}\n  - invoke: {{operation: {b}, token: {{capture: tok}}}}\n    expect: {{allowed: false}}\n",
                        load = load(),
                        a = op_json(&t.a),
                        b = op_json(&t.b)
                    ),
                },
            }))
        }
        Probe::Replay => {
            let Some(token) = approve(subject, &t.a, human) else {
                return Ok(None);
            };
            if !invoke(subject, &t.a, &token, 2) {
                return Ok(None);
            }
            Ok(Some(Finding {
                target: "token_binding",
                requirement: req::TOKEN_SINGLE_USE,
                kind: FailKind::Under,
                summary: format!("a token was redeemed twice for {}", op_json(&t.a)),
                payload: None,
                case: CaseDraft {
                    area: "tokens",
                    title: "A token is single-use: the second redemption is refused".into(),
                    tags: vec!["tokens", "replay"],
                    steps: format!(
                        "{load}  - approve: {{operation: {a}}}\n    capture: {{tok: token}}\n  - invoke: {{operation: {a}, token: {{capture: tok}}}}\n    expect: {{allowed: true}}\n  - invoke: {{operation: {a}, token: {{capture: tok}}}}\n    expect: {{allowed: false}}\n",
                        load = load(),
                        a = op_json(&t.a)
                    ),
                },
            }))
        }
        Probe::Minting(kind) => {
            let approver = Approver {
                kind,
                name: format!("{}-approver", kind.as_str()),
            };
            if approve(subject, &t.a, approver).is_none() {
                return Ok(None);
            }
            Ok(Some(Finding {
                target: "token_binding",
                requirement: req::TOKEN_HUMAN_ONLY,
                kind: FailKind::Under,
                summary: format!("a token was minted for a {} approver", kind.as_str()),
                payload: None,
                case: CaseDraft {
                    area: "tokens",
                    title: format!("No token is minted for a {} approver", kind.as_str()),
                    tags: vec!["tokens", "bypass"],
                    steps: format!(
                        "{load}  - approve: {{operation: {a}, approver: {{kind: {k}, name: {k}-approver}}}}\n    expect: {{granted: false}}\n",
                        load = load(),
                        a = op_json(&t.a),
                        k = kind.as_str()
                    ),
                },
            }))
        }
    }
}

// ---------------------------------------------------------------- classifiers

/// Judges one classifier answer against a labeled input.
fn judge(band: Band, truth: Truth) -> Option<FailKind> {
    match truth {
        Truth::Dangerous if band < Band::Escalate => Some(FailKind::Under),
        Truth::Safe(want) if band < want => Some(FailKind::Under),
        Truth::Safe(want) if band > want => Some(FailKind::Over),
        Truth::AtLeast(want) if band < want => Some(FailKind::Under),
        _ => None,
    }
}

fn expect_yaml(truth: Truth) -> String {
    match truth {
        Truth::Dangerous => "{band: {at_least: escalate}}".into(),
        Truth::Safe(b) => format!("{{band: {b}}}"),
        Truth::AtLeast(b) => format!("{{band: {{at_least: {b}}}}}"),
    }
}

/// A labeled classifier input evaluated as one operation; a finding when
/// the band is on the wrong side of the truth.
struct ClassifierProbe<'a> {
    target: &'static str,
    area: &'static str,
    requirement: (&'static str, &'static str),
    plugins: Vec<PluginBundle>,
    operation: Operation,
    labeled: &'a Labeled,
}

impl ClassifierProbe<'_> {
    fn run(self, subject: &mut dyn Subject) -> Option<Finding> {
        let session = subject.fresh_session();
        let mut batch = Vec::with_capacity(2);
        if !self.plugins.is_empty() {
            batch.push(RequestBody::LoadPlugins(LoadPluginsRequest {
                plugins: self.plugins.clone(),
            }));
        }
        batch.push(RequestBody::Evaluate(EvaluateRequest {
            operation: self.operation.clone(),
        }));
        let Some(Ok(ResponseBody::Evaluation(e))) = subject.call_batch(&session, batch).pop()
        else {
            return None;
        };
        let kind = judge(e.band, self.labeled.truth)?;
        let requirement = if kind == FailKind::Under {
            self.requirement.0
        } else {
            self.requirement.1
        };
        let families = self.labeled.families.join(" + ");
        let load = if self.plugins.is_empty() {
            String::new()
        } else {
            format!("  - load_plugins:\n{}", plugins_yaml(&self.plugins))
        };
        Some(Finding {
            target: self.target,
            requirement,
            kind,
            summary: format!(
                "{} answered {} for {:?} ({families})",
                self.area, e.band, self.labeled.text
            ),
            payload: Some(self.labeled.text.clone()),
            case: CaseDraft {
                area: self.area,
                title: format!("{families}: {}", first_line(&self.labeled.text)),
                tags: vec![self.area],
                steps: format!(
                    "{load}  - evaluate: {}\n    expect: {}\n",
                    op_json(&self.operation),
                    expect_yaml(self.labeled.truth)
                ),
            },
        })
    }
}

fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    line.chars().take(60).collect()
}

/// `execute_sql` declared at the lowest floor an honest author could claim,
/// so that only call-time inspection can escalate.
fn sql_plugin() -> PluginBundle {
    PluginBundle {
        manifest: json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": "db-tools",
            "version": "1.0.0",
            "permissions": {"operations": [{"id": "mcp:db/execute_sql", "band": "auto",
                "reversibility": "reversible", "scope": "local", "trust": "trusted"}]},
        })
        .into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}

fn operation(plugin: Option<&str>, id: &str, kind: OperationKind, arguments: Value) -> Operation {
    Operation {
        plugin: plugin.map(str::to_owned),
        id: id.to_owned(),
        kind: Some(kind),
        arguments: arguments.as_object().cloned().unwrap_or_default(),
        trust: Some(Trust::Trusted),
        actor: None,
    }
}

fn sql_bypass(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let labeled = gen::sql::input(u)?;
    let op = operation(
        Some("db-tools"),
        "mcp:db/execute_sql",
        OperationKind::Sql,
        json!({"sql": labeled.text}),
    );
    Ok(ClassifierProbe {
        target: "sql_bypass",
        area: "sql",
        requirement: (req::SQL, req::SQL_READS),
        plugins: vec![sql_plugin()],
        operation: op,
        labeled: &labeled,
    }
    .run(subject))
}

fn shell_bypass(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let labeled = gen::shell::input(u)?;
    let op = operation(
        None,
        "client:shell",
        OperationKind::Shell,
        json!({"command": labeled.text}),
    );
    Ok(ClassifierProbe {
        target: "shell_bypass",
        area: "shell",
        requirement: (req::SHELL, req::SHELL_DATA),
        plugins: vec![],
        operation: op,
        labeled: &labeled,
    }
    .run(subject))
}

fn url_loopback(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let labeled = gen::url::input(u)?;
    let op = operation(
        None,
        "client:fetch",
        OperationKind::Fetch,
        json!({"url": labeled.text, "method": "GET"}),
    );
    let requirement = match labeled.truth {
        Truth::Safe(Band::Auto) => (req::FETCH_LOOPBACK, req::FETCH_LOOPBACK),
        _ => (req::FETCH_NOT_LOOPBACK, req::FETCH_NOT_LOOPBACK),
    };
    Ok(ClassifierProbe {
        target: "url_loopback",
        area: "fetch",
        requirement,
        plugins: vec![],
        operation: op,
        labeled: &labeled,
    }
    .run(subject))
}

// ---------------------------------------------------------------- manifest

fn manifest(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    super::oracle_manifest::check(u, subject)
}

// ---------------------------------------------------------------- robustness

/// Hostile YAML never panics the loader; every failure is a LoadError.
fn case_loader(u: &mut Unstructured, _subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let text: String = if u.ratio(1, 2)? {
        super::gen::yaml::document(u)?
    } else {
        String::from_utf8_lossy(u.bytes(u.len())?).into_owned()
    };
    let _ = crate::case::load_files(&[("fuzz.yaml".to_owned(), text)]);
    Ok(None)
}

/// Hostile answers never panic the decoder.
fn protocol_decoder(u: &mut Unstructured, _subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let line = String::from_utf8_lossy(u.bytes(u.len())?).into_owned();
    if let Ok(response) = Response::from_line(&line) {
        // What decodes must encode and decode to the same message.
        let again =
            Response::from_line(&response.to_line()).expect("a decoded response re-decodes");
        assert_eq!(again, response, "decode(encode(x)) != x for {line:?}");
    }
    let _ = salvage_envelope(&line);
    Ok(None)
}
