// The rbv protocol loop shared by the Node.js peer adapters (PROTOCOL.md).
//
// A peer adapter wraps one outside classifier. It supplies its name, the
// capabilities it really has and one `evaluate(kind, operation)` function;
// this module does the rest: one JSON object per line in, one per line out,
// `id` and `session` echoed, `unsupported` for every request the peer has no
// notion of, `error` for lines that are not valid requests. Nothing but
// answers ever reaches stdout: console output of the wrapped packages is
// redirected to stderr before they are imported.


const realWrite = process.stdout.write.bind(process.stdout);
// Wrapped packages may log with console.log/info; stdout is the protocol's.
console.log = (...a) => console.error(...a);
console.info = (...a) => console.error(...a);
console.debug = () => {};

const KINDS = new Set(["tool", "sql", "shell", "fetch"]);
const REQUEST_TYPES = new Set([
  "handshake", "load_plugins", "validate_manifest", "project", "record_event",
  "set_policy", "evaluate", "approve", "invoke", "diff_manifests", "reset_session",
]);

class BadRequest extends Error {}

/** Band → decision, as the protocol pairs them (§3); `deny` is passed explicitly. */
export const DECISION_OF = { auto: "allow", "soft-ack": "note", escalate: "ask" };

/** An `evaluation` body. */
export function evaluation(band, reasons, decision = DECISION_OF[band]) {
  return { type: "evaluation", band, decision, declared: null, reasons };
}

/**
 * An `invocation` from the peer's evaluation: what the peer lets run
 * without a prompt runs; what it asks about or refuses does not. The peers
 * mint no tokens, so a token (sent only to implementations claiming
 * `tokens`) redeems nothing.
 */
function invocation(ev, token) {
  const allowed = ev.decision === "allow" || ev.decision === "note";
  const reasons = [...ev.reasons];
  if (token !== undefined) reasons.push("the peer has no approval tokens: nothing redeemed");
  return { type: "invocation", allowed, band: ev.band, decision: ev.decision, reasons };
}

const BANDS = ["auto", "soft-ack", "escalate"];

function checkFloors(f) {
  if (f === undefined) return {};
  if (f === null || typeof f !== "object" || Array.isArray(f)) throw new BadRequest("`floors` must map operation ids to bands");
  for (const [op, band] of Object.entries(f)) {
    if (!BANDS.includes(band)) throw new BadRequest(`floor of ${op} must be one of ${BANDS.join(", ")}`);
  }
  return f;
}

/** The evaluation raised to the session's floor for the operation, if any. */
function raiseToFloor(ev, floor) {
  if (ev.type !== "evaluation" || floor === undefined || BANDS.indexOf(floor) <= BANDS.indexOf(ev.band)) return ev;
  return { ...ev, band: floor, decision: DECISION_OF[floor], reasons: [...ev.reasons, `client policy: floor ${floor}`] };
}

// The raw text of the top-level `id` value of a line that JSON.parse
// accepted, or null. JSON.parse turns numbers into doubles, and ids go up to
// 2^64 - 1 (PROTOCOL.md §2): the id is read and echoed as text instead. The
// last `id` key wins, as in JSON.parse.
function topLevelIdText(line) {
  let depth = 0;
  let found = null;
  let key = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      const text = line.slice(i, j + 1);
      i = j;
      let k = j + 1;
      while (/\s/.test(line[k] || "")) k++;
      key = depth === 1 && line[k] === ":" ? JSON.parse(text) : null;
      if (key !== null) i = k;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (depth === 1 && key === "id" && !/[\s,]/.test(c)) {
      const m = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(line.slice(i));
      found = m ? m[0] : null;
      if (m) i += m[0].length - 1;
      key = null;
    }
  }
  return found;
}

// The id (as its digits) and session to echo, as far as they can be read.
function readEnvelope(msg, line) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return [null, ""];
  const text = typeof msg.id === "number" ? topLevelIdText(line) : null;
  const ok = text !== null && /^(0|[1-9][0-9]*)$/.test(text) && BigInt(text) < 2n ** 64n;
  const session = typeof msg.session === "string" ? msg.session : "";
  return [ok ? text : null, session];
}

