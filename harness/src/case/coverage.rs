//! Which request paths and which contributors to the effective band each
//! case exercises, for `rbv lint --coverage`: a rule checked only on
//! `evaluate` says nothing about what `invoke` lets through.
//!
//! A path counts when a step on it has an expectation (a step without one
//! only checks the answer type). Contributors are read from what the case
//! sets up: declarations and `default`s of the plugins it loads, operations
//! none of them declares, call-time inspectors (`kind`), Rule-of-Two events,
//! client policy floors and the critical floor.

use super::model::{Action, Expect, Step};
use super::Case;
use rbv_protocol::{Capability, Operation, OperationKind, PluginBundle, SessionEvent};
use serde_json::Value;
use std::collections::BTreeSet;

/// A request path that can observe a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Path {
    Evaluate,
    /// `invoke` without a token.
    Invoke,
    /// `invoke` with a token (captured or forged), or concurrent invokes.
    InvokeToken,
    Approve,
    /// The audit record of any answer.
    Audit,
    Project,
    Manifest,
    Diff,
    /// A raw line (`send_raw`): the protocol's own rules, which no typed
    /// request can break.
    Raw,
}

impl Path {
    pub fn as_str(self) -> &'static str {
        match self {
            Path::Evaluate => "evaluate",
            Path::Invoke => "invoke",
            Path::InvokeToken => "invoke+token",
            Path::Approve => "approve",
            Path::Audit => "audit",
            Path::Project => "project",
            Path::Manifest => "manifest",
            Path::Diff => "diff",
            Path::Raw => "raw",
        }
    }

    pub const ALL: [Path; 9] = [
        Path::Evaluate,
        Path::Invoke,
        Path::InvokeToken,
        Path::Approve,
        Path::Audit,
        Path::Project,
        Path::Manifest,
        Path::Diff,
        Path::Raw,
    ];

    pub fn parse(name: &str) -> Option<Path> {
        Path::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// The paths every MUST requirement of a capability has to be checked
    /// through: a band rule shows on `evaluate` and is enforced on `invoke`;
    /// a token rule shows only when a token is presented; an audit rule
    /// only in the record.
    pub fn required_for(capability: Option<Capability>) -> &'static [Path] {
        match capability {
            Some(Capability::Tokens) => &[Path::InvokeToken],
            Some(Capability::Audit) => &[Path::Audit],
            Some(Capability::Projection) => &[Path::Project],
            Some(Capability::Versioning) => &[Path::Diff],
            Some(
                Capability::Manifest
                | Capability::RuleOfTwo
                | Capability::Sql
                | Capability::Shell
                | Capability::Fetch
                | Capability::CriticalFloor
                | Capability::Workspace,
            ) => &[Path::Evaluate, Path::Invoke],
            // No capability: the protocol's own rules, seen on raw lines.
            None => &[Path::Raw],
        }
    }
}

/// A contributor to the effective band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Contributor {
    Declared,
    Default,
    Undeclared,
    Inspector,
    RuleOfTwo,
    Policy,
    Critical,
}

impl Contributor {
    pub fn as_str(self) -> &'static str {
        match self {
            Contributor::Declared => "declared",
            Contributor::Default => "default",
            Contributor::Undeclared => "undeclared",
            Contributor::Inspector => "inspector",
            Contributor::RuleOfTwo => "rule-of-two",
            Contributor::Policy => "policy",
            Contributor::Critical => "critical",
        }
    }

    pub const ALL: [Contributor; 7] = [
        Contributor::Declared,
        Contributor::Default,
        Contributor::Undeclared,
        Contributor::Inspector,
        Contributor::RuleOfTwo,
        Contributor::Policy,
        Contributor::Critical,
    ];

    pub fn parse(name: &str) -> Option<Contributor> {
        Contributor::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// What one case exercises.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exercised {
    pub paths: BTreeSet<Path>,
    pub contributors: BTreeSet<Contributor>,
}

fn observes(expect: &Expect) -> bool {
    expect != &Expect::default()
}

pub(super) fn touches_audit(expect: &Expect) -> bool {
    let audit = |p: &String| p == "audit" || p.starts_with("audit.");
    expect
        .partial
        .as_ref()
        .is_some_and(|m| m.get("audit").is_some())
        || expect.present.iter().flatten().any(audit)
        || expect
            .same
            .iter()
            .chain(&expect.differs)
            .flat_map(|m| m.keys())
            .any(audit)
}

