//! The fuzz targets: generator → subject → property. A transport failure
//! (no answer) is the subject's problem, reported by the conformance run:
//! the properties judge answers only, except `protocol_decoder`'s, whose
//! input is the line an implementation must survive
//! (`Target::judges_failures`).

use super::finding::{CaseDraft, Finding};
use super::gen::{self, Labeled, Truth};
use super::reach;
use super::steps::{op_json, plugins_yaml};
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;
use serde_json::{json, Value};

pub use super::req;

pub type Check = fn(&mut Unstructured, &mut dyn Subject) -> Result<Option<Finding>>;

/// A fuzz target: its name (the cargo-fuzz binary and `rbv fuzz --target`),
/// the capabilities it needs, and its check.
pub struct Target {
    pub name: &'static str,
    pub needs: &'static [Capability],
    pub check: Check,
    /// Whether the implementation failing (crash, hang, garbage) during an
    /// exec that reports a finding is that finding, not noise: true where
    /// the input is the line that failed it (`protocol_decoder`). Such an
    /// exec counts, and the implementation is started again before the
    /// next input, so that no later input is charged with the failure.
    pub judges_failures: bool,
}

// One constant per target, so that a cargo-fuzz binary names only its own:
// a binary that went through `TARGETS` (or `by_name`) would keep every
// target's code reachable, and libFuzzer scans the coverage counters of all
// linked code after each input.

pub const TOKEN_BINDING: Target = Target {
    name: "token_binding",
    needs: &[Capability::Tokens, Capability::Manifest],
    check: super::target_token::check,
    judges_failures: false,
};

pub const SQL_BYPASS: Target = Target {
    name: "sql_bypass",
    needs: &[Capability::Sql, Capability::Manifest],
    check: sql_bypass,
    judges_failures: false,
};

pub const SHELL_BYPASS: Target = Target {
    name: "shell_bypass",
    needs: &[Capability::Shell],
    check: shell_bypass,
    judges_failures: false,
};

pub const URL_LOOPBACK: Target = Target {
    name: "url_loopback",
    needs: &[Capability::Fetch],
    check: url_loopback,
    judges_failures: false,
};

pub const MANIFEST: Target = Target {
    name: "manifest",
    needs: &[Capability::Manifest],
    check: manifest,
    judges_failures: false,
};

pub const RULE_OF_TWO: Target = Target {
    name: "rule_of_two",
    needs: &[Capability::RuleOfTwo, Capability::Manifest],
    check: super::target_rule_of_two::check,
    judges_failures: false,
};

pub const PROJECTION: Target = Target {
    name: "projection",
    needs: &[Capability::Projection],
    check: super::target_projection::check,
    judges_failures: false,
};

pub const CRITICAL_FLOOR: Target = Target {
    name: "critical_floor",
    needs: &[Capability::CriticalFloor, Capability::Manifest],
    check: super::target_critical::check,
    judges_failures: false,
};

pub const VERSIONING: Target = Target {
    name: "versioning",
    needs: &[Capability::Versioning],
    check: super::target_versioning::check,
    judges_failures: false,
};

pub const AUDIT: Target = Target {
    name: "audit",
    needs: &[Capability::Audit, Capability::Manifest],
    check: super::target_audit::check,
    judges_failures: false,
};

pub const CASE_LOADER: Target = Target {
    name: "case_loader",
    needs: &[],
    check: case_loader,
    judges_failures: false,
};

pub const PROTOCOL_DECODER: Target = Target {
    name: "protocol_decoder",
    needs: &[],
    check: protocol_decoder,
    judges_failures: true,
};

pub const TARGETS: &[Target] = &[
    TOKEN_BINDING,
    SQL_BYPASS,
    SHELL_BYPASS,
    URL_LOOPBACK,
    MANIFEST,
    RULE_OF_TWO,
    PROJECTION,
    CRITICAL_FLOOR,
    VERSIONING,
    AUDIT,
    CASE_LOADER,
    PROTOCOL_DECODER,
];

