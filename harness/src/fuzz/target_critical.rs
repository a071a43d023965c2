//! The critical-floor target: a plugin declares every operation of a small
//! pool auto, the session's policy lists some of them as critical (with
//! floors beside them, which only raise), and one operation is judged:
//! either a listed one, which must be denied with no approval path and
//! never run, a token minted before the policy included (RBV-CRIT-001,
//! -002), or an id that only resembles one (another letter case, a prefix,
//! the same tool on another server), which keeps its normal decision
//! (RBV-CRIT-003). The corpus holds fixed lists; this draws the ids.

use super::finding::yaml_json;
use super::finding::{CaseDraft, Finding};
use super::reach::{fire, Tagged};
use super::steps::{op_json, plugins_yaml};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::json;
use std::collections::BTreeMap;

const SERVERS: &[&str] = &["deploy", "pay", "ops"];
const TOOLS: &[&str] = &["promote", "refund", "rotate_keys", "status"];
const PLUGIN: &str = "ops-tools";

pub fn productions() -> Vec<Tagged> {
    vec![
        ("critical-listed", &["RBV-CRIT-001"]),
        ("critical-token-before-policy", &["RBV-CRIT-002"]),
        ("critical-approve", &["RBV-CRIT-002"]),
        ("critical-floor-beside", &["RBV-CRIT-001"]),
        ("neighbour-letter-case", &["RBV-CRIT-003"]),
        ("neighbour-prefix", &["RBV-CRIT-003"]),
        ("neighbour-other-server", &["RBV-CRIT-003"]),
    ]
}

fn pool() -> Vec<String> {
    SERVERS
        .iter()
        .flat_map(|s| TOOLS.iter().map(move |t| format!("mcp:{s}/{t}")))
        .collect()
}

/// Every pool operation declared auto, reversible, local: only the policy
/// can raise one.
fn plugin() -> PluginBundle {
    let operations: Vec<_> = pool()
        .iter()
        .map(|id| json!({"id": id, "band": "auto", "reversibility": "reversible", "scope": "local", "trust": "trusted"}))
        .collect();
    super::target_token::bundle(PLUGIN, json!(operations))
}

