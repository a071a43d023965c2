// The README's first adapter ("Zero to a first run", step 3) in
// TypeScript, exactly as a user writes it: `tsc -p .` compiles it in CI,
// so the README's typed adapter stays one that type-checks.
import { serve, DEFAULT_PROFILE, type AdapterSpec, type Band } from "rbv-adapter";

// Your permission layer; here the proposal's projection (§2.2), an absent
// axis read as its most dangerous value (§2.1).
function bandFor(reversibility?: string | null, scope?: string | null, trust?: string | null): Band {
  if (reversibility !== "reversible" || scope == null || scope === "external") return "escalate";
  return scope === "local" && trust === "trusted" ? "auto" : "soft-ack";
}

const spec: AdapterSpec<Record<string, never>> = {
  implementation: { name: "my-client", version: "2.3.0" },
  capabilities: ["projection"], // claim only what you implement
  profile: { ...DEFAULT_PROFILE }, // your answers to the open questions
  newSession: () => ({}),
  handlers: {
    // Absent axes arrive absent (or null): your client decides.
    project: ({ reversibility, scope, trust }) => ({ band: bandFor(reversibility, scope, trust) }),
  },
};

void serve(spec);
