//! The reference as an rbv implementation: the Rust SDK's
//! [`Implementation`], served by its [`Dispatcher`] (bounded lines, a panic
//! answered per request, one state per session), so that `rbv-ref`, `rbv
//! adapter` and the in-process transport are one server.

use crate::audit::now_rfc3339;
use crate::bypass;
use crate::diff;
use crate::engine::{self, Assessment, Config};
use crate::manifest;
use crate::mutant::Mutant;
use crate::profile::Profile;
use crate::projection::project_partial_in;
use crate::rule_of_two::RunFlags;
use crate::session::Session;
use rbv_adapter::{Answer, Dispatcher, Implementation};
use rbv_protocol::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

/// The reference served: the protocol around [`Reference`].
pub type Server = Dispatcher<Reference>;

/// The reference (or one of its mutants) under one profile, for
/// [`Dispatcher::new`].
pub fn server(mutant: Option<Mutant>, profile: Profile) -> Server {
    Dispatcher::new(Reference::new(mutant, profile))
}

/// The reference client (or one of its mutants), all its sessions under
/// one profile.
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    mutant: Option<Mutant>,
    settings: Profile,
}

impl Reference {
    /// The reference (or a mutant) under `profile`: the handshake declares
    /// it and every answer follows it.
    pub fn new(mutant: Option<Mutant>, profile: Profile) -> Self {
        Reference {
            mutant,
            settings: profile,
        }
    }

    /// The mutant served, if it is not the reference itself.
    pub fn mutant(&self) -> Option<Mutant> {
        self.mutant
    }

    /// The profile every answer follows.
    pub fn settings(&self) -> &Profile {
        &self.settings
    }

    fn config(&self) -> Config {
        Config {
            profile: self.settings,
            mutant: self.mutant,
        }
    }
}

impl Implementation for Reference {
    type Session = Session;

    fn name(&self) -> String {
        match self.mutant {
            Some(m) => format!("rbv-reference+mutant:{m}"),
            None => "rbv-reference".to_owned(),
        }
    }

    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }

    fn capabilities(&self) -> Vec<Capability> {
        Capability::ALL.to_vec()
    }

    fn profile(&self) -> BTreeMap<String, Value> {
        self.settings.to_handshake_map()
    }

    fn load_plugins(&mut self, s: &mut Session, req: LoadPluginsRequest) -> Answer<LoadedResponse> {
        let mut reports = Vec::new();
        for bundle in &req.plugins {
            let plugin = manifest::load(bundle, &self.settings, self.mutant);
            reports.push(plugin.report.clone());
            if let (true, Some(name)) = (plugin.loaded(), plugin.name().map(str::to_owned)) {
                s.plugins.insert(name, plugin);
            }
        }
        Ok(LoadedResponse { plugins: reports })
    }

    fn validate_manifest(&mut self, req: ValidateManifestRequest) -> Answer<ValidationResponse> {
        Ok(ValidationResponse {
            plugin: manifest::load(&req.plugin, &self.settings, self.mutant).report,
        })
    }

    fn project(&mut self, p: ProjectRequest) -> Answer<ProjectionResponse> {
        Ok(ProjectionResponse {
            band: project_partial_in(&self.settings, p.reversibility, p.scope, p.trust),
        })
    }

    fn record_event(&mut self, s: &mut Session, req: RecordEventRequest) -> Answer<AckResponse> {
        s.flags = s.flags.union(RunFlags::from_event(&req.event));
        if let SessionEvent::Environment { vars } = &req.event {
            for (k, v) in vars {
                if self.mutant == Some(Mutant::SessionBypassFlag) && bypass::is_switch(k, v) {
                    s.bypass = Some(format!("{k}={v}"));
                }
                s.environment.insert(k.clone(), v.clone());
            }
        }
        Ok(AckResponse {})
    }

    fn set_policy(&mut self, s: &mut Session, req: SetPolicyRequest) -> Answer<AckResponse> {
        s.policy.merge(&req);
        if let Some(ws) = req.workspace {
            s.workspace = Some(ws);
        }
        Ok(AckResponse {})
    }

    fn evaluate(&mut self, s: &mut Session, req: EvaluateRequest) -> Answer<EvaluationResponse> {
        let a = engine::assess(s, &req.operation, &self.config());
        let outcome = outcome_of(a.decision);
        let audit = record(
            &req.operation,
            &a,
            actor(&req.operation),
            &a.gate,
            None,
            outcome,
        );
        Ok(EvaluationResponse {
            band: a.band,
            decision: a.decision,
            declared: a.declared,
            reasons: a.reasons,
            signature: Some(a.signature),
            audit: Some(audit),
        })
    }

    fn approve(&mut self, s: &mut Session, req: ApproveRequest) -> Answer<ApprovalResponse> {
        Ok(approve(s, req, &self.config()))
    }

    fn invoke(&mut self, s: &mut Session, req: InvokeRequest) -> Answer<InvocationResponse> {
        Ok(invoke(s, req, &self.config()))
    }

    fn diff_manifests(&mut self, req: DiffManifestsRequest) -> Answer<DiffResponse> {
        Ok(diff::diff(
            &manifest::load(&req.old, &self.settings, self.mutant),
            &manifest::load(&req.new, &self.settings, self.mutant),
        ))
    }
}

