// rbv adapter SDK for Node.js: the protocol of PROTOCOL.md, so that an
// adapter is only its decision functions.
//
// The SDK owns everything the protocol decides: line framing with a size
// bound, lossless numbers, the envelope (ids echoed digit for digit), strict
// request checking against the schemas of protocol/schema/, the handshake,
// per-session state and reset_session, pipelining, `unsupported` for every
// request type without a handler, and `error` answers that keep the process
// serving. The implementer supplies handlers that return answer bodies.

import { JsonNumber, JsonSyntaxError, canonical, parse, stringify } from "./json.js";
import { REQUEST_TYPES, RESPONSE_TYPES, Schema, schemaFor } from "./schema.js";

export { JsonNumber, JsonSyntaxError, canonical, parse, stringify, REQUEST_TYPES, RESPONSE_TYPES, Schema, schemaFor };

export const PROTOCOL_VERSION = 1;
export const BANDS = Object.freeze(["auto", "soft-ack", "escalate"]);
export const CAPABILITIES = Object.freeze([
  "manifest", "projection", "rule-of-two", "sql", "shell", "fetch", "tokens", "audit", "versioning", "critical-floor",
  "workspace",
]);
/** Band → decision (PROTOCOL.md §3); `deny` is the critical floor's, never a band's. */
export const DECISION_OF = Object.freeze({ auto: "allow", "soft-ack": "note", escalate: "ask" });
/** The reference's profile values, which a missing profile key means. */
export const DEFAULT_PROFILE = Object.freeze({
  permissions_placement: "both",
  rule_of_two_threshold: 2,
  hard_to_reverse_local: "escalate",
  undeclared_opaque_band: "escalate",
});
/** Lines longer than this (bytes, without the newline) are refused unread. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** The higher of two bands; `null`/`undefined` is no band. */
export function bandMax(a, b) {
  if (a == null) return b ?? null;
  if (b == null) return a;
  return BANDS.indexOf(a) >= BANDS.indexOf(b) ? a : b;
}

/**
 * The authorization key of an operation (PROTOCOL.md §6): the canonical
 * form of its plugin, id and every argument value, numbers by their text.
 * Bind approval tokens to this, never to the operation's shape.
 */
export function authorizationKey(operation) {
  return canonical({ arguments: operation.arguments ?? Object.create(null), id: operation.id, plugin: operation.plugin ?? null });
}

/** Throw from a handler to answer `error` with code `bad-request`. */
export class BadRequest extends Error {}

/** An `unsupported` answer body: an honest "not implemented here". */
export function unsupported(message) {
  return { type: "unsupported", message };
}

// Request type → handler name, and the answer type a handler's body gets
// when it does not name one.
const HANDLERS = {
  load_plugins: ["loadPlugins", "loaded"],
  validate_manifest: ["validateManifest", "validation"],
  project: ["project", "projection"],
  record_event: ["recordEvent", "ack"],
  set_policy: ["setPolicy", "ack"],
  evaluate: ["evaluate", "evaluation"],
  approve: ["approve", "approval"],
  invoke: ["invoke", "invocation"],
  diff_manifests: ["diffManifests", "diff"],
};

// The handlers each capability's cases send requests to (docs/case-format.md,
// "Capabilities"); claiming one without them makes its cases error.
const NEEDED = {
  manifest: ["loadPlugins", "validateManifest", "evaluate"],
  projection: ["project"],
  "rule-of-two": ["recordEvent", "evaluate"],
  sql: ["evaluate"],
  shell: ["evaluate"],
  fetch: ["evaluate"],
  tokens: ["approve", "invoke"],
  audit: ["evaluate"],
  versioning: ["diffManifests"],
  "critical-floor": ["setPolicy"],
  workspace: ["setPolicy", "evaluate"],
};

const ENVELOPE = new Set(["id", "session", "type"]);
const U64_LIMIT = 2n ** 64n;

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** The id text and session to echo for a parsed line, as far as readable (§2). */
function readEnvelope(msg) {
  if (!isObject(msg)) return [null, ""];
  const id = msg.id;
  const idOk = id instanceof JsonNumber && id.isInteger() && !id.text.startsWith("-") && id.toBigInt() < U64_LIMIT;
  return [idOk ? id : null, typeof msg.session === "string" ? msg.session : ""];
}

/**
 * An adapter: the protocol state machine over lines, without any I/O, so
 * that tests can drive it. `serve()` connects one to stdin and stdout.
 */
