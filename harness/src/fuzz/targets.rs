//! The fuzz targets: generator → subject → oracle. A transport failure
//! (no answer) is the subject's problem, reported by the conformance run:
//! the oracles judge answers only.

use super::finding::{yaml_json, CaseDraft, Finding};
use super::gen::{self, Labeled, Truth};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::{json, Value};

/// Requirement ids (cases/REQUIREMENTS.yaml) that findings cite. A test
/// checks that each exists in the catalogue.
pub mod req {
    pub const TOKEN_BINDING: &str = "RBV-TOK-002";
    pub const TOKEN_SINGLE_USE: &str = "RBV-TOK-005";
    pub const TOKEN_HUMAN_ONLY: &str = "RBV-TOK-001";
    pub const SQL: &str = "RBV-SQL-005";
    pub const SQL_READS: &str = "RBV-SQL-009";
    pub const SHELL: &str = "RBV-SH-002";
    pub const SHELL_DATA: &str = "RBV-SH-001";
    pub const FETCH_LOOPBACK: &str = "RBV-FET-001";
    pub const FETCH_NOT_LOOPBACK: &str = "RBV-FET-002";
    pub const FETCH_METADATA: &str = "RBV-FET-007";
    pub const FETCH_INTERNAL: &str = "RBV-FET-008";
    pub const FETCH_PARSERS: &str = "RBV-FET-010";
    pub const MANIFEST_ENTRY: &str = "RBV-MAN-003";
    pub const MANIFEST_DEFAULT: &str = "RBV-MAN-008";
    pub const SHELL_RUNS_PROGRAM: &str = "RBV-SH-011";
    pub const SHELL_MODES: &str = "RBV-SH-012";
    pub const SHELL_BUILD: &str = "RBV-SH-013";
    pub const SHELL_SECRETS: &str = "RBV-SH-014";
    pub const SHELL_PUSH: &str = "RBV-SH-015";
    pub const PROTOCOL_SURVIVAL: &str = "RBV-PRO-001";
    pub const PROTOCOL_ERROR: &str = "RBV-PRO-002";
    pub const PROTOCOL_ECHO: &str = "RBV-PRO-003";
    pub const PROTOCOL_UNKNOWN_TYPE: &str = "RBV-PRO-004";
    pub const ALL: &[&str] = &[
        SHELL_RUNS_PROGRAM,
        SHELL_MODES,
        SHELL_BUILD,
        SHELL_SECRETS,
        SHELL_PUSH,
        PROTOCOL_SURVIVAL,
        PROTOCOL_ERROR,
        PROTOCOL_ECHO,
        PROTOCOL_UNKNOWN_TYPE,
        TOKEN_BINDING,
        TOKEN_SINGLE_USE,
        TOKEN_HUMAN_ONLY,
        SQL,
        SQL_READS,
        SHELL,
        SHELL_DATA,
        FETCH_LOOPBACK,
        FETCH_NOT_LOOPBACK,
        FETCH_METADATA,
        FETCH_INTERNAL,
        FETCH_PARSERS,
        MANIFEST_ENTRY,
        MANIFEST_DEFAULT,
    ];
}

pub type Check = fn(&mut Unstructured, &mut dyn Subject) -> Result<Option<Finding>>;

/// A fuzz target: its name (the cargo-fuzz binary and `rbv fuzz --target`),
/// the capabilities it needs, and its check.
pub struct Target {
    pub name: &'static str,
    pub needs: &'static [Capability],
    pub check: Check,
}

// One constant per target, so that a cargo-fuzz binary names only its own:
// a binary that went through `TARGETS` (or `by_name`) would keep every
// target's code reachable, and libFuzzer scans the coverage counters of all
// linked code after each input.

pub const TOKEN_BINDING: Target = Target {
    name: "token_binding",
    needs: &[Capability::Tokens, Capability::Manifest],
    check: token_binding,
};

pub const SQL_BYPASS: Target = Target {
    name: "sql_bypass",
    needs: &[Capability::Sql, Capability::Manifest],
    check: sql_bypass,
};

pub const SHELL_BYPASS: Target = Target {
    name: "shell_bypass",
    needs: &[Capability::Shell],
    check: shell_bypass,
};

