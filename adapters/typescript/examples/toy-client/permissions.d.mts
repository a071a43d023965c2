// Types of the toy client's permission layer (permissions.mjs), so that the
// typed adapter (../toy-adapter.mts) is checked against what it calls.
import type { Band, Decision, Operation, PluginBundle, PluginReport, Profile, Reversibility, Scope, Trust } from "rbv-adapter";

export const REVERSIBILITY: readonly Reversibility[];
export const SCOPES: readonly Scope[];
export const TRUSTS: readonly Trust[];

export function project(reversibility?: Reversibility, scope?: Scope, trust?: Trust, htrLocal?: "escalate" | "soft-ack"): Band;
export function validOperationId(value: unknown): boolean;
export function validatePlugin(bundle: PluginBundle, profile: Profile): PluginReport;

export interface Evaluation {
  band: Band;
  decision: Decision;
  declared: Band | null;
  reasons: string[];
  signature: string;
}

export class Session {
  constructor(profile: Profile);
  readonly profile: Profile;
  plugins: PluginReport[];
  ingestedUntrusted: boolean;
  floors: Map<string, Band | null>;
  evaluate(op: Operation): Evaluation;
  mint(op: Operation): string;
  redeem(token: string, op: Operation): "redeemed" | "malformed" | "not for this call in this session" | "already used";
}
