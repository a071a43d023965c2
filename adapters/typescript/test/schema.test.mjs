// The package's schemas are protocol/schema/, byte for byte, and the
// checker reads them as the harness's validator does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { REQUEST_TYPES, RESPONSE_TYPES, Schema, schemaFor } from "../src/schema.js";
import { parse } from "../src/json.js";

const repo = new URL("../../../protocol/schema/", import.meta.url);
const mine = new URL("../schema/", import.meta.url);

test("the package's schema copy is identical to protocol/schema/ (run scripts/sync-schema.mjs after a change)", () => {
  for (const dir of ["requests", "responses"]) {
    const names = readdirSync(new URL(`${dir}/`, repo)).sort();
    assert.deepEqual(readdirSync(new URL(`${dir}/`, mine)).sort(), names, dir);
    for (const name of names) {
      assert.equal(readFileSync(new URL(`${dir}/${name}`, mine), "utf8"), readFileSync(new URL(`${dir}/${name}`, repo), "utf8"), `${dir}/${name}`);
    }
  }
});

test("the type lists name every schema", () => {
  assert.deepEqual([...REQUEST_TYPES].sort(), readdirSync(new URL("requests/", repo)).map((n) => n.replace(".json", "")).sort());
  assert.deepEqual([...RESPONSE_TYPES].sort(), readdirSync(new URL("responses/", repo)).map((n) => n.replace(".json", "")).sort());
});

const ok = (dir, type, line) => assert.deepEqual(schemaFor(dir, type).errors(parse(line)), [], line);
const bad = (dir, type, line, pattern) => {
  const errors = schemaFor(dir, type).errors(parse(line));
  assert.ok(errors.some((e) => pattern.test(e)), `${line}: ${errors.join("; ")}`);
};

test("PROTOCOL.md's examples are valid", () => {
  ok("requests", "handshake", '{"id":0,"session":"handshake","type":"handshake","protocol_version":1,"harness":"rbv 0.1.0"}');
  ok("requests", "evaluate", '{"id":6,"session":"c1","type":"evaluate","operation":{"plugin":"db-tools","id":"mcp:db/execute_sql","kind":"sql","arguments":{"sql":"SELECT * FROM users"}}}');
  ok("requests", "record_event", '{"id":4,"session":"c1","type":"record_event","event":{"kind":"untrusted_content","source":"https://example.com","content":"x"}}');
  ok("requests", "set_policy", '{"id":5,"session":"c1","type":"set_policy","floors":{"mcp:db/execute_sql":"escalate"},"critical":["mcp:deploy/promote"]}');
  ok("responses", "evaluation", '{"id":6,"session":"c1","type":"evaluation","band":"soft-ack","decision":"note","declared":"soft-ack","reasons":["r"],"signature":"sig","audit":{"timestamp":"2026-11-30T10:00:00Z","actor":"model","plugin":"db-tools","plugin_version":"1.0.0","operation":"mcp:db/execute_sql","signature":"sig","band":"soft-ack","decision":"note","gate":"manifest","authorized_by":null,"outcome":"noted"}}');
  ok("responses", "error", '{"id":null,"session":"","type":"error","code":"bad-json","message":"m"}');
  ok("requests", "reset_session", '{"id":18446744073709551615,"session":"s","type":"reset_session"}');
});

test("violations name the field", () => {
  bad("requests", "evaluate", '{"id":1,"session":"s","type":"evaluate","operation":{"id":"x","kind":"SQL"}}', /\/operation\/kind: .*"SQL"/);
  bad("requests", "evaluate", '{"id":1,"session":"s","type":"evaluate","operation":{"id":"x","colour":1}}', /\/operation\/colour: unknown field/);
  bad("requests", "evaluate", '{"id":1,"session":"s","type":"evaluate"}', /missing `operation`/);
  bad("requests", "reset_session", '{"id":1.5,"session":"s","type":"reset_session"}', /\/id: number is not integer/);
  bad("requests", "reset_session", '{"id":-1,"session":"s","type":"reset_session"}', /\/id: below the minimum/);
  bad("requests", "handshake", '{"id":0,"session":"h","type":"handshake","protocol_version":4294967296,"harness":"x"}', /uint32/);
  bad("requests", "record_event", '{"id":1,"session":"s","type":"record_event","event":{"kind":"untrusted-content"}}', /kind/);
  bad("requests", "record_event", '{"id":1,"session":"s","type":"record_event","event":{"kind":"environment"}}', /missing `vars`/);
  bad("requests", "set_policy", '{"id":1,"session":"s","type":"set_policy","floors":{"a":"soft_ack"}}', /\/floors\/a/);
  bad("responses", "evaluation", '{"id":1,"session":"s","type":"evaluation","band":"Escalate","decision":"ask"}', /\/band: "Escalate" is not one of/);
  bad("responses", "evaluation", '{"id":1,"session":"s","type":"evaluation","band":"auto","decision":"allow","audit":{"timestamp":"yesterday","actor":"m","operation":"o","signature":"s","band":"auto","decision":"allow","gate":"g","outcome":"allowed"}}', /date-time/);
});

test("a schema with a keyword the checker does not know is refused, not half-checked", () => {
  assert.throws(() => new Schema({ type: "string", maxLength: 3 }), /unsupported schema keyword `maxLength`/);
});
