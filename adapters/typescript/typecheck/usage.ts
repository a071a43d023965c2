// A typed adapter written against the SDK's declarations: `tsc -p .` must
// accept it, and the `@ts-expect-error` lines prove the types reject what
// the protocol rejects (a misspelled band, a missing field, a wrong claim).
import {
  type AdapterSpec,
  type Band,
  type EvaluationResponse,
  type Operation,
  BadRequest,
  DEFAULT_PROFILE,
  JsonNumber,
  authorizationKey,
  bandMax,
  serve,
  unsupported,
} from "rbv-adapter";

interface State {
  floors: Map<string, Band>;
}

function judge(op: Operation, state: State): EvaluationResponse {
  const floor = state.floors.get(op.id) ?? null;
  const band: Band = bandMax("soft-ack", floor) ?? "escalate";
  const n = op.arguments?.["n"];
  const reasons = n instanceof JsonNumber ? [`n is ${n.text}`] : [];
  return { band, decision: band === "auto" ? "allow" : band === "soft-ack" ? "note" : "ask", declared: null, reasons, signature: authorizationKey(op) };
}

const spec: AdapterSpec<State> = {
  implementation: { name: "typed", version: "1.0.0" },
  capabilities: ["projection", "critical-floor"],
  profile: { ...DEFAULT_PROFILE, hard_to_reverse_local: "soft-ack" },
  newSession: () => ({ floors: new Map() }),
  handlers: {
    project: ({ reversibility, scope }) => ({ band: reversibility === "reversible" && scope === "local" ? "auto" : "escalate" }),
    evaluate: async ({ operation }, { state }) => judge(operation, state),
    setPolicy: ({ floors, critical }, { state }) => {
      if (critical?.length) return unsupported("no critical floor");
      for (const [op, band] of Object.entries(floors ?? {})) state.floors.set(op, band);
      return {};
    },
    recordEvent: ({ event }) => {
      if (event.kind === "environment" && Object.keys(event.vars).length > 100) throw new BadRequest("too many variables");
      return {};
    },
  },
};

const wrong: AdapterSpec<State>["handlers"] = {
  // @ts-expect-error: "Escalate" is not a band
  project: () => ({ band: "Escalate" }),
  // @ts-expect-error: an invocation needs `allowed`
  invoke: () => ({ band: "auto", decision: "allow" }),
};
// @ts-expect-error: "manfest" is not a capability
const badClaim: AdapterSpec<State>["capabilities"] = ["manfest"];

void wrong;
void badClaim;
void serve(spec);
