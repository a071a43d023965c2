//! The audit target: short sessions whose every decision is known by
//! construction (a declared floor, a policy floor, Rule-of-Two, an
//! inspector's payload, a token redeemed, replayed or refused), each answer's
//! record judged against the answer and the request (RBV-AUD-001 to -005):
//! the fields all there, the time of the decision, the band and decision
//! the answer's, the operation, plugin, version and actor the request's, the
//! signature the answer's and one per call, the outcome and the gate in the
//! protocol's words, the authorizing party the approver. The corpus checks
//! these on fixed calls; this draws the calls, approvers, actors and
//! versions. An answer whose band is not the scene's (a classification bug)
//! is not audit's to judge: its record is skipped.

use super::finding::{yaml_json, yaml_string, CaseDraft, Finding};
use super::reach::{fire, Tagged};
use super::steps::{op_json, plugins_yaml};
use super::subject::Subject;
use crate::case::recent;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::{json, Map, Value};

const PLUGIN: &str = "ledger";
const VERSIONS: &[&str] = &["1.0.0", "2.3.1", "0.4.0", "10.0.12"];
/// The declared operations: each one's floor sits above what its axes
/// project (reversible, local, trusted: auto), so the declaration alone
/// sets any band above auto.
const OPERATIONS: &[(&str, Band)] = &[
    ("mcp:ledger/read_entry", Band::Auto),
    ("mcp:ledger/annotate_entry", Band::SoftAck),
    ("mcp:ledger/void_entry", Band::Escalate),
];
/// Approver names: never a kind's word, so that a record naming the kind
/// instead of the person shows.
const APPROVERS: &[&str] = &["ana@acme.example", "ops-oncall", "Bob Ng", "user"];
const ACTORS: &[Option<&str>] = &[None, Some("model"), Some("user"), Some("scheduler")];
/// Client-tool payloads each inspector escalates alone (the tool is
/// undeclared, its arguments trusted).
const INSPECTED: &[(Capability, OperationKind, &str, &str, &str)] = &[
    (
        Capability::Sql,
        OperationKind::Sql,
        "client:sql",
        "sql",
        "DROP TABLE orders",
    ),
    (
        Capability::Sql,
        OperationKind::Sql,
        "client:sql",
        "sql",
        "TRUNCATE TABLE invoices",
    ),
    (
        Capability::Shell,
        OperationKind::Shell,
        "client:shell",
        "command",
        "rm -rf build",
    ),
    (
        Capability::Shell,
        OperationKind::Shell,
        "client:shell",
        "command",
        "git push --force origin main",
    ),
    (
        Capability::Fetch,
        OperationKind::Fetch,
        "client:fetch",
        "url",
        "https://api.example.com/items/7",
    ),
];
/// The fields of a record that are never null (`plugin` and
/// `plugin_version` are, for a client tool; `authorized_by`, when nobody
/// authorized the call).
const FIELDS: &[&str] = &[
    "timestamp",
    "actor",
    "operation",
    "signature",
    "band",
    "decision",
    "gate",
    "outcome",
];

pub fn productions() -> Vec<Tagged> {
    vec![
        (
            "declared-floor",
            &["RBV-AUD-001", "RBV-AUD-002", "RBV-AUD-005"],
        ),
        ("policy-floor", &["RBV-AUD-002", "RBV-AUD-005"]),
        ("rule-of-two", &["RBV-AUD-002", "RBV-AUD-005"]),
        ("inspector", &["RBV-AUD-002", "RBV-AUD-005"]),
        ("signature", &["RBV-AUD-004"]),
        ("token-redeemed", &["RBV-AUD-003", "RBV-AUD-005"]),
        ("token-rejected", &["RBV-AUD-003", "RBV-AUD-005"]),
        ("token-replayed", &["RBV-AUD-005"]),
        ("approval-refused", &["RBV-AUD-003", "RBV-AUD-005"]),
        ("actor-named", &["RBV-AUD-002"]),
        ("invoke", &["RBV-AUD-002"]),
    ]
}

