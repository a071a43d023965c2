//! The effective band of one concrete call (DESIGN.md §2 "Effective band at
//! call time"): the highest of the declared floor (or the undeclared policy),
//! the call-time inspection projected with the call's input trust,
//! Rule-of-Two over the run, and the client's policy. Every contributor is
//! named in the reasons; `gate` names the first one that set the band.

use crate::bypass;
use crate::classify::{self, Inspection};
use crate::manifest::permissions::Declaration;
use crate::manifest::LoadedPlugin;
use crate::mutant::Mutant;
use crate::profile::Profile;
use crate::projection::project_in;
use crate::rule_of_two::{self, RunFlags};
use crate::session::Session;
use crate::token;
use rbv_protocol::{Band, Decision, Operation, OperationId, OperationKind, Trust};
use serde_json::Value;

/// What the engine runs as: the profile (the answers to the proposal's open
/// questions) and the mutant, if any.
#[derive(Clone, Copy, Debug, Default)]
pub struct Config {
    pub profile: Profile,
    pub mutant: Option<Mutant>,
}

/// What the client concluded about one call.
#[derive(Clone, Debug)]
pub struct Assessment {
    pub band: Band,
    pub decision: Decision,
    /// The operation's own declared floor; `None` when undeclared.
    pub declared: Option<Band>,
    pub reasons: Vec<String>,
    pub gate: String,
    /// The authorization key digest of this exact call.
    pub signature: String,
    /// What invoking the call adds to the run's Rule-of-Two booleans.
    pub adds: RunFlags,
    pub plugin: Option<String>,
    pub plugin_version: Option<String>,
    /// Denied by the critical floor: no approval path, no token.
    pub critical: bool,
    /// session-bypass-flag mutant: an inline export that disables the gate.
    pub inline_bypass: Option<String>,
}

struct Contributors(Vec<(&'static str, Band, String)>);

impl Contributors {
    fn add(&mut self, gate: &'static str, band: Band, why: String) {
        self.0.push((gate, band, why));
    }
    fn max(&self) -> Band {
        self.0.iter().map(|c| c.1).max().unwrap_or(Band::Escalate)
    }
}

/// Finds the plugin an operation belongs to. Without an explicit `plugin`,
/// every loaded plugin that declares the id is a candidate and the highest
/// floor wins (fail-safe).
fn find_plugin<'s>(session: &'s Session, op: &Operation) -> Option<&'s LoadedPlugin> {
    match &op.plugin {
        Some(name) => session.plugins.get(name),
        None => session
            .plugins
            .values()
            .filter(|p| p.declarations.contains_key(&op.id))
            .max_by_key(|p| p.declarations[&op.id].floor),
    }
}

fn payload<'a>(op: &'a Operation, key: &str) -> Result<&'a str, String> {
    match op.arguments.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(format!("`arguments.{key}` is not a string")),
        None => Err(format!("`arguments.{key}` is missing")),
    }
}

fn inspect(
    op: &Operation,
    kind: OperationKind,
    session: &Session,
    mutant: Option<Mutant>,
) -> Inspection {
    // The operation's own workspace replaces the session's for this call.
    let workspace = op.workspace.as_ref().or(session.workspace.as_ref());
    let result = match kind {
        OperationKind::Sql => payload(op, "sql")
            .map(|s| classify::sql::inspect_named(s, op.dialect.as_deref(), mutant)),
        OperationKind::Shell => {
            payload(op, "command").map(|s| classify::shell::inspect_in(s, workspace, mutant))
        }
        OperationKind::Fetch => payload(op, "url").and_then(|url| {
            let method = match op.arguments.get("method") {
                None | Some(Value::Null) => "GET",
                Some(Value::String(m)) => m.as_str(),
                Some(_) => return Err("`arguments.method` is not a string".into()),
            };
            // Any body but an empty one is data sent (RBV-FET-012).
            let body = match op.arguments.get("body") {
                None | Some(Value::Null) => false,
                Some(Value::String(b)) => !b.is_empty(),
                Some(_) => true,
            };
            Ok(classify::fetch::inspect_call(url, method, body, mutant))
        }),
        OperationKind::Tool => unreachable!("tools have no call-time inspector"),
    };
    result.unwrap_or_else(|why| Inspection::unknown(format!("{why}: fail safe")))
}

fn kind_name(kind: OperationKind) -> &'static str {
    match kind {
        OperationKind::Tool => "tool",
        OperationKind::Sql => "sql",
        OperationKind::Shell => "shell",
        OperationKind::Fetch => "fetch",
    }
}

