#!/usr/bin/env node
// rbv peer adapter: DBHub's read-only SQL check (npm @bytebase/dbhub, MIT).
//
// DBHub in `readonly` mode splits the SQL into statements and refuses the
// whole request unless `isReadOnlySQL` holds for every statement. Both
// functions live in bundled chunks of the package (the package entry starts
// a server, so it is not imported); the chunk files are found by what they
// export, since their names are content hashes.
//
// Verdict → band: every statement read-only → auto (allow); otherwise DBHub
// refuses the request → escalate with decision `deny` (read-only mode has no
// approval path). See README.md.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { serve, evaluation, textArgument } from "../lib/peer.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.join(here, "node_modules", "@bytebase", "dbhub");
// rbv's `operation.dialect` → DBHub's connector type; absent is PostgreSQL.
// A dialect DBHub has no connector for is refused, as DBHub cannot connect.
const CONNECTORS = new Map([["postgresql", "postgres"], ["mysql", "mysql"], ["sqlite", "sqlite"]]);

function findChunk(dist, exportName) {
  for (const file of fs.readdirSync(dist).filter((f) => f.startsWith("chunk-") && f.endsWith(".js")).sort()) {
    const text = fs.readFileSync(path.join(dist, file), "utf8");
    const exportBlock = text.slice(text.lastIndexOf("\nexport {"));
    if (new RegExp(`\\b${exportName}\\b`).test(exportBlock)) return path.join(dist, file);
  }
  throw new Error(`no chunk of @bytebase/dbhub exports ${exportName}; run setup.sh`);
}

const version = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;
let splitSQLStatements, isReadOnlySQL;
const ready = (async () => {
  const dist = path.join(pkgDir, "dist");
  ({ splitSQLStatements } = await import(pathToFileURL(findChunk(dist, "splitSQLStatements")).href));
  ({ isReadOnlySQL } = await import(pathToFileURL(findChunk(dist, "isReadOnlySQL")).href));
})();

/** DBHub's verdict on one SQL text in one connector's dialect: [readOnly, reasons]. */
export function classify(sql, connector = "postgres") {
  const statements = splitSQLStatements(sql, connector);
  if (statements.length === 0) return [false, ["dbhub: no statement"]];
  const reasons = [];
  let readOnly = true;
  for (const stmt of statements) {
    const ok = isReadOnlySQL(stmt, connector);
    readOnly &&= ok;
    reasons.push(`dbhub: ${ok ? "read-only" : "not read-only (refused in readonly mode)"}: ${stmt.slice(0, 120)}`);
  }
  return [readOnly, reasons];
}

serve({
  implementation: { name: "dbhub", version: `@bytebase/dbhub@${version}` },
  capabilities: ["sql"],
  ready,
  evaluate(kind, args, op) {
    const connector = op.dialect === undefined ? "postgres" : CONNECTORS.get(op.dialect);
    if (connector === undefined) {
      return evaluation("escalate", [`dbhub: no connector for dialect ${JSON.stringify(op.dialect)}`], "deny");
    }
    const [readOnly, reasons] = classify(textArgument(args, "sql", kind), connector);
    return readOnly ? evaluation("auto", reasons) : evaluation("escalate", reasons, "deny");
  },
});
