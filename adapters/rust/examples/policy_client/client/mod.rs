//! `PolicyClient`: a small permission layer written against the rbv-adapter
//! trait, as a client team would write theirs. It implements the
//! capabilities `manifest`, `projection` and `tokens` (and the session
//! rules evaluation needs: events, policy floors, Rule-of-Two); it has no
//! SQL, shell or fetch inspector, so a call of those kinds escalates, and
//! it leaves `diff_manifests` at the SDK's default, `unsupported`.

mod manifest;
mod projection;
mod tokens;

use manifest::Plugin;
use rbv_adapter::protocol::*;
use rbv_adapter::serde_json::{json, Value};
use rbv_adapter::{Answer, Implementation};
use std::collections::{BTreeMap, BTreeSet};

/// The client; everything it remembers is per session.
#[derive(Default)]
pub struct PolicyClient;

/// One session: loaded plugins, what has happened, the client's policy
/// and the unspent tokens. A reset replaces all of it.
#[derive(Default)]
pub struct Session {
    plugins: BTreeMap<String, Plugin>,
    flags: Flags,
    floors: BTreeMap<String, Band>,
    critical: BTreeSet<String>,
    tokens: tokens::Tokens,
}

/// The Rule-of-Two booleans.
#[derive(Clone, Copy, Default)]
struct Flags {
    untrusted: bool,
    sensitive: bool,
    state: bool,
}

impl Flags {
    fn union(self, o: Flags) -> Flags {
        Flags {
            untrusted: self.untrusted || o.untrusted,
            sensitive: self.sensitive || o.sensitive,
            state: self.state || o.state,
        }
    }
    fn count(self) -> usize {
        [self.untrusted, self.sensitive, self.state]
            .into_iter()
            .filter(|b| *b)
            .count()
    }
}

/// How one call is judged now.
struct Assessment {
    band: Band,
    declared: Option<Band>,
    critical: bool,
    reasons: Vec<String>,
    /// What the call adds to the session's Rule-of-Two if it runs.
    adds: Flags,
}

impl Assessment {
    fn decision(&self) -> Decision {
        match (self.critical, self.band) {
            (true, _) => Decision::Deny,
            (false, Band::Auto) => Decision::Allow,
            (false, Band::SoftAck) => Decision::Note,
            (false, Band::Escalate) => Decision::Ask,
        }
    }
}

/// The effective band (`PROTOCOL.md` §10.6): the highest of everything
/// that applies; nothing here can lower a band another part raised.
fn assess(s: &Session, op: &Operation) -> Assessment {
    let mut parts: Vec<(Band, String)> = Vec::new();
    if let Err(e) = OperationId::parse(&op.id) {
        parts.push((Band::Escalate, format!("{e}: fail safe")));
    }
    // The plugin named, or else the one declaring the id most strictly.
    let plugin = match &op.plugin {
        Some(name) => s.plugins.get(name),
        None => s
            .plugins
            .values()
            .filter_map(|p| p.declarations.get(&op.id).map(|d| (d.floor, p)))
            .max_by_key(|(floor, _)| *floor)
            .map(|(_, p)| p),
    };
    let entry = plugin.and_then(|p| p.declarations.get(&op.id)).copied();
    let trust = op.trust.unwrap_or(if s.flags.untrusted {
        Trust::Untrusted
    } else {
        Trust::Trusted
    });
    let inspected = !matches!(op.kind, None | Some(OperationKind::Tool));
    if inspected {
        // This client has no SQL, shell or fetch inspector: what it cannot
        // read, it escalates.
        parts.push((
            Band::Escalate,
            "no call-time inspector here: fail safe".into(),
        ));
    }
    match entry {
        Some(d) => {
            parts.push((d.floor, format!("declared floor {}", d.floor)));
            if let (Some((r, sc)), false) = (d.effect, inspected) {
                let band = projection::project(Some(r), Some(sc), Some(trust));
                parts.push((band, format!("declared effect with {trust} input: {band}")));
            }
        }
        None => {
            if let Some(floor) = plugin.and_then(|p| p.report.default_floor) {
                parts.push((floor, format!("`default` floor {floor}")));
            }
            if !inspected {
                parts.push((Band::Escalate, "undeclared and opaque".into()));
            }
        }
    }
    let adds = Flags {
        untrusted: trust == Trust::Untrusted,
        sensitive: false,
        state: inspected || entry.is_none_or(|d| d.changes_state()),
    };
    let run = s.flags.union(adds);
    if run.count() >= 2 {
        parts.push((Band::Escalate, format!("rule-of-two: {} of 3", run.count())));
    }
    if let Some(floor) = s.floors.get(&op.id) {
        parts.push((*floor, format!("policy floor {floor}")));
    }
    let critical = s.critical.contains(&op.id);
    let band = if critical {
        Band::Escalate
    } else {
        parts.iter().map(|p| p.0).max().unwrap_or(Band::Escalate)
    };
    Assessment {
        band,
        declared: entry.map(|d| d.floor),
        critical,
        reasons: parts.into_iter().map(|p| p.1).collect(),
        adds,
    }
}