/// Assesses a call without changing the session.
pub fn assess(session: &Session, op: &Operation, cfg: &Config) -> Assessment {
    let mutant = cfg.mutant;
    let kind = op.kind.unwrap_or(OperationKind::Tool);
    let plugin = find_plugin(session, op);
    let mut c = Contributors(Vec::new());
    let mut notes = Vec::new();

    if let Some(name) = op.plugin.as_deref().filter(|_| plugin.is_none()) {
        notes.push(format!(
            "plugin `{name}` is not loaded: the operation is undeclared"
        ));
    }
    if let Err(e) = OperationId::parse(&op.id) {
        c.add("id", Band::Escalate, format!("{e}: fail safe"));
    }

    // The declaration: the operation's own entry, else the plugin's default.
    let entry: Option<&Declaration> = plugin.and_then(|p| p.declarations.get(&op.id));
    let default_floor = plugin
        .and_then(|p| p.default_floor())
        .filter(|_| entry.is_none());
    let mut declared = entry.map(|d| d.floor);
    let permissive_default = mutant == Some(Mutant::PermissiveDefault) && default_floor.is_some();
    if permissive_default {
        declared = default_floor;
    }

    // Call-time inspection (skipped for a declared operation in the
    // declared-band-as-ceiling mutant; replaced by a blanket escalate in the
    // tool-level-sql mutant).
    let inspection = match kind {
        OperationKind::Tool => None,
        _ if mutant == Some(Mutant::DeclaredBandAsCeiling) && declared.is_some() => None,
        OperationKind::Sql if mutant == Some(Mutant::ToolLevelSql) => Some(Inspection::unknown(
            "tool-level: every execute_sql call escalates",
        )),
        k => Some(inspect(op, k, session, mutant)),
    };
    let input_trust = op.trust.unwrap_or(if session.flags.untrusted {
        Trust::Untrusted
    } else {
        Trust::Trusted
    });
    notes.push(format!(
        "input trust {input_trust} ({})",
        match (op.trust, session.flags.untrusted) {
            (Some(_), _) => "given with the call",
            (None, true) => "the session has ingested untrusted content",
            (None, false) => "nothing untrusted ingested",
        }
    ));

    if let Some(insp) = &inspection {
        let t = insp.trust.max(input_trust);
        let band = project_in(&cfg.profile, insp.reversibility, insp.scope, t);
        c.add(
            kind_name(kind),
            band,
            format!(
                "{}: {}; {} / {} / {t} projects to {band}",
                kind_name(kind),
                insp.reasons.join("; "),
                insp.reversibility,
                insp.scope
            ),
        );
    }
    if let Some(floor) = declared {
        let what = if permissive_default {
            "default"
        } else {
            "declared"
        };
        c.add("manifest", floor, format!("manifest: {what} floor {floor}"));
    }
    if let Some(floor) = default_floor.filter(|_| !permissive_default) {
        c.add(
            "default",
            floor,
            format!("manifest: `default` floor {floor} for an unlisted operation"),
        );
    }
    if declared.is_none() && inspection.is_none() {
        c.add(
            "undeclared",
            cfg.profile.undeclared_opaque_band(),
            format!(
                "undeclared operation with no call-time inspector: client policy {}",
                cfg.profile.undeclared_opaque_band()
            ),
        );
    } else if declared.is_none() {
        notes.push("undeclared: the call-time inspector decides".into());
    }
    if let (Some(d), true) = (entry.filter(|d| d.effect_known), inspection.is_none()) {
        let band = project_in(&cfg.profile, d.reversibility, d.scope, input_trust);
        c.add(
            "projection",
            band,
            format!(
                "declared effect {} / {} with input {input_trust} projects to {band}",
                d.reversibility, d.scope
            ),
        );
    }

    // Rule-of-Two over the run, this call included.
    let adds = RunFlags {
        untrusted: input_trust == Trust::Untrusted
            || inspection
                .as_ref()
                .is_some_and(|i| i.trust == Trust::Untrusted),
        sensitive: inspection.as_ref().is_some_and(|i| i.touches_sensitive),
        state: match &inspection {
            Some(i) => i.changes_state,
            None => {
                entry.is_none_or(Declaration::changes_state)
                    && !(permissive_default && declared == Some(Band::Auto))
            }
        },
    };
    if mutant != Some(Mutant::RuleOfTwoOff) {
        let run = session.flags.union(adds);
        let threshold = u32::from(cfg.profile.rule_of_two_threshold());
        let band = if rule_of_two::escalates(run, threshold) {
            Band::Escalate
        } else {
            Band::Auto
        };
        c.add(
            "rule-of-two",
            band,
            format!(
                "rule-of-two: {} of 3 ({}), threshold {threshold}",
                run.count(),
                run.describe()
            ),
        );
    }

    if let Some(floor) = session.policy.floor(&op.id) {
        c.add("policy", floor, format!("client policy floor {floor}"));
    }
    let critical = session.policy.is_critical(&op.id);

    let mut band = c.max();
    let mut gate =
        c.0.iter()
            .find(|x| x.1 == band)
            .map_or("undeclared", |x| x.0)
            .to_owned();
    let mut reasons: Vec<String> = c.0.into_iter().map(|x| x.2).collect();
    reasons.extend(notes);

    let inline_bypass = match (mutant, kind) {
        (Some(Mutant::SessionBypassFlag), OperationKind::Shell) => {
            payload(op, "command").ok().and_then(bypass::inline_switch)
        }
        _ => None,
    };
    if let Some(flag) = session.bypass.as_ref().or(inline_bypass.as_ref()) {
        band = Band::Auto;
        gate = "bypass".into();
        reasons.insert(0, format!("gate disabled by `{flag}`"));
    }
    let decision = if critical {
        // Critical sits above every band: it is at least escalate, and it
        // has no approval path (`deny`).
        band = Band::Escalate;
        gate = "policy".into();
        reasons.insert(
            0,
            "critical: denied by client policy, no approval path".into(),
        );
        Decision::Deny
    } else {
        band.decision()
    };

    Assessment {
        band,
        decision,
        declared,
        reasons,
        gate,
        signature: token::signature(op),
        adds,
        plugin: plugin
            .and_then(|p| p.name().map(str::to_owned))
            .or_else(|| op.plugin.clone()),
        plugin_version: plugin.and_then(|p| p.version.clone()),
        critical,
        inline_bypass,
    }
}

#[cfg(test)]
mod tests;
