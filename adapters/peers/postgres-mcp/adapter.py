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


class BadRequest(Exception):
    pass


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
    if not isinstance(op, dict) or not isinstance(op.get("id"), str):
        raise BadRequest("`operation` must be an object with a string `id`")
    kind = op.get("kind", "tool")
    if kind not in KINDS:
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
        if msg.get("critical", []) != []:
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
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(adapter.answer(line), ensure_ascii=False) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
