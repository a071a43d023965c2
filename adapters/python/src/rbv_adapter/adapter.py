"""The protocol loop: an adapter is a subclass with decision methods.

The SDK owns what the protocol decides (PROTOCOL.md): bounded line framing,
lossless numbers, the envelope (ids echoed digit for digit), strict request
checking against ``protocol/schema/``, the handshake, per-session state and
``reset_session``, ``unsupported`` for request types without a method, and
``error`` answers that keep the process serving. Requests are answered in
the order they arrive; the next line is read only when the previous answer
is written and flushed, so pipelined requests simply wait in the pipe.
"""

from __future__ import annotations

import sys
import traceback
from typing import IO, Any, Callable, ClassVar, Generic, TypeVar

from .lossless import JsonError, JsonNumber, canonical, dumps, loads
from .messages import Band, Decision, ImplementationInfo, Operation, UnsupportedAnswer
from .schema import REQUEST_TYPES, schema_for

__all__ = [
    "Adapter", "BadRequest", "Context", "unsupported", "band_max", "authorization_key",
    "PROTOCOL_VERSION", "BANDS", "CAPABILITIES", "DECISION_OF", "DEFAULT_PROFILE", "DEFAULT_MAX_LINE_BYTES",
]

PROTOCOL_VERSION = 1
BANDS: tuple[Band, ...] = ("auto", "soft-ack", "escalate")
CAPABILITIES = (
    "manifest", "projection", "rule-of-two", "sql", "shell", "fetch",
    "tokens", "audit", "versioning", "critical-floor", "workspace",
)
DECISION_OF: dict[Band, Decision] = {"auto": "allow", "soft-ack": "note", "escalate": "ask"}
DEFAULT_PROFILE: dict[str, Any] = {
    "permissions_placement": "both",
    "rule_of_two_threshold": 2,
    "hard_to_reverse_local": "escalate",
    "undeclared_opaque_band": "escalate",
}
DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024

# The request types a subclass answers with a method of the same name, and
# the answer type a returned body gets when it names none.
_ANSWER_TYPE = {
    "load_plugins": "loaded",
    "validate_manifest": "validation",
    "project": "projection",
    "record_event": "ack",
    "set_policy": "ack",
    "evaluate": "evaluation",
    "approve": "approval",
    "invoke": "invocation",
    "diff_manifests": "diff",
}
# The methods each capability's cases need (docs/case-format.md).
_NEEDED = {
    "manifest": ("load_plugins", "validate_manifest", "evaluate"),
    "projection": ("project",),
    "rule-of-two": ("record_event", "evaluate"),
    "sql": ("evaluate",),
    "shell": ("evaluate",),
    "fetch": ("evaluate",),
    "tokens": ("approve", "invoke"),
    "audit": ("evaluate",),
    "versioning": ("diff_manifests",),
    "critical-floor": ("set_policy",),
    "workspace": ("set_policy", "evaluate"),
}
_U64 = 2**64

State = TypeVar("State")


class BadRequest(Exception):
    """Raise from a method to answer ``error`` with code ``bad-request``."""


def unsupported(message: str) -> UnsupportedAnswer:
    """An honest "not implemented here" answer."""
    return {"type": "unsupported", "message": message}


def band_max(a: Band | None, b: Band | None) -> Band | None:
    """The higher of two bands; ``None`` is no band."""
    if a is None:
        return b
    if b is None:
        return a
    return a if BANDS.index(a) >= BANDS.index(b) else b


def authorization_key(op: Operation) -> str:
    """The canonical plugin + id + every argument value of a call
    (PROTOCOL.md §6), numbers by their text: bind approval tokens to it."""
    return canonical({"arguments": op.get("arguments", {}), "id": op["id"], "plugin": op.get("plugin")})


class Context(Generic[State]):
    """What a method knows besides the request body."""

    __slots__ = ("session", "id", "state")

    def __init__(self, session: str, rid: int, state: State) -> None:
        self.session = session
        self.id = rid
        self.state = state


def _read_envelope(msg: Any) -> tuple[JsonNumber | None, str]:
    """The id and session to echo, as far as they can be read (§2)."""
    if not isinstance(msg, dict):
        return None, ""
    rid = msg.get("id")
    # `-0` is an integer equal to 0, but not an id rbv sent: refused by text.
    ok = isinstance(rid, JsonNumber) and rid.is_integer_text() and not rid.text.startswith("-") and int(rid) < _U64
    session = msg.get("session")
    return (rid if ok else None), (session if isinstance(session, str) else "")


