//! Wire messages: one JSON object per line. Every message carries `id`,
//! `session` and `type`; the rest of its keys are the body named by `type`.
//! The line codec is in `envelope`; the message types, whose doc comments
//! are the JSON Schemas' descriptions, are here.

mod envelope;

pub use envelope::{is_blank_line, salvage_envelope, WireError};
use envelope::{join_envelope, split_envelope_ref, split_line, write_line, RawFields, ENVELOPE};

use crate::vocab::{ApproverKind, AuditRecord, Band, Decision, Reversibility, Scope, Trust};
use schemars::JsonSchema;
use serde::de::value::MapDeserializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Declares a message family: an enum over body structs, with the wire
/// `type` of each variant, and conversions from and to envelope JSON.
macro_rules! messages {
    ($(#[$meta:meta])* $family:ident { $($variant:ident($body:ty) = $tag:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $family { $($variant($body)),+ }

        impl $family {
            /// Every wire `type` of this family, in declaration order.
            pub const TYPES: &'static [&'static str] = &[$($tag),+];

            /// The wire `type` of this message.
            pub fn kind(&self) -> &'static str {
                match self { $($family::$variant(_) => $tag),+ }
            }

            /// The message as JSON text without the envelope's `id` and
            /// `session`: its `type` and its body's fields, in one pass.
            pub fn typed_json(&self) -> String {
                match self { $($family::$variant(b) => write_line(None, $tag, b)),+ }
            }

            fn body_to_value(&self) -> Value {
                let result = match self { $($family::$variant(b) => serde_json::to_value(b)),+ };
                result.expect("message bodies always serialize")
            }

            fn write_line(&self, id: Option<u64>, session: &str) -> String {
                match self { $($family::$variant(b) => write_line(Some((id, session)), $tag, b)),+ }
            }

            fn body_from_fields(kind: &str, fields: RawFields<'_>) -> Result<Self, WireError> {
                let wrap = |source| WireError::Body { kind: kind.to_owned(), source };
                let body = || MapDeserializer::<_, serde_json::Error>::new(fields.into_iter());
                match kind {
                    $($tag => <$body>::deserialize(body()).map($family::$variant).map_err(wrap),)+
                    other => Err(WireError::UnknownType(other.to_owned())),
                }
            }

            fn body_from_map(kind: &str, map: &Map<String, Value>) -> Result<Self, WireError> {
                let wrap = |source| WireError::Body { kind: kind.to_owned(), source };
                let body = || {
                    let fields = map
                        .iter()
                        .filter(|(key, _)| !ENVELOPE.contains(&key.as_str()))
                        .map(|(key, value)| (key.as_str(), value));
                    MapDeserializer::<_, serde_json::Error>::new(fields)
                };
                match kind {
                    $($tag => <$body>::deserialize(body()).map($family::$variant).map_err(wrap),)+
                    other => Err(WireError::UnknownType(other.to_owned())),
                }
            }

            /// The JSON Schema of each body, by wire `type`.
            pub fn body_schemas() -> Vec<(&'static str, schemars::Schema)> {
                vec![$(($tag, schemars::schema_for!($body))),+]
            }
        }
    };
}

messages! {
    /// What the harness asks.
    RequestBody {
        Handshake(HandshakeRequest) = "handshake",
        LoadPlugins(LoadPluginsRequest) = "load_plugins",
        ValidateManifest(ValidateManifestRequest) = "validate_manifest",
        Project(ProjectRequest) = "project",
        RecordEvent(RecordEventRequest) = "record_event",
        SetPolicy(SetPolicyRequest) = "set_policy",
        Evaluate(EvaluateRequest) = "evaluate",
        Approve(ApproveRequest) = "approve",
        Invoke(InvokeRequest) = "invoke",
        DiffManifests(DiffManifestsRequest) = "diff_manifests",
        ResetSession(ResetSessionRequest) = "reset_session",
    }
}