export class Adapter {
  /**
   * @param {import("./index.js").AdapterSpec} spec
   */
  constructor(spec) {
    if (!spec || !isObject(spec.implementation) || typeof spec.implementation.name !== "string" || typeof spec.implementation.version !== "string") {
      throw new TypeError("an adapter needs implementation: {name, version}");
    }
    this.spec = spec;
    this.handlers = spec.handlers ?? {};
    for (const name of Object.keys(this.handlers)) {
      if (!Object.values(HANDLERS).some(([h]) => h === name) && name !== "resetSession") {
        throw new TypeError(`unknown handler \`${name}\` (one of ${Object.values(HANDLERS).map(([h]) => h).join(", ")}, resetSession)`);
      }
    }
    this.capabilities = [...(spec.capabilities ?? [])];
    this.profile = { ...(spec.profile ?? {}) };
    this.maxLineBytes = spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.log = spec.log ?? ((text) => process.stderr.write(`${spec.implementation.name}: ${text}\n`));
    for (const cap of this.capabilities) {
      const missing = (NEEDED[cap] ?? []).filter((h) => typeof this.handlers[h] !== "function");
      if (!CAPABILITIES.includes(cap)) this.log(`warning: \`${cap}\` is not a capability rbv knows`);
      else if (missing.length) this.log(`warning: claims \`${cap}\` without handler(s) ${missing.join(", ")}: its cases will error`);
    }
    /** @type {Map<string, unknown>} */
    this.sessions = new Map();
    // Each session's requests run one after another (a token redeemed twice
    // at once must be redeemed once); sessions do not wait for each other.
    this.chains = new Map();
    this.handshaken = false;
  }

  /** The state of a session, created on first use by `spec.newSession`. */
  state(session) {
    if (!this.sessions.has(session)) this.sessions.set(session, this.spec.newSession ? this.spec.newSession(session) : {});
    return this.sessions.get(session);
  }

  /**
   * The answer line (without `\n`) to one request line. Never rejects: a
   * line that is not a valid request gets an `error` answer.
   * @param {string} line
   * @returns {Promise<string>}
   */
  answerLine(line) {
    let msg;
    try {
      msg = parse(line);
    } catch (e) {
      return Promise.resolve(this.#write(null, "", { type: "error", code: "bad-json", message: e.message }));
    }
    const [id, session] = readEnvelope(msg);
    const error = (code, message) => this.#write(id, session, { type: "error", code, message });
    if (!isObject(msg)) return Promise.resolve(error("bad-request", "a request is a JSON object"));
    if (id === null) return Promise.resolve(error("bad-request", "`id` must be an integer 0 ≤ id < 2^64"));
    if (typeof msg.session !== "string") return Promise.resolve(error("bad-request", "`session` must be a string"));
    if (typeof msg.type !== "string") return Promise.resolve(error("bad-request", "`type` must be a string"));
    if (!REQUEST_TYPES.includes(msg.type)) {
      return Promise.resolve(this.#write(id, session, unsupported(`\`${msg.type}\` is not a request type of protocol v1`)));
    }
    const violations = schemaFor("requests", msg.type).errors(msg);
    if (violations.length) return Promise.resolve(error("bad-request", `invalid \`${msg.type}\`: ${violations.join("; ")}`));
    if (msg.type === "handshake") return Promise.resolve(this.#write(id, session, this.#handshake(msg)));
    if (!this.handshaken) return Promise.resolve(error("no-handshake", "the first request must be `handshake`"));
    const run = () =>
      this.#dispatch(msg).then((body) => {
        try {
          return this.#write(id, session, body);
        } catch (e) {
          // A body with no JSON form (a function, NaN, a cycle) is the
          // handler's bug: answered as one, so that output never stalls.
          this.log(`internal error on \`${msg.type}\`: the answer has no JSON form: ${e?.message ?? e}`);
          return this.#write(id, session, { type: "error", code: "internal", message: `the answer has no JSON form: ${e?.message ?? e}` });
        }
      });
    const previous = this.chains.get(session) ?? Promise.resolve();
    const next = previous.then(run, run);
    const settled = next.then(
      () => {},
      () => {},
    );
    this.chains.set(session, settled);
    settled.then(() => {
      if (this.chains.get(session) === settled) this.chains.delete(session);
    });
    return next;
  }

  #handshake(msg) {
    if (msg.protocol_version.text !== String(PROTOCOL_VERSION)) {
      return { type: "error", code: "protocol-version", message: `this adapter speaks protocol ${PROTOCOL_VERSION}, not ${msg.protocol_version.text}` };
    }
    this.handshaken = true;
    return {
      type: "handshake",
      protocol_version: PROTOCOL_VERSION,
      implementation: { name: this.spec.implementation.name, version: this.spec.implementation.version },
      capabilities: this.capabilities,
      profile: this.profile,
    };
  }