// The fields of each request the adapters answer themselves, and of the
// objects inside them (protocol/schema/requests/): anything else is an
// unknown field, which the protocol answers with `error` (RBV-PRO-002),
// also when the peer would answer the request `unsupported`.
const REQUEST_FIELDS = {
  handshake: ["protocol_version", "harness"],
  reset_session: [],
  record_event: ["event"],
  set_policy: ["critical", "floors"],
  evaluate: ["operation"],
  invoke: ["operation", "token"],
};
const OPERATION_FIELDS = ["id", "plugin", "kind", "arguments", "trust", "actor", "dialect"];
const EVENT_FIELDS = {
  untrusted_content: ["content", "source"],
  sensitive_data: ["what"],
  state_change: ["what"],
  environment: ["vars"],
};
const TRUST = new Set(["trusted", "untrusted"]);

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function checkFields(obj, allowed, what) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new BadRequest(`unknown field \`${k}\` in ${what}`);
  }
}

function checkStringOrNull(obj, key, what) {
  if (obj[key] !== undefined && obj[key] !== null && typeof obj[key] !== "string") {
    throw new BadRequest(`\`${what}.${key}\` must be a string`);
  }
}

/** A `record_event` event as the schema has it (the peers ignore events). */
function checkEvent(ev) {
  if (!isObject(ev)) throw new BadRequest("`event` must be an object");
  const fields = typeof ev.kind === "string" && Object.hasOwn(EVENT_FIELDS, ev.kind) ? EVENT_FIELDS[ev.kind] : undefined;
  if (fields === undefined) {
    throw new BadRequest(`\`event.kind\` must be one of ${Object.keys(EVENT_FIELDS).join(", ")} (got ${JSON.stringify(ev.kind)})`);
  }
  checkFields(ev, ["kind", ...fields], "`event`");
  for (const k of fields) if (k !== "vars") checkStringOrNull(ev, k, "event");
  if (ev.kind === "environment" && (!isObject(ev.vars) || Object.values(ev.vars).some((v) => typeof v !== "string"))) {
    throw new BadRequest("`event.vars` must map names to strings");
  }
}

function checkOperation(op) {
  if (op === null || typeof op !== "object" || Array.isArray(op)) throw new BadRequest("`operation` must be an object");
  checkFields(op, OPERATION_FIELDS, "`operation`");
  if (typeof op.id !== "string") throw new BadRequest("`operation.id` must be a string");
  for (const k of ["plugin", "actor", "dialect"]) checkStringOrNull(op, k, "operation");
  if (op.trust !== undefined && op.trust !== null && !TRUST.has(op.trust)) {
    throw new BadRequest(`\`operation.trust\` must be trusted or untrusted (got ${JSON.stringify(op.trust)})`);
  }
  const kind = op.kind ?? "tool";
  if (!KINDS.has(kind)) throw new BadRequest(`\`operation.kind\` must be one of tool, sql, shell, fetch (got ${JSON.stringify(kind)})`);
  const args = op.arguments ?? {};
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw new BadRequest("`operation.arguments` must be an object");
  return [kind, args];
}

/**
 * Runs the loop until stdin ends.
 *
 * peer = {
 *   implementation: {name, version},
 *   capabilities: ["sql"],           // only what the peer really does
 *   ready: Promise,                  // resolves when the wrapped package is loaded
 *   evaluate(kind, args, op) -> Promise<body> | body  // an `evaluation` body; only
 *                                                      // kinds in `capabilities` reach it
 * }
 */
