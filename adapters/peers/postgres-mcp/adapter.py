#!/usr/bin/env python3
"""rbv peer adapter: postgres-mcp's restricted-mode SQL validator (PyPI
postgres-mcp, MIT).

In restricted mode postgres-mcp wraps its driver in `SafeSqlDriver`, whose
`_validate(query)` parses the SQL with pglast and raises unless every
statement and every node of it is on its allow-lists. The adapter calls that
validator and nothing else (no database: the read-only transaction that
restricted mode also opens is outside what the adapter can observe).

Verdict -> band: the query validates -> auto (allow); `_validate` raises ->
escalate with decision `deny` (restricted mode refuses; it has no approval
path). Run with the venv's Python (setup.sh makes it):

    adapters/peers/postgres-mcp/.venv/bin/python adapters/peers/postgres-mcp/adapter.py
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import json
import logging
import os
import sys
import types
from importlib.metadata import version
from typing import Any



def _load_validator() -> type:
    """`postgres_mcp.sql.safe_sql.SafeSqlDriver`, imported without running
    the package's `__init__` files: those start the MCP server machinery
    (mcp, instructor, an LLM client), which takes tens of seconds to import
    and is not part of the validator. The package directories are
    registered as bare namespace modules, so `safe_sql.py` and its relative
    imports load from the installed package as they are."""
    spec = importlib.util.find_spec("postgres_mcp")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("postgres-mcp is not installed: run adapters/peers/postgres-mcp/setup.sh")
    root = list(spec.submodule_search_locations)
    for name, path in (("postgres_mcp", root), ("postgres_mcp.sql", [os.path.join(p, "sql") for p in root])):
        module = types.ModuleType(name)
        module.__path__ = path
        sys.modules[name] = module
    # postgres-mcp and its dependencies log; stdout belongs to the protocol.
    stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        return importlib.import_module("postgres_mcp.sql.safe_sql").SafeSqlDriver
    finally:
        sys.stdout = stdout


logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
SafeSqlDriver = _load_validator()

NAME = "postgres-mcp"
REQUEST_TYPES = {
    "handshake", "load_plugins", "validate_manifest", "project", "record_event",
    "set_policy", "evaluate", "approve", "invoke", "diff_manifests", "reset_session",
}
KINDS = {"tool", "sql", "shell", "fetch"}
BANDS = ["auto", "soft-ack", "escalate"]
IMPLEMENTATION = {"name": NAME, "version": f"postgres-mcp@{version('postgres-mcp')} (pglast {version('pglast')})"}


# The fields of each request the adapter answers itself, and of the objects
# inside them (protocol/schema/requests/): anything else is an unknown
# field, which the protocol answers with `error` (RBV-PRO-002), also when
# the request would be answered `unsupported`.
ENVELOPE = {"id", "session", "type"}
REQUEST_FIELDS = {
    "handshake": {"protocol_version", "harness"},
    "reset_session": set(),
    "record_event": {"event"},
    "set_policy": {"critical", "floors"},
    "evaluate": {"operation"},
    "invoke": {"operation", "token"},
}
OPERATION_FIELDS = {"id", "plugin", "kind", "arguments", "trust", "actor", "dialect"}
EVENT_FIELDS = {
    "untrusted_content": {"content", "source"},
    "sensitive_data": {"what"},
    "state_change": {"what"},
    "environment": {"vars"},
}
TRUST = {"trusted", "untrusted"}


class BadRequest(Exception):
    pass


def check_fields(obj: dict, allowed: set[str], what: str) -> None:
    for k in obj:
        if k not in allowed:
            raise BadRequest(f"unknown field `{k}` in {what}")


def check_str_or_null(obj: dict, key: str, what: str) -> None:
    if obj.get(key) is not None and not isinstance(obj[key], str):
        raise BadRequest(f"`{what}.{key}` must be a string")


def check_event(ev: Any) -> None:
    """A `record_event` event as the schema has it (the peer ignores events)."""
    if not isinstance(ev, dict):
        raise BadRequest("`event` must be an object")
    kind = ev.get("kind")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise BadRequest(f"`event.kind` must be one of {', '.join(EVENT_FIELDS)} (got {json.dumps(kind)})")
    check_fields(ev, {"kind"} | EVENT_FIELDS[kind], "`event`")
    for k in EVENT_FIELDS[kind] - {"vars"}:
        check_str_or_null(ev, k, "event")
    if kind == "environment":
        vars_ = ev.get("vars")
        if not isinstance(vars_, dict) or not all(isinstance(v, str) for v in vars_.values()):
            raise BadRequest("`event.vars` must map names to strings")


def classify(sql: str) -> tuple[bool, list[str]]:
    """postgres-mcp's restricted-mode verdict: (accepted, reasons)."""
    driver = SafeSqlDriver(sql_driver=None)  # the validator never touches the driver
    try:
        driver._validate(sql)  # noqa: SLF001 - the validator restricted mode runs
    except ValueError as e:
        causes = []
        cause: BaseException | None = e
        while cause is not None:
            causes.append(str(cause)[:200])
            cause = cause.__cause__
        return False, [f"postgres-mcp restricted mode refuses: {' <- '.join(causes)}"]
    return True, ["postgres-mcp restricted mode accepts the query"]