messages! {
    /// What an implementation answers.
    ResponseBody {
        Handshake(HandshakeResponse) = "handshake",
        Loaded(LoadedResponse) = "loaded",
        Validation(ValidationResponse) = "validation",
        Projection(ProjectionResponse) = "projection",
        Ack(AckResponse) = "ack",
        Evaluation(EvaluationResponse) = "evaluation",
        Approval(ApprovalResponse) = "approval",
        Invocation(InvocationResponse) = "invocation",
        Diff(DiffResponse) = "diff",
        Error(ErrorResponse) = "error",
        Unsupported(UnsupportedResponse) = "unsupported",
    }
}

/// A request: `id` is unique per child process, `session` names the state it
/// acts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub id: u64,
    pub session: String,
    pub body: RequestBody,
}

/// A response: echoes `id` and `session` of its request. `id` is `null` only
/// in an `error` answering a line whose id could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub id: Option<u64>,
    pub session: String,
    pub body: ResponseBody,
}

impl Request {
    pub fn to_value(&self) -> Value {
        join_envelope(
            Some(self.id),
            &self.session,
            self.body.kind(),
            self.body.body_to_value(),
        )
    }

    /// One line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        self.body.write_line(Some(self.id), &self.session)
    }

    /// A request from its JSON, borrowed (see [`Response::from_json`]).
    pub fn from_json(value: &Value) -> Result<Self, WireError> {
        let (id, session, kind, map) = split_envelope_ref(value)?;
        Ok(Request {
            id: id.ok_or(WireError::Envelope("id"))?,
            session: session.to_owned(),
            body: RequestBody::body_from_map(kind, map)?,
        })
    }

    pub fn from_line(line: &str) -> Result<Self, WireError> {
        let (id, session, kind, fields) = split_line(line)?;
        Ok(Request {
            id: id.ok_or(WireError::Envelope("id"))?,
            session,
            body: RequestBody::body_from_fields(&kind, fields)?,
        })
    }
}

impl Response {
    pub fn to_value(&self) -> Value {
        join_envelope(
            self.id,
            &self.session,
            self.body.kind(),
            self.body.body_to_value(),
        )
    }

    /// One line of JSON, without the newline.
    pub fn to_line(&self) -> String {
        self.body.write_line(self.id, &self.session)
    }

    /// A response from its JSON, borrowed: for a reader that needs the
    /// answer both as JSON and typed, without parsing its line twice.
    pub fn from_json(value: &Value) -> Result<Self, WireError> {
        let (id, session, kind, map) = split_envelope_ref(value)?;
        Ok(Response {
            id,
            session: session.to_owned(),
            body: ResponseBody::body_from_map(kind, map)?,
        })
    }

    pub fn from_line(line: &str) -> Result<Self, WireError> {
        let (id, session, kind, fields) = split_line(line)?;
        Ok(Response {
            id,
            session,
            body: ResponseBody::body_from_fields(&kind, fields)?,
        })
    }

    /// The answer to a line that is not a valid request: `id` is echoed when
    /// it could be read.
    pub fn error(id: Option<u64>, session: &str, code: &str, message: impl Into<String>) -> Self {
        Response {
            id,
            session: session.to_owned(),
            body: ResponseBody::Error(ErrorResponse {
                code: code.to_owned(),
                message: message.into(),
            }),
        }
    }
}

// ---------------------------------------------------------------- shared parts

/// A plugin as a client sees it before connecting: its `plugin.json`, its
/// optional `mcp.json`, and what discovery later found (skill names; tool
/// names per MCP server), which a manifest cannot know at validation time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginBundle {
    // `Arc`: a harness sends the same fixtures in every case, and copying
    // their trees per request was a tenth of its time. (A `//` comment: the
    // doc comments below are the JSON Schema's descriptions.)
    /// The `plugin.json` document, verbatim.
    pub manifest: Arc<Value>,
    /// The `mcp.json` document, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<Arc<Value>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Vec<String>>,
}