pub const URL_LOOPBACK: Target = Target {
    name: "url_loopback",
    needs: &[Capability::Fetch],
    check: url_loopback,
};

pub const MANIFEST: Target = Target {
    name: "manifest",
    needs: &[Capability::Manifest],
    check: manifest,
};

pub const CASE_LOADER: Target = Target {
    name: "case_loader",
    needs: &[],
    check: case_loader,
};

pub const PROTOCOL_DECODER: Target = Target {
    name: "protocol_decoder",
    needs: &[],
    check: protocol_decoder,
};

pub const TARGETS: &[Target] = &[
    TOKEN_BINDING,
    SQL_BYPASS,
    SHELL_BYPASS,
    URL_LOOPBACK,
    MANIFEST,
    CASE_LOADER,
    PROTOCOL_DECODER,
];

pub fn by_name(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Entry point of the cargo-fuzz binaries, one target each (`fuzz/fuzz_targets`
/// passes its constant, e.g. `libfuzzer_target(&TOKEN_BINDING, data)`): the
/// reference in-process, the mutant named by `RBV_MUTANT`, or the
/// implementation `RBV_IMPL` names, over the protocol; a finding panics
/// (libFuzzer's crash).
///
/// In-process, each input gets a fresh subject. Sessions that outlive their
/// input would make every input end with more allocations than frees, and
/// libFuzzer then runs a full LeakSanitizer scan after each one (about 100
/// exec/s instead of tens of thousands).
pub fn libfuzzer_target(target: &Target, data: &[u8]) {
    use super::subject::LibFuzzerSubject;
    use std::sync::OnceLock;
    static SUBJECT: OnceLock<LibFuzzerSubject> = OnceLock::new();
    let subject = SUBJECT.get_or_init(|| LibFuzzerSubject::from_env(target.needs));
    if let Ok(Some(finding)) = subject.check(target.check, data) {
        panic!(
            "{finding}\n--- case ---\n{}",
            finding.to_yaml(data, "unpromoted")
        );
    }
}

// ---------------------------------------------------------------- tokens

/// A plugin that declares every operation the token generator uses as
/// escalate, so that each needs an approval in any implementation.
fn escalating_plugins(ops: &[&Operation]) -> Vec<PluginBundle> {
    let mut names: Vec<&str> = ops.iter().filter_map(|o| o.plugin.as_deref()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let mut ids: Vec<&str> = ops.iter().map(|o| o.id.as_str()).collect();
            ids.sort();
            ids.dedup();
            let operations: Vec<Value> = ids
                .iter()
                .map(|id| json!({"id": id, "band": "escalate", "reversibility": "irreversible", "scope": "external"}))
                .collect();
            PluginBundle {
                manifest: json!({
                    "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
                    "name": name,
                    "version": "1.0.0",
                    "permissions": {"operations": operations},
                })
                .into(),
                mcp: None,
                skills: vec![],
                tools: Default::default(),
            }
        })
        .collect()
}

fn plugins_yaml(plugins: &[PluginBundle]) -> String {
    let mut out = String::new();
    for p in plugins {
        out.push_str(&format!("      - manifest: {}\n", yaml_json(&p.manifest)));
    }
    out
}

pub(super) fn op_json(op: &Operation) -> String {
    yaml_json(&serde_json::to_value(op).expect("operations serialize"))
}

fn token_binding(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    use gen::token::{input, same_data, Probe};
    let t = input(u)?;
    let plugins = escalating_plugins(&[&t.a, &t.b]);
    let session = subject.fresh_session();
    let human = Approver {
        kind: ApproverKind::Human,
        name: "user".into(),
    };
    // Every probe approves once, first: the plugins load in the same batch
    // (neither waits on the other's answer; over a pipe, one round trip).
    let approve = |subject: &mut dyn Subject, op: &Operation, approver: Approver| {
        let load = RequestBody::LoadPlugins(LoadPluginsRequest {
            plugins: plugins.clone(),
        });
        let approve = RequestBody::Approve(ApproveRequest {
            operation: op.clone(),
            approver,
        });
        match subject.call_batch(&session, vec![load, approve]).pop() {
            Some(Ok(ResponseBody::Approval(a))) if a.granted => a.token,
            _ => None,
        }
    };
    // Whether every one of `times` redemptions of the token is allowed,
    // all sent in one batch.
    let invoke = |subject: &mut dyn Subject, op: &Operation, token: &str, times: usize| {
        let body = RequestBody::Invoke(InvokeRequest {
            operation: op.clone(),
            token: Some(token.to_owned()),
        });
        let answers = subject.call_batch(&session, vec![body; times]);
        answers
            .iter()
            .all(|a| matches!(a, Ok(ResponseBody::Invocation(i)) if i.allowed))
    };
    // Only a finding needs its case text.
    let load = || format!("  - load_plugins:\n{}", plugins_yaml(&plugins));
    match t.probe {
        Probe::Binding => {
            if same_data(&t.a, &t.b) {
                return Ok(None);
            }
            let Some(token) = approve(subject, &t.a, human) else {
                return Ok(None);
            };
            if !invoke(subject, &t.b, &token, 1) {
                return Ok(None);
            }
            Ok(Some(Finding {
                target: "token_binding",
                requirement: req::TOKEN_BINDING,
                kind: FailKind::Under,
                summary: format!(
                    "a token approved for {} also authorized a call that differs by {}",
                    op_json(&t.a),
                    t.mutation.describe()
                ),
                family: format!("binding/{:?}", t.mutation),
                payload: None,
                case: CaseDraft {
                    area: "tokens",
                    title: format!("A token for one call does not authorize a call changed by {}", t.mutation.describe()),
                    tags: vec!["tokens", "bypass"],
                    steps: format!(
                        "{load}  - approve: {{operation: {a}}}\n    capture: {{tok: token}}\n  - invoke: {{operation: {b}, token: {{capture: tok}}}}\n    expect: {{allowed: false}}\n",
                        load = load(),
                        a = op_json(&t.a),
                        b = op_json(&t.b)
                    ),
                },
            }))
        }
        Probe::Replay => {
            let Some(token) = approve(subject, &t.a, human) else {
                return Ok(None);
            };
            if !invoke(subject, &t.a, &token, 2) {
                return Ok(None);
            }
            Ok(Some(Finding {
                target: "token_binding",
                requirement: req::TOKEN_SINGLE_USE,
                kind: FailKind::Under,
                summary: format!("a token was redeemed twice for {}", op_json(&t.a)),
                family: "replay".into(),
                payload: None,
                case: CaseDraft {
                    area: "tokens",
                    title: "A token is single-use: the second redemption is refused".into(),
                    tags: vec!["tokens", "replay"],
                    steps: format!(
                        "{load}  - approve: {{operation: {a}}}\n    capture: {{tok: token}}\n  - invoke: {{operation: {a}, token: {{capture: tok}}}}\n    expect: {{allowed: true}}\n  - invoke: {{operation: {a}, token: {{capture: tok}}}}\n    expect: {{allowed: false}}\n",
                        load = load(),
                        a = op_json(&t.a)
                    ),
                },
            }))
        }
        Probe::Minting(kind) => {
            let approver = Approver {
                kind,
                name: format!("{}-approver", kind.as_str()),
            };
            if approve(subject, &t.a, approver).is_none() {
                return Ok(None);
            }
            Ok(Some(Finding {
                target: "token_binding",
                requirement: req::TOKEN_HUMAN_ONLY,
                kind: FailKind::Under,
                summary: format!("a token was minted for a {} approver", kind.as_str()),
                family: format!("minting/{}", kind.as_str()),
                payload: None,
                case: CaseDraft {
                    area: "tokens",
                    title: format!("No token is minted for a {} approver", kind.as_str()),
                    tags: vec!["tokens", "bypass"],
                    steps: format!(
                        "{load}  - approve: {{operation: {a}, approver: {{kind: {k}, name: {k}-approver}}}}\n    expect: {{granted: false}}\n",
                        load = load(),
                        a = op_json(&t.a),
                        k = kind.as_str()
                    ),
                },
            }))
        }
    }
}

// ---------------------------------------------------------------- classifiers

/// Judges one classifier answer against a labeled input.
pub(super) fn judge(band: Band, truth: Truth) -> Option<FailKind> {
    match truth {
        Truth::Dangerous if band < Band::Escalate => Some(FailKind::Under),
        Truth::Safe(want) if band < want => Some(FailKind::Under),
        Truth::Safe(want) if band > want => Some(FailKind::Over),
        Truth::AtLeast(want) if band < want => Some(FailKind::Under),
        _ => None,
    }
}

pub(super) fn expect_yaml(truth: Truth) -> String {
    match truth {
        Truth::Dangerous => "{band: {at_least: escalate}}".into(),
        Truth::Safe(b) => format!("{{band: {b}}}"),
        Truth::AtLeast(b) => format!("{{band: {{at_least: {b}}}}}"),
    }
}

/// A labeled classifier input evaluated as one operation; a finding when
/// the band is on the wrong side of the truth.
struct ClassifierProbe<'a> {
    target: &'static str,
    area: &'static str,
    requirement: (&'static str, &'static str),
    plugins: Vec<PluginBundle>,
    operation: Operation,
    labeled: &'a Labeled,
}