def evaluate(body: dict) -> dict:
    op = body.get("operation")
    if not isinstance(op, dict):
        raise BadRequest("`operation` must be an object")
    check_fields(op, OPERATION_FIELDS, "`operation`")
    if not isinstance(op.get("id"), str):
        raise BadRequest("`operation.id` must be a string")
    for k in ("plugin", "actor", "dialect"):
        check_str_or_null(op, k, "operation")
    if op.get("trust") is not None and op["trust"] not in TRUST:
        raise BadRequest(f"`operation.trust` must be trusted or untrusted (got {json.dumps(op['trust'])})")
    if body["type"] == "invoke":
        check_str_or_null(body, "token", "invoke")
    kind = op.get("kind")
    if kind is None:
        kind = "tool"
    if not isinstance(kind, str) or kind not in KINDS:
        raise BadRequest(f"`operation.kind` must be one of {sorted(KINDS)}")
    if kind != "sql":
        return {"type": "unsupported", "message": f"{NAME} has no `{kind}` inspector"}
    args = op.get("arguments", {})
    if not isinstance(args, dict) or not isinstance(args.get("sql"), str):
        raise BadRequest("a `sql` operation needs `arguments.sql` as a string")
    accepted, reasons = classify(args["sql"])
    if accepted:
        return {"type": "evaluation", "band": "auto", "decision": "allow", "declared": None, "reasons": reasons}
    return {"type": "evaluation", "band": "escalate", "decision": "deny", "declared": None, "reasons": reasons}


def invocation(ev: dict, has_token: bool) -> dict:
    """What restricted mode accepts runs; what it refuses does not. It mints
    no tokens, so a token redeems nothing."""
    if ev["type"] != "evaluation":
        return ev
    reasons = list(ev["reasons"])
    if has_token:
        reasons.append("postgres-mcp has no approval tokens: nothing redeemed")
    return {"type": "invocation", "allowed": ev["decision"] == "allow", "band": ev["band"],
            "decision": ev["decision"], "reasons": reasons}