/// What a scene knows of one answer's record.
#[derive(Clone, Default)]
struct Known {
    /// The band the answer must carry for the scene to hold; `None` for an
    /// approval, whose answer has none.
    band: Option<Band>,
    /// The one contributor that set the band alone, where one did.
    gate: Option<&'static str>,
    outcome: Option<&'static str>,
    /// `Some(None)`: nobody authorized the call.
    authorized_by: Option<Option<String>>,
}

/// One request of a scene, its case-step text, and what its record must
/// say (`None`: no record to judge, e.g. `load_plugins`).
struct Step {
    body: RequestBody,
    text: String,
    /// A `capture:` line for a later step (a token, a signature).
    capture: Option<&'static str>,
    known: Option<Known>,
}

fn step(body: RequestBody, text: String) -> Step {
    Step {
        body,
        text,
        capture: None,
        known: None,
    }
}

fn plugin(version: &str) -> PluginBundle {
    let operations: Vec<Value> = OPERATIONS
        .iter()
        .map(|(id, band)| {
            json!({"id": id, "band": band.as_str(), "reversibility": "reversible",
                   "scope": "local", "trust": "trusted"})
        })
        .collect();
    PluginBundle {
        manifest: json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": PLUGIN,
            "version": version,
            "permissions": {"operations": operations},
        })
        .into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}

fn arguments(u: &mut Unstructured) -> Result<Map<String, Value>> {
    let entry = *u.choose(&["INV-0001", "INV-0002", "inv-0001", "INV-0001 "])?;
    let mut args = Map::new();
    args.insert("entry".into(), json!(entry));
    if u.ratio(1, 3)? {
        args.insert("reason".into(), json!(*u.choose(&["duplicate", "fraud"])?));
    }
    Ok(args)
}

fn operation(u: &mut Unstructured, id: &str) -> Result<Operation> {
    let actor = *u.choose(ACTORS)?;
    if actor.is_some() {
        fire("audit", "actor-named");
    }
    Ok(Operation {
        plugin: Some(PLUGIN.to_owned()),
        id: id.to_owned(),
        kind: Some(OperationKind::Tool),
        arguments: arguments(u)?,
        trust: Some(Trust::Trusted),
        actor: actor.map(str::to_owned),
        dialect: None,
        workspace: None,
    })
}

/// The same call with its argument data changed: another value, another
/// type, or one argument more.
fn other_data(u: &mut Unstructured, op: &Operation) -> Result<Operation> {
    let mut other = op.clone();
    let entry = op.arguments.get("entry").cloned().unwrap_or(Value::Null);
    match u.int_in_range(0..=2)? {
        0 => {
            let to = if entry == json!("INV-0009") {
                "INV-0008"
            } else {
                "INV-0009"
            };
            other.arguments.insert("entry".into(), json!(to));
        }
        1 => {
            other.arguments.insert("entry".into(), json!([entry]));
        }
        _ => {
            other.arguments.insert("force".into(), json!(true));
        }
    }
    Ok(other)
}

fn evaluate(op: &Operation, known: Known) -> Step {
    Step {
        known: Some(known),
        ..step(
            RequestBody::Evaluate(EvaluateRequest {
                operation: op.clone(),
            }),
            format!("  - evaluate: {}\n", op_json(op)),
        )
    }
}

fn invoke(op: &Operation, token: Option<&str>, known: Known) -> Step {
    fire("audit", "invoke");
    let shown = if token.is_some() {
        ", token: {capture: t}"
    } else {
        ""
    };
    Step {
        known: Some(known),
        ..step(
            RequestBody::Invoke(InvokeRequest {
                operation: op.clone(),
                token: token.map(str::to_owned),
            }),
            format!("  - invoke: {{operation: {}{shown}}}\n", op_json(op)),
        )
    }
}

fn approve(op: &Operation, kind: ApproverKind, name: &str, known: Known) -> Step {
    Step {
        known: Some(known),
        capture: (kind == ApproverKind::Human).then_some("{t: token}"),
        ..step(
            RequestBody::Approve(ApproveRequest {
                operation: op.clone(),
                approver: Approver {
                    kind,
                    name: name.to_owned(),
                },
            }),
            format!(
                "  - approve: {{operation: {}, approver: {{kind: {kind}, name: {}}}}}\n",
                op_json(op),
                yaml_string(name)
            ),
        )
    }
}

