//! The Rule-of-Two target: sequences of events, resets and policy floors
//! over two sessions, judged at every evaluation against the model of
//! `gen::rule_of_two` (assumes `rule_of_two_threshold: 2`, the default).
//! Like the token target, a finding across sessions writes the second
//! session's steps after a `# session b` comment.

use super::finding::{yaml_json, CaseDraft, Finding};
use super::gen::rule_of_two::{input, property, Step};
use super::reach::fire;
use super::req;
use super::steps::{op_json, plugins_yaml};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::json;

fn plugin() -> PluginBundle {
    PluginBundle {
        manifest: json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": "notes-tools",
            "version": "1.0.0",
            "permissions": {"operations": [{"id": "mcp:notes/read_note", "band": "auto",
                "reversibility": "reversible", "scope": "local", "trust": "trusted"}]},
        })
        .into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}

fn operation(untrusted: bool) -> Operation {
    Operation {
        plugin: Some("notes-tools".into()),
        id: "mcp:notes/read_note".into(),
        kind: None,
        arguments: serde_json::Map::from_iter([("note".to_owned(), json!("todo"))]),
        trust: Some(if untrusted {
            Trust::Untrusted
        } else {
            Trust::Trusted
        }),
        actor: None,
        dialect: None,
        workspace: None,
    }
}

#[derive(Default, Clone)]
struct Model {
    props: [bool; 3],
    floor: Option<Band>,
    loaded: bool,
}

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let steps = input(u)?;
    let sessions = [subject.fresh_session(), subject.fresh_session()];
    let mut model = [Model::default(), Model::default()];
    let (plugin, trusted) = (plugin(), operation(false));
    let mut text = String::new();
    let mut current = 0;
    for step in &steps {
        let s = super::gen::rule_of_two::step_session(step);
        if s != current {
            text.push_str(&format!("  # session {}\n", ["a", "b"][s]));
            current = s;
        }
        let mut batch = Vec::with_capacity(2);
        if !model[s].loaded && !matches!(step, Step::Reset { .. }) {
            batch.push(RequestBody::LoadPlugins(LoadPluginsRequest {
                plugins: vec![plugin.clone()],
            }));
            text.push_str(&format!(
                "  - load_plugins:\n{}",
                plugins_yaml(std::slice::from_ref(&plugin))
            ));
            model[s].loaded = true;
        }
        let body = match step {
            Step::Event { event, .. } => {
                if let Some(p) = property(event) {
                    model[s].props[p] = true;
                }
                let v = serde_json::to_value(event).expect("events serialize");
                text.push_str(&format!("  - record_event: {}\n", yaml_json(&v)));
                RequestBody::RecordEvent(RecordEventRequest {
                    event: event.clone(),
                })
            }
            Step::Reset { .. } => {
                model[s] = Model::default();
                text.push_str("  - reset_session: {}\n");
                RequestBody::ResetSession(Default::default())
            }
            Step::Policy { floor, .. } => {
                model[s].floor = model[s].floor.max(Some(*floor));
                text.push_str(&format!(
                    "  - set_policy: {{floors: {{\"{}\": {floor}}}}}\n",
                    trusted.id
                ));
                RequestBody::SetPolicy(SetPolicyRequest {
                    floors: [(trusted.id.clone(), *floor)].into(),
                    critical: vec![],
                    workspace: None,
                })
            }
            Step::Evaluate { untrusted, .. } => RequestBody::Evaluate(EvaluateRequest {
                operation: operation(*untrusted),
            }),
        };
        batch.push(body);
        let answer = subject.call_batch(&sessions[s], batch).pop();
        let Step::Evaluate { untrusted, .. } = *step else {
            if !matches!(answer, Some(Ok(ResponseBody::Ack(_)))) {
                // Unacknowledged state: the model no longer knows the session.
                return Ok(None);
            }
            continue;
        };
        let Some(Ok(ResponseBody::Evaluation(e))) = answer else {
            return Ok(None);
        };
        // The call's own untrusted arguments count for this evaluation only
        // (evaluation changes no state).
        let count = model[s].props.iter().filter(|p| **p).count()
            + usize::from(untrusted && !model[s].props[0]);
        let r2 = if count >= 2 {
            Band::Escalate
        } else {
            Band::Auto
        };
        let projected = if untrusted { Band::SoftAck } else { Band::Auto };
        let want = r2.max(projected).max(model[s].floor.unwrap_or(Band::Auto));
        let op = operation(untrusted);
        fire(
            "rule_of_two",
            if count >= 2 {
                "evaluate-two-or-more"
            } else if count == 1 {
                "evaluate-one-alone"
            } else {
                "evaluate-none"
            },
        );
        fire("rule_of_two", "evaluate-declared-floor");
        text.push_str(&format!(
            "  - evaluate: {}\n    expect: {{band: {want}, declared: auto}}\n",
            op_json(&op)
        ));
        let (requirement, kind) = if e.band < want {
            let req = if r2 == want && r2 > Band::Auto {
                req::R2_ESCALATES
            } else if model[s].floor == Some(want) {
                req::POLICY_RAISES
            } else {
                req::UNTRUSTED_RAISES
            };
            (req, FailKind::Under)
        } else if e.band > want {
            (req::R2_ONE_ALONE, FailKind::Over)
        } else if e.declared != Some(Band::Auto) {
            (req::DECLARED_REPORTED, FailKind::Mismatch)
        } else {
            continue;
        };
        return Ok(Some(Finding {
            target: "rule_of_two",
            requirement,
            kind,
            summary: format!(
                "{} properties of the run and policy floor {:?} in session {}: expected {want}, answered {} (declared {:?})",
                count, model[s].floor, ["a", "b"][s], e.band, e.declared
            ),
            family: format!("{count}-properties"),
            payload: None,
            difference: String::new(),
            case: CaseDraft {
                area: "rule-of-two",
                title: format!("Rule-of-Two over a sequence: {count} properties, expected {want}"),
                tags: vec!["rule-of-two"],
                steps: text,
            },
        }));
    }
    Ok(None)
}
