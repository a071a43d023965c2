#!/usr/bin/env python3
"""An example rbv adapter in plain Python (stdlib only, Python >= 3.11).

It speaks rbv's subprocess protocol v1 (PROTOCOL.md at the repository root):
one JSON object per line on stdin, one answer per line on stdout, diagnostics
on stderr. It claims two capabilities, `manifest` and `projection`; it
evaluates opaque tool calls (declared floor, else its undeclared policy) so
that manifest cases can check what a declaration does, and answers
`unsupported` to everything else. rbv skips the cases that need a capability
an adapter does not claim. Copy it as the template of an adapter for your own client: replace
`validate_plugin` and `project` with calls into your permission layer.

Run:  rbv run --impl "python3 adapters/python/rbv_adapter.py"
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Callable

PROTOCOL_VERSION = 1
IMPLEMENTATION = {"name": "rbv-python-example", "version": "0.1.0"}
CAPABILITIES = ["manifest", "projection"]
PROFILE = {
    "permissions_placement": "both",
    "rule_of_two_threshold": 2,
    "hard_to_reverse_local": "escalate",
    "undeclared_opaque_band": "escalate",
}

# ------------------------------------------------------------------ vocabulary

BANDS = ["auto", "soft-ack", "escalate"]
REVERSIBILITY = ["reversible", "hard-to-reverse", "irreversible"]
SCOPES = ["local", "shared-remote", "external"]
TRUSTS = ["trusted", "untrusted"]


def band_max(a: str | None, b: str | None) -> str | None:
    """The higher of two bands (None is no band)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if BANDS.index(a) >= BANDS.index(b) else b


def project(reversibility: str | None, scope: str | None, trust: str | None) -> str:
    """R x S x T -> band, all 18 combinations (DESIGN.md section 2).

    An absent axis is unknown and counts as its most dangerous value.
    """
    r = reversibility or "irreversible"
    s = scope or "external"
    t = trust or "untrusted"
    if r == "irreversible" or s == "external":
        return "escalate"
    if r == "hard-to-reverse":
        # The proposal's table leaves it open; rbv's interpretation fails
        # safe (profile hard_to_reverse_local: escalate).
        return "escalate"
    if s == "local" and t == "trusted":
        return "auto"
    return "soft-ack"


# ------------------------------------------------------------------ manifests

SCHEMA_IDS = {
    "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json": "1.0.0",
    "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json": "1.1.0",
}
NAME_RE = re.compile(r"^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$")
STRING_FIELDS_1_0 = ["version", "description", "homepage", "repository", "license"]
STRING_FIELDS_1_1 = STRING_FIELDS_1_0 + ["displayName", "icon"]
AUTHOR_KEYS = {"name", "email", "url"}
EXTENSION_NS = "org.agent-plugins.permissions"
ENTRY_KEYS = {"id", "band", "reversibility", "scope", "trust", "description"}
PERMISSIONS_KEYS = {"default", "operations"}
ID_COMPONENT = re.compile(r"^[^\s/:\x00-\x1f\x7f]+$")


def diag(severity: str, code: str, message: str, pointer: str | None = None) -> dict:
    d = {"severity": severity, "code": code, "message": message}
    if pointer is not None:
        d["pointer"] = pointer
    return d


def pointer_escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def valid_operation_id(value: Any) -> bool:
    """`mcp:<server>/<tool>` or `skill:<name>`; `client:` ids are not a
    plugin's to declare."""
    if not isinstance(value, str):
        return False
    prefix, sep, rest = value.partition(":")
    if not sep:
        return False
    if prefix == "mcp":
        server, slash, tool = rest.partition("/")
        return bool(slash) and all(ID_COMPONENT.match(c) for c in (server, tool))
    if prefix == "skill":
        return bool(ID_COMPONENT.match(rest))
    return False