fn approve(s: &mut Session, req: ApproveRequest, cfg: &Config) -> ApprovalResponse {
    let op = &req.operation;
    let a = engine::assess(s, op, cfg);
    let approver = &req.approver;
    let mut reasons = Vec::new();
    let human =
        approver.kind == ApproverKind::Human || cfg.mutant == Some(Mutant::ModelMintedToken);
    let token = if a.critical {
        reasons.push("critical: the operation has no approval path; no token is minted".into());
        None
    } else if !human {
        reasons.push(format!(
            "a {} approval cannot mint a token: only a human approves (§4.1)",
            approver.kind
        ));
        None
    } else {
        reasons.push(format!(
            "minted for {} `{}`: single-use, bound to this call's data",
            approver.kind, approver.name
        ));
        Some(s.tokens.mint(cfg.mutant, op, &approver.name))
    };
    let granted = token.is_some();
    let audit = record(
        op,
        &a,
        approver.name.clone(),
        "token",
        granted.then(|| approver.name.clone()),
        if granted { "minted" } else { "refused" },
    );
    ApprovalResponse {
        granted,
        token,
        reasons,
        audit: Some(audit),
    }
}

fn invoke(s: &mut Session, req: InvokeRequest, cfg: &Config) -> InvocationResponse {
    let op = &req.operation;
    let a = engine::assess(s, op, cfg);
    let mut reasons = a.reasons.clone();
    let mut gate = a.gate.clone();
    let mut authorized_by = None;
    let allowed_without_token = !a.critical && a.band <= Band::SoftAck;
    let (allowed, outcome) = if a.critical {
        if req.token.is_some() {
            reasons.push("a token never authorizes a critical operation".into());
        }
        (false, "denied")
    } else if let Some(token) = &req.token {
        match s.tokens.redeem(cfg.mutant, op, token) {
            Ok(approver) => {
                reasons.push(format!("token redeemed: approved by `{approver}`"));
                gate = "token".into();
                authorized_by = Some(approver);
                (true, "redeemed")
            }
            Err(e) => {
                reasons.push(format!("token rejected: {e}"));
                (
                    allowed_without_token,
                    if allowed_without_token {
                        outcome_of(a.decision)
                    } else {
                        "rejected"
                    },
                )
            }
        }
    } else {
        (allowed_without_token, outcome_of(a.decision))
    };
    if allowed {
        s.flags = s.flags.union(a.adds);
        if let Some(flag) = &a.inline_bypass {
            s.bypass = Some(flag.clone());
        }
    }
    let audit = record(op, &a, actor(op), &gate, authorized_by, outcome);
    InvocationResponse {
        allowed,
        band: a.band,
        decision: a.decision,
        reasons,
        audit: Some(audit),
    }
}

fn actor(op: &Operation) -> String {
    op.actor.clone().unwrap_or_else(|| "model".to_owned())
}

fn outcome_of(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allowed",
        Decision::Note => "noted",
        Decision::Ask => "asked",
        Decision::Deny => "denied",
    }
}

fn record(
    op: &Operation,
    a: &Assessment,
    actor: String,
    gate: &str,
    authorized_by: Option<String>,
    outcome: &str,
) -> AuditRecord {
    AuditRecord {
        timestamp: now_rfc3339(),
        actor,
        plugin: a.plugin.clone(),
        plugin_version: a.plugin_version.clone(),
        operation: op.id.clone(),
        signature: a.signature.clone(),
        band: a.band,
        decision: a.decision,
        gate: gate.to_owned(),
        authorized_by,
        outcome: outcome.to_owned(),
    }
}

/// Serves the reference (or a mutant) under `profile` on `input` and
/// `output` until EOF, through the SDK's loop ([`rbv_adapter::serve`]).
pub fn serve(
    input: impl BufRead,
    output: impl Write,
    mutant: Option<Mutant>,
    profile: Profile,
) -> io::Result<()> {
    rbv_adapter::serve(
        Reference::new(mutant, profile),
        input,
        output,
        rbv_adapter::MAX_LINE,
    )
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_profile;
