#!/usr/bin/env node
// rbv peer adapter: npm URL/IP filters in the place of rbv's fetch carve-out.
//
//   node adapter.mjs --filter ip-isloopback    ip.isLoopback(host)      (npm ip, MIT)
//   node adapter.mjs --filter ip-isprivate     ip.isPrivate(host)       (npm ip, MIT)
//   node adapter.mjs --filter private-ip       isPrivateIp(host)        (npm private-ip, MIT)
//   node adapter.mjs --filter ssrf-req-filter  the agent hook of ssrf-req-filter (MIT)
//
// Every filter answers one question about the host of the WHATWG-parsed URL
// (`new URL(url).hostname`, brackets of an IPv6 literal removed — what a
// client passes them): "is this host loopback / internal?". A client that
// uses such a predicate to decide when a fetch needs no confirmation is a
// carve-out, so the adapter puts the filter's yes where rbv's loopback
// carve-out sits:
//   filter says loopback/internal → auto (any method, as the carve-out);
//   filter says no, or has no verdict → the ordinary fetch rules: a safe
//     method (GET, HEAD, OPTIONS) → soft-ack, any other → escalate;
//   a URL that does not parse, or a scheme other than http(s) → escalate.
// Names are never resolved over the network. The IP-only filters
// (private-ip, ssrf-req-filter) get a fixed resolver: `localhost` is
// 127.0.0.1 (as /etc/hosts says); any other name has no verdict. `ip` takes
// any string as it is (that is how it is called, and how it errs).

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { serve, evaluation, textArgument } from "../lib/peer.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "package.json"));
const versionOf = (pkg) => JSON.parse(fs.readFileSync(path.join(here, "node_modules", pkg, "package.json"), "utf8")).version;

const FIXED_HOSTS = new Map([["localhost", "127.0.0.1"]]);
const resolve = (host) => (net.isIP(host) ? host : FIXED_HOSTS.get(host) ?? null);

/** Each filter: (host) → true (internal), false, or null (no verdict). */
const FILTERS = {
  "ip-isloopback": {
    pkg: "ip",
    load: () => {
      const ip = require("ip");
      return (host) => ip.isLoopback(host);
    },
  },
  "ip-isprivate": {
    pkg: "ip",
    load: () => {
      const ip = require("ip");
      return (host) => {
        try {
          return ip.isPrivate(host);
        } catch {
          return null; // "invalid ipv4 address": a name
        }
      };
    },
  },
  "private-ip": {
    pkg: "private-ip",
    load: async () => {
      const { default: isPrivateIp } = await import("private-ip");
      return (host) => {
        const addr = resolve(host);
        if (addr === null) return null;
        const v = isPrivateIp(addr);
        return typeof v === "boolean" ? v : null;
      };
    },
  },
  "ssrf-req-filter": {
    pkg: "ssrf-req-filter",
    load: () => {
      const { requestFilterHandler } = require("ssrf-req-filter");
      // The filter hooks an http.Agent's createConnection: it throws for a
      // blocked IP literal and destroys the socket when the DNS lookup
      // yields a blocked address. A stand-in agent whose sockets never
      // connect lets the hook judge without any network.
      return (host) => {
        let blocked = false;
        const agent = {
          createConnection() {
            const socket = new EventEmitter();
            socket.destroy = () => { blocked = true; };
            return socket;
          },
        };
        requestFilterHandler(agent);
        let socket;
        try {
          socket = agent.createConnection({ host });
        } catch {
          return true; // "Call to … is blocked."
        }
        if (!net.isIP(host)) {
          const addr = resolve(host);
          if (addr === null) return null;
          socket.emit("lookup", null, addr, net.isIP(addr), host);
        }
        return blocked;
      };
    },
  },
};

const arg = process.argv.indexOf("--filter");
const name = arg > 0 ? process.argv[arg + 1] : undefined;
const filter = FILTERS[name];
if (!filter) {
  console.error(`usage: adapter.mjs --filter ${Object.keys(FILTERS).join("|")}`);
  process.exit(2);
}
let internal;
const ready = (async () => { internal = await filter.load(); })();

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The verdict of the filter on one fetch. */
function verdict(url, method) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return evaluation("escalate", [`fetch: \`${url}\` does not parse as a URL`]);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return evaluation("escalate", [`fetch: scheme ${parsed.protocol} is not carved out`]);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  let said;
  try {
    said = internal(host);
  } catch (e) {
    said = null;
    console.error(`${name}: threw on ${host}: ${e.message}`);
  }
  if (said === true) return evaluation("auto", [`${name}: ${host} is loopback/internal (carved out)`]);
  const m = method.toUpperCase();
  const why = `${name}: ${said === false ? "not internal" : "no verdict"} for ${host}`;
  return SAFE_METHODS.has(m)
    ? evaluation("soft-ack", [why, `${m} brings untrusted content in`])
    : evaluation("escalate", [why, `${m} sends data out`]);
}

serve({
  implementation: { name, version: `${filter.pkg}@${versionOf(filter.pkg)}` },
  capabilities: ["fetch"],
  ready,
  evaluate(kind, args) {
    const method = args.method === undefined ? "GET" : textArgument(args, "method", kind);
    return verdict(textArgument(args, "url", kind), method);
  },
});
