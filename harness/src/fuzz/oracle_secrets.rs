//! The shell secrets oracle (RBV-SH-014): a command that touches secrets
//! sets Rule-of-Two's sensitive-data boolean, which no band shows alone.
//! The probe records a state change, then evaluates the command: two of
//! three must escalate, and a neighbour that touches nothing must stay
//! auto. Two booleans escalate only at `rule_of_two_threshold: 2`, which a
//! subject does not report; a calibration session (state change and
//! sensitive data recorded, then `ls`) shows which threshold it applies,
//! and the dangerous side is judged only where two escalate.

use super::finding::{CaseDraft, Finding};
use super::gen::{shell_classes, Truth};
use super::steps::op_json;
use super::subject::Subject;
use super::targets::{expect_yaml, first_line, judge, operation, req};
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::json;

const WHAT: &str = "committed the fix";

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let labeled = shell_classes::secret(u)?;
    // The touch of a secret after a state change: a Rule-of-Two probe,
    // whichever spelling the generator chose.
    super::reach::fire("shell", "secret-after-state-change");
    if labeled.truth == Truth::Dangerous && !two_escalate(subject) {
        return Ok(None);
    }
    let op = operation(
        None,
        "client:shell",
        OperationKind::Shell,
        json!({"command": labeled.text}),
    );
    let session = subject.fresh_session();
    let batch = vec![
        state_change(),
        RequestBody::Evaluate(EvaluateRequest {
            operation: op.clone(),
        }),
    ];
    let Some(Ok(ResponseBody::Evaluation(e))) = subject.call_batch(&session, batch).pop() else {
        return Ok(None);
    };
    let Some(kind) = judge(e.band, labeled.truth) else {
        return Ok(None);
    };
    let families = labeled.families.join(" + ");
    Ok(Some(Finding {
        target: "shell_bypass",
        requirement: req::SHELL_SECRETS,
        family: labeled.families.first().copied().unwrap_or("none").to_owned(),
        kind,
        summary: format!(
            "after a state change, shell answered {} for {:?} ({families}){}",
            e.band,
            labeled.text,
            if kind == FailKind::Under {
                ": touching secrets did not count for Rule-of-Two"
            } else {
                ""
            }
        ),
        payload: Some(labeled.text.clone()),
        difference: String::new(),
        case: CaseDraft {
            area: "shell",
            title: format!("{families} after a state change: {}", first_line(&labeled.text)),
            tags: vec!["shell", "sensitive", "rule-of-two"],
            steps: format!(
                "  - record_event: {{kind: state_change, what: \"{WHAT}\"}}\n  - evaluate: {}\n    expect: {}\n",
                op_json(&op),
                expect_yaml(labeled.truth)
            ),
        },
    }))
}

fn state_change() -> RequestBody {
    RequestBody::RecordEvent(RecordEventRequest {
        event: SessionEvent::StateChange {
            what: Some(WHAT.to_owned()),
        },
    })
}

/// Whether the subject escalates a run with two booleans: a state change
/// and sensitive data recorded, then a read.
fn two_escalate(subject: &mut dyn Subject) -> bool {
    let session = subject.fresh_session();
    let batch = vec![
        state_change(),
        RequestBody::RecordEvent(RecordEventRequest {
            event: SessionEvent::SensitiveData {
                what: Some("read a credentials file".to_owned()),
            },
        }),
        RequestBody::Evaluate(EvaluateRequest {
            operation: operation(
                None,
                "client:shell",
                OperationKind::Shell,
                json!({"command": "ls"}),
            ),
        }),
    ];
    matches!(
        subject.call_batch(&session, batch).pop(),
        Some(Ok(ResponseBody::Evaluation(e))) if e.band == Band::Escalate
    )
}