class Adapter:
    def __init__(self) -> None:
        self.handshaken = False
        # The client policy of each session (`set_policy` floors): glue
        # around the peer, the only state the adapter keeps.
        self.floors: dict[str, dict[str, str]] = {}

    def set_policy(self, session: str, msg: dict) -> dict:
        # An empty list asks for no critical floor: floors alone are the
        # base protocol every implementation answers.
        critical = msg.get("critical", [])
        if not isinstance(critical, list) or not all(isinstance(c, str) for c in critical):
            raise BadRequest("`critical` must be a list of operation ids")
        if critical != []:
            return {"type": "unsupported", "message": f"{NAME} has no critical floor"}
        floors = msg.get("floors", {})
        if not isinstance(floors, dict) or any(b not in BANDS for b in floors.values()):
            raise BadRequest("`floors` must map operation ids to bands")
        self.floors.setdefault(session, {}).update(floors)
        return {"type": "ack"}

    def floored(self, session: str, msg: dict, ev: dict) -> dict:
        floor = self.floors.get(session, {}).get(msg["operation"]["id"])
        if ev["type"] != "evaluation" or floor is None or BANDS.index(floor) <= BANDS.index(ev["band"]):
            return ev
        decision = {"auto": "allow", "soft-ack": "note", "escalate": "ask"}[floor]
        return {**ev, "band": floor, "decision": decision, "reasons": ev["reasons"] + [f"client policy: floor {floor}"]}

    def answer(self, line: str) -> dict:
        try:
            msg = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            return {"id": None, "session": "", "type": "error", "code": "bad-json", "message": str(e)}
        rid: Any = None
        session = ""
        if isinstance(msg, dict):
            raw = msg.get("id")
            if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < 2**64:
                rid = raw
            if isinstance(msg.get("session"), str):
                session = msg["session"]

        def error(code: str, text: str) -> dict:
            return {"id": rid, "session": session, "type": "error", "code": code, "message": text}

        if not isinstance(msg, dict):
            return error("bad-request", "a request is a JSON object")
        if rid is None:
            return error("bad-request", "`id` must be an integer in 0..2^64")
        if not isinstance(msg.get("session"), str):
            return error("bad-request", "`session` must be a string")
        kind = msg.get("type")
        if not isinstance(kind, str):
            return error("bad-request", "`type` must be a string")
        try:
            if kind in REQUEST_FIELDS:
                check_fields(msg, ENVELOPE | REQUEST_FIELDS[kind], "the request")
            if kind == "handshake":
                if msg.get("protocol_version") != 1:
                    return error("protocol-version", "this adapter speaks protocol version 1")
                self.handshaken = True
                body = {"type": "handshake", "protocol_version": 1, "implementation": IMPLEMENTATION,
                        "capabilities": ["sql"], "profile": {}}
            elif not self.handshaken:
                return error("bad-request", "the first request must be `handshake`")
            elif kind not in REQUEST_TYPES:
                body = {"type": "unsupported", "message": f"unknown request type `{kind}`"}
            elif kind == "reset_session":
                self.floors.pop(session, None)
                body = {"type": "ack"}
            elif kind == "record_event":
                check_event(msg.get("event"))
                body = {"type": "ack"}  # no Rule-of-Two here; events change nothing
            elif kind == "set_policy":
                body = self.set_policy(session, msg)
            elif kind == "evaluate":
                body = self.floored(session, msg, evaluate(msg))
            elif kind == "invoke":
                body = invocation(self.floored(session, msg, evaluate(msg)), "token" in msg)
            else:
                body = {"type": "unsupported", "message": f"{NAME} has no notion of `{kind}`"}
        except BadRequest as e:
            return error("bad-request", f"invalid `{kind}`: {e}")
        except Exception as e:  # noqa: BLE001 - a bug here must not kill the child
            print(f"{NAME}: internal error: {e!r}", file=sys.stderr)
            return error("internal", repr(e))
        return {"id": rid, "session": session, **body}


def main() -> int:
    adapter = Adapter()
    # Lines end at "\n" only (universal newlines would split at a lone "\r"),
    # and blank is spaces and tabs only (PROTOCOL.md §1): str.strip() also
    # empties U+000B, U+001C or U+00A0, lines that must be answered.
    for line in io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="\n"):
        if line.rstrip("\n").removesuffix("\r").strip(" \t"):
            sys.stdout.write(json.dumps(adapter.answer(line), ensure_ascii=False) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
