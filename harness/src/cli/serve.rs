//! `rbv serve`: the built-in reference on stdin/stdout, so that `rbv run`
//! without `--impl` exercises the real protocol path; `--echo` is the raw
//! floor of the benchmark.

use clap::Args;
use rbv_protocol::{
    ApprovalResponse, Band, Capability, Decision, DiffResponse, EvaluationResponse,
    HandshakeResponse, ImplementationInfo, InvocationResponse, LoadedResponse, PluginReport,
    ProjectionResponse, Response, ResponseBody, ValidationResponse,
};
use rbv_reference::Mutant;
use serde_json::Value;
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve this mutant of the reference instead.
    #[arg(long, value_name = "NAME", value_parser = parse_mutant)]
    pub mutant: Option<Mutant>,
    /// Answer every request with a canned answer of the right type and id
    /// (the benchmark's floor); no judgement at all.
    #[arg(long, conflicts_with = "mutant")]
    pub echo: bool,
    /// Answer an open question of the proposal differently (repeatable):
    /// `--profile rule_of_two_threshold=3`; see `rbv-ref --list-profile`.
    #[arg(long = "profile", value_name = "KEY=VALUE", value_parser = parse_profile_assignment)]
    pub profile: Vec<String>,
    /// Claim only these capabilities in the handshake (repeatable or
    /// comma-separated; names are sent as given, misspelled ones too): a
    /// partial implementation, for trying what rbv certifies of it.
    #[arg(
        long = "claim",
        value_name = "CAPABILITY",
        value_delimiter = ',',
        conflicts_with = "echo"
    )]
    pub claim: Vec<String>,
}

fn parse_profile_assignment(text: &str) -> Result<String, String> {
    rbv_reference::Profile::default()
        .apply(text)
        .map(|()| text.to_owned())
}

/// The profile that `assignments` (`KEY=VALUE`) make of the default one.
pub fn profile_of(assignments: &[String]) -> anyhow::Result<rbv_reference::Profile> {
    let mut profile = rbv_reference::Profile::default();
    for a in assignments {
        profile.apply(a).map_err(anyhow::Error::msg)?;
    }
    Ok(profile)
}

