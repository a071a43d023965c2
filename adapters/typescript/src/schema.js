// A JSON Schema (draft 2020-12) checker for exactly the keywords rbv's
// protocol schemas use: type, const, enum, minimum, format (uint32,
// date-time), pattern (ECMA-262, unanchored), properties, required, additionalProperties, items, anyOf,
// oneOf and local `$ref`s into `$defs`. A schema using any other keyword is
// refused when it is loaded, so a future schema cannot be half-checked
// without anyone noticing. Values are those of ./json.js (`JsonNumber`s).

import { readFileSync } from "node:fs";
import { JsonNumber } from "./json.js";

const KNOWN = new Set([
  "$schema", "$defs", "$ref", "title", "description", "default", "type", "const", "enum",
  "minimum", "format", "pattern", "properties", "required", "additionalProperties", "items", "anyOf", "oneOf",
]);

/** The request and response types of protocol v1, as `protocol/schema/` names them. */
export const REQUEST_TYPES = [
  "handshake", "load_plugins", "validate_manifest", "project", "record_event", "set_policy",
  "evaluate", "approve", "invoke", "diff_manifests", "reset_session",
];
export const RESPONSE_TYPES = [
  "handshake", "loaded", "validation", "projection", "ack", "evaluation", "approval",
  "invocation", "diff", "error", "unsupported",
];

function checkKeywords(schema, where) {
  if (schema === true || schema === false) return;
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new Error(`${where}: unsupported schema keyword \`${key}\``);
  }
  for (const sub of Object.values(schema.$defs ?? {})) checkKeywords(sub, where);
  for (const sub of Object.values(schema.properties ?? {})) checkKeywords(sub, where);
  for (const sub of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) checkKeywords(sub, where);
  if (typeof schema.additionalProperties === "object") checkKeywords(schema.additionalProperties, where);
  if (typeof schema.items === "object") checkKeywords(schema.items, where);
}

function typeOf(v) {
  if (v === null) return "null";
  if (v instanceof JsonNumber) return v.isInteger() ? "integer" : "number";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "bigint") return "integer";
  if (Array.isArray(v)) return "array";
  return typeof v; // string, boolean, object
}

function numberText(v) {
  return v instanceof JsonNumber ? v.text : String(v);
}

function equal(a, b) {
  if (a instanceof JsonNumber || typeof a === "number" || typeof a === "bigint") {
    return (b instanceof JsonNumber || typeof b === "number" || typeof b === "bigint") && Number(numberText(a)) === Number(numberText(b));
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (a !== null && typeof a === "object") {
    if (b === null || typeof b !== "object" || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

// RFC 3339 date-time, as `format: date-time` means it.
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

function greaterOrEqual(v, minimum) {
  const t = numberText(v);
  if (/^-?\d+$/.test(t) && Number.isInteger(minimum)) return BigInt(t) >= BigInt(minimum);
  return Number(t) >= minimum;
}

// The errors of the alternative the value most likely meant: one whose
// discriminating `const` matched (an event's `kind`), then the fewest errors.
function closest(tries) {
  const score = (o) => o.length + (o.some((e) => e.includes(CONST_MISS)) ? 1e6 : 0);
  return tries.reduce((a, b) => (score(b) < score(a) ? b : a));
}
const CONST_MISS = ": must be ";

/** One schema file, ready to check values. */
export class Schema {
  constructor(schema, name = "schema") {
    checkKeywords(schema, name);
    this.root = schema;
    this.name = name;
  }

  /** The violations of `value`, each `pointer: what`; empty when valid. */
  errors(value) {
    const out = [];
    this.#check(this.root, value, "", out);
    return out;
  }

  #resolve(schema) {
    while (schema && schema.$ref !== undefined) {
      const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
      if (!m || !this.root.$defs?.[m[1]]) throw new Error(`${this.name}: unresolvable $ref ${schema.$ref}`);
      const { $ref, ...rest } = schema;
      schema = { ...this.root.$defs[m[1]], ...rest };
    }
    return schema;
  }

  #check(schema, v, at, out) {
    if (schema === true) return;
    if (schema === false) {
      out.push(`${at || "/"}: not allowed`);
      return;
    }
    schema = this.#resolve(schema);
    const t = typeOf(v);
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const ok = types.some((ty) => ty === t || (ty === "number" && t === "integer"));
      if (!ok) {
        out.push(`${at || "/"}: ${t} is not ${types.join(" or ")}`);
        return;
      }
    }
    if (schema.const !== undefined && !equal(v, schema.const)) out.push(`${at || "/"}: must be ${JSON.stringify(schema.const)}`);
    if (schema.enum !== undefined && !schema.enum.some((e) => equal(v, e))) {
      out.push(`${at || "/"}: ${typeof v === "string" ? JSON.stringify(v) : t} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
    }
    if ((t === "integer" || t === "number") && schema.minimum !== undefined && !greaterOrEqual(v, schema.minimum)) {
      out.push(`${at || "/"}: below the minimum ${schema.minimum}`);
    }
    if (schema.format === "uint32" && t === "integer" && BigInt(numberText(v)) >= 2n ** 32n) out.push(`${at || "/"}: not a uint32`);
    if (schema.format === "date-time" && t === "string" && !DATE_TIME.test(v)) out.push(`${at || "/"}: not an RFC 3339 date-time`);
    if (schema.pattern !== undefined && t === "string" && !new RegExp(schema.pattern, "u").test(v)) {
      out.push(`${at || "/"}: ${JSON.stringify(v)} does not match ${schema.pattern}`);
    }
    if (t === "object") {
      for (const key of schema.required ?? []) {
        if (!Object.hasOwn(v, key)) out.push(`${at || "/"}: missing \`${key}\``);
      }
      const props = schema.properties ?? {};
      for (const key of Object.keys(v)) {
        const sub = `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
        if (Object.hasOwn(props, key)) this.#check(props[key], v[key], sub, out);
        else if (schema.additionalProperties === false) out.push(`${sub}: unknown field \`${key}\``);
        else if (schema.additionalProperties !== undefined) this.#check(schema.additionalProperties, v[key], sub, out);
      }
    }
    if (t === "array" && schema.items !== undefined) v.forEach((item, i) => this.#check(schema.items, item, `${at}/${i}`, out));
    if (schema.anyOf !== undefined) {
      const tries = schema.anyOf.map((s) => {
        const o = [];
        this.#check(s, v, at, o);
        return o;
      });
      if (!tries.some((o) => o.length === 0)) out.push(...closest(tries));
    }
    if (schema.oneOf !== undefined) {
      const tries = schema.oneOf.map((s) => {
        const o = [];
        this.#check(s, v, at, o);
        return o;
      });
      const passing = tries.filter((o) => o.length === 0).length;
      if (passing === 0) out.push(...closest(tries));
      else if (passing > 1) out.push(`${at || "/"}: matches ${passing} alternatives, not exactly one`);
    }
  }
}

const cache = new Map();

/**
 * The schema of one message type, read from the package's copy of
 * `protocol/schema/` (a test keeps the copy byte-identical).
 * @param {"requests" | "responses"} direction
 * @param {string} type
 */
export function schemaFor(direction, type) {
  const key = `${direction}/${type}`;
  if (!cache.has(key)) {
    const text = readFileSync(new URL(`../schema/${key}.json`, import.meta.url), "utf8");
    // The schemas hold no number that needs its digits: plain JSON.parse.
    cache.set(key, new Schema(JSON.parse(text), key));
  }
  return cache.get(key);
}
