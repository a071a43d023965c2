#!/usr/bin/env node
// The rbv adapter of the toy client in ./toy-client/: the SDK speaks the
// protocol, these handlers only translate requests into calls of the
// client's permission layer. Certified for manifest, projection and tokens:
//
//   rbv run --impl "node adapters/typescript/examples/toy-adapter.mjs"
//
// toy-adapter.mjs is compiled from toy-adapter.mts by `tsc -p
// adapters/typescript/typecheck/examples.tsconfig.json` and checked in, so
// that node runs it with no install; CI compiles it again and fails when
// the two differ.

import { BadRequest, DEFAULT_PROFILE, bandMax, serve, unsupported, type Operation, type Profile, type UnsupportedResponse } from "rbv-adapter";
import { Session, project, validatePlugin } from "./toy-client/permissions.mjs";

const profile: Profile = { ...DEFAULT_PROFILE };

// The toy client inspects no payloads: an operation of another kind is a
// question it cannot answer, which `unsupported` says honestly.
function opaque(op: Operation): UnsupportedResponse | null {
  const kind = op.kind ?? "tool";
  return kind === "tool" ? null : unsupported(`no \`${kind}\` inspector in the toy client`);
}

void serve<Session>({
  implementation: { name: "rbv-toy-client-js", version: "0.1.0" },
  capabilities: ["manifest", "projection", "tokens"],
  profile,
  newSession: () => new Session(profile),
  handlers: {
    loadPlugins({ plugins }, { state }) {
      const reports = plugins.map((bundle) => validatePlugin(bundle, profile));
      state.plugins.push(...reports);
      return { plugins: reports };
    },
    validateManifest({ plugin }) {
      return { plugin: validatePlugin(plugin, profile) };
    },
    project({ reversibility, scope, trust }) {
      return { band: project(reversibility ?? undefined, scope ?? undefined, trust ?? undefined, profile.hard_to_reverse_local) };
    },
    recordEvent({ event }, { state }) {
      // Environment variables and ingested instructions never lower a band;
      // untrusted content makes later calls' input untrusted.
      if (event.kind === "untrusted_content") state.ingestedUntrusted = true;
      return {};
    },
    setPolicy({ floors, critical }, { state }) {
      if (critical?.length) return unsupported("the toy client has no critical floor");
      // Policies of a session merge, and a floor only ever tightens.
      for (const [op, band] of Object.entries(floors ?? {})) state.floors.set(op, bandMax(state.floors.get(op), band));
      return {};
    },
    evaluate({ operation }, { state }) {
      return opaque(operation) ?? state.evaluate(operation);
    },
    approve({ operation, approver }, { state }) {
      const no = opaque(operation);
      if (no) return no;
      if (approver.kind !== "human") return { granted: false, reasons: [`a ${approver.kind} approval mints no token`] };
      return { granted: true, token: state.mint(operation), reasons: [`approved by ${approver.name ?? "a human"}`] };
    },
    invoke({ operation, token }, { state }) {
      const no = opaque(operation);
      if (no) return no;
      const ev = state.evaluate(operation);
      const reasons = [...ev.reasons];
      let allowed = ev.decision === "allow" || ev.decision === "note";
      if (token != null) {
        if (typeof token !== "string") throw new BadRequest("`token` must be a string");
        const outcome = state.redeem(token, operation);
        reasons.push(`token ${outcome}`);
        if (outcome === "redeemed") allowed = true;
      }
      return { allowed, band: ev.band, decision: ev.decision, reasons };
    },
  },
});