class Adapter(Generic[State]):
    """Subclass it: set ``implementation``, ``capabilities`` and ``profile``,
    implement ``new_session`` and a method per request type you support,
    each ``(self, request, ctx) -> answer body``. A request type without a
    method is answered ``unsupported``. Then call :meth:`serve`."""

    implementation: ClassVar[ImplementationInfo]
    capabilities: ClassVar[list[str]] = []
    profile: ClassVar[dict[str, Any]] = {}
    max_line_bytes: ClassVar[int] = DEFAULT_MAX_LINE_BYTES

    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        name = getattr(self, "implementation", {}).get("name", type(self).__name__)
        self.log = log or (lambda text: print(f"{name}: {text}", file=sys.stderr, flush=True))
        if not isinstance(getattr(self, "implementation", None), dict):
            raise TypeError("an adapter needs implementation = {'name': ..., 'version': ...}")
        self.sessions: dict[str, State] = {}
        self.handshaken = False
        for cap in self.capabilities:
            missing = [m for m in _NEEDED.get(cap, ()) if not callable(getattr(self, m, None))]
            if cap not in CAPABILITIES:
                self.log(f"warning: `{cap}` is not a capability rbv knows")
            elif missing:
                self.log(f"warning: claims `{cap}` without method(s) {', '.join(missing)}: its cases will error")

    def new_session(self, session: str) -> State:
        """A fresh state for a session (override it); ``{}`` by default."""
        return {}  # type: ignore[return-value]

    def reset(self, session: str, old: State | None) -> None:
        """Called after ``reset_session`` dropped a session's state."""

    def state(self, session: str) -> State:
        if session not in self.sessions:
            self.sessions[session] = self.new_session(session)
        return self.sessions[session]

    # ------------------------------------------------------------ protocol

    def answer_line(self, line: str) -> str:
        """The answer line (without newline) to one request line. Never
        raises: a line that is not a valid request gets an ``error``."""
        try:
            msg = loads(line)
        except JsonError as e:
            return self._write(None, "", {"type": "error", "code": "bad-json", "message": str(e)})
        rid, session = _read_envelope(msg)

        def error(code: str, message: str) -> str:
            return self._write(rid, session, {"type": "error", "code": code, "message": message})

        if not isinstance(msg, dict):
            return error("bad-request", "a request is a JSON object")
        if rid is None:
            return error("bad-request", "`id` must be an integer 0 <= id < 2^64")
        if not isinstance(msg.get("session"), str):
            return error("bad-request", "`session` must be a string")
        kind = msg.get("type")
        if not isinstance(kind, str):
            return error("bad-request", "`type` must be a string")
        if kind not in REQUEST_TYPES:
            return self._write(rid, session, dict(unsupported(f"`{kind}` is not a request type of protocol v1")))
        violations = schema_for("requests", kind).errors(msg)
        if violations:
            return error("bad-request", f"invalid `{kind}`: {'; '.join(violations)}")
        if kind == "handshake":
            return self._write(rid, session, self._handshake(msg))
        if not self.handshaken:
            return error("no-handshake", "the first request must be `handshake`")
        body = self._dispatch(kind, msg, int(rid))
        try:
            return self._write(rid, session, body)
        except (TypeError, ValueError, RecursionError) as e:
            # A body with no JSON form (an object, NaN, a cycle) is the
            # method's bug: answered as one, and the process keeps serving.
            self.log(f"internal error on `{kind}`: the answer has no JSON form: {e!r}")
            return error("internal", f"the answer has no JSON form: {e!r}")

    def _handshake(self, msg: dict[str, Any]) -> dict[str, Any]:
        version = msg["protocol_version"].text
        if version != str(PROTOCOL_VERSION):
            return {"type": "error", "code": "protocol-version",
                    "message": f"this adapter speaks protocol {PROTOCOL_VERSION}, not {version}"}
        self.handshaken = True
        return {
            "type": "handshake",
            "protocol_version": PROTOCOL_VERSION,
            "implementation": {"name": self.implementation["name"], "version": self.implementation["version"]},
            "capabilities": list(self.capabilities),
            "profile": dict(self.profile),
        }

    def _dispatch(self, kind: str, msg: dict[str, Any], rid: int) -> dict[str, Any]:
        session = msg["session"]
        body = {k: v for k, v in msg.items() if k not in ("id", "session", "type")}
        try:
            if kind == "reset_session":
                old = self.sessions.pop(session, None)
                self.reset(session, old)
                return {"type": "ack"}
            method = getattr(self, kind, None)
            if not callable(method):
                return dict(unsupported(f"`{kind}` is not implemented by this adapter"))
            out = method(body, Context(session, rid, self.state(session)))
            if not isinstance(out, dict):
                raise TypeError(f"{kind} returned {out!r}, not an answer body")
            return out if "type" in out else {"type": _ANSWER_TYPE[kind], **out}
        except BadRequest as e:
            return {"type": "error", "code": "bad-request", "message": f"invalid `{kind}`: {e}"}
        except Exception as e:  # noqa: BLE001 - a bug in a method must not kill the child
            self.log(f"internal error on `{kind}`:\n{traceback.format_exc()}")
            return {"type": "error", "code": "internal", "message": repr(e)}

    @staticmethod
    def _write(rid: JsonNumber | None, session: str, body: dict[str, Any]) -> str:
        return dumps({"id": rid, "session": session, **body})

    def serve(self, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
        """Answers stdin line by line until it ends. Returns 0."""
        source = stdin if stdin is not None else sys.stdin.buffer
        sink = stdout if stdout is not None else sys.stdout
        if stdout is None:
            # print() in a method must not reach the protocol stream.
            sys.stdout = sys.stderr
        limit = self.max_line_bytes
        while True:
            raw = source.readline(limit + 1)
            if not raw:
                return 0
            if len(raw) > limit and not raw.endswith(b"\n"):
                # Too long: drop the rest of the line as it comes, unbuffered.
                while raw and not raw.endswith(b"\n"):
                    raw = source.readline(65536)
                answer = dumps({"id": None, "session": "", "type": "error", "code": "line-too-long",
                                "message": f"a line longer than {limit} bytes was skipped"})
            else:
                text = raw[:-1] if raw.endswith(b"\n") else raw
                if text.endswith(b"\r"):
                    text = text[:-1]
                # Blank is spaces and tabs only (PROTOCOL.md §1): str.strip()
                # also empties U+000B, U+001C or U+00A0, lines that must be answered.
                if not text.strip(b" \t"):
                    continue
                try:
                    line = text.decode("utf-8")
                except UnicodeDecodeError:
                    answer = dumps({"id": None, "session": "", "type": "error", "code": "bad-json",
                                    "message": "the line is not UTF-8"})
                else:
                    answer = self.answer_line(line)
            sink.write(answer + "\n")
            sink.flush()