impl ClassifierProbe<'_> {
    fn run(self, subject: &mut dyn Subject) -> Option<Finding> {
        let session = subject.fresh_session();
        let mut batch = Vec::with_capacity(2);
        if !self.plugins.is_empty() {
            batch.push(RequestBody::LoadPlugins(LoadPluginsRequest {
                plugins: self.plugins.clone(),
            }));
        }
        batch.push(RequestBody::Evaluate(EvaluateRequest {
            operation: self.operation.clone(),
        }));
        let Some(Ok(ResponseBody::Evaluation(e))) = subject.call_batch(&session, batch).pop()
        else {
            return None;
        };
        let kind = judge(e.band, self.labeled.truth)?;
        let requirement = if kind == FailKind::Under {
            self.requirement.0
        } else {
            self.requirement.1
        };
        let families = self.labeled.families.join(" + ");
        let load = if self.plugins.is_empty() {
            String::new()
        } else {
            format!("  - load_plugins:\n{}", plugins_yaml(&self.plugins))
        };
        Some(Finding {
            target: self.target,
            requirement,
            kind,
            summary: format!(
                "{} answered {} for {} ({families})",
                self.area,
                e.band,
                serde_json::Value::from(self.labeled.text.as_str())
            ),
            family: self
                .labeled
                .families
                .first()
                .copied()
                .unwrap_or("plain")
                .to_owned(),
            payload: Some(self.labeled.text.clone()),
            case: CaseDraft {
                area: self.area,
                title: format!("{families}: {}", first_line(&self.labeled.text)),
                tags: vec![self.area],
                steps: format!(
                    "{load}  - evaluate: {}\n    expect: {}\n",
                    op_json(&self.operation),
                    expect_yaml(self.labeled.truth)
                ),
            },
        })
    }
}