fn operation(id: &str) -> Operation {
    Operation {
        plugin: Some(PLUGIN.to_owned()),
        id: id.to_owned(),
        kind: Some(OperationKind::Tool),
        arguments: json!({"target": "prod"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        trust: Some(Trust::Trusted),
        actor: None,
        dialect: None,
        workspace: None,
    }
}

fn human() -> Approver {
    Approver {
        kind: ApproverKind::Human,
        name: "user".to_owned(),
    }
}

/// The judged id: a listed one, or one that resembles a listed one and is
/// not listed (its family names how).
fn judged(u: &mut Unstructured, listed: &[String]) -> Result<(String, &'static str)> {
    let near = u.choose(listed)?.clone();
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => (near, "critical-listed"),
        3 => {
            // One letter in another case: ids are exact.
            let at = near.rfind('/').map_or(0, |i| i + 1);
            let mut chars: Vec<char> = near.chars().collect();
            chars[at] = chars[at].to_ascii_uppercase();
            (chars.into_iter().collect(), "neighbour-letter-case")
        }
        4 => (format!("{near}_v2"), "neighbour-prefix"),
        _ => {
            let tool = near.rsplit('/').next().unwrap_or_default();
            let other = SERVERS
                .iter()
                .map(|s| format!("mcp:{s}/{tool}"))
                .find(|id| !listed.contains(id));
            match other {
                Some(id) => (id, "neighbour-other-server"),
                None => (near, "critical-listed"),
            }
        }
    })
}

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let pool = pool();
    let mut listed: Vec<String> = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let id = u.choose(&pool)?.clone();
        if !listed.contains(&id) {
            listed.push(id);
        }
    }
    let (id, family) = judged(u, &listed)?;
    fire("critical_floor", family);
    let is_listed = listed.contains(&id);
    // A floor beside the list: it raises, and never lowers a critical one.
    let mut floors = BTreeMap::new();
    if u.ratio(1, 3)? {
        fire("critical_floor", "critical-floor-beside");
        floors.insert(id.clone(), *u.choose(Band::ALL)?);
    }
    let op = operation(&id);
    let tokens = subject.claims(Capability::Tokens);
    let session = subject.fresh_session();
    let mut batch = vec![RequestBody::LoadPlugins(LoadPluginsRequest {
        plugins: vec![plugin()],
    })];
    // A token minted before the policy must not outlive it.
    let early = tokens && is_listed && u.ratio(1, 2)?;
    if early {
        fire("critical_floor", "critical-token-before-policy");
        batch.push(RequestBody::Approve(ApproveRequest {
            operation: op.clone(),
            approver: human(),
        }));
    }
    let token = match subject.call_batch(&session, batch).pop() {
        Some(Ok(ResponseBody::Approval(a))) => a.token,
        _ => None,
    };
    let policy = RequestBody::SetPolicy(SetPolicyRequest {
        floors: floors.clone(),
        critical: listed.clone(),
        workspace: None,
    });
    let mut batch = vec![
        policy,
        RequestBody::Evaluate(EvaluateRequest {
            operation: op.clone(),
        }),
        RequestBody::Invoke(InvokeRequest {
            operation: op.clone(),
            token: token.clone(),
        }),
    ];
    if tokens {
        fire("critical_floor", "critical-approve");
        batch.push(RequestBody::Approve(ApproveRequest {
            operation: op.clone(),
            approver: human(),
        }));
    }
    let answers = subject.call_batch(&session, batch);
    let evaluation = answers.get(1).and_then(|a| match a {
        Ok(ResponseBody::Evaluation(e)) => Some(e),
        _ => None,
    });
    let invocation = answers.get(2).and_then(|a| match a {
        Ok(ResponseBody::Invocation(i)) => Some(i),
        _ => None,
    });
    let approval = answers.get(3).and_then(|a| match a {
        Ok(ResponseBody::Approval(a)) => Some(a),
        _ => None,
    });
    let (Some(e), Some(i)) = (evaluation, invocation) else {
        return Ok(None);
    };
    let found = |requirement: &'static str, kind, difference: String| {
        Some(finding(
            &Draft {
                listed: &listed,
                floors: &floors,
                op: &op,
                family,
                early: token.is_some(),
            },
            requirement,
            kind,
            difference,
        ))
    };
    Ok(if is_listed {
        if e.decision != Decision::Deny || e.band != Band::Escalate {
            found(
                "RBV-CRIT-001",
                FailKind::Under,
                format!("evaluated {} {}", e.band, e.decision),
            )
        } else if i.allowed {
            let how = if token.is_some() {
                "with a token minted before the policy"
            } else {
                "without a token"
            };
            found("RBV-CRIT-002", FailKind::Under, format!("invoked {how}"))
        } else if approval.is_some_and(|a| a.granted || a.token.is_some()) {
            found(
                "RBV-CRIT-002",
                FailKind::Under,
                "an approval granted".into(),
            )
        } else {
            None
        }
    } else if e.decision == Decision::Deny {
        // Its normal decision: allow if the plugin declares it, else the
        // undeclared policy's; never deny.
        found(
            "RBV-CRIT-003",
            FailKind::Over,
            "an unlisted id denied".into(),
        )
    } else {
        None
    })
}

/// What the case of a finding replays.
struct Draft<'a> {
    listed: &'a [String],
    floors: &'a BTreeMap<String, Band>,
    op: &'a Operation,
    family: &'static str,
    early: bool,
}

fn finding(d: &Draft, requirement: &'static str, kind: FailKind, difference: String) -> Finding {
    let op = op_json(d.op);
    let policy = yaml_json(&json!({"critical": d.listed, "floors": d.floors}));
    let (before, token) = if d.early {
        (
            format!("  - approve: {{operation: {op}, approver: {{kind: human, name: user}}}}\n    capture: {{t: token}}\n"),
            ", token: {capture: t}",
        )
    } else {
        (String::new(), "")
    };
    let expect = if kind == FailKind::Under {
        format!(
            "    expect: {{band: escalate, decision: deny}}\n  - invoke: {{operation: {op}{token}}}\n    expect: {{allowed: false, decision: deny}}\n"
        )
    } else {
        "    expect: {decision: {one_of: [allow, note, ask]}}\n".to_owned()
    };
    Finding {
        target: "critical_floor",
        requirement,
        kind,
        summary: format!(
            "critical {:?}, judged {}: {difference}",
            d.listed, d.op.id
        ),
        family: d.family.to_owned(),
        payload: None,
        difference,
        case: CaseDraft {
            area: "critical-floor",
            title: format!("{}: {}", d.family, d.op.id),
            tags: vec!["critical-floor"],
            steps: format!(
                "  - load_plugins:\n{}{before}  - set_policy: {policy}\n  - evaluate: {op}\n{expect}",
                plugins_yaml(&[plugin()])
            ),
        },
    }
}
