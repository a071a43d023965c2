//! The reference as an rbv implementation: requests in, responses out, one
//! state per session.

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
use rbv_protocol::*;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};

/// The reference client (or one of its mutants) serving many sessions,
/// all under one profile.
pub struct Server {
    mutant: Option<Mutant>,
    profile: Profile,
    sessions: HashMap<String, Session>,
}

impl Server {
    /// The reference (or a mutant) under the default profile.
    pub fn new(mutant: Option<Mutant>) -> Self {
        Server::with_profile(mutant, Profile::default())
    }

    /// The reference (or a mutant) under `profile`: the handshake declares
    /// it and every answer follows it.
    pub fn with_profile(mutant: Option<Mutant>, profile: Profile) -> Self {
        Server {
            mutant,
            profile,
            sessions: HashMap::new(),
        }
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Drops the state of every session, as if each had been reset: a
    /// long-running caller that never reuses a session (a fuzzer) keeps
    /// memory flat with it.
    pub fn forget_sessions(&mut self) {
        self.sessions.clear();
    }

    fn config(&self) -> Config {
        Config {
            profile: self.profile,
            mutant: self.mutant,
        }
    }

    /// The handshake answer: cheap, because the runner may spawn a process
    /// per case.
    pub fn handshake(&self) -> HandshakeResponse {
        let name = match self.mutant {
            Some(m) => format!("rbv-reference+mutant:{m}"),
            None => "rbv-reference".to_owned(),
        };
        HandshakeResponse {
            protocol_version: PROTOCOL_VERSION,
            implementation: ImplementationInfo {
                name,
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            capabilities: Capability::ALL
                .iter()
                .map(|c| c.as_str().to_owned())
                .collect(),
            profile: self.profile.to_handshake_map(),
        }
    }

    /// Answers one line; a line that is not a valid request gets an `error`
    /// echoing whatever `id` and `session` could be read, and a request type
    /// this server does not know gets `unsupported` (PROTOCOL.md §5: an
    /// honest "not here", not a verdict about the input).
    pub fn handle_line(&mut self, line: &str) -> String {
        match Request::from_line(line) {
            Ok(req) => self.handle(req).to_line(),
            Err(e) => {
                let (id, session) = salvage_envelope(line);
                let body = match &e {
                    WireError::UnknownType(kind) => {
                        ResponseBody::Unsupported(UnsupportedResponse {
                            message: format!("`{kind}` is not a request type of protocol version {PROTOCOL_VERSION}"),
                        })
                    }
                    WireError::Json(_) => ResponseBody::Error(ErrorResponse {
                        code: "bad-json".into(),
                        message: e.to_string(),
                    }),
                    _ => ResponseBody::Error(ErrorResponse {
                        code: "bad-request".into(),
                        message: e.to_string(),
                    }),
                };
                Response { id, session, body }.to_line()
            }
        }
    }

    pub fn handle(&mut self, req: Request) -> Response {
        let Request { id, session, body } = req;
        let body = self.dispatch(&session, body);
        Response {
            id: Some(id),
            session,
            body,
        }
    }

    fn session(&mut self, name: &str) -> &mut Session {
        // Looked up before inserting, so that the name is copied only once
        // per session, not on every request.
        if !self.sessions.contains_key(name) {
            self.sessions
                .insert(name.to_owned(), Session::new(self.mutant));
        }
        self.sessions.get_mut(name).expect("inserted above")
    }

    fn dispatch(&mut self, session: &str, body: RequestBody) -> ResponseBody {
        let mutant = self.mutant;
        let cfg = self.config();
        // A copy (Profile is Copy), so that sessions can be borrowed mutably.
        let profile = self.profile;
        match body {
            RequestBody::Handshake(h) if h.protocol_version != PROTOCOL_VERSION => {
                ResponseBody::Error(ErrorResponse {
                    code: "protocol-version".into(),
                    message: format!(
                        "protocol version {} is not supported (this is {PROTOCOL_VERSION})",
                        h.protocol_version
                    ),
                })
            }
            RequestBody::Handshake(_) => ResponseBody::Handshake(self.handshake()),
            RequestBody::LoadPlugins(req) => {
                let s = self.session(session);
                let mut reports = Vec::new();
                for bundle in &req.plugins {
                    let plugin = manifest::load(bundle, &profile, mutant);
                    reports.push(plugin.report.clone());
                    if let (true, Some(name)) = (plugin.loaded(), plugin.name().map(str::to_owned))
                    {
                        s.plugins.insert(name, plugin);
                    }
                }
                ResponseBody::Loaded(LoadedResponse { plugins: reports })
            }
            RequestBody::ValidateManifest(req) => ResponseBody::Validation(ValidationResponse {
                plugin: manifest::load(&req.plugin, &profile, mutant).report,
            }),
            RequestBody::Project(p) => ResponseBody::Projection(ProjectionResponse {
                band: project_partial_in(&profile, p.reversibility, p.scope, p.trust),
            }),
            RequestBody::RecordEvent(req) => {
                let s = self.session(session);
                s.flags = s.flags.union(RunFlags::from_event(&req.event));
                if let SessionEvent::Environment { vars } = &req.event {
                    for (k, v) in vars {
                        if mutant == Some(Mutant::SessionBypassFlag) && bypass::is_switch(k, v) {
                            s.bypass = Some(format!("{k}={v}"));
                        }
                        s.environment.insert(k.clone(), v.clone());
                    }
                }
                ResponseBody::Ack(AckResponse {})
            }
            RequestBody::SetPolicy(req) => {
                let s = self.session(session);
                s.policy.merge(&req);
                if let Some(ws) = req.workspace {
                    s.workspace = Some(ws);
                }
                ResponseBody::Ack(AckResponse {})
            }
            RequestBody::Evaluate(req) => {
                let a = engine::assess(self.session(session), &req.operation, &cfg);
                let outcome = outcome_of(a.decision);
                let audit = record(
                    &req.operation,
                    &a,
                    actor(&req.operation),
                    &a.gate,
                    None,
                    outcome,
                );
                ResponseBody::Evaluation(EvaluationResponse {
                    band: a.band,
                    decision: a.decision,
                    declared: a.declared,
                    reasons: a.reasons,
                    signature: Some(a.signature),
                    audit: Some(audit),
                })
            }
            RequestBody::Approve(req) => ResponseBody::Approval(self.approve(session, req, &cfg)),
            RequestBody::Invoke(req) => ResponseBody::Invocation(self.invoke(session, req, &cfg)),
            RequestBody::DiffManifests(req) => ResponseBody::Diff(diff::diff(
                &manifest::load(&req.old, &profile, mutant),
                &manifest::load(&req.new, &profile, mutant),
            )),
            RequestBody::ResetSession(_) => {
                self.sessions
                    .insert(session.to_owned(), Session::new(mutant));
                ResponseBody::Ack(AckResponse {})
            }
        }
    }

    fn approve(&mut self, session: &str, req: ApproveRequest, cfg: &Config) -> ApprovalResponse {
        let s = self.session(session);
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
            Some(s.tokens.mint(op, &approver.name))
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

    fn invoke(&mut self, session: &str, req: InvokeRequest, cfg: &Config) -> InvocationResponse {
        let s = self.session(session);
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
            match s.tokens.redeem(op, token) {
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

/// Serves requests line by line until EOF under the default profile,
/// flushing after every answer (see [`serve_lines`]).
pub fn serve(input: impl BufRead, output: impl Write, mutant: Option<Mutant>) -> io::Result<()> {
    serve_with_profile(input, output, mutant, Profile::default())
}

/// [`serve`] under `profile`.
pub fn serve_with_profile(
    input: impl BufRead,
    output: impl Write,
    mutant: Option<Mutant>,
    profile: Profile,
) -> io::Result<()> {
    let mut server = Server::with_profile(mutant, profile);
    serve_lines(input, output, |line| server.handle_line(line))
}

/// Answers every line of `input` that is not blank ([`is_blank_line`]) with
/// `answer` until EOF, one line each, flushing after every answer. A `\r`
/// before the newline is not part of the line; a line that is not UTF-8 is
/// answered with an `error` rather than ending the loop, since every line
/// gets an answer (PROTOCOL.md §10.1).
pub fn serve_lines(
    mut input: impl BufRead,
    mut output: impl Write,
    mut answer: impl FnMut(&str) -> String,
) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if is_blank_line(line) {
            continue;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = match std::str::from_utf8(line) {
            Ok(line) => answer(line),
            Err(e) => Response::error(None, "", "bad-json", format!("the line is not UTF-8: {e}"))
                .to_line(),
        };
        output.write_all(text.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_profile;
