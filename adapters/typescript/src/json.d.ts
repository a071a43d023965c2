/** A JSON number, kept as the exact text it was written with (PROTOCOL.md §2.1). */
export class JsonNumber {
  constructor(text: string);
  readonly text: string;
  /** True when written without a fraction or exponent (`7`, not `7.0`). */
  isInteger(): boolean;
  /** The exact value of an integer; throws for `7.0` or `1e2`. */
  toBigInt(): bigint;
  /** The nearest double: lossy, for arithmetic only, never for binding. */
  valueOf(): number;
  toString(): string;
}
export class JsonSyntaxError extends SyntaxError {}
export const MAX_DEPTH: number;
/** A JSON value as `parse` returns it: numbers as `JsonNumber`, objects without a prototype. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };
/** Strict RFC 8259 parsing that keeps every number's text. */
export function parse(text: string): JsonValue;
/** One line of JSON; `JsonNumber`s and bigints are written digit for digit. */
export function stringify(value: unknown): string;
/** Canonical text (JCS key order, numbers by their text): what tokens bind. */
export function canonical(value: unknown): string;