def check_base_manifest(manifest: Any) -> tuple[list[dict], bool]:
    """Agent Plugins rules for plugin.json. Returns (diagnostics, loaded)."""
    out: list[dict] = []
    if not isinstance(manifest, dict):
        return [diag("error", "not-an-object", "plugin.json is not a JSON object", "")], False
    schema = manifest.get("$schema")
    version = SCHEMA_IDS.get(schema) if isinstance(schema, str) else None
    if version is None:
        out.append(diag("error", "schema", "`$schema` is missing or not a canonical id", "/$schema"))
    name = manifest.get("name")
    if not isinstance(name, str) or not (1 <= len(name) <= 64) or not NAME_RE.match(name):
        out.append(diag("error", "name", "`name` is missing or breaks the name rules", "/name"))
    strings = STRING_FIELDS_1_1 if version == "1.1.0" else STRING_FIELDS_1_0
    for key in strings:
        if key in manifest and not isinstance(manifest[key], str):
            out.append(diag("error", "type", f"`{key}` must be a string", f"/{key}"))
    if "author" in manifest:
        author = manifest["author"]
        if not isinstance(author, dict) or any(
            k not in AUTHOR_KEYS or not isinstance(v, str) for k, v in author.items()
        ):
            out.append(diag("error", "type", "`author` must be {name?, email?, url?} strings", "/author"))
    if "keywords" in manifest:
        kw = manifest["keywords"]
        if not isinstance(kw, list) or not all(isinstance(k, str) for k in kw):
            out.append(diag("error", "type", "`keywords` must be an array of strings", "/keywords"))
    if "extensions" in manifest:
        ext = manifest["extensions"]
        if not isinstance(ext, dict) or not all(isinstance(v, dict) for v in ext.values()):
            out.append(diag("error", "type", "`extensions` must map namespaces to objects", "/extensions"))
    known = {"$schema", "name", "author", "keywords", "extensions", *strings}
    for key in manifest:
        if key not in known:
            # The base specification: report and ignore, never reject.
            out.append(diag("warning", "unknown-field", f"unknown top-level field `{key}`", "/" + pointer_escape(key)))
    return out, not any(d["severity"] == "error" for d in out)


def entry_floor(entry: Any, where: str, out: list[dict]) -> tuple[str, str] | None:
    """(operation id, declared floor) of one valid entry, else None with a
    warning: an invalid entry invalidates itself only."""
    def bad(why: str) -> None:
        out.append(diag("warning", "invalid-entry", why, where))

    if not isinstance(entry, dict):
        bad("an operation entry must be an object")
        return None
    unknown = sorted(set(entry) - ENTRY_KEYS)
    if unknown:
        bad(f"unknown key(s) {unknown} invalidate the entry")
        return None
    if not valid_operation_id(entry.get("id")):
        bad("`id` must be mcp:<server>/<tool> or skill:<name>")
        return None
    if "description" in entry and not isinstance(entry["description"], str):
        bad("`description` must be a string")
        return None
    for key, values in (("band", BANDS), ("reversibility", REVERSIBILITY), ("scope", SCOPES), ("trust", TRUSTS)):
        if key in entry and (not isinstance(entry[key], str) or entry[key] not in values):
            bad(f"`{key}` must be one of {values} (exact spelling)")
            return None
    band = entry.get("band")
    axes = [entry.get("reversibility"), entry.get("scope"), entry.get("trust")]
    if band is None and all(a is None for a in axes):
        bad("an entry needs a band or at least one axis")
        return None
    floor = band
    if any(a is not None for a in axes):
        floor = band_max(band, project(*axes))
    return entry["id"], floor