/// What a decision's record says without a token: the band's decision
/// word, and the contributor that set a band above auto alone.
fn plain(band: Band, gate: Option<&'static str>) -> Known {
    Known {
        band: Some(band),
        gate: gate.filter(|_| band > Band::Auto),
        outcome: Some(match band.decision() {
            Decision::Allow => "allowed",
            Decision::Note => "noted",
            Decision::Ask => "asked",
            Decision::Deny => "denied",
        }),
        authorized_by: Some(None),
    }
}

/// The scene's steps after `load_plugins`, and the name it fires.
fn scene(u: &mut Unstructured, subject: &dyn Subject) -> Result<(Vec<Step>, &'static str)> {
    let (id, declared) = *u.choose(OPERATIONS)?;
    let op = operation(u, id)?;
    let tokens = subject.claims(Capability::Tokens);
    let inspected: Vec<_> = INSPECTED
        .iter()
        .filter(|(c, ..)| subject.claims(*c))
        .collect();
    let mut steps = Vec::new();
    let name = match u.int_in_range(0..=7)? {
        0 => {
            let floor = *u.choose(Band::ALL)?;
            let body = RequestBody::SetPolicy(SetPolicyRequest {
                floors: [(id.to_owned(), floor)].into(),
                critical: vec![],
                workspace: None,
            });
            steps.push(step(
                body,
                format!("  - set_policy: {{floors: {{\"{id}\": {floor}}}}}\n"),
            ));
            let gate = match floor.cmp(&declared) {
                std::cmp::Ordering::Greater => Some("policy"),
                std::cmp::Ordering::Less => Some("manifest"),
                std::cmp::Ordering::Equal => None,
            };
            let known = plain(floor.max(declared), gate);
            steps.push(if u.ratio(1, 3)? {
                invoke(&op, None, known)
            } else {
                evaluate(&op, known)
            });
            "policy-floor"
        }
        1 if subject.claims(Capability::RuleOfTwo) => {
            let event = SessionEvent::SensitiveData {
                what: Some((*u.choose(&["customer table", "~/.aws/credentials"])?).into()),
            };
            let text = format!(
                "  - record_event: {}\n",
                yaml_json(&serde_json::to_value(&event).expect("events serialize"))
            );
            steps.push(step(
                RequestBody::RecordEvent(RecordEventRequest { event }),
                text,
            ));
            // Sensitive data and the call's own untrusted input: two of
            // the three, on an operation declared auto.
            let mut read = operation(u, OPERATIONS[0].0)?;
            read.trust = Some(Trust::Untrusted);
            steps.push(evaluate(&read, plain(Band::Escalate, Some("rule-of-two"))));
            "rule-of-two"
        }
        2 if !inspected.is_empty() => {
            let (_, kind, tool, key, payload) = **u.choose(&inspected)?;
            let mut arguments = Map::new();
            arguments.insert(key.into(), json!(payload));
            if kind == OperationKind::Fetch {
                arguments.insert("method".into(), json!("DELETE"));
            }
            let call = Operation {
                plugin: None,
                id: tool.to_owned(),
                kind: Some(kind),
                arguments,
                trust: Some(Trust::Trusted),
                actor: op.actor.clone(),
                dialect: None,
                workspace: None,
            };
            let gate = tool.trim_start_matches("client:");
            let gate = *["sql", "shell", "fetch"]
                .iter()
                .find(|g| **g == gate)
                .expect("an inspector");
            steps.push(evaluate(&call, plain(Band::Escalate, Some(gate))));
            "inspector"
        }
        3 => {
            let other = other_data(u, &op)?;
            let known = plain(declared, Some("manifest"));
            let mut first = evaluate(&op, known.clone());
            first.capture = Some("{sig: signature}");
            steps.push(first);
            steps.push(evaluate(&op, known.clone()));
            steps.push(evaluate(&other, known));
            "signature"
        }
        4 if tokens => {
            let name = *u.choose(APPROVERS)?;
            let (void, _) = OPERATIONS[2];
            let op = operation(u, void)?;
            let minted = Known {
                outcome: Some("minted"),
                ..Known::default()
            };
            steps.push(approve(&op, ApproverKind::Human, name, minted));
            steps.push(invoke(
                &op,
                Some("$token"),
                Known {
                    band: Some(Band::Escalate),
                    gate: Some("token"),
                    outcome: Some("redeemed"),
                    authorized_by: Some(Some(name.to_owned())),
                },
            ));
            if u.ratio(1, 2)? {
                fire("audit", "token-replayed");
                steps.push(invoke(&op, Some("$token"), rejected()));
            }
            "token-redeemed"
        }
        5 if tokens => {
            let name = *u.choose(APPROVERS)?;
            let (void, _) = OPERATIONS[2];
            let op = operation(u, void)?;
            let other = other_data(u, &op)?;
            let minted = Known {
                outcome: Some("minted"),
                ..Known::default()
            };
            steps.push(approve(&op, ApproverKind::Human, name, minted));
            steps.push(invoke(&other, Some("$token"), rejected()));
            "token-rejected"
        }
        6 if tokens => {
            let kind = *u.choose(&[
                ApproverKind::Model,
                ApproverKind::Tool,
                ApproverKind::Plugin,
            ])?;
            let name = *u.choose(&["assistant", "ci-bot", "helpful-helper"])?;
            steps.push(approve(
                &op,
                kind,
                name,
                Known {
                    outcome: Some("refused"),
                    authorized_by: Some(None),
                    ..Known::default()
                },
            ));
            "approval-refused"
        }
        _ => {
            let known = plain(declared, Some("manifest"));
            steps.push(if u.ratio(1, 2)? {
                invoke(&op, None, known)
            } else {
                evaluate(&op, known)
            });
            "declared-floor"
        }
    };
    Ok((steps, name))
}