impl Implementation for PolicyClient {
    type Session = Session;

    fn name(&self) -> String {
        "policy-client".into()
    }

    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }

    fn capabilities(&self) -> Vec<Capability> {
        vec![
            Capability::Manifest,
            Capability::Projection,
            Capability::Tokens,
        ]
    }

    fn profile(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("permissions_placement".into(), json!("both")),
            ("rule_of_two_threshold".into(), json!(2)),
            ("hard_to_reverse_local".into(), json!("escalate")),
            ("undeclared_opaque_band".into(), json!("escalate")),
        ])
    }

    fn load_plugins(&mut self, s: &mut Session, req: LoadPluginsRequest) -> Answer<LoadedResponse> {
        let mut reports = Vec::new();
        for bundle in &req.plugins {
            let plugin = manifest::load(bundle);
            reports.push(plugin.report.clone());
            // A rejected plugin contributes nothing (`RBV-MAN-011`).
            if let (true, Some(name)) = (plugin.report.loaded, plugin.report.name.clone()) {
                s.plugins.insert(name, plugin);
            }
        }
        Ok(LoadedResponse { plugins: reports })
    }

    fn validate_manifest(&mut self, req: ValidateManifestRequest) -> Answer<ValidationResponse> {
        Ok(ValidationResponse {
            plugin: manifest::load(&req.plugin).report,
        })
    }

    fn project(&mut self, req: ProjectRequest) -> Answer<ProjectionResponse> {
        Ok(ProjectionResponse {
            band: projection::project(req.reversibility, req.scope, req.trust),
        })
    }

    fn record_event(&mut self, s: &mut Session, req: RecordEventRequest) -> Answer<AckResponse> {
        // Events only ever add to Rule-of-Two; no variable and no text in
        // ingested content switches a gate off.
        let add = match req.event {
            SessionEvent::UntrustedContent { .. } => Flags {
                untrusted: true,
                ..Flags::default()
            },
            SessionEvent::SensitiveData { .. } => Flags {
                sensitive: true,
                ..Flags::default()
            },
            SessionEvent::StateChange { .. } => Flags {
                state: true,
                ..Flags::default()
            },
            SessionEvent::Environment { .. } => Flags::default(),
        };
        s.flags = s.flags.union(add);
        Ok(AckResponse {})
    }

    fn set_policy(&mut self, s: &mut Session, req: SetPolicyRequest) -> Answer<AckResponse> {
        for (id, band) in req.floors {
            let floor = s.floors.entry(id).or_insert(band);
            *floor = (*floor).max(band);
        }
        s.critical.extend(req.critical);
        Ok(AckResponse {})
    }

    fn evaluate(&mut self, s: &mut Session, req: EvaluateRequest) -> Answer<EvaluationResponse> {
        let a = assess(s, &req.operation);
        Ok(EvaluationResponse {
            band: a.band,
            decision: a.decision(),
            declared: a.declared,
            signature: Some(tokens::signature(&req.operation)),
            reasons: a.reasons,
            audit: None,
        })
    }

    fn approve(&mut self, s: &mut Session, req: ApproveRequest) -> Answer<ApprovalResponse> {
        let a = assess(s, &req.operation);
        let (token, why) = if a.critical {
            (None, "critical: no approval path".to_owned())
        } else if req.approver.kind != ApproverKind::Human {
            (
                None,
                format!(
                    "a {} cannot approve: only a human mints a token",
                    req.approver.kind
                ),
            )
        } else {
            let token = s.tokens.mint(&req.operation, &req.approver.name);
            (
                Some(token),
                "minted for this exact call, single-use".to_owned(),
            )
        };
        Ok(ApprovalResponse {
            granted: token.is_some(),
            token,
            reasons: vec![why],
            audit: None,
        })
    }

    fn invoke(&mut self, s: &mut Session, req: InvokeRequest) -> Answer<InvocationResponse> {
        let op = &req.operation;
        let mut a = assess(s, op);
        let needs_no_token = !a.critical && a.band <= Band::SoftAck;
        let allowed = match &req.token {
            _ if a.critical => false,
            None => needs_no_token,
            Some(token) => match s.tokens.redeem(op, token) {
                Ok(approver) => {
                    a.reasons
                        .push(format!("token redeemed: approved by `{approver}`"));
                    true
                }
                Err(why) => {
                    a.reasons.push(format!("token rejected: {why}"));
                    needs_no_token
                }
            },
        };
        if allowed {
            // A call that ran counts for Rule-of-Two.
            s.flags = s.flags.union(a.adds);
        }
        Ok(InvocationResponse {
            allowed,
            band: a.band,
            decision: a.decision(),
            reasons: a.reasons,
            audit: None,
        })
    }
}