def read_permissions(perms: Any, where: str, out: list[dict]) -> tuple[dict[str, str], str | None]:
    """Declarations and default floor of one permissions object. A broken
    object declares nothing and rejects nothing."""
    decls: dict[str, str] = {}
    if not isinstance(perms, dict):
        out.append(diag("warning", "invalid-permissions", "permissions must be an object", where))
        return decls, None
    for key in sorted(set(perms) - PERMISSIONS_KEYS):
        out.append(diag("warning", "unknown-key", f"unknown permissions key `{key}` ignored", f"{where}/{pointer_escape(key)}"))
    default = perms.get("default")
    if "default" in perms and default not in BANDS:
        out.append(diag("warning", "invalid-default", "`default` is not a band; ignored", f"{where}/default"))
        default = None
    ops = perms.get("operations", [])
    if not isinstance(ops, list):
        out.append(diag("warning", "invalid-operations", "`operations` must be an array", f"{where}/operations"))
        ops = []
    for i, entry in enumerate(ops):
        found = entry_floor(entry, f"{where}/operations/{i}", out)
        if found:
            op, floor = found
            decls[op] = band_max(decls.get(op), floor)  # duplicates: highest floor
    return decls, default


def validate_plugin(bundle: Any) -> dict:
    """A PluginReport for one PluginBundle."""
    manifest = bundle.get("manifest") if isinstance(bundle, dict) else None
    out, loaded = check_base_manifest(manifest)
    name = manifest.get("name") if isinstance(manifest, dict) else None
    report = {
        "name": name if isinstance(name, str) else None,
        "loaded": loaded,
        "diagnostics": out,
        "declarations": {},
        "default_floor": None,
    }
    if not loaded:
        return report  # a rejected plugin contributes nothing
    sources = []
    if "permissions" in manifest:
        sources.append((manifest["permissions"], "/permissions"))
    ext = manifest.get("extensions", {})
    if EXTENSION_NS in ext:
        sources.append((ext[EXTENSION_NS], "/extensions/" + pointer_escape(EXTENSION_NS)))
    for perms, where in sources:
        decls, default = read_permissions(perms, where, out)
        for op, floor in decls.items():
            report["declarations"][op] = band_max(report["declarations"].get(op), floor)
        report["default_floor"] = band_max(report["default_floor"], default)
    return report


# ------------------------------------------------------------------ protocol


class BadRequest(Exception):
    """The request is not a valid message of protocol v1."""


def expect_keys(body: dict, required: set[str], optional: set[str] = frozenset()) -> None:
    missing = sorted(required - set(body))
    unknown = sorted(set(body) - required - set(optional))
    if missing:
        raise BadRequest(f"missing field(s) {missing}")
    if unknown:
        raise BadRequest(f"unknown field(s) {unknown}")


def expect_bundle(value: Any, field: str) -> dict:
    if not isinstance(value, dict) or "manifest" not in value:
        raise BadRequest(f"`{field}` must be a plugin bundle with `manifest`")
    unknown = sorted(set(value) - {"manifest", "mcp", "skills", "tools"})
    if unknown:
        raise BadRequest(f"`{field}` has unknown field(s) {unknown}")
    return value


OPERATION_KEYS = {"plugin", "id", "kind", "arguments", "trust", "actor"}
OPERATION_KINDS = ["tool", "sql", "shell", "fetch"]

EVENT_FIELDS = {
    "untrusted_content": {"source", "content"},
    "sensitive_data": {"what"},
    "state_change": {"what"},
    "environment": {"vars"},
}


DECISIONS = {"auto": "allow", "soft-ack": "note", "escalate": "ask"}


