"""Plugin manifests: the Agent Plugins base specification (spec/), then the
risk-band permissions object (PROTOCOL.md §10.2)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, cast

from rbv_adapter import BANDS, band_max
from rbv_adapter.messages import Band, Diagnostic, PluginReport

from .projection import project

SCHEMAS = {
    "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json": "1.0.0",
    "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json": "1.1.0",
}
NAME = re.compile(r"(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?")
STRINGS = {"1.0.0": ("version", "description", "homepage", "repository", "license"),
           "1.1.0": ("version", "description", "homepage", "repository", "license", "displayName", "icon")}
NAMESPACE = "org.agent-plugins.permissions"
AXES: dict[str, tuple[str, ...]] = {
    "band": BANDS,
    "reversibility": ("reversible", "hard-to-reverse", "irreversible"),
    "scope": ("local", "shared-remote", "external"),
    "trust": ("trusted", "untrusted"),
}
# A component of an operation id: no separators, blanks or control characters.
COMPONENT = re.compile(r"[^\s/:\x00-\x1f\x7f]+")


@dataclass
class Declaration:
    floor: Band
    # The declared effect, when axes were given: for Rule-of-Two's state change.
    reversibility: str | None = None
    scope: str | None = None
    trust: str | None = None


@dataclass
class Plugin:
    report: PluginReport
    version: str | None = None
    declarations: dict[str, Declaration] = field(default_factory=dict)


def _diag(severity: str, code: str, message: str, pointer: str) -> Diagnostic:
    return cast(Diagnostic, {"severity": severity, "code": code, "message": message, "pointer": pointer})


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def valid_id(value: object) -> bool:
    if not isinstance(value, str):
        return False
    if value.startswith("mcp:"):
        server, slash, tool = value[4:].partition("/")
        return bool(slash) and bool(COMPONENT.fullmatch(server)) and bool(COMPONENT.fullmatch(tool))
    if value.startswith("skill:"):
        return bool(COMPONENT.fullmatch(value[6:]))
    return False


def base_diagnostics(manifest: object) -> list[Diagnostic]:
    if not isinstance(manifest, dict):
        return [_diag("error", "not-object", "plugin.json must be a JSON object", "")]
    out: list[Diagnostic] = []
    schema = manifest.get("$schema")
    version = SCHEMAS.get(schema) if isinstance(schema, str) else None
    if version is None:
        out.append(_diag("error", "schema", "`$schema` must be a canonical Agent Plugins schema id", "/$schema"))
        version = "1.0.0"
    name = manifest.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 64 or not NAME.fullmatch(name):
        out.append(_diag("error", "name", "`name` breaks the name rules", "/name"))
    for key in STRINGS[version]:
        if key in manifest and not isinstance(manifest[key], str):
            out.append(_diag("error", "type", f"`{key}` must be a string", "/" + key))
    if "author" in manifest:
        a = manifest["author"]
        if not isinstance(a, dict) or any(k not in ("name", "email", "url") or not isinstance(v, str) for k, v in a.items()):
            out.append(_diag("error", "type", "`author` is an object of name, email, url strings", "/author"))
    if "keywords" in manifest:
        kw = manifest["keywords"]
        if not isinstance(kw, list) or any(not isinstance(k, str) for k in kw):
            out.append(_diag("error", "type", "`keywords` must be an array of strings", "/keywords"))
    if "extensions" in manifest:
        ext = manifest["extensions"]
        if not isinstance(ext, dict) or any(not isinstance(v, dict) for v in ext.values()):
            out.append(_diag("error", "type", "`extensions` maps namespaces to objects", "/extensions"))
    known = {"$schema", "name", "author", "keywords", "extensions", *STRINGS[version]}
    for key in manifest:
        if key not in known:
            out.append(_diag("warning", "unknown-field", f"unknown top-level field `{key}` ignored", "/" + _escape(key)))
    return out


def read_entry(entry: object, where: str, out: list[Diagnostic], htr: Band) -> tuple[str, Declaration] | None:
    def invalid(why: str) -> None:
        out.append(_diag("warning", "invalid-entry", why + "; the operation stays undeclared", where))

    if not isinstance(entry, dict):
        invalid("an entry must be an object")
        return None
    extra = [k for k in entry if k not in ("id", "description", *AXES)]
    if extra:
        invalid(f"unknown key(s) {', '.join(sorted(extra))}")
        return None
    if not valid_id(entry.get("id")):
        invalid("`id` must be mcp:<server>/<tool> or skill:<name>")
        return None
    if "description" in entry and not isinstance(entry["description"], str):
        invalid("`description` must be a string")
        return None
    for key, values in AXES.items():
        if key in entry and entry[key] not in values:
            invalid(f"`{key}` must be one of {', '.join(values)}")
            return None
    if not any(k in entry for k in AXES):
        invalid("an entry needs a band or an axis")
        return None
    axes = [entry.get("reversibility"), entry.get("scope"), entry.get("trust")]
    floor: Band | None = entry.get("band")
    if any(a is not None for a in axes):
        floor = band_max(floor, project(axes[0], axes[1], axes[2], htr))
    assert floor is not None
    return entry["id"], Declaration(floor, *axes)


def load(bundle: Any, profile: dict[str, Any]) -> Plugin:
    manifest = bundle.get("manifest") if isinstance(bundle, dict) else None
    diags = base_diagnostics(manifest)
    loaded = not any(d["severity"] == "error" for d in diags)
    name = manifest.get("name") if isinstance(manifest, dict) else None
    report: PluginReport = {"name": name if isinstance(name, str) else None, "loaded": loaded,
                            "diagnostics": diags, "declarations": {}, "default_floor": None}
    plugin = Plugin(report)
    if not loaded:
        return plugin
    assert isinstance(manifest, dict)
    version = manifest.get("version")
    plugin.version = version if isinstance(version, str) else None
    htr: Band = profile["hard_to_reverse_local"]
    placement = profile["permissions_placement"]
    places: list[tuple[object, str]] = []
    if placement in ("top-level", "both") and "permissions" in manifest:
        places.append((manifest["permissions"], "/permissions"))
    ext = manifest.get("extensions")
    if placement in ("extension", "both") and isinstance(ext, dict) and NAMESPACE in ext:
        places.append((ext[NAMESPACE], "/extensions/" + _escape(NAMESPACE)))
    default: Band | None = None
    for perms, where in places:
        if not isinstance(perms, dict):
            diags.append(_diag("warning", "invalid-permissions", "the permissions object is not an object", where))
            continue
        for key in perms:
            if key not in ("default", "operations"):
                diags.append(_diag("warning", "unknown-key", f"unknown permissions key `{key}` ignored",
                                   f"{where}/{_escape(key)}"))
        if "default" in perms:
            if perms["default"] in BANDS:
                default = band_max(default, perms["default"])
            else:
                diags.append(_diag("warning", "invalid-default", "`default` is not a band; ignored", where + "/default"))
        ops = perms.get("operations", [])
        if not isinstance(ops, list):
            diags.append(_diag("warning", "invalid-operations", "`operations` must be an array", where + "/operations"))
            continue
        for i, entry in enumerate(ops):
            found = read_entry(entry, f"{where}/operations/{i}", diags, htr)
            if found is None:
                continue
            op, decl = found
            old = plugin.declarations.get(op)
            if old is None or band_max(old.floor, decl.floor) != old.floor:
                plugin.declarations[op] = decl
    report["declarations"] = {op: d.floor for op, d in plugin.declarations.items()}
    report["default_floor"] = default
    return plugin
