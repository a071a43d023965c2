// A toy client permission layer: what a client team already has. The
// adapter next to it (../toy-adapter.mjs) only connects it to rbv through
// the SDK. It implements the semantics rbv certifies for `manifest`,
// `projection` and `tokens` (PROTOCOL.md §10.2, §10.3, §10.6-§10.8) for
// opaque tool calls; it has no SQL, shell or fetch inspector.

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { BANDS, DECISION_OF, JsonNumber, authorizationKey, bandMax } from "rbv-adapter";

export const REVERSIBILITY = ["reversible", "hard-to-reverse", "irreversible"];
export const SCOPES = ["local", "shared-remote", "external"];
export const TRUSTS = ["trusted", "untrusted"];

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber);

/** R × S × T → band; an absent axis counts as its most dangerous value. */
export function project(reversibility, scope, trust, htrLocal = "escalate") {
  const r = reversibility ?? "irreversible";
  const s = scope ?? "external";
  const t = trust ?? "untrusted";
  if (r === "irreversible" || s === "external") return "escalate";
  if (r === "hard-to-reverse") return s === "local" ? htrLocal : "escalate";
  if (s === "local" && t === "trusted") return "auto";
  return "soft-ack";
}

// ------------------------------------------------------------- manifests

const SCHEMA_IDS = new Map([
  ["https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "1.0.0"],
  ["https://agent-plugins.org/schemas/1.1.0/plugin.schema.json", "1.1.0"],
]);
const NAME_RE = /^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;
const STRINGS_1_0 = ["version", "description", "homepage", "repository", "license"];
const STRINGS_1_1 = [...STRINGS_1_0, "displayName", "icon"];
const AUTHOR_KEYS = new Set(["name", "email", "url"]);
const EXTENSION_NS = "org.agent-plugins.permissions";
const ENTRY_KEYS = new Set(["id", "band", "reversibility", "scope", "trust", "description"]);
const ID_COMPONENT = /^[^\s/:\x00-\x1f\x7f]+$/u;

const diag = (severity, code, message, pointer) => ({ severity, code, message, ...(pointer === undefined ? {} : { pointer }) });
const escapePointer = (key) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** `mcp:<server>/<tool>` or `skill:<name>`; `client:` ids are not a plugin's. */
export function validOperationId(value) {
  if (typeof value !== "string") return false;
  const colon = value.indexOf(":");
  if (colon < 0) return false;
  const prefix = value.slice(0, colon);
  const rest = value.slice(colon + 1);
  if (prefix === "mcp") {
    const slash = rest.indexOf("/");
    return slash >= 0 && ID_COMPONENT.test(rest.slice(0, slash)) && ID_COMPONENT.test(rest.slice(slash + 1));
  }
  return prefix === "skill" && ID_COMPONENT.test(rest);
}

function checkBase(manifest) {
  const out = [];
  if (!isObject(manifest)) return [[diag("error", "not-an-object", "plugin.json is not a JSON object", "")], false];
  const version = typeof manifest.$schema === "string" ? SCHEMA_IDS.get(manifest.$schema) : undefined;
  if (version === undefined) out.push(diag("error", "schema", "`$schema` is missing or not a canonical id", "/$schema"));
  const name = manifest.name;
  // Length in code points, as the specification counts characters.
  if (typeof name !== "string" || [...name].length < 1 || [...name].length > 64 || !NAME_RE.test(name)) {
    out.push(diag("error", "name", "`name` is missing or breaks the name rules", "/name"));
  }
  const strings = version === "1.1.0" ? STRINGS_1_1 : STRINGS_1_0;
  for (const key of strings) {
    if (Object.hasOwn(manifest, key) && typeof manifest[key] !== "string") out.push(diag("error", "type", `\`${key}\` must be a string`, `/${key}`));
  }
  if (Object.hasOwn(manifest, "author")) {
    const a = manifest.author;
    if (!isObject(a) || Object.entries(a).some(([k, v]) => !AUTHOR_KEYS.has(k) || typeof v !== "string")) {
      out.push(diag("error", "type", "`author` must be {name?, email?, url?} strings", "/author"));
    }
  }
  if (Object.hasOwn(manifest, "keywords")) {
    const kw = manifest.keywords;
    if (!Array.isArray(kw) || !kw.every((k) => typeof k === "string")) out.push(diag("error", "type", "`keywords` must be an array of strings", "/keywords"));
  }
  if (Object.hasOwn(manifest, "extensions")) {
    const ext = manifest.extensions;
    if (!isObject(ext) || !Object.values(ext).every(isObject)) out.push(diag("error", "type", "`extensions` must map namespaces to objects", "/extensions"));
  }
  const known = new Set(["$schema", "name", "author", "keywords", "extensions", ...strings]);
  for (const key of Object.keys(manifest)) {
    // The base specification: an unknown field is reported, never fatal.
    if (!known.has(key)) out.push(diag("warning", "unknown-field", `unknown top-level field \`${key}\``, `/${escapePointer(key)}`));
  }
  return [out, !out.some((d) => d.severity === "error")];
}

function entryFloor(entry, where, out, htrLocal) {
  const bad = (why) => {
    out.push(diag("warning", "invalid-entry", why, where));
    return null;
  };
  if (!isObject(entry)) return bad("an operation entry must be an object");
  const unknown = Object.keys(entry).filter((k) => !ENTRY_KEYS.has(k)).sort();
  if (unknown.length) return bad(`unknown key(s) ${unknown.join(", ")} invalidate the entry`);
  if (!validOperationId(entry.id)) return bad("`id` must be mcp:<server>/<tool> or skill:<name>");
  if (Object.hasOwn(entry, "description") && typeof entry.description !== "string") return bad("`description` must be a string");
  for (const [key, values] of [["band", BANDS], ["reversibility", REVERSIBILITY], ["scope", SCOPES], ["trust", TRUSTS]]) {
    if (Object.hasOwn(entry, key) && !values.includes(entry[key])) return bad(`\`${key}\` must be one of ${values.join(", ")} (exact spelling)`);
  }
  const axes = [entry.reversibility, entry.scope, entry.trust];
  if (entry.band === undefined && axes.every((a) => a === undefined)) return bad("an entry needs a band or at least one axis");
  let floor = entry.band ?? null;
  if (axes.some((a) => a !== undefined)) floor = bandMax(floor, project(...axes, htrLocal));
  return [entry.id, floor];
}

function readPermissions(perms, where, out, htrLocal) {
  const decls = new Map();
  if (!isObject(perms)) {
    out.push(diag("warning", "invalid-permissions", "permissions must be an object", where));
    return [decls, null];
  }
  for (const key of Object.keys(perms).filter((k) => k !== "default" && k !== "operations").sort()) {
    out.push(diag("warning", "unknown-key", `unknown permissions key \`${key}\` ignored`, `${where}/${escapePointer(key)}`));
  }
  let def = perms.default ?? null;
  if (Object.hasOwn(perms, "default") && !BANDS.includes(def)) {
    out.push(diag("warning", "invalid-default", "`default` is not a band; ignored", `${where}/default`));
    def = null;
  }
  let ops = perms.operations ?? [];
  if (!Array.isArray(ops)) {
    out.push(diag("warning", "invalid-operations", "`operations` must be an array", `${where}/operations`));
    ops = [];
  }
  ops.forEach((entry, i) => {
    const found = entryFloor(entry, `${where}/operations/${i}`, out, htrLocal);
    if (found) decls.set(found[0], bandMax(decls.get(found[0]), found[1]));
  });
  return [decls, def];
}

/** A plugin report (PROTOCOL.md §5 `loaded`) for one plugin bundle. */
export function validatePlugin(bundle, profile) {
  const manifest = bundle.manifest;
  const [diagnostics, loaded] = checkBase(manifest);
  const report = { name: isObject(manifest) && typeof manifest.name === "string" ? manifest.name : null, loaded, diagnostics, declarations: {}, default_floor: null };
  if (!loaded) return report; // a rejected plugin contributes nothing
  const placement = profile.permissions_placement;
  const sources = [];
  if (placement !== "extension" && Object.hasOwn(manifest, "permissions")) sources.push([manifest.permissions, "/permissions"]);
  const ext = manifest.extensions ?? {};
  if (placement !== "top-level" && Object.hasOwn(ext, EXTENSION_NS)) sources.push([ext[EXTENSION_NS], `/extensions/${escapePointer(EXTENSION_NS)}`]);
  for (const [perms, where] of sources) {
    const [decls, def] = readPermissions(perms, where, diagnostics, profile.hard_to_reverse_local);
    for (const [op, floor] of decls) report.declarations[op] = bandMax(report.declarations[op], floor);
    report.default_floor = bandMax(report.default_floor, def);
  }
  return report;
}

// ------------------------------------------------------------- sessions

/** One session of the client: loaded plugins, events, policy, tokens. */
export class Session {
  constructor(profile) {
    this.profile = profile;
    this.plugins = [];
    this.ingestedUntrusted = false;
    this.floors = new Map();
    // A secret per session: a token minted here means nothing elsewhere,
    // and a reset session gets a new one, voiding every token it minted.
    this.secret = randomBytes(32);
    this.live = new Set();
    this.counter = 0;
  }

  /** The effective band of an opaque tool call (PROTOCOL.md §10.6). */
  evaluate(op) {
    let declared = null;
    let defaultFloor = null;
    for (const report of this.plugins) {
      if (report.loaded && report.name === (op.plugin ?? null)) {
        // Own keys only: an operation id such as `constructor` is data.
        declared = bandMax(declared, Object.hasOwn(report.declarations, op.id) ? report.declarations[op.id] : null);
        defaultFloor = bandMax(defaultFloor, report.default_floor);
      }
    }
    const reasons = [];
    // Undeclared: the client's own policy; `default` only ever raises it.
    let band = declared ?? bandMax(this.profile.undeclared_opaque_band, defaultFloor);
    reasons.push(declared ? `manifest: declared floor ${declared}` : `undeclared: client policy ${band}`);
    const floor = this.floors.get(op.id);
    if (floor && bandMax(band, floor) !== band) {
      band = floor;
      reasons.push(`policy: floor ${floor}`);
    }
    const trust = op.trust ?? (this.ingestedUntrusted ? "untrusted" : "trusted");
    if (trust === "untrusted" && band === "auto") {
      band = "soft-ack";
      reasons.push("untrusted input is never auto");
    }
    return { band, decision: DECISION_OF[band], declared, reasons, signature: createHash("sha256").update(authorizationKey(op)).digest("hex") };
  }

  #mac(nonce, op) {
    return createHmac("sha256", this.secret).update(`${nonce}\0${authorizationKey(op)}`).digest("base64url");
  }

  /** A single-use token for exactly this call. */
  mint(op) {
    const nonce = `${++this.counter}`;
    this.live.add(nonce);
    return `tok1.${nonce}.${this.#mac(nonce, op)}`;
  }

  /** Redeems a token for exactly this call: true once, then never again. */
  redeem(token, op) {
    const m = /^tok1\.([0-9]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m) return "malformed";
    const expected = Buffer.from(this.#mac(m[1], op));
    if (!timingSafeEqual(expected, Buffer.from(m[2]))) return "not for this call in this session";
    if (!this.live.delete(m[1])) return "already used";
    return "redeemed";
  }
}
