// src/index.d.ts is hand-written; this keeps it true to protocol/schema/:
// every message and definition has an interface with exactly the schema's
// properties (optional exactly when the schema does not require them), and
// every enumeration a type alias with exactly its values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

const dts = readFileSync(new URL("../src/index.d.ts", import.meta.url), "utf8");
const schemaDir = new URL("../../../protocol/schema/", import.meta.url);
const pascal = (s) => s.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("");

function iface(name) {
  // The body ends at the first `}` at the start of a line (or `{}`).
  const m = new RegExp(`^export interface ${name} \\{(\\}|\\n[\\s\\S]*?^\\})`, "m").exec(dts);
  assert.ok(m, `index.d.ts has no interface ${name}`);
  const props = new Map();
  for (const line of m[1].split("\n")) {
    const p = /^ {2}([a-z_$]+)(\??):/.exec(line);
    if (p) props.set(p[1], p[2] === "?");
  }
  return props;
}

function alias(name) {
  const m = new RegExp(`^export type ${name} =\\s([^;]*);`, "m").exec(dts);
  assert.ok(m, `index.d.ts has no type ${name}`);
  return [...m[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]).sort();
}

// The `kind`s of a union of object types (up to the next blank line).
function unionKinds(name) {
  const m = new RegExp(`^export type ${name} =\\n([\\s\\S]*?)\\n\\n`, "m").exec(dts);
  assert.ok(m, `index.d.ts has no union ${name}`);
  return [...m[1].matchAll(/kind: "([^"]*)"/g)].map((x) => x[1]).sort();
}

function checkObject(name, schema, skip = new Set(), optional = new Set()) {
  const props = iface(name);
  const want = Object.keys(schema.properties).filter((k) => !skip.has(k));
  assert.deepEqual([...props.keys()].sort(), [...want].sort(), `${name}: properties`);
  for (const key of want) {
    const required = (schema.required ?? []).includes(key) && !optional.has(key);
    assert.equal(props.get(key), !required, `${name}.${key}: optional must be ${!required}`);
  }
}

const envelope = new Set(["id", "session", "type"]);
const seen = new Set();
for (const dir of ["requests", "responses"]) {
  for (const file of readdirSync(new URL(`${dir}/`, schemaDir))) {
    const type = file.replace(".json", "");
    const schema = JSON.parse(readFileSync(new URL(`${dir}/${file}`, schemaDir), "utf8"));
    test(`${dir}/${type} agrees with index.d.ts`, () => {
      const name = `${pascal(type)}${dir === "requests" ? "Request" : "Response"}`;
      // A request body has no envelope; a response body may omit `type`
      // (the SDK fills it in), except error and unsupported.
      if (dir === "requests") checkObject(name, schema, envelope);
      else {
        checkObject(name, schema, new Set(["id", "session"]), new Set(["error", "unsupported"].includes(type) ? [] : ["type"]));
      }
      for (const [def, sub] of Object.entries(schema.$defs ?? {})) {
        if (seen.has(def)) continue;
        seen.add(def);
        if (sub.properties) checkObject(def, sub);
        else if (sub.enum) assert.deepEqual(alias(def), [...sub.enum].sort(), def);
        else if (sub.type === "string") {
          assert.match(dts, new RegExp(`^export type ${def} = string;`, "m"), `${def}: a string alias`);
        }
        else if (sub.oneOf) {
          const kinds = sub.oneOf.map((alt) => alt.properties.kind.const).sort();
          assert.deepEqual(unionKinds(def), kinds, `${def}: kinds`);
        } else assert.fail(`${def}: a definition the check does not understand`);
      }
    });
  }
}

test("the Capability type lists PROTOCOL.md's capabilities", () => {
  const doc = readFileSync(new URL("../../../PROTOCOL.md", import.meta.url), "utf8");
  const row = /\| capability \| (.*) \|/.exec(doc)[1];
  assert.deepEqual(alias("Capability"), [...row.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort());
});
