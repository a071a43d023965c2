#!/usr/bin/env python3
"""The rbv adapter of the toy client in toy_client.py: the SDK speaks the
protocol, these methods only translate requests into calls of the client's
permission layer. Certified for manifest, projection and tokens:

    rbv run --impl "python3 adapters/python/examples/toy_adapter.py"
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import rbv_adapter  # noqa: F401 - installed with pip
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rbv_adapter import DEFAULT_PROFILE, Adapter, BadRequest, Context, band_max, unsupported  # noqa: E402
from rbv_adapter.messages import (  # noqa: E402
    AckAnswer, ApprovalAnswer, ApproveRequest, EvaluateRequest, EvaluationAnswer, InvocationAnswer,
    InvokeRequest, LoadedAnswer, LoadPluginsRequest, Operation, ProjectionAnswer, ProjectRequest,
    RecordEventRequest, SetPolicyRequest, UnsupportedAnswer, ValidateManifestRequest, ValidationAnswer,
)
from toy_client import Session, project, validate_plugin  # noqa: E402

PROFILE = dict(DEFAULT_PROFILE)


def opaque(op: Operation) -> UnsupportedAnswer | None:
    """The toy client inspects no payloads: another kind is a question it
    cannot answer, which `unsupported` says honestly."""
    kind = op.get("kind") or "tool"
    return None if kind == "tool" else unsupported(f"no `{kind}` inspector in the toy client")


class ToyAdapter(Adapter[Session]):
    implementation = {"name": "rbv-toy-client-py", "version": "0.1.0"}
    capabilities = ["manifest", "projection", "tokens"]
    profile = PROFILE

    def new_session(self, session: str) -> Session:
        return Session(PROFILE)

    def load_plugins(self, req: LoadPluginsRequest, ctx: Context[Session]) -> LoadedAnswer:
        reports = [validate_plugin(bundle, PROFILE) for bundle in req["plugins"]]
        ctx.state.plugins.extend(reports)
        return {"plugins": reports}

    def validate_manifest(self, req: ValidateManifestRequest, ctx: Context[Session]) -> ValidationAnswer:
        return {"plugin": validate_plugin(req["plugin"], PROFILE)}

    def project(self, req: ProjectRequest, ctx: Context[Session]) -> ProjectionAnswer:
        band = project(req.get("reversibility"), req.get("scope"), req.get("trust"), PROFILE["hard_to_reverse_local"])
        return {"band": band}

    def record_event(self, req: RecordEventRequest, ctx: Context[Session]) -> AckAnswer:
        # Environment variables and ingested instructions never lower a band;
        # untrusted content makes later calls' input untrusted.
        if req["event"]["kind"] == "untrusted_content":
            ctx.state.ingested_untrusted = True
        return {}

    def set_policy(self, req: SetPolicyRequest, ctx: Context[Session]) -> AckAnswer | UnsupportedAnswer:
        if req.get("critical"):
            return unsupported("the toy client has no critical floor")
        for op, band in req.get("floors", {}).items():
            # Policies of a session merge, and a floor only ever tightens.
            ctx.state.floors[op] = band_max(ctx.state.floors.get(op), band)  # type: ignore[assignment]
        return {}

    def evaluate(self, req: EvaluateRequest, ctx: Context[Session]) -> EvaluationAnswer | UnsupportedAnswer:
        return opaque(req["operation"]) or ctx.state.evaluate(req["operation"])  # type: ignore[return-value]

    def approve(self, req: ApproveRequest, ctx: Context[Session]) -> ApprovalAnswer | UnsupportedAnswer:
        op, approver = req["operation"], req["approver"]
        no = opaque(op)
        if no:
            return no
        if approver["kind"] != "human":
            return {"granted": False, "reasons": [f"a {approver['kind']} approval mints no token"]}
        return {"granted": True, "token": ctx.state.mint(op), "reasons": [f"approved by {approver['name']}"]}

    def invoke(self, req: InvokeRequest, ctx: Context[Session]) -> InvocationAnswer | UnsupportedAnswer:
        op = req["operation"]
        no = opaque(op)
        if no:
            return no
        ev = ctx.state.evaluate(op)
        reasons = list(ev["reasons"])
        allowed = ev["decision"] in ("allow", "note")
        token = req.get("token")
        if token is not None:
            if not isinstance(token, str):
                raise BadRequest("`token` must be a string")
            outcome = ctx.state.redeem(token, op)
            reasons.append(f"token {outcome}")
            allowed = allowed or outcome == "redeemed"
        return {"allowed": allowed, "band": ev["band"], "decision": ev["decision"], "reasons": reasons}


if __name__ == "__main__":
    sys.exit(ToyAdapter().serve())
