#!/usr/bin/env node
// rbv peer adapter: Gemini CLI's permission layer (npm @google/gemini-cli-core,
// Apache-2.0).
//
// shell: the CLI's PolicyEngine with its default policy (the TOML files the
// package ships, interactive, approval mode DEFAULT), built the way the CLI
// builds it (createPolicyEngineConfig, then new PolicyEngine with a
// NoopSandboxManager, the manager the CLI uses without a sandbox). The
// engine resolves paths against its workspace, so it runs in a scratch
// directory with a scratch HOME (no user or system policy leaks in).
//   ALLOW → auto/allow, ASK_USER → escalate/ask, DENY → escalate/deny.
// fetch: isLoopbackUrl, the CLI's loopback carve-out for OAuth endpoints.
//   loopback → auto (any method: the carve-out lets a POST to a loopback
//   token endpoint through too); otherwise a safe method (GET, HEAD,
//   OPTIONS) → soft-ack/note and any other method → escalate/ask; a URL that
//   does not parse or is not http(s) → escalate/ask (no carve-out).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { serve, evaluation, textArgument } from "../lib/peer.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.join(here, "node_modules", "@google", "gemini-cli-core");
const src = path.join(pkgDir, "dist", "src");
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;

// A scratch workspace and HOME, made before the package is loaded (it reads
// HOME for user policies).
// rbv ends its children by killing their process group, so a child cannot
// always clean up after itself: each start removes the scratch directories
// of children that are gone (the pid is in the name).
for (const name of fs.readdirSync(os.tmpdir())) {
  const pid = /^rbv-gemini-(\d+)-/.exec(name)?.[1];
  if (!pid) continue;
  try {
    process.kill(Number(pid), 0);
  } catch (e) {
    if (e.code === "ESRCH") fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
}
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `rbv-gemini-${process.pid}-`));
const workspace = path.join(scratch, "workspace");
fs.mkdirSync(workspace);
fs.mkdirSync(path.join(scratch, "home"));
process.env.HOME = path.join(scratch, "home");
process.chdir(workspace);
const cleanup = () => fs.rmSync(scratch, { recursive: true, force: true });
process.on("exit", cleanup);

const load = (rel) => import(pathToFileURL(path.join(src, rel)).href);
let engine, isLoopbackUrl, DECISION;
const ready = (async () => {
  const [{ PolicyEngine }, config, types, sandbox, oauth] = await Promise.all([
    load("policy/policy-engine.js"),
    load("policy/config.js"),
    load("policy/types.js"),
    load("services/sandboxManager.js"),
    load("mcp/oauth-utils.js"),
  ]);
  DECISION = types.PolicyDecision;
  isLoopbackUrl = oauth.isLoopbackUrl;
  const cfg = await config.createPolicyEngineConfig({}, types.ApprovalMode.DEFAULT, config.DEFAULT_CORE_POLICIES_DIR, true);
  engine = new PolicyEngine({
    ...cfg,
    approvalMode: types.ApprovalMode.DEFAULT,
    sandboxManager: new sandbox.NoopSandboxManager({ workspace }),
  });
})();

async function shell(command) {
  const result = await engine.check({ name: "run_shell_command", args: { command, dir_path: workspace } }, undefined);
  const why = `gemini-cli PolicyEngine: ${result.decision}${result.rule?.source ? ` (${result.rule.source})` : ""}`;
  switch (result.decision) {
    case DECISION.ALLOW: return evaluation("auto", [why]);
    case DECISION.ASK_USER: return evaluation("escalate", [why]);
    case DECISION.DENY: return evaluation("escalate", [why], "deny");
    default: throw new Error(`unknown PolicyDecision ${result.decision}`);
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function fetchVerdict(url, method) {
  let scheme = null;
  try {
    scheme = new URL(url).protocol;
  } catch {
    return evaluation("escalate", [`fetch: \`${url}\` does not parse as a URL`]);
  }
  if (scheme !== "http:" && scheme !== "https:") return evaluation("escalate", [`fetch: scheme ${scheme} is not carved out`]);
  if (isLoopbackUrl(url)) return evaluation("auto", ["gemini-cli isLoopbackUrl: loopback"]);
  const m = method.toUpperCase();
  return SAFE_METHODS.has(m)
    ? evaluation("soft-ack", [`gemini-cli isLoopbackUrl: not loopback; ${m} brings untrusted content in`])
    : evaluation("escalate", [`gemini-cli isLoopbackUrl: not loopback; ${m} sends data out`]);
}

serve({
  implementation: { name: "gemini-cli", version: `@google/gemini-cli-core@${version}` },
  capabilities: ["shell", "fetch"],
  ready,
  async evaluate(kind, args) {
    if (kind === "shell") return shell(textArgument(args, "command", kind));
    const method = args.method === undefined ? "GET" : textArgument(args, "method", kind);
    return fetchVerdict(textArgument(args, "url", kind), method);
  },
});