class Adapter:
    """Per-session state and one method per request type."""

    def __init__(self) -> None:
        self.sessions: dict[str, dict] = {}
        self.handshaken = False

    def session(self, name: str) -> dict:
        return self.sessions.setdefault(name, {"plugins": [], "events": [], "floors": {}})

    def handle(self, message: dict) -> dict:
        """The answer body (with `type`) to one request whose envelope is valid."""
        kind = message["type"]
        body = {k: v for k, v in message.items() if k not in ("id", "session", "type")}
        handler: Callable[[str, dict], dict] | None = getattr(self, "on_" + kind, None)
        if kind != "handshake" and not self.handshaken:
            raise BadRequest("the first request must be `handshake`")
        if handler is None:
            return {"type": "unsupported", "message": f"`{kind}` is not implemented by this adapter"}
        return handler(message["session"], body)

    def on_handshake(self, _session: str, body: dict) -> dict:
        expect_keys(body, {"protocol_version", "harness"})
        version = body["protocol_version"]
        if not isinstance(version, int) or isinstance(version, bool):
            raise BadRequest("`protocol_version` must be an integer")
        if version != PROTOCOL_VERSION:
            return {"type": "error", "code": "protocol-version",
                    "message": f"this adapter speaks protocol {PROTOCOL_VERSION}, not {version}"}
        self.handshaken = True
        return {
            "type": "handshake",
            "protocol_version": PROTOCOL_VERSION,
            "implementation": IMPLEMENTATION,
            "capabilities": CAPABILITIES,
            "profile": PROFILE,
        }

    def on_load_plugins(self, session: str, body: dict) -> dict:
        expect_keys(body, {"plugins"})
        if not isinstance(body["plugins"], list):
            raise BadRequest("`plugins` must be an array")
        reports = [validate_plugin(expect_bundle(b, "plugins[]")) for b in body["plugins"]]
        self.session(session)["plugins"].extend(reports)
        return {"type": "loaded", "plugins": reports}

    def on_validate_manifest(self, _session: str, body: dict) -> dict:
        expect_keys(body, {"plugin"})
        return {"type": "validation", "plugin": validate_plugin(expect_bundle(body["plugin"], "plugin"))}

    def on_project(self, _session: str, body: dict) -> dict:
        expect_keys(body, set(), {"reversibility", "scope", "trust"})
        axes = []
        for key, values in (("reversibility", REVERSIBILITY), ("scope", SCOPES), ("trust", TRUSTS)):
            value = body.get(key)
            if value is not None and value not in values:
                raise BadRequest(f"`{key}` must be one of {values}, not {json.dumps(value)}")
            axes.append(value)
        return {"type": "projection", "band": project(*axes)}

    def on_record_event(self, session: str, body: dict) -> dict:
        expect_keys(body, {"event"})
        event = body["event"]
        if not isinstance(event, dict) or event.get("kind") not in EVENT_FIELDS:
            raise BadRequest(f"`event.kind` must be one of {sorted(EVENT_FIELDS)}")
        allowed = EVENT_FIELDS[event["kind"]]
        if set(event) - allowed - {"kind"}:
            raise BadRequest(f"unknown field(s) in a `{event['kind']}` event")
        if event["kind"] == "environment" and not isinstance(event.get("vars"), dict):
            raise BadRequest("an `environment` event needs `vars`")
        # Recorded for completeness; this adapter evaluates nothing, and an
        # environment variable never changes any answer it gives.
        self.session(session)["events"].append(event)
        return {"type": "ack"}

    def on_evaluate(self, session: str, body: dict) -> dict:
        """The effective band of an opaque tool call: its declared floor (or
        the undeclared policy), raised by the session's policy floors and by
        untrusted input. Payload inspectors (sql, shell, fetch) are
        capabilities this adapter does not claim."""
        expect_keys(body, {"operation"})
        return self.evaluate(session, body["operation"])

    def evaluate(self, session: str, op: Any) -> dict:
        if not isinstance(op, dict) or not isinstance(op.get("id"), str):
            raise BadRequest("`operation.id` must be a string")
        # Requests are strict (PROTOCOL.md §2): an unknown key or a
        # misspelled value is a bad request, never a guess.
        expect_keys(op, {"id"}, OPERATION_KEYS)
        for key, values in (("kind", OPERATION_KINDS), ("trust", TRUSTS)):
            if key in op and op[key] not in values:
                raise BadRequest(f"`operation.{key}` must be one of {values}")
        if op.get("kind", "tool") != "tool":
            return {"type": "unsupported", "message": f"no `{op['kind']}` inspector in this adapter"}
        state = self.session(session)
        declared = None
        floor = None
        for report in state["plugins"]:
            if report["loaded"] and report["name"] == op.get("plugin"):
                declared = band_max(declared, report["declarations"].get(op["id"]))
                floor = band_max(floor, report["default_floor"])
        # Undeclared: the client's own policy (escalate); `default` is only
        # a floor under it, so it can never lower anything.
        band = declared if declared is not None else band_max(PROFILE["undeclared_opaque_band"], floor)
        reasons = [f"declared floor {declared}" if declared else "undeclared: client policy"]
        policy = state["floors"].get(op["id"])
        if policy is not None and band_max(band, policy) != band:
            band, reasons = policy, reasons + [f"client policy floor {policy}"]
        ingested = any(e["kind"] == "untrusted_content" for e in state["events"])
        if op.get("trust", "untrusted" if ingested else "trusted") == "untrusted" and band == "auto":
            # auto needs trusted input (reversible ∧ local ∧ trusted).
            band, reasons = "soft-ack", reasons + ["untrusted input: never auto"]
        return {"type": "evaluation", "band": band, "decision": DECISIONS[band],
                "declared": declared, "reasons": reasons}

    def on_invoke(self, session: str, body: dict) -> dict:
        """A call without a token proceeds when its band needs no approval;
        tokens are a capability this adapter does not claim."""
        expect_keys(body, {"operation"}, {"token"})
        if "token" in body:
            return {"type": "unsupported", "message": "tokens are not implemented by this adapter"}
        verdict = self.evaluate(session, body["operation"])
        if verdict["type"] != "evaluation":
            return verdict
        return {"type": "invocation", "allowed": verdict["decision"] in ("allow", "note"),
                "band": verdict["band"], "decision": verdict["decision"], "reasons": verdict["reasons"]}

    def on_set_policy(self, session: str, body: dict) -> dict:
        expect_keys(body, set(), {"floors", "critical"})
        if body.get("critical"):
            return {"type": "unsupported", "message": "the critical floor is not implemented by this adapter"}
        floors = body.get("floors", {})
        if not isinstance(floors, dict) or any(b not in BANDS for b in floors.values()):
            raise BadRequest("`floors` maps operation ids to bands")
        mine = self.session(session)["floors"]
        for op, band in floors.items():
            mine[op] = band_max(mine.get(op), band)  # a policy only tightens
        return {"type": "ack"}

    def on_reset_session(self, session: str, body: dict) -> dict:
        expect_keys(body, set())
        self.sessions.pop(session, None)
        return {"type": "ack"}


