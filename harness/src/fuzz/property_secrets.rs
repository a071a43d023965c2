//! The secrets property (RBV-SH-014 on the shell, RBV-SQL-017 in SQL): an
//! input that touches secrets sets Rule-of-Two's sensitive-data boolean,
//! which no band shows alone. The probe records a state change, then
//! evaluates the input: two of three must escalate, and a neighbour that
//! touches nothing must stay auto. Two booleans escalate only at
//! `rule_of_two_threshold: 2`, which a subject does not report; a
//! calibration session (state change and sensitive data recorded, then a
//! plain read of the same kind) shows which threshold it applies, and the
//! dangerous side is judged only where two escalate.

use super::finding::{CaseDraft, Finding};
use super::gen::{shell_classes, sql, Labeled, Truth};
use super::steps::op_json;
use super::subject::Subject;
use super::targets::{expect_yaml, first_line, judge, operation, req};
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::json;

const WHAT: &str = "committed the fix";

/// A shell command that reads a secret, or its neighbour.
pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let labeled = shell_classes::secret(u)?;
    // The touch of a secret after a state change: a Rule-of-Two probe,
    // whichever spelling the generator chose.
    super::reach::fire("shell", "secret-after-state-change");
    let shell = |command: &str| {
        operation(
            None,
            "client:shell",
            OperationKind::Shell,
            json!({"command": command}),
        )
    };
    let probe = Probe {
        target: "shell_bypass",
        area: "shell",
        requirement: req::SHELL_SECRETS,
        operation: shell(&labeled.text),
        plain: shell("ls"),
        plugins: Vec::new(),
        labeled: &labeled,
    };
    Ok(probe.run(subject))
}

/// A statement that reads a credential relation, or its neighbour, through
/// `execute_sql` declared auto: the declaration stops neither inspection
/// nor Rule-of-Two (RBV-MAN-010).
pub fn check_sql(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let read = sql::credentials::read(u)?;
    for family in &read.labeled.families {
        super::reach::fire("sql", family);
    }
    super::reach::fire("sql", "credential-after-state-change");
    let statement = |text: &str| {
        let mut op = operation(
            Some("db-tools"),
            "mcp:db/execute_sql",
            OperationKind::Sql,
            json!({"sql": text}),
        );
        op.dialect = read.dialect.map(str::to_owned);
        op
    };
    let probe = Probe {
        target: "sql_bypass",
        area: "sql",
        requirement: req::SQL_CREDENTIALS,
        operation: statement(&read.labeled.text),
        plain: statement("SELECT 1"),
        plugins: vec![super::targets::sql_plugin()],
        labeled: &read.labeled,
    };
    Ok(probe.run(subject))
}

/// One Rule-of-Two probe: `operation` after a state change, judged by the
/// label; `plain` is a read of the same kind, for the calibration.
struct Probe<'a> {
    target: &'static str,
    area: &'static str,
    requirement: &'static str,
    operation: Operation,
    plain: Operation,
    /// Loaded at the start of each session.
    plugins: Vec<PluginBundle>,
    labeled: &'a Labeled,
}

impl Probe<'_> {
    fn run(self, subject: &mut dyn Subject) -> Option<Finding> {
        let labeled = self.labeled;
        if labeled.truth == Truth::Dangerous && !two_escalate(subject, &self.plugins, &self.plain) {
            return None;
        }
        let session = subject.fresh_session();
        let mut batch: Vec<RequestBody> = load(&self.plugins).into_iter().collect();
        batch.extend([
            state_change(),
            RequestBody::Evaluate(EvaluateRequest {
                operation: self.operation.clone(),
            }),
        ]);
        let Some(Ok(ResponseBody::Evaluation(e))) = subject.call_batch(&session, batch).pop()
        else {
            return None;
        };
        let kind = judge(e.band, labeled.truth)?;
        let families = labeled.families.join(" + ");
        Some(Finding {
            target: self.target,
            requirement: self.requirement,
            family: labeled.families.first().copied().unwrap_or("none").to_owned(),
            kind,
            summary: format!(
                "after a state change, {} answered {} for {:?} ({families}){}",
                self.area,
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
                area: self.area,
                title: format!("{families} after a state change: {}", first_line(&labeled.text)),
                tags: vec![self.area, "sensitive", "rule-of-two"],
                steps: format!(
                    "{}  - record_event: {{kind: state_change, what: \"{WHAT}\"}}\n  - evaluate: {}\n    expect: {}\n",
                    load_yaml(&self.plugins),
                    op_json(&self.operation),
                    expect_yaml(labeled.truth)
                ),
            },
        })
    }
}

/// The batch's first request, when the probe loads plugins.
fn load(plugins: &[PluginBundle]) -> Option<RequestBody> {
    (!plugins.is_empty()).then(|| {
        RequestBody::LoadPlugins(LoadPluginsRequest {
            plugins: plugins.to_vec(),
        })
    })
}

fn load_yaml(plugins: &[PluginBundle]) -> String {
    match plugins {
        [] => String::new(),
        _ => format!("  - load_plugins:\n{}", super::steps::plugins_yaml(plugins)),
    }
}

fn state_change() -> RequestBody {
    RequestBody::RecordEvent(RecordEventRequest {
        event: SessionEvent::StateChange {
            what: Some(WHAT.to_owned()),
        },
    })
}

/// Whether the subject escalates a run with two booleans: a state change
/// and sensitive data recorded, then `plain`, a read.
fn two_escalate(subject: &mut dyn Subject, plugins: &[PluginBundle], plain: &Operation) -> bool {
    let session = subject.fresh_session();
    let mut batch: Vec<RequestBody> = load(plugins).into_iter().collect();
    batch.extend([
        state_change(),
        RequestBody::RecordEvent(RecordEventRequest {
            event: SessionEvent::SensitiveData {
                what: Some("read a credentials file".to_owned()),
            },
        }),
        RequestBody::Evaluate(EvaluateRequest {
            operation: plain.clone(),
        }),
    ]);
    matches!(
        subject.call_batch(&session, batch).pop(),
        Some(Ok(ResponseBody::Evaluation(e))) if e.band == Band::Escalate
    )
}
