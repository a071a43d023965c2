#!/usr/bin/env python3
"""The rbv adapter of the independent client: the SDK speaks the protocol,
these methods call the client's permission layer (the modules beside this
file). It claims all ten capabilities:

    rbv run --impl "python3 adapters/python/examples/independent_client/client.py"
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
try:
    import rbv_adapter  # noqa: F401 - installed with pip
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(_HERE.parents[1] / "src"))
sys.path.insert(0, str(_HERE.parent))

from rbv_adapter import DEFAULT_PROFILE, Adapter, BadRequest, Context, band_max  # noqa: E402
from rbv_adapter.messages import (  # noqa: E402
    AckAnswer, ApprovalAnswer, ApproveRequest, DiffAnswer, DiffManifestsRequest, EvaluateRequest,
    EvaluationAnswer, InvocationAnswer, InvokeRequest, LoadedAnswer, LoadPluginsRequest, ProjectionAnswer,
    ProjectRequest, RecordEventRequest, SetPolicyRequest, ValidateManifestRequest, ValidationAnswer,
)

from independent_client.manifest import load  # noqa: E402
from independent_client.projection import project  # noqa: E402
from independent_client.session import Session, outcome_of  # noqa: E402
from independent_client.versioning import diff  # noqa: E402

PROFILE = dict(DEFAULT_PROFILE)


class IndependentClient(Adapter[Session]):
    implementation = {"name": "rbv-independent-client-py", "version": "0.1.0"}
    capabilities = ["manifest", "projection", "rule-of-two", "sql", "shell", "fetch", "tokens", "audit",
                    "versioning", "critical-floor"]
    profile = PROFILE

    def new_session(self, session: str) -> Session:
        return Session(PROFILE)

    def load_plugins(self, req: LoadPluginsRequest, ctx: Context[Session]) -> LoadedAnswer:
        plugins = [load(bundle, PROFILE) for bundle in req["plugins"]]
        ctx.state.plugins.extend(plugins)
        return {"plugins": [p.report for p in plugins]}

    def validate_manifest(self, req: ValidateManifestRequest, ctx: Context[Session]) -> ValidationAnswer:
        return {"plugin": load(req["plugin"], PROFILE).report}

    def project(self, req: ProjectRequest, ctx: Context[Session]) -> ProjectionAnswer:
        return {"band": project(req.get("reversibility"), req.get("scope"), req.get("trust"),
                                PROFILE["hard_to_reverse_local"])}

    def record_event(self, req: RecordEventRequest, ctx: Context[Session]) -> AckAnswer:
        # Events only ever add facts; no variable or ingested text turns a gate off.
        kind = req["event"]["kind"]
        if kind == "untrusted_content":
            ctx.state.untrusted = True
        elif kind == "sensitive_data":
            ctx.state.sensitive = True
        elif kind == "state_change":
            ctx.state.state_changed = True
        return {}

    def set_policy(self, req: SetPolicyRequest, ctx: Context[Session]) -> AckAnswer:
        for op, band in req.get("floors", {}).items():
            ctx.state.floors[op] = band_max(ctx.state.floors.get(op), band) or band
        ctx.state.critical.update(req.get("critical", []))
        return {}

    def evaluate(self, req: EvaluateRequest, ctx: Context[Session]) -> EvaluationAnswer:
        op = req["operation"]
        ev = ctx.state.evaluate(op)
        answer = ev.answer()
        answer["audit"] = ctx.state.audit(op, ev, outcome_of(ev.decision))
        return answer  # type: ignore[return-value]

    def approve(self, req: ApproveRequest, ctx: Context[Session]) -> ApprovalAnswer:
        op, approver = req["operation"], req["approver"]
        ev = ctx.state.evaluate(op)
        if ev.critical:
            reason = "a critical operation has no approval path"
        elif approver["kind"] != "human":
            reason = f"a {approver['kind']} approval mints no token"
        else:
            token = ctx.state.mint(op, approver["name"])
            return {"granted": True, "token": token, "reasons": [f"approved by {approver['name']}"],
                    "audit": ctx.state.audit(op, ev, "minted", authorized_by=approver["name"])}
        return {"granted": False, "reasons": [reason], "audit": ctx.state.audit(op, ev, "refused")}

    def invoke(self, req: InvokeRequest, ctx: Context[Session]) -> InvocationAnswer:
        op = req["operation"]
        ev = ctx.state.evaluate(op)
        reasons = list(ev.reasons)
        token = req.get("token")
        allowed = ev.decision in ("allow", "note")
        outcome, gate, by = outcome_of(ev.decision), ev.gate, None
        if token is not None:
            if not isinstance(token, str):
                raise BadRequest("`token` must be a string")
            if ev.critical:
                reasons.append("token ignored: a critical operation is never allowed")
                outcome = "denied"
            else:
                by, why = ctx.state.redeem(token, op)
                reasons.append(why)
                if by is not None:
                    allowed, outcome, gate = True, "redeemed", "token"
                elif not allowed:
                    outcome = "rejected"
        if allowed:
            ctx.state.ran(ev)
        return {"allowed": allowed, "band": ev.band, "decision": ev.decision, "reasons": reasons,
                "audit": ctx.state.audit(op, ev, outcome, gate=gate, authorized_by=by)}

    def diff_manifests(self, req: DiffManifestsRequest, ctx: Context[Session]) -> DiffAnswer:
        return diff(req["old"], req["new"], PROFILE)


if __name__ == "__main__":
    sys.exit(IndependentClient().serve())