def read_envelope(message: Any) -> tuple[int | None, str]:
    """The id and session to echo, as far as they can be read."""
    if not isinstance(message, dict):
        return None, ""
    raw_id = message.get("id")
    ok_id = isinstance(raw_id, int) and not isinstance(raw_id, bool) and 0 <= raw_id < 2**64
    session = message.get("session")
    return (raw_id if ok_id else None), (session if isinstance(session, str) else "")


def answer_line(adapter: Adapter, line: str) -> dict:
    """The answer to one input line. Never raises: whatever the line is, the
    answer is a valid response (an `error` when the line is not a request)."""
    try:
        message = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as e:
        return {"id": None, "session": "", "type": "error", "code": "bad-json", "message": str(e)}
    rid, session = read_envelope(message)

    def error(code: str, text: str) -> dict:
        return {"id": rid, "session": session, "type": "error", "code": code, "message": text}

    if not isinstance(message, dict):
        return error("bad-request", "a request is a JSON object")
    if rid is None:
        return error("bad-request", "`id` must be an integer in 0..2^64")
    if not isinstance(message.get("session"), str):
        return error("bad-request", "`session` must be a string")
    if not isinstance(message.get("type"), str):
        return error("bad-request", "`type` must be a string")
    try:
        body = adapter.handle(message)
    except BadRequest as e:
        return error("bad-request", f"invalid `{message['type']}`: {e}")
    except Exception as e:  # noqa: BLE001 - a bug here must not kill the child
        print(f"rbv_adapter: internal error: {e!r}", file=sys.stderr)
        return error("internal", repr(e))
    return {"id": rid, "session": session, **body}


def main() -> int:
    adapter = Adapter()
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = answer_line(adapter, line)
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()  # the harness waits for each line
    return 0


if __name__ == "__main__":
    sys.exit(main())
