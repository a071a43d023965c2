"""Lossless JSON for the rbv protocol (PROTOCOL.md §2.1).

Every number is read as a :class:`JsonNumber`: a :class:`decimal.Decimal`
that also keeps the exact text it was written with, so ids up to 2^64 - 1
come back digit for digit and ``1``, ``1.0`` and ``1e0`` stay three different
argument values for token binding. ``dumps`` writes numbers by that text.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

__all__ = ["JsonNumber", "JsonError", "loads", "dumps", "canonical"]

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")


class JsonNumber(Decimal):
    """A JSON number: its exact value as a Decimal, and its source ``text``."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> JsonNumber:
        if not isinstance(text, str) or not _NUMBER.match(text):
            raise ValueError(f"not a JSON number: {text!r}")
        self = super().__new__(cls, text)
        self.text = text
        return self

    def is_integer_text(self) -> bool:
        """True when written without a fraction or exponent (``7``, not ``7.0``)."""
        return bool(_INTEGER.match(self.text))

    def __repr__(self) -> str:
        return f"JsonNumber({self.text!r})"


class JsonError(ValueError):
    """The text is not JSON (RFC 8259)."""


def _no_constants(name: str) -> Any:
    raise JsonError(f"{name} is not JSON")


def loads(text: str) -> Any:
    """Parses one JSON text strictly (no NaN or Infinity); numbers become
    :class:`JsonNumber`. Raises :class:`JsonError`."""
    try:
        return json.loads(text, parse_int=JsonNumber, parse_float=JsonNumber, parse_constant=_no_constants)
    except JsonError:
        raise
    except RecursionError:
        raise JsonError("nested too deeply") from None
    except (ValueError, TypeError) as e:
        raise JsonError(str(e)) from None


def _string(s: str) -> str:
    # ASCII-only output: a lone surrogate cannot break the UTF-8 line.
    return json.dumps(s, ensure_ascii=True)


def dumps(value: Any) -> str:
    """One line of JSON. JsonNumbers are written as their text, other
    Decimals as ``str()``; ints as digits; floats must be finite."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, JsonNumber):
        return value.text
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value} has no JSON form")
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value, allow_nan=False)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"a {type(value).__name__} has no JSON form")


def canonical(value: Any) -> str:
    """Canonical text: RFC 8785 key order (UTF-16 code units), no
    whitespace, numbers by their exact text (as rbv's reference binds them,
    reference/src/canonical.rs). Strings are never normalized."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(f"{_string(k)}:{canonical(value[k])}" for k in keys) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    return dumps(value)