/// A token shown and refused on a call that needs one (escalate, declared).
fn rejected() -> Known {
    Known {
        band: Some(Band::Escalate),
        gate: Some("manifest"),
        outcome: Some("rejected"),
        authorized_by: Some(None),
    }
}

/// The parts of an answer the record is judged against.
struct Answer<'a> {
    band: Option<Band>,
    decision: Option<Decision>,
    signature: Option<&'a str>,
    audit: Option<&'a AuditRecord>,
    /// For an invocation that showed a token: whether it ran.
    allowed: Option<bool>,
    granted: Option<bool>,
}

fn answer(r: &ResponseBody) -> Option<Answer<'_>> {
    Some(match r {
        ResponseBody::Evaluation(e) => Answer {
            band: Some(e.band),
            decision: Some(e.decision),
            signature: e.signature.as_deref(),
            audit: e.audit.as_ref(),
            allowed: None,
            granted: None,
        },
        ResponseBody::Invocation(i) => Answer {
            band: Some(i.band),
            decision: Some(i.decision),
            signature: None,
            audit: i.audit.as_ref(),
            allowed: Some(i.allowed),
            granted: None,
        },
        ResponseBody::Approval(a) => Answer {
            band: None,
            decision: None,
            signature: None,
            audit: a.audit.as_ref(),
            allowed: None,
            granted: Some(a.granted),
        },
        _ => return None,
    })
}

/// A broken rule: the requirement, how the record differed (in words that
/// do not depend on the drawn input), and the step's `expect:` that shows it.
struct Broken {
    requirement: &'static str,
    difference: String,
    expect: String,
}

fn broken(requirement: &'static str, difference: impl Into<String>, expect: String) -> Broken {
    Broken {
        requirement,
        difference: difference.into(),
        expect,
    }
}

