"""Two versions of one plugin: what changed in its declared floors, and
whether that breaks the installing user's contract (PROTOCOL.md §10.9)."""

from __future__ import annotations

import re
from typing import Any

from rbv_adapter import BANDS
from rbv_adapter.messages import BandChange, DiffAnswer

from .manifest import load

SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)


def semver(v: object) -> tuple[int, int, int, str | None] | None:
    if not isinstance(v, str):
        return None
    m = SEMVER.fullmatch(v)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)


def diff(old_bundle: Any, new_bundle: Any, profile: dict[str, Any]) -> DiffAnswer:
    old, new = load(old_bundle, profile), load(new_bundle, profile)
    a, b = old.report.get("declarations") or {}, new.report.get("declarations") or {}
    changes: list[BandChange] = []
    lowered = False
    for op in sorted(set(a) | set(b)):
        before, after = a.get(op), b.get(op)
        if before == after:
            continue
        changes.append({"operation": op, "old": before, "new": after})
        if before is not None and (after is None or BANDS.index(after) < BANDS.index(before)):
            lowered = True
    da, db = old.report.get("default_floor"), new.report.get("default_floor")
    if da is not None and (db is None or BANDS.index(db) < BANDS.index(da)):
        lowered = True  # the floor of every unlisted operation went down
    va, vb = semver(old.version), semver(new.version)
    major_up = False
    if va is None or vb is None:
        change = "unknown"
    else:
        if va[0] != vb[0]:
            change = "major"
        elif va[1] != vb[1]:
            change = "minor"
        elif va[2] != vb[2]:
            change = "patch"
        else:
            change = "none"
        # SemVer §4: below 1.0.0 anything may change, so the leftmost
        # non-zero component is the one that announces a break.
        def breaking_part(v: tuple[int, int, int, str | None]) -> tuple[int, ...]:
            if v[0] > 0:
                return (v[0],)
            if v[1] > 0:
                return (0, v[1])
            return (0, 0, v[2])
        major_up = vb[:3] > va[:3] and breaking_part(vb) != breaking_part(va)
    return {"breaking": lowered and not major_up, "version_change": change, "changes": changes}
