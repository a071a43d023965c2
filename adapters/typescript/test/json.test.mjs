import { test } from "node:test";
import assert from "node:assert/strict";
import { JsonNumber, MAX_DEPTH, canonical, parse, stringify } from "../src/json.js";

test("numbers keep their text through parse and stringify", () => {
  const line = '{"id":18446744073709551615,"a":[0.10000000000000001,1e400,-0,1.0,1E+2,412]}';
  assert.equal(stringify(parse(line)), line);
  const v = parse(line);
  assert.ok(v.id instanceof JsonNumber);
  assert.equal(v.id.toBigInt(), 2n ** 64n - 1n);
  assert.equal(v.a[3].isInteger(), false);
  assert.throws(() => v.a[3].toBigInt(), TypeError);
});

test("spelling is data: 1, 1.0 and 1e0 have three canonical forms", () => {
  const forms = ["1", "1.0", "1e0", "9007199254740993", "9007199254740992"].map((n) => canonical(parse(`{"n":${n}}`)));
  assert.equal(new Set(forms).size, forms.length);
});

test("canonical form ignores key order and whitespace, not values", () => {
  assert.equal(canonical(parse('{"b":1,"a":[true,null]}')), canonical(parse('{ "a" : [ true , null ], "b" : 1 }')));
  assert.equal(canonical(parse('{"b":1,"a":2}')), '{"a":2,"b":1}');
  // UTF-16 code unit order, as RFC 8785 sorts keys.
  assert.equal(canonical(parse('{"\u{1F600}":1,"\uFFFF":2}')), '{"\u{1F600}":1,"\uFFFF":2}');
  assert.notEqual(canonical(parse('{"s":"\u00e9"}')), canonical(parse('{"s":"e\u0301"}')));
});

test("strict grammar: what JSON does not allow is refused", () => {
  for (const bad of ["", " ", "{", "{'a':1}", "[1,]", '{"a":1,}', "NaN", "Infinity", "-", "01", "1.", ".5", "1e", "+1",
    '{"a":1} x', '"\u0001"', '"\\x"', '"\\u12"', "tru", "[1 2]", '{"a" 1}', "\"unterminated"]) {
    assert.throws(() => parse(bad), SyntaxError, JSON.stringify(bad));
  }
});

test("escapes and unicode decode as JSON.parse does", () => {
  const text = '"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00 é"';
  assert.equal(parse(text), JSON.parse(text));
});

test("nesting is bounded, not a stack overflow", () => {
  assert.doesNotThrow(() => parse("[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH)));
  assert.throws(() => parse("[".repeat(100000) + "]".repeat(100000)), /nesting deeper/);
});

test("__proto__ is a plain key", () => {
  const v = parse('{"__proto__":{"polluted":true},"constructor":1}');
  assert.equal(Object.getPrototypeOf(v), null);
  assert.deepEqual(Object.keys(v), ["__proto__", "constructor"]);
  assert.equal({}.polluted, undefined);
  assert.equal(stringify(v), '{"__proto__":{"polluted":true},"constructor":1}');
});

test("JsonNumber refuses text that is not a JSON number", () => {
  for (const bad of ["1.", "NaN", "0x10", " 1", "1_000"]) assert.throws(() => new JsonNumber(bad), TypeError);
});
