// Lossless JSON for the rbv protocol (PROTOCOL.md §2.1).
//
// `JSON.parse` turns every number into a double, which merges
// 18446744073709551615 with 18446744073709552000 and `1` with `1.0`; both
// are distinct data to rbv (ids must round-trip, tokens bind the exact
// text). This reader keeps every number as a `JsonNumber` holding its
// source text, and `stringify` writes that text back unchanged. Objects are
// created without a prototype so that a key such as `__proto__` is plain
// data, never a prototype change.

/** A JSON number, kept as the exact text it was written with. */
export class JsonNumber {
  /** @param {string} text */
  constructor(text) {
    if (typeof text !== "string" || !NUMBER_RE.test(text)) {
      throw new TypeError(`not a JSON number: ${String(text)}`);
    }
    this.text = text;
    Object.freeze(this);
  }
  /** True when written without a fraction or exponent (`7`, not `7.0`). */
  isInteger() {
    return INTEGER_RE.test(this.text);
  }
  /** The exact value when it is an integer, else a TypeError. */
  toBigInt() {
    if (!this.isInteger()) throw new TypeError(`${this.text} is not written as an integer`);
    return BigInt(this.text);
  }
  /** The nearest double: lossy, for arithmetic only, never for binding. */
  valueOf() {
    return Number(this.text);
  }
  toString() {
    return this.text;
  }
}

const NUMBER_RE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const INTEGER_RE = /^-?(0|[1-9][0-9]*)$/;

export class JsonSyntaxError extends SyntaxError {}

/** Deeper nesting than this is refused rather than risking the stack. */
export const MAX_DEPTH = 256;

/**
 * Parses one JSON text (RFC 8259, strict: no NaN, no trailing commas, no
 * comments, nothing after the value). Numbers become `JsonNumber`s; objects
 * have a null prototype; a repeated key keeps its last value.
 * @param {string} text
 */
export function parse(text) {
  let i = 0;
  const n = text.length;
  const fail = (what) => {
    throw new JsonSyntaxError(`${what} at character ${i + 1}`);
  };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const value = (depth) => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    ws();
    if (i >= n) fail("expected a value, found the end");
    const c = text[i];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail(`unexpected ${JSON.stringify(c)}`);
  };
  const object = (depth) => {
    const out = Object.create(null);
    i++;
    ws();
    if (text[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail("expected a string key");
      const key = string();
      ws();
      if (text[i] !== ":") fail("expected `:`");
      i++;
      out[key] = value(depth + 1);
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "}") {
        i++;
        return out;
      }
      fail("expected `,` or `}`");
    }
  };
  const array = (depth) => {
    const out = [];
    i++;
    ws();
    if (text[i] === "]") {
      i++;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "]") {
        i++;
        return out;
      }
      fail("expected `,` or `]`");
    }
  };
  const string = () => {
    const start = ++i;
    let out = "";
    let run = start;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(run, i);
        i++;
        return out;
      }
      if (c < 0x20) fail("raw control character in a string");
      if (c === 0x5c) {
        out += text.slice(run, i);
        const e = text[i + 1];
        const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[e];
        if (simple !== undefined) {
          out += simple;
          i += 2;
        } else if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          fail("bad escape");
        }
        run = i;
        continue;
      }
      i++;
    }
    return fail("unterminated string");
  };
  const number = () => {
    const m = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    m.lastIndex = i;
    const found = m.exec(text);
    if (!found || found[0] === "-") fail("bad number");
    i += found[0].length;
    // `01`, `1.` and `1e` leave a digit, dot or letter the grammar refuses.
    if (i < n && /[0-9.eE+\-]/.test(text[i])) fail("bad number");
    return new JsonNumber(found[0]);
  };
  const result = value(0);
  ws();
  if (i < n) fail("unexpected text after the value");
  return result;
}

/**
 * Writes a value as one line of JSON. `JsonNumber`s are written as their
 * text, bigints as their digits; finite JavaScript numbers as usual.
 * `undefined` object members are left out (as JSON.stringify does).
 * @param {unknown} value
 */
export function stringify(value) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "bigint":
      return value.toString();
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
      return JSON.stringify(value);
    case "object":
      if (value instanceof JsonNumber) return value.text;
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : stringify(v))).join(",")}]`;
      return `{${Object.keys(value)
        .filter((k) => value[k] !== undefined)
        .map((k) => `${JSON.stringify(k)}:${stringify(value[k])}`)
        .join(",")}}`;
    default:
      throw new TypeError(`a ${typeof value} has no JSON form`);
  }
}

/**
 * The canonical text of a value: RFC 8785 (JCS) key order (UTF-16 code
 * units) and no whitespace, but numbers by their exact source text, as rbv's
 * reference binds them (reference/src/canonical.rs): `1`, `1.0` and `1e0`
 * stay three different values. Strings are never normalized.
 * @param {unknown} value
 */
export function canonical(value) {
  if (value !== null && typeof value === "object" && !(value instanceof JsonNumber) && !Array.isArray(value)) {
    // JavaScript's default sort compares UTF-16 code units, as JCS does.
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  return stringify(value);
}
