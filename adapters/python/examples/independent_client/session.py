"""One session of the client: what it loaded, what happened, its policy and
its approval tokens; and the effective band of a call (PROTOCOL.md §10.6)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from rbv_adapter import DECISION_OF, authorization_key, band_max
from rbv_adapter.messages import AuditRecord, Band, Decision, Operation

from .fetch import classify_fetch
from .manifest import Declaration, Plugin
from .projection import project
from .shell import classify_shell
from .sql import classify_sql
from .verdict import Finding

OUTCOME: dict[Decision, str] = {"allow": "allowed", "note": "noted", "ask": "asked", "deny": "denied"}
TOKEN = re.compile(r"ic1\.([0-9]{1,20})\.([0-9a-f]{64})")


def signature_of(op: Operation) -> str:
    return "sha256:" + hashlib.sha256(authorization_key(op).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Evaluation:
    band: Band
    decision: Decision
    declared: Band | None
    gate: str
    reasons: list[str]
    signature: str
    plugin_version: str | None
    # What this call adds to the session's Rule-of-Two when it runs.
    untrusted: bool = False
    sensitive: bool = False
    state_change: bool = False
    critical: bool = False

    def answer(self) -> dict[str, Any]:
        return {"band": self.band, "decision": self.decision, "declared": self.declared,
                "reasons": list(self.reasons), "signature": self.signature}


@dataclass
class Session:
    profile: dict[str, Any]
    plugins: list[Plugin] = field(default_factory=list)
    untrusted: bool = False
    sensitive: bool = False
    state_changed: bool = False
    floors: dict[str, Band] = field(default_factory=dict)
    critical: set[str] = field(default_factory=set)
    # A secret of this session alone: a token means nothing in another one,
    # and a reset session (a new Session) voids every token it minted.
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    minted: int = 0
    live: dict[str, str] = field(default_factory=dict)  # nonce -> approver name

    # ------------------------------------------------------------ evaluate

    def evaluate(self, op: Operation) -> Evaluation:
        htr: Band = self.profile["hard_to_reverse_local"]
        kind = op.get("kind") or "tool"
        args = op.get("arguments") or {}
        decl: Declaration | None = None
        default: Band | None = None
        version: str | None = None
        for p in self.plugins:
            if p.report["loaded"] and op.get("plugin") is not None and p.report.get("name") == op.get("plugin"):
                version = p.version if version is None else version
                d = p.declarations.get(op["id"])
                if d is not None and (decl is None or band_max(decl.floor, d.floor) != decl.floor):
                    decl = d
                default = band_max(default, p.report.get("default_floor"))
        trust = op.get("trust") or ("untrusted" if self.untrusted else "trusted")
        contributions: list[tuple[str, Band, str]] = []
        finding: Finding | None = None
        if kind == "sql":
            finding = classify_sql(args.get("sql"), op.get("dialect"))
        elif kind == "shell":
            finding = classify_shell(args.get("command"), htr)
        elif kind == "fetch":
            finding = classify_fetch(args.get("url"), args.get("method", "GET"), htr)
        elif kind != "tool":
            finding = Finding.write(f"unknown kind {kind!r}: fail safe")
        if finding is not None:
            contributions.append((kind if kind in ("sql", "shell", "fetch") else "default", finding.band,
                                  "; ".join(finding.reasons)))
        if decl is not None:
            contributions.append(("manifest", decl.floor, f"manifest: declared floor {decl.floor}"))
            if decl.reversibility or decl.scope or decl.trust:
                axes = project(decl.reversibility, decl.scope, trust if decl.trust != "untrusted" else "untrusted", htr)
                contributions.append(("manifest", axes, f"manifest: declared axes with {trust} input: {axes}"))
        else:
            if default is not None:
                contributions.append(("default", default, f"manifest: default floor {default}"))
            if finding is None:
                policy: Band = self.profile["undeclared_opaque_band"]
                contributions.append(("undeclared", policy, f"undeclared: client policy {policy}"))
        if trust == "untrusted":
            contributions.append(("trust", "soft-ack", "untrusted input is never auto"))
        # Rule-of-Two: the session so far plus what this call would add.
        # A fetch brings content nobody vetted into the session.
        adds_untrusted = trust == "untrusted" or (finding is not None and finding.ingests)
        adds_sensitive = finding is not None and finding.sensitive
        if finding is not None:
            adds_state = finding.state_change
        elif decl is not None:
            if decl.reversibility or decl.scope:
                adds_state = not (decl.reversibility == "reversible" and decl.scope == "local")
            else:
                adds_state = decl.floor != "auto"
        else:
            adds_state = True
        count = sum([self.untrusted or adds_untrusted, self.sensitive or adds_sensitive,
                     self.state_changed or adds_state])
        if count >= int(self.profile["rule_of_two_threshold"]):
            contributions.append(("rule-of-two", "escalate", f"rule-of-two: {count} of 3 hold"))
        floor = self.floors.get(op["id"])
        if floor is not None:
            contributions.append(("policy", floor, f"policy: floor {floor}"))
        band: Band = "auto"
        for _, b, _ in contributions:
            band = band_max(band, b) or band
        setters = {g for g, b, _ in contributions if b == band}
        gate = setters.pop() if len(setters) == 1 else "default"
        reasons = [r for _, _, r in contributions]
        critical = op["id"] in self.critical
        decision: Decision = DECISION_OF[band]
        if critical:
            band, decision, gate = "escalate", "deny", "policy"
            reasons.append("policy: critical operation, no approval path")
        return Evaluation(band, decision, decl.floor if decl else None, gate, reasons, signature_of(op), version,
                          adds_untrusted, adds_sensitive, adds_state, critical)

    def ran(self, ev: Evaluation) -> None:
        """An allowed call happened: it counts for Rule-of-Two."""
        self.untrusted = self.untrusted or ev.untrusted
        self.sensitive = self.sensitive or ev.sensitive
        self.state_changed = self.state_changed or ev.state_change

    # ------------------------------------------------------------ tokens

    def _mac(self, nonce: str, op: Operation) -> str:
        data = nonce.encode() + b"\0" + authorization_key(op).encode("utf-8", "surrogatepass")
        return hmac.new(self.secret, data, hashlib.sha256).hexdigest()

    def mint(self, op: Operation, approver: str) -> str:
        self.minted += 1
        nonce = str(self.minted)
        self.live[nonce] = approver
        return f"ic1.{nonce}.{self._mac(nonce, op)}"

    def redeem(self, token: str, op: Operation) -> tuple[str | None, str]:
        """(approver, why): the approver when the token is redeemed, else None."""
        m = TOKEN.fullmatch(token)
        if not m:
            return None, "token malformed"
        nonce, mac = m.group(1), m.group(2)
        if not hmac.compare_digest(self._mac(nonce, op), mac):
            return None, "token not for this call in this session"
        approver = self.live.pop(nonce, None)
        if approver is None:
            return None, "token already used"
        return approver, "token redeemed"

    # ------------------------------------------------------------ audit

    def audit(self, op: Operation, ev: Evaluation, outcome: str, gate: str | None = None,
              authorized_by: str | None = None, band: Band | None = None,
              decision: Decision | None = None) -> AuditRecord:
        plugin = op.get("plugin")
        return {
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "actor": op.get("actor") or "model",
            "plugin": plugin if not op["id"].startswith("client:") else None,
            "plugin_version": ev.plugin_version if not op["id"].startswith("client:") else None,
            "operation": op["id"],
            "signature": ev.signature,
            "band": band or ev.band,
            "decision": decision or ev.decision,
            "gate": gate or ev.gate,
            "authorized_by": authorized_by,
            "outcome": outcome,
        }


def outcome_of(decision: Decision) -> str:
    return OUTCOME[decision]