pub(super) fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    line.chars().take(60).collect()
}

/// `execute_sql` declared at the lowest floor an honest author could claim,
/// so that only call-time inspection can escalate.
fn sql_plugin() -> PluginBundle {
    PluginBundle {
        manifest: json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": "db-tools",
            "version": "1.0.0",
            "permissions": {"operations": [{"id": "mcp:db/execute_sql", "band": "auto",
                "reversibility": "reversible", "scope": "local", "trust": "trusted"}]},
        })
        .into(),
        mcp: None,
        skills: vec![],
        tools: Default::default(),
    }
}

pub(super) fn operation(
    plugin: Option<&str>,
    id: &str,
    kind: OperationKind,
    arguments: Value,
) -> Operation {
    Operation {
        plugin: plugin.map(str::to_owned),
        id: id.to_owned(),
        kind: Some(kind),
        arguments: arguments.as_object().cloned().unwrap_or_default(),
        trust: Some(Trust::Trusted),
        actor: None,
        dialect: None,
    }
}

fn sql_bypass(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let input = gen::sql::input(u)?;
    let mut op = operation(
        Some("db-tools"),
        "mcp:db/execute_sql",
        OperationKind::Sql,
        json!({"sql": input.labeled.text}),
    );
    op.dialect = input.dialect.map(str::to_owned);
    let finding = ClassifierProbe {
        target: "sql_bypass",
        area: "sql",
        requirement: (req::SQL, req::SQL_READS),
        plugins: vec![sql_plugin()],
        operation: op,
        labeled: &input.labeled,
    }
    .run(subject);
    // The payload is what a PostgreSQL oracle confirms: only PostgreSQL's.
    Ok(finding.map(|mut f| {
        if !input.is_postgres() {
            f.payload = None;
        }
        f
    }))
}

