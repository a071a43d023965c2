// Types of the rbv protocol v1 messages, checked against
// protocol/schema/ by test/types.test.mjs (every property, its optionality
// and every enumerated value).

import { JsonNumber, JsonValue } from "./json.js";
export { JsonNumber, JsonSyntaxError, JsonValue, canonical, parse, stringify } from "./json.js";

export type Band = "auto" | "soft-ack" | "escalate";
export type Decision = "allow" | "note" | "ask" | "deny";
export type Reversibility = "reversible" | "hard-to-reverse" | "irreversible";
export type Scope = "local" | "shared-remote" | "external";
export type Trust = "trusted" | "untrusted";
export type OperationKind = "tool" | "sql" | "shell" | "fetch";
export type ApproverKind = "human" | "model" | "tool" | "plugin";
export type Severity = "error" | "warning";
export type Capability =
  | "manifest" | "projection" | "rule-of-two" | "sql" | "shell" | "fetch"
  | "tokens" | "audit" | "versioning" | "critical-floor" | "workspace";

type JsonObject = { [key: string]: JsonValue };

// ------------------------------------------------------------- requests
// Bodies as handlers receive them: the envelope (`id`, `session`, `type`)
// is the SDK's. Every request was checked against its schema first.

/** A POSIX path that starts at `/`; the schema refuses any other. */
export type AbsolutePath = string;
/**
 * Where the client's workspace is (capability `workspace`, PROTOCOL.md
 * §3.1): paths under `root` are inside; commands start in `cwd` (`root`
 * when absent); `~` is `home` (unknown when absent).
 */
export interface Workspace {
  root: AbsolutePath;
  cwd?: AbsolutePath | null;
  home?: AbsolutePath | null;
}

export interface Operation {
  plugin?: string | null;
  id: string;
  kind?: OperationKind | null;
  /** Exactly as the model supplied them; numbers keep their text. */
  arguments?: JsonObject;
  trust?: Trust | null;
  actor?: string | null;
  dialect?: string | null;
  /** Overrides the session's workspace for this call. */
  workspace?: Workspace | null;
}
export interface PluginBundle {
  /** The plugin.json, verbatim: also when invalid. */
  manifest: JsonValue;
  mcp?: JsonValue;
  skills?: string[];
  tools?: { [server: string]: string[] };
}
export interface Approver {
  kind: ApproverKind;
  name: string;
}
export type SessionEvent =
  | { kind: "untrusted_content"; source?: string | null; content?: string | null }
  | { kind: "sensitive_data"; what?: string | null }
  | { kind: "state_change"; what?: string | null }
  | { kind: "environment"; vars: { [name: string]: string } };

export interface HandshakeRequest {
  protocol_version: JsonNumber;
  harness: string;
}
export interface LoadPluginsRequest {
  plugins: PluginBundle[];
}
export interface ValidateManifestRequest {
  plugin: PluginBundle;
}
export interface ProjectRequest {
  reversibility?: Reversibility | null;
  scope?: Scope | null;
  trust?: Trust | null;
}
export interface RecordEventRequest {
  event: SessionEvent;
}
export interface SetPolicyRequest {
  floors?: { [operation: string]: Band };
  critical?: string[];
  /** The session's workspace from now on; a later one replaces it. */
  workspace?: Workspace | null;
}
export interface EvaluateRequest {
  operation: Operation;
}
export interface ApproveRequest {
  operation: Operation;
  approver: Approver;
}
export interface InvokeRequest {
  operation: Operation;
  token?: string | null;
}
export interface DiffManifestsRequest {
  old: PluginBundle;
  new: PluginBundle;
}
export interface ResetSessionRequest {}

// ------------------------------------------------------------ responses
// Bodies a handler returns; `type` may be left out (the SDK adds the
// request's answer type), or set to "unsupported" / "error".

export interface ImplementationInfo {
  name: string;
  version: string;
}
export interface Diagnostic {
  severity: Severity;
  code: string;
  message: string;
  pointer?: string | null;
}
export interface PluginReport {
  name?: string | null;
  loaded: boolean;
  diagnostics?: Diagnostic[];
  declarations?: { [operation: string]: Band };
  default_floor?: Band | null;
}
export interface AuditRecord {
  timestamp: string;
  actor: string;
  plugin?: string | null;
  plugin_version?: string | null;
  operation: string;
  signature: string;
  band: Band;
  decision: Decision;
  gate: string;
  authorized_by?: string | null;
  outcome: string;
}
export interface BandChange {
  operation: string;
  old?: Band | null;
  new?: Band | null;
}

