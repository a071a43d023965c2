// The example adapter's claimed semantics, through the SDK (rbv certifies
// them end to end; these pin the token rules that matter most).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";

async function session(lines) {
  const child = spawn(process.execPath, [new URL("../examples/toy-adapter.mjs", import.meta.url).pathname], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stdin.end(
    [{ type: "handshake", session: "handshake", protocol_version: 1, harness: "t" }, ...lines]
      .map((req, i) => (typeof req === "string" ? req.replace("$ID", String(i)) : JSON.stringify({ id: i, ...req })))
      .join("\n") + "\n",
  );
  await new Promise((r) => child.on("exit", r));
  return out.trimEnd().split("\n").slice(1).map((l) => JSON.parse(l));
}

const op = (args) => `{"plugin":"p","id":"mcp:db/delete_row","arguments":${args}}`;
const approve = (args, s = "s", kind = "human") => `{"id":$ID,"session":"${s}","type":"approve","operation":${op(args)},"approver":{"kind":"${kind}","name":"u"}}`;
const invoke = (args, token, s = "s") => `{"id":$ID,"session":"${s}","type":"invoke","operation":${op(args)},"token":${JSON.stringify(token)}}`;

test("mint and redeem in one process: other data is refused, the right call once", async () => {
  // Tokens are opaque and minted at run time: drive one adapter step by step.
  const child = spawn(process.execPath, [new URL("../examples/toy-adapter.mjs", import.meta.url).pathname], { stdio: ["pipe", "pipe", "inherit"] });
  const pending = [];
  let buffer = "";
  child.stdout.on("data", (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      pending.shift()(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  let id = 0;
  const send = (line) => new Promise((r) => {
    pending.push(r);
    child.stdin.write(`${line.replace("$ID", String(id++))}\n`);
  });
  await send('{"id":$ID,"session":"handshake","type":"handshake","protocol_version":1,"harness":"t"}');
  const { token } = await send(approve('{"id":412}'));
  assert.equal((await send(approve('{"id":412}', "s", "model"))).granted, false);
  for (const other of ["412.0", "4.12e2", "413", '"412"', '412,"x":1']) {
    assert.equal((await send(invoke(`{"id":${other}}`, token))).allowed, false, other);
  }
  assert.equal((await send(invoke('{"id":412}', token, "elsewhere"))).allowed, false, "another session");
  assert.equal((await send(invoke('{"id":412}', token))).allowed, true, "the approved call");
  assert.equal((await send(invoke('{"id":412}', token))).allowed, false, "spent");
  const { token: second } = await send(approve('{"id":412}'));
  await send('{"id":$ID,"session":"s","type":"reset_session"}');
  assert.equal((await send(invoke('{"id":412}', second))).allowed, false, "void after reset");
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
});

test("a declared floor is a floor: undeclared escalates, auto with untrusted input is not auto", async () => {
  const manifest = {
    $schema: "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json",
    name: "p",
    version: "1.0.0",
    extensions: { "org.agent-plugins.permissions": { operations: [{ id: "mcp:db/read", band: "auto" }, { id: "mcp:db/x", band: "Escalate" }] } },
  };
  const ev = (opId, extra = {}) => ({ session: "s", type: "evaluate", operation: { plugin: "p", id: opId, ...extra } });
  const answers = await session([
    { session: "s", type: "load_plugins", plugins: [{ manifest }] },
    ev("mcp:db/read"),
    ev("mcp:db/read", { trust: "untrusted" }),
    ev("mcp:db/x"),
    { session: "s", type: "set_policy", floors: { "mcp:db/read": "escalate" } },
    { session: "s", type: "set_policy", floors: { "mcp:db/read": "auto" } },
    ev("mcp:db/read"),
    ev("constructor"),
    ev("__proto__"),
  ]);
  assert.deepEqual(answers[0].plugins[0].declarations, { "mcp:db/read": "auto" });
  assert.deepEqual(answers.slice(1).map((a) => a.band ?? a.type), ["auto", "soft-ack", "escalate", "ack", "ack", "escalate", "escalate", "escalate"]);
  assert.equal(answers[3].declared, null);
});