pub fn parse_mutant(name: &str) -> Result<Mutant, String> {
    name.parse()
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let stdin = io::stdin().lock();
    let stdout = io::stdout().lock();
    let profile = profile_of(&args.profile)?;
    if args.echo {
        echo(stdin, stdout)?;
    } else if !args.claim.is_empty() {
        serve_claiming(
            rbv_reference::server(args.mutant, profile),
            &args.claim,
            stdin,
            stdout,
        )?;
    } else {
        rbv_reference::serve(stdin, stdout, args.mutant, profile)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Serves `server`, but claims only `claim` in the handshake.
pub fn serve_claiming(
    mut server: rbv_reference::Server,
    claim: &[String],
    input: impl BufRead,
    output: impl Write,
) -> io::Result<()> {
    rbv_adapter::serve_lines(input, output, rbv_adapter::MAX_LINE, |line| {
        let answer = server.handle_line(line);
        match serde_json::from_str::<Value>(&answer) {
            Ok(mut value) if value["type"] == "handshake" => {
                value["capabilities"] = Value::from(claim.to_vec());
                value.to_string()
            }
            _ => answer,
        }
    })
}

/// Answers each request line with `canned` of its type, its id and session
/// echoed.
pub fn echo(input: impl BufRead, output: impl Write) -> io::Result<()> {
    rbv_adapter::serve_lines(
        input,
        BufWriter::new(output),
        rbv_adapter::MAX_LINE,
        |line| {
            let value: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            let id = value.get("id").and_then(Value::as_u64);
            let session = value
                .get("session")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let kind = value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            Response {
                id,
                session: session.to_owned(),
                body: canned(kind),
            }
            .to_line()
        },
    )
}

/// A valid answer of the natural type of a request `kind`.
pub fn canned(kind: &str) -> ResponseBody {
    match kind {
        "handshake" => ResponseBody::Handshake(HandshakeResponse {
            protocol_version: rbv_protocol::PROTOCOL_VERSION,
            implementation: ImplementationInfo {
                name: "rbv-echo".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            capabilities: Capability::ALL.iter().map(|c| c.to_string()).collect(),
            profile: Default::default(),
        }),
        "load_plugins" => ResponseBody::Loaded(LoadedResponse {
            plugins: Vec::new(),
        }),
        "validate_manifest" => ResponseBody::Validation(ValidationResponse {
            plugin: PluginReport {
                name: None,
                loaded: true,
                diagnostics: Vec::new(),
                declarations: Default::default(),
                default_floor: None,
            },
        }),
        "project" => ResponseBody::Projection(ProjectionResponse {
            band: Band::Escalate,
        }),
        "evaluate" => ResponseBody::Evaluation(EvaluationResponse {
            band: Band::Escalate,
            decision: Decision::Ask,
            declared: None,
            reasons: Vec::new(),
            signature: None,
            audit: None,
        }),
        "approve" => ResponseBody::Approval(ApprovalResponse {
            granted: false,
            token: None,
            reasons: Vec::new(),
            audit: None,
        }),
        "invoke" => ResponseBody::Invocation(InvocationResponse {
            allowed: false,
            band: Band::Escalate,
            decision: Decision::Ask,
            reasons: Vec::new(),
            audit: None,
        }),
        "diff_manifests" => ResponseBody::Diff(DiffResponse {
            breaking: false,
            version_change: "none".into(),
            changes: Vec::new(),
        }),
        "record_event" | "set_policy" | "reset_session" => ResponseBody::Ack(Default::default()),
        other => ResponseBody::Error(rbv_protocol::ErrorResponse {
            code: "bad-request".into(),
            message: format!("unknown request type `{other}`"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rbv_protocol::RequestBody;

    #[test]
    fn a_reduced_claim_changes_the_handshake_only() {
        let input = "{\"id\":0,\"session\":\"handshake\",\"type\":\"handshake\",\"protocol_version\":1,\"harness\":\"rbv\"}\n\
                     {\"id\":1,\"session\":\"s\",\"type\":\"project\",\"reversibility\":\"reversible\",\"scope\":\"local\",\"trust\":\"trusted\"}\n";
        let mut out = Vec::new();
        let claim = vec!["projection".to_owned(), "manfest".to_owned()];
        serve_claiming(
            rbv_reference::server(None, rbv_reference::Profile::default()),
            &claim,
            input.as_bytes(),
            &mut out,
        )
        .unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines[0]["capabilities"],
            serde_json::json!(["projection", "manfest"])
        );
        assert_eq!(lines[1]["type"], "projection", "{}", lines[1]);
    }

    #[test]
    fn echo_answers_every_request_type_with_its_natural_answer() {
        let natural = [
            ("handshake", "handshake"),
            ("load_plugins", "loaded"),
            ("validate_manifest", "validation"),
            ("project", "projection"),
            ("record_event", "ack"),
            ("set_policy", "ack"),
            ("evaluate", "evaluation"),
            ("approve", "approval"),
            ("invoke", "invocation"),
            ("diff_manifests", "diff"),
            ("reset_session", "ack"),
        ];
        assert_eq!(
            natural.len(),
            RequestBody::TYPES.len(),
            "a request type has no canned answer"
        );
        let input: String = natural
            .iter()
            .enumerate()
            .map(|(i, (kind, _))| {
                format!("{{\"id\":{i},\"session\":\"s{i}\",\"type\":\"{kind}\"}}\n")
            })
            .collect();
        let mut out = Vec::new();
        echo(input.as_bytes(), &mut out).unwrap();
        let lines: Vec<_> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(lines.len(), natural.len());
        for (i, line) in lines.iter().enumerate() {
            let response = Response::from_line(line).unwrap();
            assert_eq!(response.id, Some(i as u64));
            assert_eq!(response.session, format!("s{i}"));
            assert_eq!(response.body.kind(), natural[i].1, "{line}");
        }
    }
}