/// What kind of payload an operation carries, which tells a client which
/// call-time inspector applies and which argument holds the payload:
/// `sql` → `arguments.sql`; `shell` → `arguments.command`; `fetch` →
/// `arguments.url` and optional `arguments.method` (default `GET`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OperationKind {
    Tool,
    Sql,
    Shell,
    Fetch,
}

/// One concrete call: which operation, with which data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// The plugin that provides the operation; absent for the client's own
    /// tools (`client:shell`, `client:fetch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// `mcp:<server>/<tool>`, `skill:<name>` or `client:<name>`; sent as
    /// given, so that a malformed id reaches the implementation.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<OperationKind>,
    /// Every argument, exactly as the model supplied it (numbers keep all
    /// their digits).
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// Where the arguments came from, when the caller knows; absent lets the
    /// client derive it from the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<Trust>,
    /// Who asks for the call; `model` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// For `kind: sql`: the dialect of the database the statement goes to,
    /// `postgresql` (the default when absent), `mysql` or `sqlite`. The
    /// client knows it from the tool's configuration, not from the model's
    /// arguments. Any other value is unknown and fails safe: escalate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// Where this call runs (capability `workspace`); it replaces the
    /// session's for this call only. Absent: the session's, else the
    /// default rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<Workspace>,
}

/// The workspace boundary as the client knows it (capability `workspace`):
/// writes under `root` are the project's reversible edits, code under it
/// is the project's own; everything else is outside.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Workspace {
    /// The workspace's top directory.
    pub root: AbsolutePath,
    /// The directory commands start in; `root` when absent. It may lie
    /// outside `root`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<AbsolutePath>,
    /// The home directory of the user commands run as, which `~` and
    /// `$HOME` name; absent: unknown, so `~/…` is never inside `root`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<AbsolutePath>,
}

impl Workspace {
    /// The directory commands start in.
    pub fn cwd(&self) -> &AbsolutePath {
        self.cwd.as_ref().unwrap_or(&self.root)
    }
}

/// A POSIX path that starts at `/`. A relative one is refused when read:
/// relative to what would be the client's guess, and a guessed boundary
/// is no boundary.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct AbsolutePath(String);

impl AbsolutePath {
    pub fn new(path: impl Into<String>) -> Result<Self, String> {
        let path = path.into();
        if path.starts_with('/') {
            Ok(AbsolutePath(path))
        } else {
            Err(format!(
                "`{path}` is not an absolute path (a workspace path starts with `/`)"
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for AbsolutePath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AbsolutePath::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for AbsolutePath {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AbsolutePath".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A POSIX path that starts at `/`.",
            "type": "string",
            "pattern": "^/"
        })
    }
}

/// Who approves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Approver {
    pub kind: ApproverKind,
    pub name: String,
}

/// Something that happened in the session and that Rule-of-Two counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SessionEvent {
    /// The model ingested content nobody vouches for (a web page, tool
    /// output, a file from outside). `content` is what it said, so that an
    /// implementation can show it ignores instructions in it.
    UntrustedContent {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
    },
    /// The session touched credentials, secrets, production or personal data.
    SensitiveData {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        what: Option<String>,
    },
    /// The session changed state or communicated externally.
    StateChange {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        what: Option<String>,
    },
    /// Variables were set in the agent session's environment (a §4.1 bypass
    /// flag arrives this way).
    Environment { vars: BTreeMap<String, String> },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Error,
    Warning,
}

/// One finding about a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable machine-readable code chosen by the implementation.
    pub code: String,
    pub message: String,
    /// JSON Pointer into the manifest, when the finding has a place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

/// How a client understood one plugin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PluginReport {
    /// The manifest's `name`, when it has a readable one.
    pub name: Option<String>,
    /// False when the base specification rejects the plugin; it then
    /// contributes no operations at all.
    pub loaded: bool,
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
    /// The declared floor of every validly declared operation, after
    /// resolving duplicates. An operation absent here is undeclared.
    #[serde(default)]
    pub declarations: BTreeMap<String, Band>,
    /// The floor that `default` sets for unlisted operations, if any.
    #[serde(default)]
    pub default_floor: Option<Band>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImplementationInfo {
    pub name: String,
    pub version: String,
}