/// The requirement a shell input's families name: an issue-13 class, else
/// the §4.4 pair (executed text / quoted data).
fn shell_requirement(families: &[&str]) -> (&'static str, &'static str) {
    let class = families.iter().find_map(|f| match *f {
        "option-runs-program" | "option-absent" | "harmless-pager" | "harmless-filter" => {
            Some(req::SHELL_RUNS_PROGRAM)
        }
        "mode-change" | "plain-mode" => Some(req::SHELL_MODES),
        "build-tool" | "development-loop" => Some(req::SHELL_BUILD),
        "push" | "push-dry-run" | "branch-push" | "draft-pr" => Some(req::SHELL_PUSH),
        _ => None,
    });
    class.map_or((req::SHELL, req::SHELL_DATA), |r| (r, r))
}

fn shell_bypass(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    if subject.claims(Capability::RuleOfTwo) && u.ratio(1, 5)? {
        return super::oracle_secrets::check(u, subject);
    }
    let labeled = gen::shell::input(u)?;
    let op = operation(
        None,
        "client:shell",
        OperationKind::Shell,
        json!({"command": labeled.text}),
    );
    Ok(ClassifierProbe {
        target: "shell_bypass",
        area: "shell",
        requirement: shell_requirement(&labeled.families),
        plugins: vec![],
        operation: op,
        labeled: &labeled,
    }
    .run(subject))
}

fn url_loopback(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let labeled = gen::url::input(u)?;
    let op = operation(
        None,
        "client:fetch",
        OperationKind::Fetch,
        json!({"url": labeled.text, "method": "GET"}),
    );
    let has = |family: &str| labeled.families.contains(&family);
    let unsafe_side = if has("metadata-spelling") {
        req::FETCH_METADATA
    } else if gen::url::PARSER_FAMILIES.iter().any(|f| has(f)) {
        req::FETCH_PARSERS
    } else if has("internal-range") {
        req::FETCH_INTERNAL
    } else {
        req::FETCH_NOT_LOOPBACK
    };
    let requirement = match labeled.truth {
        Truth::Safe(Band::Auto) => (req::FETCH_LOOPBACK, req::FETCH_LOOPBACK),
        _ => (unsafe_side, unsafe_side),
    };
    Ok(ClassifierProbe {
        target: "url_loopback",
        area: "fetch",
        requirement,
        plugins: vec![],
        operation: op,
        labeled: &labeled,
    }
    .run(subject))
}

/// The band `subject` gives a GET of `url` in a fresh session (to put a
/// url_loopback finding before the URL parsers, `oracle::url::judge`).
pub fn fetch_band(subject: &mut dyn Subject, url: &str) -> Option<Band> {
    let session = subject.fresh_session();
    let op = operation(
        None,
        "client:fetch",
        OperationKind::Fetch,
        json!({"url": url, "method": "GET"}),
    );
    match subject
        .call_batch(
            &session,
            vec![RequestBody::Evaluate(EvaluateRequest { operation: op })],
        )
        .pop()
    {
        Some(Ok(ResponseBody::Evaluation(e))) => Some(e.band),
        _ => None,
    }
}

// ---------------------------------------------------------------- manifest

fn manifest(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    super::oracle_manifest::check(u, subject)
}

// ---------------------------------------------------------------- robustness

/// Hostile YAML never panics the loader; every failure is a LoadError.
fn case_loader(u: &mut Unstructured, _subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let text: String = if u.ratio(1, 2)? {
        super::gen::yaml::document(u)?
    } else {
        String::from_utf8_lossy(u.bytes(u.len())?).into_owned()
    };
    let _ = crate::case::load_files(&[("fuzz.yaml".to_owned(), text)]);
    Ok(None)
}

/// The implementation's decoder: see `oracle_protocol`.
fn protocol_decoder(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    super::oracle_protocol::check(u, subject)
}
