//! Steps, read by hand from the node tree: a step is a map with exactly one
//! action key, which serde's derive cannot say while keeping positions.

use super::model::{Action, Expect, Step, Token};
use super::node::{Kind, Node, NodeError};
use rbv_protocol::{
    Approver, ApproverKind, Capability, Operation, OperationKind, PluginBundle, ResponseBody,
};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// What step parsing needs from the rest of the suite.
pub(crate) struct StepCtx<'a> {
    pub fixtures: &'a BTreeMap<String, PluginBundle>,
    /// Fixture files that exist but did not load (already reported).
    pub broken: &'a BTreeSet<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureRef {
    fixture: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveSpec {
    operation: Operation,
    #[serde(default)]
    approver: Option<Approver>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InvokeSpec {
    operation: Operation,
    #[serde(default)]
    token: Option<Token>,
}

/// The keys of a map node, checked against the allowed ones.
fn entries<'a>(
    node: &'a Node,
    what: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<BTreeMap<&'a str, &'a Node>, NodeError> {
    let Some(map) = node.as_map() else {
        return Err(NodeError::at(
            node.pos,
            format!("{what} must be a map, not {}", node.describe()),
        ));
    };
    let mut out = BTreeMap::new();
    for (k, v) in map {
        let key = k.as_str().unwrap_or_default();
        if !required.contains(&key) && !optional.contains(&key) {
            let mut known: Vec<&str> = required.iter().chain(optional).copied().collect();
            known.sort_unstable();
            return Err(NodeError::at(
                k.pos,
                format!(
                    "unknown key `{key}` in {what} (expected one of: {})",
                    known.join(", ")
                ),
            ));
        }
        out.insert(key, v);
    }
    if let Some(missing) = required.iter().find(|r| !out.contains_key(*r)) {
        return Err(NodeError::at(node.pos, format!("{what} lacks `{missing}`")));
    }
    Ok(out)
}

/// A plugin spec: `{fixture: NAME}` or an inline bundle.
pub(crate) fn plugin_spec(ctx: &StepCtx, node: &Node) -> Result<PluginBundle, NodeError> {
    if node.get("fixture").is_some() {
        let r: FixtureRef = node.parse()?;
        return ctx.fixtures.get(&r.fixture).cloned().ok_or_else(|| {
            let known: Vec<&str> = ctx.fixtures.keys().map(String::as_str).collect();
            let pos = node.get("fixture").map_or(node.pos, |(_, v)| v.pos);
            if ctx.broken.contains(&r.fixture) {
                let message = format!(
                    "plugin fixture `{0}` has errors (plugins/{0}.yaml)",
                    r.fixture
                );
                return NodeError::at(pos, message);
            }
            NodeError::at(
                pos,
                format!(
                    "unknown plugin fixture `{}` (cases/plugins/ has: {})",
                    r.fixture,
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        });
    }
    node.parse()
}

pub(crate) fn plugin_specs(ctx: &StepCtx, node: &Node) -> Result<Vec<PluginBundle>, NodeError> {
    match &node.kind {
        Kind::Seq(items) => items.iter().map(|n| plugin_spec(ctx, n)).collect(),
        _ => Err(NodeError::at(
            node.pos,
            format!("expected a list of plugins, found {}", node.describe()),
        )),
    }
}

fn action(
    ctx: &StepCtx,
    key: &Node,
    value: &Node,
    captures: &BTreeSet<String>,
    nested: bool,
) -> Result<Action, NodeError> {
    let name = key.as_str().unwrap_or_default();
    Ok(match name {
        "load_plugins" => Action::LoadPlugins(plugin_specs(ctx, value)?),
        "validate_manifest" => Action::ValidateManifest(plugin_spec(ctx, value)?),
        "project" => Action::Project(value.parse()?),
        "record_event" => Action::RecordEvent(value.parse()?),
        "set_policy" => Action::SetPolicy(value.parse()?),
        "evaluate" => Action::Evaluate(value.parse()?),
        "approve" => {
            let spec: ApproveSpec = value.parse()?;
            let approver = spec.approver.unwrap_or(Approver {
                kind: ApproverKind::Human,
                name: "user".into(),
            });
            Action::Approve {
                operation: spec.operation,
                approver,
            }
        }
        "invoke" => {
            let spec: InvokeSpec = value.parse()?;
            if let Some(Token::Capture(c)) = &spec.token {
                if !captures.contains(c) {
                    let pos = value.get("token").map_or(value.pos, |(_, v)| v.pos);
                    return Err(NodeError::at(
                        pos,
                        format!("capture `{c}` is used before any earlier step captures it"),
                    ));
                }
            }
            Action::Invoke {
                operation: spec.operation,
                token: spec.token,
            }
        }
        "diff_manifests" => {
            let parts = entries(value, "`diff_manifests`", &["old", "new"], &[])?;
            Action::DiffManifests {
                old: plugin_spec(ctx, parts["old"])?,
                new: plugin_spec(ctx, parts["new"])?,
            }
        }
        "reset_session" => match &value.kind {
            Kind::Null => Action::ResetSession,
            Kind::Map(m) if m.is_empty() => Action::ResetSession,
            _ => return Err(NodeError::at(value.pos, "`reset_session` takes `{}`")),
        },
        "send_raw" if nested => {
            return Err(NodeError::at(
                key.pos,
                "`send_raw` is not pipelined (it goes alone)",
            ));
        }
        "send_raw" => Action::SendRaw(super::raw::RawLine::from_node(value)?),
        "concurrent" if nested => {
            return Err(NodeError::at(key.pos, "`concurrent` does not nest"));
        }
        "concurrent" => {
            let Kind::Seq(items) = &value.kind else {
                return Err(NodeError::at(
                    value.pos,
                    "`concurrent` takes a list of actions",
                ));
            };
            if items.len() < 2 {
                return Err(NodeError::at(
                    value.pos,
                    "`concurrent` needs at least two actions",
                ));
            }
            let mut actions = Vec::new();
            for item in items {
                let map = entries(item, "a concurrent action", &[], Action::KEYS)?;
                if map.len() != 1 {
                    return Err(NodeError::at(
                        item.pos,
                        "a concurrent action is a map with exactly one action key (no expect inside)",
                    ));
                }
                let (k, v) = &item.as_map().expect("checked")[0];
                actions.push(action(ctx, k, v, captures, true)?);
            }
            if actions.iter().any(|a| a.natural() != actions[0].natural()) {
                return Err(NodeError::at(
                    value.pos,
                    "concurrent actions must be of one kind",
                ));
            }
            Action::Concurrent(actions)
        }
        _ => unreachable!("action keys are checked by the caller"),
    })
}

/// Checks that every expectation key applies to the answer the step expects.
fn check_expect(expect: &Expect, act: &Action, pos: super::node::Pos) -> Result<(), NodeError> {
    let answer = expect.answer_type.as_deref().unwrap_or(act.natural());
    if !ResponseBody::TYPES.contains(&answer) || answer == "handshake" {
        return Err(NodeError::at(
            pos,
            format!("`type: {answer}` is not an answer type"),
        ));
    }
    let concurrent = matches!(act, Action::Concurrent(_));
    for (key, applies) in expect.keys() {
        if concurrent && !matches!(key, "allowed_count") {
            return Err(NodeError::at(
                pos,
                format!(
                    "`{key}` does not apply to a concurrent step (only `type` and `allowed_count`)"
                ),
            ));
        }
        if key == "allowed_count" && !concurrent {
            return Err(NodeError::at(
                pos,
                "`allowed_count` applies to `concurrent` invokes only",
            ));
        }
        if let Some(types) = applies {
            if !types.contains(&answer) {
                return Err(NodeError::at(
                    pos,
                    format!(
                        "`{key}` does not apply to a `{answer}` answer (only {})",
                        types.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn step(ctx: &StepCtx, node: &Node, captures: &mut BTreeSet<String>) -> Result<Step, NodeError> {
    let mut optional: Vec<&str> = Action::KEYS.to_vec();
    optional.extend(["expect", "capture", "note", "session"]);
    let fields = entries(node, "a step", &[], &optional)?;
    let map = node.as_map().expect("entries checked it is a map");
    let actions: Vec<&(Node, Node)> = map
        .iter()
        .filter(|(k, _)| Action::KEYS.contains(&k.as_str().unwrap_or_default()))
        .collect();
    let (key, value) = match actions.as_slice() {
        [one] => (&one.0, &one.1),
        [] => {
            return Err(NodeError::at(
                node.pos,
                format!("a step needs one action key ({})", Action::KEYS.join(", ")),
            ))
        }
        [_, second, ..] => {
            return Err(NodeError::at(
                second.0.pos,
                "a step has exactly one action key",
            ));
        }
    };
    let act = action(ctx, key, value, captures, false)?;
    let expect: Expect = match fields.get("expect") {
        Some(e) => e.parse()?,
        None => Expect::default(),
    };
    let expect_pos = fields.get("expect").map_or(node.pos, |e| e.pos);
    check_expect(&expect, &act, expect_pos)?;
    if let Some(pattern) = &expect.partial {
        super::partial::check(pattern)
            .map_err(|m| NodeError::at(expect_pos, format!("`match`: {m}")))?;
    }
    if let Some(name) = expect.compared_captures().find(|c| !captures.contains(*c)) {
        return Err(NodeError::at(
            expect_pos,
            format!("capture `{name}` is compared before any earlier step captures it"),
        ));
    }
    for path in expect
        .same
        .iter()
        .chain(&expect.differs)
        .flat_map(|m| m.keys())
    {
        if path.split('.').any(str::is_empty) {
            return Err(NodeError::at(
                expect_pos,
                format!("`{path}`: empty path segment"),
            ));
        }
    }
    let session = fields.get("session").map(|n| session_name(n)).transpose()?;
    let capture: BTreeMap<String, String> = match fields.get("capture") {
        Some(c) => c.parse()?,
        None => BTreeMap::new(),
    };
    if let Some(c) = fields.get("capture") {
        if matches!(act, Action::Concurrent(_)) {
            return Err(NodeError::at(c.pos, "a concurrent step cannot capture"));
        }
        if matches!(act, Action::SendRaw(_)) {
            return Err(NodeError::at(c.pos, "a `send_raw` step cannot capture"));
        }
        if let Some((name, _)) = capture
            .iter()
            .find(|(_, p)| p.split('.').any(str::is_empty))
        {
            return Err(NodeError::at(
                c.pos,
                format!("capture `{name}`: empty path segment"),
            ));
        }
    }
    captures.extend(capture.keys().cloned());
    let note = fields.get("note").map(|n| n.parse()).transpose()?;
    Ok(Step {
        action: act,
        expect,
        capture,
        note,
        session,
        line: node.pos.line,
    })
}

/// A step's `session`: any non-empty name except the runner's own form
/// (`<worker>-<n>`), which would alias another case's session.
fn session_name(node: &Node) -> Result<String, NodeError> {
    let Some(name) = node.as_str() else {
        return Err(NodeError::at(
            node.pos,
            format!("`session` is a name, not {}", node.describe()),
        ));
    };
    let runner_form = name.split_once('-').is_some_and(|(w, n)| {
        [w, n]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    });
    if name.is_empty() || runner_form {
        return Err(NodeError::at(
            node.pos,
            format!("`session: {name:?}`: a session name is non-empty and not of the runner's form `<n>-<n>`"),
        ));
    }
    Ok(name.to_owned())
}

pub(crate) fn steps(ctx: &StepCtx, node: &Node) -> Result<Vec<Step>, NodeError> {
    let Kind::Seq(items) = &node.kind else {
        return Err(NodeError::at(
            node.pos,
            format!("`steps` is a list, not {}", node.describe()),
        ));
    };
    if items.is_empty() {
        return Err(NodeError::at(node.pos, "a case has at least one step"));
    }
    let mut captures = BTreeSet::new();
    items.iter().map(|n| step(ctx, n, &mut captures)).collect()
}

fn operation_needs(op: &Operation, out: &mut BTreeSet<Capability>) {
    if op.workspace.is_some() {
        out.insert(Capability::Workspace);
    }
    match op.kind {
        Some(OperationKind::Sql) => out.insert(Capability::Sql),
        Some(OperationKind::Shell) => out.insert(Capability::Shell),
        Some(OperationKind::Fetch) => out.insert(Capability::Fetch),
        Some(OperationKind::Tool) | None => false,
    };
}

/// The capabilities one action needs.
pub(crate) fn action_needs(action: &Action, out: &mut BTreeSet<Capability>) {
    match action {
        Action::LoadPlugins(_) | Action::ValidateManifest(_) => {
            out.insert(Capability::Manifest);
        }
        Action::Project(_) => {
            out.insert(Capability::Projection);
        }
        Action::SetPolicy(p) => {
            if !p.critical.is_empty() {
                out.insert(Capability::CriticalFloor);
            }
            if p.workspace.is_some() {
                out.insert(Capability::Workspace);
            }
        }
        Action::Evaluate(op) => operation_needs(op, out),
        Action::Approve { operation, .. } => {
            out.insert(Capability::Tokens);
            operation_needs(operation, out);
        }
        Action::Invoke { operation, token } => {
            if token.is_some() {
                out.insert(Capability::Tokens);
            }
            operation_needs(operation, out);
        }
        Action::DiffManifests { .. } => {
            out.insert(Capability::Versioning);
        }
        Action::Concurrent(actions) => {
            out.insert(Capability::Tokens);
            actions.iter().for_each(|a| action_needs(a, out));
        }
        Action::RecordEvent(_) | Action::ResetSession | Action::SendRaw(_) => {}
    }
}

/// The capabilities the steps need (the doc's derivation table).
pub(crate) fn derived_needs(plugins: bool, steps: &[Step]) -> BTreeSet<Capability> {
    let mut out = BTreeSet::new();
    if plugins {
        out.insert(Capability::Manifest);
    }
    for s in steps {
        action_needs(&s.action, &mut out);
        let audit_match = s
            .expect
            .partial
            .as_ref()
            .and_then(|m| m.get("audit"))
            .is_some()
            || s.expect
                .same
                .iter()
                .chain(&s.expect.differs)
                .flat_map(|m| m.keys())
                .any(|p| p == "audit" || p.starts_with("audit."));
        let audit_capture = s
            .capture
            .values()
            .any(|p| p == "audit" || p.starts_with("audit."));
        if audit_match || audit_capture {
            out.insert(Capability::Audit);
        }
    }
    out
}
