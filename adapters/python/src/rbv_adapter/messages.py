"""Typed protocol v1 messages (PROTOCOL.md §4, §5).

No `from __future__ import annotations` here: TypedDict reads `Required`
only from evaluated annotations.

Requests are what handlers receive: the body without the envelope, already
checked against its schema. Answers are what handlers return; ``type`` may
be left out (the SDK adds the request's answer type). tests/test_messages.py
checks every TypedDict here against ``protocol/schema/``: the same keys,
optional exactly where the schema does not require them, and every enum.
"""


from typing import Any, Literal, Required, TypedDict, Union

from .lossless import JsonNumber

Band = Literal["auto", "soft-ack", "escalate"]
Decision = Literal["allow", "note", "ask", "deny"]
Reversibility = Literal["reversible", "hard-to-reverse", "irreversible"]
Scope = Literal["local", "shared-remote", "external"]
Trust = Literal["trusted", "untrusted"]
OperationKind = Literal["tool", "sql", "shell", "fetch"]
ApproverKind = Literal["human", "model", "tool", "plugin"]
Severity = Literal["error", "warning"]
Capability = Literal[
    "manifest", "projection", "rule-of-two", "sql", "shell", "fetch",
    "tokens", "audit", "versioning", "critical-floor", "workspace",
]

# ------------------------------------------------------------ definitions

# A POSIX path that starts at `/`: the schema refuses any other before a
# handler sees it, so a relative root is a `bad-request` error.
AbsolutePath = str


class Workspace(TypedDict, total=False):
    """Where the client's workspace is (capability `workspace`, PROTOCOL.md
    §3.1): paths under ``root`` are inside; commands start in ``cwd``
    (``root`` when absent); ``~`` is ``home`` (unknown when absent)."""

    root: Required[AbsolutePath]
    cwd: AbsolutePath | None
    home: AbsolutePath | None


class Operation(TypedDict, total=False):
    plugin: str | None
    id: Required[str]
    kind: OperationKind | None
    arguments: dict[str, Any]  # exactly as sent: numbers are JsonNumbers
    trust: Trust | None
    actor: str | None
    dialect: str | None
    workspace: Workspace | None  # overrides the session's for this call


class PluginBundle(TypedDict, total=False):
    manifest: Required[Any]  # the plugin.json, verbatim, also when invalid
    mcp: Any
    skills: list[str]
    tools: dict[str, list[str]]


class Approver(TypedDict):
    kind: ApproverKind
    name: str


class UntrustedContentEvent(TypedDict, total=False):
    kind: Required[Literal["untrusted_content"]]
    source: str | None
    content: str | None


class SensitiveDataEvent(TypedDict, total=False):
    kind: Required[Literal["sensitive_data"]]
    what: str | None


class StateChangeEvent(TypedDict, total=False):
    kind: Required[Literal["state_change"]]
    what: str | None


class EnvironmentEvent(TypedDict):
    kind: Literal["environment"]
    vars: dict[str, str]


SessionEvent = Union[UntrustedContentEvent, SensitiveDataEvent, StateChangeEvent, EnvironmentEvent]

# --------------------------------------------------------------- requests


class HandshakeRequest(TypedDict):
    protocol_version: JsonNumber
    harness: str


class LoadPluginsRequest(TypedDict):
    plugins: list[PluginBundle]


class ValidateManifestRequest(TypedDict):
    plugin: PluginBundle


class ProjectRequest(TypedDict, total=False):
    reversibility: Reversibility | None
    scope: Scope | None
    trust: Trust | None


class RecordEventRequest(TypedDict):
    event: SessionEvent


class SetPolicyRequest(TypedDict, total=False):
    floors: dict[str, Band]
    critical: list[str]
    workspace: Workspace | None  # the session's from now on; a later one replaces it


class EvaluateRequest(TypedDict):
    operation: Operation


class ApproveRequest(TypedDict):
    operation: Operation
    approver: Approver


class InvokeRequest(TypedDict, total=False):
    operation: Required[Operation]
    token: str | None


class DiffManifestsRequest(TypedDict):
    old: PluginBundle
    new: PluginBundle


class ResetSessionRequest(TypedDict):
    pass


# ---------------------------------------------------------------- answers


class ImplementationInfo(TypedDict):
    name: str
    version: str


class Diagnostic(TypedDict, total=False):
    severity: Required[Severity]
    code: Required[str]
    message: Required[str]
    pointer: str | None


class PluginReport(TypedDict, total=False):
    name: str | None
    loaded: Required[bool]
    diagnostics: list[Diagnostic]
    declarations: dict[str, Band]
    default_floor: Band | None


class AuditRecord(TypedDict, total=False):
    timestamp: Required[str]
    actor: Required[str]
    plugin: str | None
    plugin_version: str | None
    operation: Required[str]
    signature: Required[str]
    band: Required[Band]
    decision: Required[Decision]
    gate: Required[str]
    authorized_by: str | None
    outcome: Required[str]


class BandChange(TypedDict, total=False):
    operation: Required[str]
    old: Band | None
    new: Band | None


class HandshakeAnswer(TypedDict, total=False):
    type: Literal["handshake"]
    protocol_version: Required[int]
    implementation: Required[ImplementationInfo]
    capabilities: Required[list[str]]
    profile: dict[str, Any]


class LoadedAnswer(TypedDict, total=False):
    type: Literal["loaded"]
    plugins: Required[list[PluginReport]]


class ValidationAnswer(TypedDict, total=False):
    type: Literal["validation"]
    plugin: Required[PluginReport]


class ProjectionAnswer(TypedDict, total=False):
    type: Literal["projection"]
    band: Required[Band]


class AckAnswer(TypedDict, total=False):
    type: Literal["ack"]


class EvaluationAnswer(TypedDict, total=False):
    type: Literal["evaluation"]
    band: Required[Band]
    decision: Required[Decision]
    declared: Band | None
    reasons: list[str]
    signature: str | None
    audit: AuditRecord | None


class ApprovalAnswer(TypedDict, total=False):
    type: Literal["approval"]
    granted: Required[bool]
    token: str | None
    reasons: list[str]
    audit: AuditRecord | None


class InvocationAnswer(TypedDict, total=False):
    type: Literal["invocation"]
    allowed: Required[bool]
    band: Required[Band]
    decision: Required[Decision]
    reasons: list[str]
    audit: AuditRecord | None


class DiffAnswer(TypedDict, total=False):
    type: Literal["diff"]
    breaking: Required[bool]
    version_change: Required[str]
    changes: list[BandChange]


class ErrorAnswer(TypedDict):
    type: Literal["error"]
    code: str
    message: str


class UnsupportedAnswer(TypedDict):
    type: Literal["unsupported"]
    message: str


__all__ = [name for name in dir() if name[0].isupper()]
