"""R x S x T to a band (proposal §2.2, PROTOCOL.md §10.3)."""

from __future__ import annotations

from rbv_adapter.messages import Band


def project(reversibility: str | None, scope: str | None, trust: str | None, hard_to_reverse_local: Band) -> Band:
    # What is not known is assumed to be as bad as it can be.
    r = reversibility or "irreversible"
    s = scope or "external"
    t = trust or "untrusted"
    if r == "irreversible" or s == "external":
        return "escalate"
    if r == "hard-to-reverse":
        return hard_to_reverse_local if s == "local" else "escalate"
    return "auto" if (s == "local" and t == "trusted") else "soft-ack"