/// One operation whose declared floor differs between two manifests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BandChange {
    pub operation: String,
    /// `null`: undeclared on that side.
    pub old: Option<Band>,
    pub new: Option<Band>,
}

// ---------------------------------------------------------------- requests

/// Always the first request on a child's stdin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandshakeRequest {
    pub protocol_version: u32,
    /// The harness's name and version, for the implementation's logs.
    pub harness: String,
}

/// Adds plugins to the session (what a client does when it loads them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadPluginsRequest {
    pub plugins: Vec<PluginBundle>,
}

/// Validates one plugin without adding it to the session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateManifestRequest {
    pub plugin: PluginBundle,
}

/// Projects axes to a band. An absent axis is unknown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reversibility: Option<Reversibility>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<Trust>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordEventRequest {
    pub event: SessionEvent,
}

/// The client's own policy for this session: extra floors per operation id,
/// (critical-floor capability) operations denied with no approval path, and
/// (workspace capability) where the session's workspace is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetPolicyRequest {
    #[serde(default)]
    pub floors: BTreeMap<String, Band>,
    #[serde(default)]
    pub critical: Vec<String>,
    /// The session's workspace from now on; a later one replaces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<Workspace>,
}

/// What would happen if the operation were called now? Changes no state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvaluateRequest {
    pub operation: Operation,
}

/// An approver approves one operation; a human approval mints a token.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveRequest {
    pub operation: Operation,
    pub approver: Approver,
}

/// Calls the operation, redeeming a token if one is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InvokeRequest {
    pub operation: Operation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// Compares the declarations of two versions of one plugin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffManifestsRequest {
    pub old: PluginBundle,
    pub new: PluginBundle,
}

/// Ends the session's state: events, plugins, policy and every token.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetSessionRequest {}

// ---------------------------------------------------------------- responses

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HandshakeResponse {
    pub protocol_version: u32,
    pub implementation: ImplementationInfo,
    /// Capability names (see `Capability`); unknown names are ignored.
    pub capabilities: Vec<String>,
    /// Answers to the proposal's open questions (see `cases/REQUIREMENTS.yaml`).
    #[serde(default)]
    pub profile: BTreeMap<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadedResponse {
    pub plugins: Vec<PluginReport>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValidationResponse {
    pub plugin: PluginReport,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectionResponse {
    pub band: Band,
}

#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct AckResponse {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluationResponse {
    /// The effective band: the highest of every floor and inspection.
    pub band: Band,
    pub decision: Decision,
    /// The declared floor of this operation; `null` when undeclared.
    pub declared: Option<Band>,
    #[serde(default)]
    pub reasons: Vec<String>,
    /// The authorization key of this exact call.
    #[serde(default)]
    pub signature: Option<String>,
    #[serde(default)]
    pub audit: Option<AuditRecord>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalResponse {
    pub granted: bool,
    /// Present exactly when `granted`.
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub audit: Option<AuditRecord>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvocationResponse {
    /// Whether the effect would now take place.
    pub allowed: bool,
    pub band: Band,
    pub decision: Decision,
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub audit: Option<AuditRecord>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiffResponse {
    /// True when a floor was lowered or a declared operation dropped without
    /// a major version bump.
    pub breaking: bool,
    /// `major`, `minor`, `patch`, `none`, or `unknown` (not SemVer).
    pub version_change: String,
    #[serde(default)]
    pub changes: Vec<BandChange>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorResponse {
    pub code: String,
    pub message: String,
}

/// The implementation does not implement this request. Distinct from
/// `error`: it is an honest "not here", never a verdict about the input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnsupportedResponse {
    pub message: String,
}

#[cfg(test)]
mod tests;
