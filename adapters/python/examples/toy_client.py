"""A toy client permission layer: what a client team already has. The
adapter next to it (toy_adapter.py) only connects it to rbv through the
SDK. It implements the semantics rbv certifies for `manifest`, `projection`
and `tokens` (PROTOCOL.md §10.2, §10.3, §10.6-§10.8) for opaque tool calls;
it has no SQL, shell or fetch inspector."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any, cast

from rbv_adapter import DECISION_OF, authorization_key, band_max
from rbv_adapter.messages import Band, Operation, PluginReport

# ------------------------------------------------------------------ vocabulary

BANDS = ["auto", "soft-ack", "escalate"]
REVERSIBILITY = ["reversible", "hard-to-reverse", "irreversible"]
SCOPES = ["local", "shared-remote", "external"]
TRUSTS = ["trusted", "untrusted"]


def project(reversibility: str | None, scope: str | None, trust: str | None,
            hard_to_reverse_local: Band = "escalate") -> Band:
    """R x S x T -> band, all 18 combinations (PROTOCOL.md §10.3).

    An absent axis is unknown and counts as its most dangerous value.
    """
    r = reversibility or "irreversible"
    s = scope or "external"
    t = trust or "untrusted"
    if r == "irreversible" or s == "external":
        return "escalate"
    if r == "hard-to-reverse":
        # The proposal leaves hard-to-reverse local open: the profile says.
        return hard_to_reverse_local if s == "local" else "escalate"
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


def entry_floor(entry: Any, where: str, out: list[dict], htr: Band) -> tuple[str, Band | None] | None:
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
        floor = band_max(band, project(axes[0], axes[1], axes[2], htr))
    return entry["id"], floor


def read_permissions(perms: Any, where: str, out: list[dict], htr: Band) -> tuple[dict[str, Band], Band | None]:
    """Declarations and default floor of one permissions object. A broken
    object declares nothing and rejects nothing."""
    decls: dict[str, Band] = {}
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
        found = entry_floor(entry, f"{where}/operations/{i}", out, htr)
        if found:
            op, floor = found
            decls[op] = band_max(decls.get(op), floor) or floor  # type: ignore[assignment] # duplicates: highest
    return decls, default


def validate_plugin(bundle: Any, profile: dict[str, Any]) -> PluginReport:
    """A PluginReport for one PluginBundle, read as the profile says."""
    manifest = bundle.get("manifest") if isinstance(bundle, dict) else None
    out, loaded = check_base_manifest(manifest)
    name = manifest.get("name") if isinstance(manifest, dict) else None
    report: dict[str, Any] = {
        "name": name if isinstance(name, str) else None,
        "loaded": loaded,
        "diagnostics": out,
        "declarations": {},
        "default_floor": None,
    }
    if not loaded:
        return cast(PluginReport, report)  # a rejected plugin contributes nothing
    assert isinstance(manifest, dict)
    sources: list[tuple[Any, str]] = []
    placement = profile["permissions_placement"]
    if placement != "extension" and "permissions" in manifest:
        sources.append((manifest["permissions"], "/permissions"))
    ext = manifest.get("extensions", {})
    if placement != "top-level" and EXTENSION_NS in ext:
        sources.append((ext[EXTENSION_NS], "/extensions/" + pointer_escape(EXTENSION_NS)))
    for perms, where in sources:
        decls, default = read_permissions(perms, where, out, profile["hard_to_reverse_local"])
        for op, floor in decls.items():
            report["declarations"][op] = band_max(report["declarations"].get(op), floor)
        report["default_floor"] = band_max(report["default_floor"], default)
    return cast(PluginReport, report)


# ------------------------------------------------------------------ sessions


class Session:
    """One session of the client: loaded plugins, events, policy, tokens."""

    def __init__(self, profile: dict[str, Any]) -> None:
        self.profile = profile
        self.plugins: list[PluginReport] = []
        self.ingested_untrusted = False
        self.floors: dict[str, Band] = {}
        # A secret per session: a token minted here means nothing elsewhere,
        # and a reset session gets a new one, voiding what it minted.
        self.secret = secrets.token_bytes(32)
        self.live: set[str] = set()
        self.counter = 0

    def evaluate(self, op: Operation) -> dict[str, Any]:
        """The effective band of an opaque tool call (PROTOCOL.md §10.6)."""
        declared: Band | None = None
        default: Band | None = None
        for report in self.plugins:
            if report["loaded"] and report.get("name") == op.get("plugin"):
                declared = band_max(declared, report.get("declarations", {}).get(op["id"]))
                default = band_max(default, report.get("default_floor"))
        # Undeclared: the client's own policy; `default` only ever raises it.
        band = declared or band_max(self.profile["undeclared_opaque_band"], default)
        assert band is not None
        reasons = [f"manifest: declared floor {declared}" if declared else f"undeclared: client policy {band}"]
        floor = self.floors.get(op["id"])
        if floor is not None and band_max(band, floor) != band:
            band = floor
            reasons.append(f"policy: floor {floor}")
        trust = op.get("trust") or ("untrusted" if self.ingested_untrusted else "trusted")
        if trust == "untrusted" and band == "auto":
            band = "soft-ack"
            reasons.append("untrusted input is never auto")
        signature = hashlib.sha256(authorization_key(op).encode("utf-8", "surrogatepass")).hexdigest()
        return {"band": band, "decision": DECISION_OF[band], "declared": declared,
                "reasons": reasons, "signature": signature}

    def _mac(self, nonce: str, op: Operation) -> str:
        data = f"{nonce}\0{authorization_key(op)}".encode("utf-8", "surrogatepass")
        return hmac.new(self.secret, data, hashlib.sha256).hexdigest()

    def mint(self, op: Operation) -> str:
        """A single-use token for exactly this call."""
        self.counter += 1
        nonce = str(self.counter)
        self.live.add(nonce)
        return f"tok1.{nonce}.{self._mac(nonce, op)}"

    def redeem(self, token: str, op: Operation) -> str:
        """Redeems a token for exactly this call: "redeemed" once, then never."""
        m = re.fullmatch(r"tok1\.([0-9]+)\.([0-9a-f]{64})", token)
        if not m:
            return "malformed"
        if not hmac.compare_digest(self._mac(m.group(1), op), m.group(2)):
            return "not for this call in this session"
        if m.group(1) not in self.live:
            return "already used"
        self.live.discard(m.group(1))
        return "redeemed"