  async #dispatch(msg) {
    const session = msg.session;
    const body = Object.create(null);
    for (const [k, v] of Object.entries(msg)) if (!ENVELOPE.has(k)) body[k] = v;
    const ctx = { session, id: msg.id.toBigInt(), adapter: this };
    try {
      if (msg.type === "reset_session") {
        const old = this.sessions.get(session);
        this.sessions.delete(session);
        if (this.handlers.resetSession) await this.handlers.resetSession(old, ctx);
        return { type: "ack" };
      }
      const [name, answerType] = HANDLERS[msg.type];
      const handler = this.handlers[name];
      if (typeof handler !== "function") return unsupported(`\`${msg.type}\` is not implemented by this adapter`);
      ctx.state = this.state(session);
      const out = await handler.call(this.handlers, body, ctx);
      if (!isObject(out)) throw new TypeError(`handler ${name} returned ${stringify(out ?? null)}, not an answer body`);
      return out.type === undefined ? { type: answerType, ...out } : out;
    } catch (e) {
      if (e instanceof BadRequest) return { type: "error", code: "bad-request", message: `invalid \`${msg.type}\`: ${e.message}` };
      // A bug in a handler must not kill the child: the case errors, the rest go on.
      this.log(`internal error on \`${msg.type}\`: ${e?.stack ?? e}`);
      return { type: "error", code: "internal", message: String(e?.message ?? e) };
    }
  }

  #write(id, session, body) {
    const { type, ...rest } = body;
    return stringify({ id, session, type, ...rest });
  }
}

/**
 * Serves the protocol on stdin/stdout until stdin ends. Everything a
 * library would print with console.log goes to stderr: stdout carries
 * answers only.
 * @param {import("./index.js").AdapterSpec} spec
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream}} [io]
 * @returns {Promise<void>} resolves when stdin has ended and every answer is written
 */
export function serve(spec, io = {}) {
  const input = io.input ?? process.stdin;
  const output = io.output ?? process.stdout;
  if (output === process.stdout) {
    console.log = (...a) => console.error(...a);
    console.info = (...a) => console.error(...a);
    console.debug = (...a) => console.error(...a);
  }
  const adapter = spec instanceof Adapter ? spec : new Adapter(spec);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  // Answers leave in the order their requests came in; a slow answer holds
  // back the ones after it, never the reading of input.
  const queue = [];
  const flush = () => {
    while (queue.length && queue[0].text !== undefined) output.write(`${queue.shift().text}\n`);
  };
  const submit = (answer) => {
    const slot = {};
    queue.push(slot);
    answer.then((text) => {
      slot.text = text;
      flush();
    });
    return answer;
  };
  const inFlight = new Set();
  const handleLine = (bytes) => {
    if (bytes.length && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    let line;
    try {
      line = decoder.decode(bytes);
    } catch {
      const p = submit(Promise.resolve(stringify({ id: null, session: "", type: "error", code: "bad-json", message: "the line is not UTF-8" })));
      inFlight.add(p);
      p.then(() => inFlight.delete(p));
      return;
    }
    // Blank is spaces and tabs only (PROTOCOL.md §1): trim() also empties
    // U+000B, U+00A0 or a BOM, lines that must be answered.
    if (bytes.every((b) => b === 0x20 || b === 0x09)) return;
    const p = submit(adapter.answerLine(line));
    inFlight.add(p);
    p.then(() => inFlight.delete(p));
  };
  let parts = [];
  let size = 0;
  let overlong = false;
  const tooLong = () => {
    const p = submit(Promise.resolve(stringify({ id: null, session: "", type: "error", code: "line-too-long", message: `a line longer than ${adapter.maxLineBytes} bytes was skipped` })));
    inFlight.add(p);
    p.then(() => inFlight.delete(p));
  };
  return new Promise((resolve) => {
    input.on("data", (chunk) => {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        const end = nl === -1 ? chunk.length : nl;
        if (!overlong) {
          if (size + (end - start) > adapter.maxLineBytes) {
            // The rest of the line is dropped as it arrives, never buffered.
            overlong = true;
            parts = [];
            size = 0;
          } else if (end > start) {
            parts.push(chunk.subarray(start, end));
            size += end - start;
          }
        }
        if (nl === -1) break;
        if (overlong) tooLong();
        else handleLine(Buffer.concat(parts, size));
        parts = [];
        size = 0;
        overlong = false;
        start = nl + 1;
      }
    });
    input.on("end", () => {
      if (overlong) tooLong();
      else if (size) handleLine(Buffer.concat(parts, size));
      Promise.all([...inFlight]).then(() => {
        flush();
        resolve();
      });
    });
  });
}