pub fn by_name(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
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
        for family in &self.labeled.families {
            reach::fire(self.area, family);
        }
        reach::fire(
            self.area,
            match self.labeled.truth {
                Truth::Dangerous => "dangerous",
                Truth::Safe(_) => "safe",
                Truth::AtLeast(_) => "at-least",
            },
        );
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
            difference: format!("answered {}", e.band),
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
pub(super) fn sql_plugin() -> PluginBundle {
    PluginBundle {
        manifest: json!({
            "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
            "name": "db-tools",
            "version": "1.0.0",
            "permissions": {"operations": [{"id": "mcp:db/execute_sql", "band": "auto",
                "reversibility": "reversible", "scope": "local", "trust": "trusted"},
                {"id": "skill:report", "band": "auto"}]},
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
        workspace: None,
    }
}

fn sql_bypass(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    if subject.claims(Capability::RuleOfTwo) && u.ratio(1, 6)? {
        return super::property_secrets::check_sql(u, subject);
    }
    let input = gen::sql::input(u)?;
    let mut op = operation(
        Some("db-tools"),
        "mcp:db/execute_sql",
        OperationKind::Sql,
        json!({"sql": input.labeled.text}),
    );
    op.dialect = input.dialect.map(str::to_owned);
    if u.ratio(1, 4)? {
        // Called while following an auto skill: the skill's band says
        // nothing about the statement (RBV-MAN-016).
        reach::fire("sql", "via-auto-skill");
        op.actor = Some("skill:report".into());
    }
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
        "plain-download"
        | "download-saved"
        | "loopback-download"
        | "download-unreadable-option" => Some(req::SHELL_DOWNLOAD),
        "workspace-inside" | "workspace-outside" => Some(req::SHELL_WORKSPACE),
        _ => None,
    });
    class.map_or((req::SHELL, req::SHELL_DATA), |r| (r, r))
}

fn shell_bypass(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    if subject.claims(Capability::RuleOfTwo) && u.ratio(1, 5)? {
        return super::property_secrets::check(u, subject);
    }
    // Only to a client that claims the notion: a workspace is sent to
    // no other (PROTOCOL.md §3.1).
    let (labeled, workspace) = if subject.claims(Capability::Workspace) && u.ratio(1, 8)? {
        let (labeled, workspace) = gen::workspace::input(u)?;
        (labeled, Some(workspace))
    } else {
        (gen::shell::input(u)?, None)
    };
    let mut op = operation(
        None,
        "client:shell",
        OperationKind::Shell,
        json!({"command": labeled.text}),
    );
    op.workspace = workspace;
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
    if u.ratio(1, 4)? {
        return url_forms(u, subject);
    }
    let labeled = gen::url::input(u)?;
    let has = |family: &str| labeled.families.contains(&family);
    let method = if has(gen::url::REMOTE_WRITE) {
        *u.choose(&["POST", "PUT", "DELETE", "PATCH"])?
    } else {
        "GET"
    };
    let op = operation(
        None,
        "client:fetch",
        OperationKind::Fetch,
        json!({"url": labeled.text, "method": method}),
    );
    let unsafe_side = if has(gen::url::REMOTE_WRITE) {
        req::FETCH_REMOTE_WRITE
    } else if has("metadata-spelling") {
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

/// [`url_loopback`]'s other quarter: the schemes, refused URLs, methods
/// and bodies of `gen::url_forms`.
fn url_forms(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let request = gen::url_forms::request(u)?;
    let mut arguments = json!({"url": request.labeled.text, "method": request.method});
    if let Some(body) = request.body {
        arguments["body"] = json!(body);
    }
    let op = operation(None, "client:fetch", OperationKind::Fetch, arguments);
    Ok(ClassifierProbe {
        target: "url_loopback",
        area: "fetch",
        requirement: (request.requirement, request.requirement),
        plugins: vec![],
        operation: op,
        labeled: &request.labeled,
    }
    .run(subject))
}

/// The band `subject` gives a GET of `url` in a fresh session (to put a
/// url_loopback finding before the URL parsers, `oracle::url::judge`).
pub fn fetch_band(subject: &mut dyn Subject, url: &str) -> Option<Band> {
    fresh_band(
        subject,
        operation(
            None,
            "client:fetch",
            OperationKind::Fetch,
            json!({"url": url, "method": "GET"}),
        ),
    )
}

/// The band `subject` gives the shell line `command` in a fresh session
/// (to put a shell_bypass finding before bash, `oracle::shell::judge`).
pub fn shell_band(subject: &mut dyn Subject, command: &str) -> Option<Band> {
    fresh_band(
        subject,
        operation(
            None,
            "client:shell",
            OperationKind::Shell,
            json!({"command": command}),
        ),
    )
}

fn fresh_band(subject: &mut dyn Subject, op: Operation) -> Option<Band> {
    let session = subject.fresh_session();
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
    super::property_manifest::check(u, subject)
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

/// The implementation's decoder: see `property_protocol`.
fn protocol_decoder(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    super::property_protocol::check(u, subject)
}
