#!/usr/bin/env node
// Copies protocol/schema/ into the package (it ships its own copy, so the
// published SDK needs no checkout of rbv). test/schema.test.mjs fails when
// the copy drifts.
import { cpSync, rmSync } from "node:fs";

const from = new URL("../../../protocol/schema/", import.meta.url);
const to = new URL("../schema/", import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
console.log(`copied ${from.pathname} to ${to.pathname}`);