/// The permissions objects of a manifest, in both placements.
pub(super) fn permissions(bundle: &PluginBundle) -> impl Iterator<Item = &Value> {
    let m = &bundle.manifest;
    [
        m.get("permissions"),
        m.pointer("/extensions/org.agent-plugins.permissions"),
    ]
    .into_iter()
    .flatten()
}

pub(super) fn declared_ids(bundle: &PluginBundle) -> impl Iterator<Item = &str> {
    permissions(bundle)
        .filter_map(|p| p.get("operations").and_then(Value::as_array))
        .flatten()
        .filter_map(|e| e.get("id").and_then(Value::as_str))
}

pub(super) fn operations(action: &Action) -> Vec<&Operation> {
    match action {
        Action::Evaluate(op) => vec![op],
        Action::Approve { operation, .. } | Action::Invoke { operation, .. } => vec![operation],
        Action::Concurrent(actions) => actions.iter().flat_map(operations).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn path_of(action: &Action) -> Option<Path> {
    Some(match action {
        Action::Evaluate(_) => Path::Evaluate,
        Action::Invoke { token: None, .. } => Path::Invoke,
        Action::Invoke { .. } | Action::Concurrent(_) => Path::InvokeToken,
        Action::Approve { .. } => Path::Approve,
        Action::Project(_) => Path::Project,
        Action::LoadPlugins(_) | Action::ValidateManifest(_) => Path::Manifest,
        Action::DiffManifests { .. } => Path::Diff,
        Action::SendRaw(_) => Path::Raw,
        Action::RecordEvent(_) | Action::SetPolicy(_) | Action::ResetSession => return None,
    })
}

pub fn exercised(case: &Case) -> Exercised {
    let mut out = Exercised::default();
    let mut bundles: Vec<&PluginBundle> = case.plugins.iter().collect();
    for step in &case.steps {
        if let Action::LoadPlugins(more) = &step.action {
            bundles.extend(more);
        }
    }
    let declared: BTreeSet<&str> = bundles.iter().flat_map(|b| declared_ids(b)).collect();
    if bundles
        .iter()
        .flat_map(|b| permissions(b))
        .any(|p| p.get("default").is_some())
    {
        out.contributors.insert(Contributor::Default);
    }
    for step in &case.steps {
        contribute(step, &declared, &mut out);
    }
    out
}

fn contribute(step: &Step, declared: &BTreeSet<&str>, out: &mut Exercised) {
    // A raw line is judged even without an expectation: its answer's
    // envelope, and that the implementation lived.
    if observes(&step.expect) || matches!(step.action, Action::SendRaw(_)) {
        out.paths.extend(path_of(&step.action));
        if touches_audit(&step.expect) {
            out.paths.insert(Path::Audit);
        }
    }
    match &step.action {
        Action::RecordEvent(
            SessionEvent::UntrustedContent { .. }
            | SessionEvent::SensitiveData { .. }
            | SessionEvent::StateChange { .. },
        ) => {
            out.contributors.insert(Contributor::RuleOfTwo);
        }
        Action::SetPolicy(p) => {
            if !p.floors.is_empty() {
                out.contributors.insert(Contributor::Policy);
            }
            if !p.critical.is_empty() {
                out.contributors.insert(Contributor::Critical);
            }
        }
        _ => {}
    }
    for op in operations(&step.action) {
        match op.kind {
            Some(OperationKind::Sql | OperationKind::Shell | OperationKind::Fetch) => {
                out.contributors.insert(Contributor::Inspector);
            }
            Some(OperationKind::Tool) | None => {}
        }
        let inspected = matches!(
            op.kind,
            Some(OperationKind::Sql | OperationKind::Shell | OperationKind::Fetch)
        );
        if declared.contains(op.id.as_str()) {
            out.contributors.insert(Contributor::Declared);
        } else if !inspected {
            // The undeclared_opaque_band policy applies only where no
            // inspector reads the call.
            out.contributors.insert(Contributor::Undeclared);
        }
    }
}

/// Joins names for the coverage table.
pub fn names<T: Copy>(items: &BTreeSet<T>, name: fn(T) -> &'static str) -> String {
    let all: Vec<&str> = items.iter().map(|i| name(*i)).collect();
    if all.is_empty() {
        "—".to_owned()
    } else {
        all.join(", ")
    }
}
