// Framing: the byte stream in, answer lines out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { spawn } from "node:child_process";
import { serve } from "../src/index.js";

const HANDSHAKE = '{"id":0,"session":"handshake","type":"handshake","protocol_version":1,"harness":"test"}\n';

async function run(chunks, extra = {}) {
  const input = new EventEmitter();
  const lines = [];
  let buffer = "";
  const output = {
    write(text) {
      buffer += text;
      const parts = buffer.split("\n");
      buffer = parts.pop();
      lines.push(...parts);
    },
  };
  const done = serve(
    {
      implementation: { name: "t", version: "1" },
      capabilities: ["projection"],
      handlers: {
        project: async ({ scope }) => {
          // Later requests finish first; answers must still leave in order.
          await new Promise((r) => setTimeout(r, scope === "local" ? 30 : 0));
          return { band: scope === "local" ? "soft-ack" : "escalate" };
        },
      },
      log: () => {},
      ...extra,
    },
    { input, output },
  );
  for (const c of chunks) input.emit("data", Buffer.from(c));
  input.emit("end");
  await done;
  assert.equal(buffer, "", "every answer ends with a newline");
  return lines.map((l) => JSON.parse(l));
}

test("answers leave in request order even when a later one finishes first", async () => {
  const answers = await run([HANDSHAKE, '{"id":1,"session":"a","type":"project","scope":"local"}\n{"id":2,"session":"b","type":"project"}\n']);
  assert.deepEqual(answers.map((a) => [a.id, a.band ?? a.type]), [[0, "handshake"], [1, "soft-ack"], [2, "escalate"]]);
});

test("lines split across chunks, CRLF, blank lines and a last line without newline", async () => {
  const text = `${HANDSHAKE}\r\n\n{"id":1,"session":"s","type":"project"}\r\n{"id":2,"session":"s","type":"pro`;
  const chunks = [...Buffer.from(`${text}ject"}`)].map((b) => Uint8Array.of(b));
  const answers = await run(chunks);
  assert.deepEqual(answers.map((a) => a.type), ["handshake", "projection", "projection"]);
});

test("blank is spaces and tabs only: every other line is answered, with an error when it is not JSON", async () => {
  const odd = ["\v", "\f", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\ufeff", "\r\r", " \v\t"];
  const answers = await run([HANDSHAKE, "\n \t\n\t\r\n", ...odd.map((l) => `${l}\n`), '{"id":2,"session":"s","type":"project"}\n']);
  assert.deepEqual(answers.map((a) => a.type), ["handshake", ...odd.map(() => "error"), "projection"]);
  assert.ok(answers.slice(1, -1).every((a) => a.id === null && a.session === ""));
});

test("a multi-byte character split between chunks is decoded whole; invalid UTF-8 is an error", async () => {
  const line = Buffer.from('{"id":1,"session":"é€😀","type":"project"}\n');
  const answers = await run([HANDSHAKE, line.subarray(0, 22), line.subarray(22), Uint8Array.of(0xff, 0xfe, 0x0a), '{"id":2,"session":"s","type":"project"}\n']);
  assert.equal(answers[1].session, "é€😀");
  assert.deepEqual([answers[2].type, answers[2].id, answers[2].code], ["error", null, "bad-json"]);
  assert.equal(answers[3].type, "projection");
});

test("an overlong line is answered with an error and skipped without being buffered", async () => {
  const big = `{"id":1,"session":"s","type":"project","pad":"${"x".repeat(5000)}"}\n`;
  const answers = await run([HANDSHAKE, big.slice(0, 100), big.slice(100), '{"id":2,"session":"s","type":"project"}\n'], { maxLineBytes: 1000 });
  assert.deepEqual(answers.map((a) => a.code ?? a.type), ["handshake", "line-too-long", "projection"]);
  assert.equal(answers[1].id, null);
});

test("the example adapter as a process: garbage never kills it, stdout holds answers only", async () => {
  const child = spawn(process.execPath, [new URL("../examples/toy-adapter.mjs", import.meta.url).pathname], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stdin.write(HANDSHAKE);
  child.stdin.write("\u0000\u0001 not json\n[1,2]\n{}\n");
  child.stdin.write(`{"id":3,"session":"s","type":"project","reversibility":"reversible","scope":"local","trust":"trusted"}\n`);
  child.stdin.end();
  const code = await new Promise((r) => child.on("exit", r));
  assert.equal(code, 0);
  const answers = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(answers.map((a) => a.type), ["handshake", "error", "error", "error", "projection"]);
  assert.equal(answers[4].band, "auto");
});