/// Judges one answer's record; `Ok(None)` when it holds, `Err(())` when the
/// scene's premise did not (the answer is not audit's to judge).
fn judge(
    op: &Operation,
    version: &str,
    a: &Answer,
    known: &Known,
) -> std::result::Result<Option<Broken>, ()> {
    if known.band.is_some() && a.band != known.band {
        return Err(());
    }
    // A token that did not run an approved call, or did run a refused one,
    // is the token target's finding; the record then has no known outcome.
    match known.outcome {
        Some("redeemed") if a.allowed != Some(true) => return Err(()),
        Some("rejected") if a.allowed != Some(false) => return Err(()),
        Some("minted") if a.granted != Some(true) => return Err(()),
        Some("refused") if a.granted != Some(false) => return Err(()),
        _ => {}
    }
    let Some(r) = a.audit else {
        let present: Vec<String> = FIELDS.iter().map(|f| format!("audit.{f}")).collect();
        return Ok(Some(broken(
            "RBV-AUD-001",
            "no audit record",
            format!("{{present: [{}]}}", present.join(", ")),
        )));
    };
    let matched = |field: &str, value: Value| {
        format!("{{match: {{audit: {{{field}: {}}}}}}}", yaml_json(&value))
    };
    for (field, value) in [
        ("actor", &r.actor),
        ("operation", &r.operation),
        ("signature", &r.signature),
        ("gate", &r.gate),
        ("outcome", &r.outcome),
    ] {
        if value.trim().is_empty() {
            return Ok(Some(broken(
                "RBV-AUD-001",
                format!("`audit.{field}` empty"),
                format!("{{match: {{audit: {{{field}: {{$min_length: 1}}}}}}}}"),
            )));
        }
    }
    if !recent(&r.timestamp, 120, std::time::SystemTime::now().into()) {
        return Ok(Some(broken(
            "RBV-AUD-002",
            "`audit.timestamp` not the time of the decision",
            "{match: {audit: {timestamp: {$format: date-time, $recent: 120}}}}".into(),
        )));
    }
    if let (Some(band), Some(decision)) = (a.band, a.decision) {
        if r.band != band || r.decision != decision {
            return Ok(Some(broken(
                "RBV-AUD-002",
                "`audit.band`/`audit.decision` not the answer's",
                format!(
                    "{{band: {band}, decision: {decision}, match: {{audit: {{band: {band}, decision: {decision}}}}}}}"
                ),
            )));
        }
    }
    if r.operation != op.id {
        return Ok(Some(broken(
            "RBV-AUD-002",
            "`audit.operation` not the requested id",
            matched("operation", json!(op.id)),
        )));
    }
    if r.plugin != op.plugin {
        return Ok(Some(broken(
            "RBV-AUD-002",
            "`audit.plugin` not the operation's plugin",
            matched("plugin", json!(op.plugin)),
        )));
    }
    // The manifest's version for a plugin's operation, none for a client tool.
    let want_version = op.plugin.as_ref().map(|_| version.to_owned());
    if r.plugin_version != want_version {
        return Ok(Some(broken(
            "RBV-AUD-002",
            "`audit.plugin_version` not the manifest's",
            matched("plugin_version", json!(want_version)),
        )));
    }
    if let Some(actor) = &op.actor {
        if a.granted.is_none() && &r.actor != actor {
            return Ok(Some(broken(
                "RBV-AUD-002",
                "`audit.actor` not who asked",
                matched("actor", json!(actor)),
            )));
        }
    }
    if let Some(sig) = a.signature {
        if r.signature != sig {
            return Ok(Some(broken(
                "RBV-AUD-004",
                "`audit.signature` not the answer's",
                "{same: {audit.signature: sig}}".into(),
            )));
        }
    }
    if let Some(want) = known.outcome.filter(|w| *w != r.outcome) {
        return Ok(Some(broken(
            "RBV-AUD-005",
            format!("`audit.outcome` `{}` for `{want}`", r.outcome),
            matched("outcome", json!(want)),
        )));
    }
    if let Some(want) = known.gate.filter(|w| *w != r.gate) {
        return Ok(Some(broken(
            "RBV-AUD-005",
            format!(
                "`audit.gate` `{}` where one contributor set the band",
                r.gate
            ),
            matched("gate", json!(want)),
        )));
    }
    if let Some(want) = known
        .authorized_by
        .as_ref()
        .filter(|w| **w != r.authorized_by)
    {
        let difference = match (want, &r.authorized_by) {
            (None, Some(_)) => "`audit.authorized_by` set where nobody authorized the call",
            (Some(_), None) => "`audit.authorized_by` empty for a redeemed token",
            _ => "`audit.authorized_by` not the approver's name",
        };
        return Ok(Some(broken(
            "RBV-AUD-003",
            difference,
            matched("authorized_by", json!(want)),
        )));
    }
    Ok(None)
}

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let version = *u.choose(VERSIONS)?;
    let bundle = plugin(version);
    let (mut steps, name) = scene(u, subject)?;
    fire("audit", name);
    steps.insert(
        0,
        step(
            RequestBody::LoadPlugins(LoadPluginsRequest {
                plugins: vec![bundle.clone()],
            }),
            format!(
                "  - load_plugins:\n{}",
                plugins_yaml(std::slice::from_ref(&bundle))
            ),
        ),
    );
    let session = subject.fresh_session();
    let mut token: Option<String> = None;
    let mut signatures: Vec<String> = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let mut body = s.body.clone();
        if let RequestBody::Invoke(req) = &mut body {
            if req.token.is_some() {
                let Some(t) = &token else { return Ok(None) };
                req.token = Some(t.clone());
            }
        }
        let Ok(reply) = subject.call(&session, body) else {
            return Ok(None);
        };
        if let ResponseBody::Approval(a) = &reply {
            token = a.token.clone();
        }
        let (Some(known), Some(a)) = (&s.known, answer(&reply)) else {
            if s.known.is_none() && matches!(reply, ResponseBody::Loaded(_) | ResponseBody::Ack(_))
            {
                continue;
            }
            return Ok(None);
        };
        let op = match &s.body {
            RequestBody::Evaluate(e) => &e.operation,
            RequestBody::Invoke(v) => &v.operation,
            RequestBody::Approve(p) => &p.operation,
            _ => return Ok(None),
        };
        let Ok(verdict) = judge(op, version, &a, known) else {
            return Ok(None);
        };
        // The signature scene: one call evaluated twice has one signature,
        // the same call with other argument data another.
        let verdict = verdict.or_else(|| {
            if name != "signature" {
                return None;
            }
            signatures.push(a.signature?.to_owned());
            match signatures.as_slice() {
                [first, second] if first != second => Some(broken(
                    "RBV-AUD-004",
                    "one call evaluated twice, two signatures",
                    "{same: {signature: sig, audit.signature: sig}}".into(),
                )),
                [first, _, third] if first == third => Some(broken(
                    "RBV-AUD-004",
                    "calls that differ in argument data, one signature",
                    "{differs: {signature: sig, audit.signature: sig}}".into(),
                )),
                _ => None,
            }
        });
        if let Some(b) = verdict {
            return Ok(Some(finding(&steps, i, b, name, version)));
        }
    }
    Ok(None)
}

fn finding(steps: &[Step], at: usize, b: Broken, scene: &'static str, version: &str) -> Finding {
    // The record's signature is compared with the answer's by evaluating
    // the call a second time against the first one's captured signature.
    let again = b.expect.starts_with("{same: {audit.signature");
    let mut text = String::new();
    for (i, s) in steps[..=at].iter().enumerate() {
        text.push_str(&s.text);
        let capture = if i == at && again {
            Some("{sig: signature}")
        } else {
            s.capture
        };
        if let Some(c) = capture {
            text.push_str(&format!("    capture: {c}\n"));
        }
        if i == at {
            if again {
                text.push_str(&s.text);
            }
            text.push_str(&format!("    expect: {}\n", b.expect));
        }
    }
    Finding {
        target: "audit",
        requirement: b.requirement,
        kind: FailKind::Mismatch,
        summary: format!("{scene} ({PLUGIN} {version}): {}", b.difference),
        family: scene.to_owned(),
        payload: None,
        difference: b.difference,
        case: CaseDraft {
            area: "audit",
            title: format!("{scene}: the record of step {at}"),
            tags: vec!["audit"],
            steps: text,
        },
    }
}
