// The protocol behaviour the SDK owns (PROTOCOL.md §2, §5, §10.1), on an
// adapter with a few handlers; every answer must satisfy its schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Adapter, BadRequest, parse, schemaFor } from "../src/index.js";

const HANDSHAKE = '{"id":0,"session":"handshake","type":"handshake","protocol_version":1,"harness":"test"}';

function make(handlers = {}, extra = {}) {
  const logs = [];
  const adapter = new Adapter({
    implementation: { name: "t", version: "1" },
    capabilities: ["projection"],
    newSession: () => ({ count: 0 }),
    handlers: { project: () => ({ band: "escalate" }), ...handlers },
    log: (t) => logs.push(t),
    ...extra,
  });
  return { adapter, logs };
}

async function ask(adapter, line) {
  const text = await adapter.answerLine(line);
  assert.doesNotMatch(text, /\n/);
  const answer = parse(text);
  assert.deepEqual(schemaFor("responses", answer.type).errors(answer), [], text);
  return { answer, text };
}

async function ready(handlers, extra) {
  const made = make(handlers, extra);
  const { answer } = await ask(made.adapter, HANDSHAKE);
  assert.equal(answer.type, "handshake");
  return made;
}

// The malformed and unknown-type lines of cases/protocol/malformed.yaml,
// with their placeholders filled in: the SDK alone must get them right.
function protocolRows() {
  const text = readFileSync(new URL("../../../cases/protocol/malformed.yaml", import.meta.url), "utf8");
  const rows = [];
  let expect = null;
  for (const line of text.split("\n")) {
    const e = /expect: \{type: (\w+)\}/.exec(line);
    if (e) expect = e[1];
    if (line.startsWith("table:")) expect = null;
    const r = /^ {4}- \{name: ([\w-]+), line: (['"])(.*)\2\}$/.exec(line);
    if (r && expect) rows.push({ name: r[1], expect, line: r[3].replaceAll("''", "'").replaceAll("$ID", "41").replaceAll("$SESSION", "case-s") });
  }
  return rows;
}

test("the protocol area's lines get the answer type they expect and echo what is readable", async () => {
  const { adapter } = await ready({ evaluate: () => ({ band: "escalate", decision: "ask", declared: null }), recordEvent: () => ({}), setPolicy: () => ({}) });
  const rows = protocolRows();
  assert.ok(rows.length >= 30, `${rows.length} rows read`);
  for (const { name, expect, line } of rows) {
    const { answer } = await ask(adapter, line);
    assert.equal(answer.type, expect, `${name}: ${line}`);
    let sent = null;
    try {
      sent = JSON.parse(line);
    } catch {}
    const idReadable = sent && typeof sent === "object" && !Array.isArray(sent) && /"id":(\d+)[,}]/.test(line) && BigInt(/"id":(\d+)/.exec(line)[1]) < 2n ** 64n;
    assert.equal(answer.id === null ? null : answer.id.text, idReadable ? /"id":(\d+)/.exec(line)[1] : null, `${name}: id`);
    assert.equal(answer.session, sent && typeof sent.session === "string" ? sent.session : "", `${name}: session`);
  }
  // Still serving.
  assert.equal((await ask(adapter, '{"id":99,"session":"x","type":"project"}')).answer.type, "projection");
});

test("ids up to 2^64 - 1 come back digit for digit", async () => {
  const { adapter } = await ready();
  for (const id of ["18446744073709551615", "9007199254740993", "9223372036854775808", "0"]) {
    const { text } = await ask(adapter, `{"id":${id},"session":"s","type":"reset_session"}`);
    assert.ok(text.startsWith(`{"id":${id},"session":"s","type":"ack"`), text);
  }
  for (const bad of ["-0", "1.0", "1e0", "18446744073709551616"]) {
    const { answer } = await ask(adapter, `{"id":${bad},"session":"s","type":"reset_session"}`);
    assert.deepEqual([answer.type, answer.id], ["error", null], bad);
  }
});

test("before the handshake: an error under the request's id, and the handshake still succeeds", async () => {
  const { adapter } = make();
  const { answer } = await ask(adapter, '{"id":5,"session":"s","type":"project"}');
  assert.equal(answer.type, "error");
  assert.equal(answer.id.text, "5");
  assert.equal((await ask(adapter, HANDSHAKE)).answer.type, "handshake");
  assert.equal((await ask(adapter, '{"id":6,"session":"s","type":"project"}')).answer.type, "projection");
});

test("another protocol version gets error protocol-version and no handshake", async () => {
  const { adapter } = make();
  const { answer } = await ask(adapter, '{"id":0,"session":"handshake","type":"handshake","protocol_version":2,"harness":"x"}');
  assert.equal(answer.code, "protocol-version");
  assert.equal((await ask(adapter, '{"id":1,"session":"s","type":"project"}')).answer.code, "no-handshake");
});

test("the handshake carries the claim and the profile", async () => {
  const { adapter } = make({}, { profile: { hard_to_reverse_local: "soft-ack" } });
  const { answer } = await ask(adapter, HANDSHAKE);
  assert.deepEqual(answer.capabilities, ["projection"]);
  assert.equal(answer.profile.hard_to_reverse_local, "soft-ack");
  assert.equal(answer.protocol_version.text, "1");
});

test("a request type without a handler is unsupported; a valid request is checked first", async () => {
  const { adapter } = await ready();
  const op = '"operation":{"id":"mcp:a/b"}';
  assert.equal((await ask(adapter, `{"id":1,"session":"s","type":"evaluate",${op}}`)).answer.type, "unsupported");
  assert.equal((await ask(adapter, `{"id":2,"session":"s","type":"approve",${op},"approver":{"kind":"human","name":"u"}}`)).answer.type, "unsupported");
  assert.equal((await ask(adapter, `{"id":3,"session":"s","type":"evaluate",${op},"x":1}`)).answer.type, "error");
});

test("handler answers get their type; BadRequest is an error; a crash is an error and the adapter survives", async () => {
  const { adapter, logs } = await ready({
    evaluate: ({ operation }) => {
      if (operation.id === "bad") throw new BadRequest("no such thing");
      if (operation.id === "boom") throw new RangeError("handler bug");
      return { band: "auto", decision: "allow", declared: null };
    },
  });
  const ev = (id, opId) => ask(adapter, `{"id":${id},"session":"s","type":"evaluate","operation":{"id":"${opId}"}}`);
  assert.equal((await ev(1, "ok")).answer.type, "evaluation");
  const bad = (await ev(2, "bad")).answer;
  assert.equal(bad.code, "bad-request");
  assert.match(bad.message, /no such thing/);
  const boom = (await ev(3, "boom")).answer;
  assert.equal(boom.code, "internal");
  assert.ok(logs.some((l) => l.includes("handler bug")));
  assert.equal((await ev(4, "ok")).answer.type, "evaluation");
});

test("sessions keep separate state; reset_session drops it", async () => {
  let resets = 0;
  const { adapter } = await ready({
    project: (_req, { state }) => ({ band: ++state.count >= 2 ? "escalate" : "auto" }),
    resetSession: () => {
      resets++;
    },
  });
  const p = (id, s) => ask(adapter, `{"id":${id},"session":"${s}","type":"project"}`).then((r) => r.answer.band);
  assert.equal(await p(1, "a"), "auto");
  assert.equal(await p(2, "__proto__"), "auto");
  assert.equal(await p(3, "a"), "escalate");
  await ask(adapter, '{"id":4,"session":"a","type":"reset_session"}');
  assert.equal(resets, 1);
  assert.equal(await p(5, "a"), "auto");
  assert.equal(await p(6, "__proto__"), "escalate");
});

test("a workspace reaches the handlers; a relative one is a bad-request error", async () => {
  const seen = [];
  const { adapter } = await ready({
    setPolicy: (req, { state }) => {
      state.workspace = req.workspace;
      return {};
    },
    evaluate: (req, { state }) => {
      seen.push(req.operation.workspace ?? state.workspace);
      return { band: "auto", decision: "allow", declared: null };
    },
  });
  await ask(adapter, '{"id":1,"session":"a","type":"set_policy","workspace":{"root":"/srv/app"}}');
  await ask(adapter, '{"id":2,"session":"a","type":"evaluate","operation":{"id":"client:shell"}}');
  await ask(adapter, '{"id":3,"session":"a","type":"evaluate","operation":{"id":"client:shell","workspace":{"root":"/work/p","cwd":"/work/p/web","home":"/home/me"}}}');
  // Parsed objects have no prototype (`__proto__` is a plain key): compare their entries.
  assert.deepEqual(seen.map((w) => ({ ...w })), [{ root: "/srv/app" }, { root: "/work/p", cwd: "/work/p/web", home: "/home/me" }]);
  for (const [id, ws] of [[4, '{"root":"srv/app"}'], [5, '{"root":"/srv/app","cwd":"web"}']]) {
    const { answer } = await ask(adapter, `{"id":${id},"session":"a","type":"set_policy","workspace":${ws}}`);
    assert.deepEqual([answer.type, String(answer.id), answer.code], ["error", String(id), "bad-request"]);
    assert.match(answer.message, /does not match \^\//);
  }
});

test("pipelined requests of one session run one at a time, in order; sessions do not wait for each other", async () => {
  const order = [];
  let release;
  const gate = new Promise((r) => (release = r));
  const { adapter } = await ready({
    project: async ({ scope }, { session }) => {
      order.push(`start ${session} ${scope}`);
      if (session === "slow" && scope === "local") await gate;
      order.push(`end ${session} ${scope}`);
      return { band: "escalate" };
    },
  });
  const a = adapter.answerLine('{"id":1,"session":"slow","type":"project","scope":"local"}');
  const b = adapter.answerLine('{"id":2,"session":"slow","type":"project","scope":"external"}');
  const c = adapter.answerLine('{"id":3,"session":"fast","type":"project","scope":"local"}');
  await c;
  assert.deepEqual(order, ["start slow local", "start fast local", "end fast local"]);
  release();
  await Promise.all([a, b]);
  assert.deepEqual(order.slice(3), ["end slow local", "start slow external", "end slow external"]);
});

test("a handler returning nonsense is an internal error, not a broken line", async () => {
  const { adapter } = await ready({ project: ({ scope }) => (scope ? { band: () => 1 } : "escalate") });
  assert.equal((await ask(adapter, '{"id":1,"session":"s","type":"project"}')).answer.code, "internal");
  assert.equal((await ask(adapter, '{"id":2,"session":"s","type":"project","scope":"local"}')).answer.code, "internal");
});

test("claiming a capability without its handlers is warned about", () => {
  const { logs } = make({}, { capabilities: ["tokens", "manfest"] });
  assert.ok(logs.some((l) => /claims `tokens` without handler\(s\) approve, invoke/.test(l)), logs.join("\n"));
  assert.ok(logs.some((l) => /`manfest` is not a capability/.test(l)), logs.join("\n"));
});