export function serve(peer) {
  // A package that fails to load makes every evaluation an `error` naming
  // the cause, never a crash.
  peer.ready.catch((e) => console.error(`${peer.implementation.name}: the wrapped package failed to load:`, e));
  let handshaken = false;
  // The client policy of each session (`set_policy` floors): the only
  // state the adapters keep. It is glue around the peer, not the peer.
  const floors = new Map();
  // The id is its digits (see readEnvelope), spliced in as a number.
  const write = ({ id, ...rest }) =>
    realWrite(`{"id":${id === null || id === undefined ? "null" : id},${JSON.stringify(rest).slice(1)}\n`);

  async function answer(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      return { id: null, session: "", type: "error", code: "bad-json", message: String(e.message) };
    }
    const [id, session] = readEnvelope(msg, line);
    const error = (code, message) => ({ id, session, type: "error", code, message });
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return error("bad-request", "a request is a JSON object");
    if (id === null) return error("bad-request", "`id` must be an integer in 0..2^64");
    if (typeof msg.session !== "string") return error("bad-request", "`session` must be a string");
    if (typeof msg.type !== "string") return error("bad-request", "`type` must be a string");
    const type = msg.type;
    try {
      if (Object.hasOwn(REQUEST_FIELDS, type)) checkFields(msg, ["id", "session", "type", ...REQUEST_FIELDS[type]], "the request");
      if (type === "handshake") {
        if (msg.protocol_version !== 1) return error("protocol-version", "this adapter speaks protocol version 1");
        handshaken = true;
        return {
          id, session, type: "handshake", protocol_version: 1,
          implementation: peer.implementation,
          capabilities: peer.capabilities,
          profile: {},
        };
      }
      if (!handshaken) return error("bad-request", "the first request must be `handshake`");
      if (!REQUEST_TYPES.has(type)) return { id, session, type: "unsupported", message: `unknown request type \`${type}\`` };
      if (type === "reset_session") {
        floors.delete(session);
        return { id, session, type: "ack" };
      }
      // Session events feed Rule-of-Two, which no peer has; they may never
      // lower a band, and here they change nothing.
      if (type === "record_event") {
        checkEvent(msg.event);
        return { id, session, type: "ack" };
      }
      if (type === "set_policy") {
        if (msg.critical !== undefined && (!Array.isArray(msg.critical) || msg.critical.some((c) => typeof c !== "string"))) {
          throw new BadRequest("`critical` must be a list of operation ids");
        }
        // An empty list asks for no critical floor: floors alone are the
        // base protocol every implementation answers.
        if (msg.critical !== undefined && !(Array.isArray(msg.critical) && msg.critical.length === 0)) {
          return { id, session, type: "unsupported", message: `${peer.implementation.name} has no critical floor` };
        }
        floors.set(session, { ...floors.get(session), ...checkFloors(msg.floors) });
        return { id, session, type: "ack" };
      }
      if (type === "evaluate" || type === "invoke") {
        const [kind, args] = checkOperation(msg.operation);
        if (type === "invoke" && msg.token !== undefined && msg.token !== null && typeof msg.token !== "string") {
          throw new BadRequest("`token` must be a string");
        }
        if (!peer.capabilities.includes(kind)) {
          return { id, session, type: "unsupported", message: `${peer.implementation.name} has no \`${kind}\` inspector` };
        }
        await peer.ready;
        const body = raiseToFloor(await peer.evaluate(kind, args, msg.operation), floors.get(session)?.[msg.operation.id]);
        return { id, session, ...(type === "invoke" ? invocation(body, msg.token) : body) };
      }
      // No manifest, projection, tokens or versioning in these peers.
      return { id, session, type: "unsupported", message: `${peer.implementation.name} has no notion of \`${type}\`` };
    } catch (e) {
      if (e instanceof BadRequest) return error("bad-request", `invalid \`${type}\`: ${e.message}`);
      console.error(`${peer.implementation.name}: internal error:`, e);
      return error("internal", String(e && e.message ? e.message : e));
    }
  }

  // Answers may finish out of order (the protocol matches them by id), but
  // each is written whole, on one line.
  // Lines end at "\n" only (a "\r" before it is dropped): readline would
  // also split at a lone "\r", which is part of a line that must be answered.
  const pending = new Set();
  const onLine = (line) => {
    // Blank is spaces and tabs only (PROTOCOL.md §1): trim() also empties
    // U+000B, U+00A0 or a BOM, lines that must be answered.
    if (/^[ \t]*$/.test(line)) return;
    const p = answer(line).then(write, (e) => console.error("unanswerable line:", e));
    pending.add(p);
    p.finally(() => pending.delete(p));
  };
  let buffered = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffered += chunk;
    let at;
    while ((at = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
  });
  process.stdin.on("end", async () => {
    if (buffered) onLine(buffered);
    await Promise.allSettled([...pending]);
    process.exit(0);
  });
}

/** The text argument an inspector reads, or a BadRequest. */
export function textArgument(args, key, kind) {
  const v = args[key];
  if (typeof v !== "string") throw new BadRequest(`a \`${kind}\` operation needs \`arguments.${key}\` as a string`);
  return v;
}