export interface HandshakeResponse {
  type?: "handshake";
  protocol_version: number;
  implementation: ImplementationInfo;
  capabilities: string[];
  profile?: { [key: string]: JsonValue | number };
}
export interface LoadedResponse {
  type?: "loaded";
  plugins: PluginReport[];
}
export interface ValidationResponse {
  type?: "validation";
  plugin: PluginReport;
}
export interface ProjectionResponse {
  type?: "projection";
  band: Band;
}
export interface AckResponse {
  type?: "ack";
}
export interface EvaluationResponse {
  type?: "evaluation";
  band: Band;
  decision: Decision;
  declared?: Band | null;
  reasons?: string[];
  signature?: string | null;
  audit?: AuditRecord | null;
}
export interface ApprovalResponse {
  type?: "approval";
  granted: boolean;
  token?: string | null;
  reasons?: string[];
  audit?: AuditRecord | null;
}
export interface InvocationResponse {
  type?: "invocation";
  allowed: boolean;
  band: Band;
  decision: Decision;
  reasons?: string[];
  audit?: AuditRecord | null;
}
export interface DiffResponse {
  type?: "diff";
  breaking: boolean;
  version_change: string;
  changes?: BandChange[];
}
export interface ErrorResponse {
  type: "error";
  code: string;
  message: string;
}
export interface UnsupportedResponse {
  type: "unsupported";
  message: string;
}

// --------------------------------------------------------------- the SDK

export interface Context<State> {
  /** The session the request acts on. */
  session: string;
  /** The request's id, exact. */
  id: bigint;
  /** This session's state, made by `newSession` on first use and dropped by `reset_session`. */
  state: State;
  adapter: Adapter<State>;
}

type Answer<T> = T | UnsupportedResponse | ErrorResponse;
type Handler<Req, Res, State> = (request: Req, ctx: Context<State>) => Answer<Res> | Promise<Answer<Res>>;

/** One function per request type; a missing one answers `unsupported`. */
export interface Handlers<State> {
  loadPlugins?: Handler<LoadPluginsRequest, LoadedResponse, State>;
  validateManifest?: Handler<ValidateManifestRequest, ValidationResponse, State>;
  project?: Handler<ProjectRequest, ProjectionResponse, State>;
  recordEvent?: Handler<RecordEventRequest, AckResponse, State>;
  setPolicy?: Handler<SetPolicyRequest, AckResponse, State>;
  evaluate?: Handler<EvaluateRequest, EvaluationResponse, State>;
  approve?: Handler<ApproveRequest, ApprovalResponse, State>;
  invoke?: Handler<InvokeRequest, InvocationResponse, State>;
  diffManifests?: Handler<DiffManifestsRequest, DiffResponse, State>;
  /** Called after the SDK dropped a session's state (it answers `ack` itself). */
  resetSession?: (old: State | undefined, ctx: Omit<Context<State>, "state">) => void | Promise<void>;
}

export interface Profile {
  permissions_placement?: "top-level" | "extension" | "both";
  rule_of_two_threshold?: 2 | 3;
  hard_to_reverse_local?: "escalate" | "soft-ack";
  undeclared_opaque_band?: Band;
}

export interface AdapterSpec<State = Record<string, unknown>> {
  implementation: ImplementationInfo;
  /** Claim only what the handlers implement: each claim is certified on its own cases. */
  capabilities: Capability[];
  profile?: Profile;
  /** A fresh state for a session; `{}` when absent. */
  newSession?: (session: string) => State;
  handlers: Handlers<State>;
  /** Longest accepted request line in bytes (default 8 MiB). */
  maxLineBytes?: number;
  /** Diagnostics sink (default: stderr). */
  log?: (text: string) => void;
}

export class Adapter<State = Record<string, unknown>> {
  constructor(spec: AdapterSpec<State>);
  readonly capabilities: string[];
  readonly profile: Profile;
  /** The state of a session, created on first use. */
  state(session: string): State;
  /** The answer line (no newline) to one request line; never rejects. */
  answerLine(line: string): Promise<string>;
}

/** What `serve` reads: a stream of Buffer chunks (process.stdin by default). */
export interface ByteSource {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
}
/** Where `serve` writes answer lines (process.stdout by default). */
export interface TextSink {
  write(text: string): unknown;
}

/** Serves stdin/stdout until stdin ends; console output goes to stderr. */
export function serve<State>(
  spec: AdapterSpec<State> | Adapter<State>,
  io?: { input?: ByteSource; output?: TextSink },
): Promise<void>;

export class BadRequest extends Error {}
export function unsupported(message: string): UnsupportedResponse;
export function bandMax(a: Band | null | undefined, b: Band | null | undefined): Band | null;
/** The canonical plugin + id + arguments of a call: bind approval tokens to it. */
export function authorizationKey(operation: Operation): string;

export const PROTOCOL_VERSION: 1;
export const BANDS: readonly Band[];
export const CAPABILITIES: readonly Capability[];
export const DECISION_OF: Readonly<Record<Band, Decision>>;
export const DEFAULT_PROFILE: Readonly<Required<Profile>>;
export const DEFAULT_MAX_LINE_BYTES: number;
export const REQUEST_TYPES: readonly string[];
export const RESPONSE_TYPES: readonly string[];

export class Schema {
  constructor(schema: object, name?: string);
  /** Violations as `pointer: what`; empty when the value is valid. */
  errors(value: unknown): string[];
}
export function schemaFor(direction: "requests" | "responses", type: string): Schema;
