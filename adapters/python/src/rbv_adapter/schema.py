"""A checker for the JSON Schema (draft 2020-12) keywords rbv's protocol
schemas use: type, const, enum, minimum, format (uint32, date-time),
pattern (unanchored, as ``re.search``), properties, required,
additionalProperties, items, anyOf, oneOf and local ``$ref``s into
``$defs``. A schema with any other keyword is refused when it
is loaded, so that a future schema is never half-checked."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

from .lossless import JsonNumber

__all__ = ["Schema", "schema_for", "REQUEST_TYPES", "RESPONSE_TYPES"]

REQUEST_TYPES = (
    "handshake", "load_plugins", "validate_manifest", "project", "record_event", "set_policy",
    "evaluate", "approve", "invoke", "diff_manifests", "reset_session",
)
RESPONSE_TYPES = (
    "handshake", "loaded", "validation", "projection", "ack", "evaluation", "approval",
    "invocation", "diff", "error", "unsupported",
)

_KNOWN = {
    "$schema", "$defs", "$ref", "title", "description", "default", "type", "const", "enum",
    "minimum", "format", "pattern", "properties", "required", "additionalProperties", "items", "anyOf", "oneOf",
}
_DATE_TIME = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?"
    r"([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)\Z"
)
_CONST_MISS = ": must be "


def _check_keywords(schema: Any, where: str) -> None:
    if isinstance(schema, bool):
        return
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"{where}: unsupported schema keyword(s) {sorted(unknown)}")
    subs = [*schema.get("$defs", {}).values(), *schema.get("properties", {}).values(),
            *schema.get("anyOf", []), *schema.get("oneOf", [])]
    for key in ("additionalProperties", "items"):
        if isinstance(schema.get(key), dict):
            subs.append(schema[key])
    for sub in subs:
        _check_keywords(sub, where)


def _type_of(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, JsonNumber):
        return "integer" if v.is_integer_text() else "number"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, (float, Decimal)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def _equal(a: Any, b: Any) -> bool:
    numeric_a = _type_of(a) in ("integer", "number")
    numeric_b = _type_of(b) in ("integer", "number")
    if numeric_a or numeric_b:
        return numeric_a and numeric_b and Decimal(a) == Decimal(b)
    return type(a) is type(b) and a == b


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _closest(tries: list[list[str]]) -> list[str]:
    # The alternative the value most likely meant: its discriminating `const`
    # matched (an event's `kind`), then the fewest errors.
    return min(tries, key=lambda o: len(o) + (10**6 if any(_CONST_MISS in e for e in o) else 0))


class Schema:
    """One schema file, ready to check values read by :func:`rbv_adapter.loads`."""

    def __init__(self, schema: dict[str, Any], name: str = "schema") -> None:
        _check_keywords(schema, name)
        self.root = schema
        self.name = name

    def errors(self, value: Any) -> list[str]:
        """The violations of ``value``, each ``pointer: what``; empty when valid."""
        out: list[str] = []
        self._check(self.root, value, "", out)
        return out

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            m = re.fullmatch(r"#/\$defs/(.+)", schema["$ref"])
            if not m or m.group(1) not in self.root.get("$defs", {}):
                raise ValueError(f"{self.name}: unresolvable $ref {schema['$ref']}")
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**self.root["$defs"][m.group(1)], **rest}
        return schema

    def _check(self, schema: Any, v: Any, at: str, out: list[str]) -> None:
        if schema is True:
            return
        if schema is False:
            out.append(f"{at or '/'}: not allowed")
            return
        schema = self._resolve(schema)
        here = at or "/"
        t = _type_of(v)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(ty == t or (ty == "number" and t == "integer") for ty in types):
                out.append(f"{here}: {t} is not {' or '.join(types)}")
                return
        if "const" in schema and not _equal(v, schema["const"]):
            out.append(f"{here}{_CONST_MISS}{json.dumps(schema['const'])}")
        if "enum" in schema and not any(_equal(v, e) for e in schema["enum"]):
            shown = json.dumps(v) if isinstance(v, str) else t
            out.append(f"{here}: {shown} is not one of {', '.join(json.dumps(e) for e in schema['enum'])}")
        if t in ("integer", "number") and "minimum" in schema and Decimal(v) < Decimal(schema["minimum"]):
            out.append(f"{here}: below the minimum {schema['minimum']}")
        if schema.get("format") == "uint32" and t == "integer" and Decimal(v) >= 2**32:
            out.append(f"{here}: not a uint32")
        if schema.get("format") == "date-time" and t == "string" and not _DATE_TIME.match(v):
            out.append(f"{here}: not an RFC 3339 date-time")
        if "pattern" in schema and t == "string" and not re.search(schema["pattern"], v):
            out.append(f"{here}: {json.dumps(v)} does not match {schema['pattern']}")
        if t == "object":
            for key in schema.get("required", []):
                if key not in v:
                    out.append(f"{here}: missing `{key}`")
            props = schema.get("properties", {})
            extra = schema.get("additionalProperties")
            for key, item in v.items():
                sub = f"{at}/{_pointer(key)}"
                if key in props:
                    self._check(props[key], item, sub, out)
                elif extra is False:
                    out.append(f"{sub}: unknown field `{key}`")
                elif extra is not None:
                    self._check(extra, item, sub, out)
        if t == "array" and "items" in schema:
            for i, item in enumerate(v):
                self._check(schema["items"], item, f"{at}/{i}", out)
        for key in ("anyOf", "oneOf"):
            if key not in schema:
                continue
            tries = []
            for alt in schema[key]:
                o: list[str] = []
                self._check(alt, v, at, o)
                tries.append(o)
            passing = sum(1 for o in tries if not o)
            if passing == 0:
                out.extend(_closest(tries))
            elif key == "oneOf" and passing > 1:
                out.append(f"{here}: matches {passing} alternatives, not exactly one")


@cache
def schema_for(direction: str, message_type: str) -> Schema:
    """The schema of one message type from the package's copy of
    ``protocol/schema/`` (a test keeps the copy identical)."""
    if direction not in ("requests", "responses"):
        raise ValueError(direction)
    text = resources.files(__package__).joinpath("schema", direction, f"{message_type}.json").read_text("utf-8")
    return Schema(json.loads(text), f"{direction}/{message_type}")
