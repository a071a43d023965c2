// rbv URL reader: the WHATWG URL Standard as Node.js implements it
// (`new URL(input, base)`). One JSON request per line on stdin
// ({"url": ..., "base": ...}), one JSON reading per line on stdout:
// {"ok", "host", "addr", "error"}, after a first line naming the parser. `host` is the parsed host as the parser
// returns it (an IPv6 literal without brackets); `addr` is the IP address a
// client connects to when the host is an address literal, else null (a
// name, resolved later).
import net from "node:net";
import readline from "node:readline";

const SPECIAL = new Set(["http:", "https:", "ws:", "wss:", "ftp:", "file:"]);

function read({ url, base }) {
  let u;
  try {
    u = base == null ? new URL(url) : new URL(url, base);
  } catch (e) {
    return { ok: false, host: null, addr: null, error: String(e.code ?? e.message) };
  }
  let host = u.hostname;
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  // Only special schemes parse an IPv4 host; others keep an opaque string.
  const addr = net.isIPv6(host) || (SPECIAL.has(u.protocol) && net.isIPv4(host)) ? host : null;
  return { ok: true, host: host === "" ? null : host, addr, error: null };
}

// The first line names the parser and its version (provenance).
process.stdout.write(JSON.stringify({ reader: "whatwg", version: `WHATWG URL (Node.js ${process.version})` }) + "\n");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  let out;
  try {
    out = read(JSON.parse(line));
  } catch (e) {
    out = { ok: false, host: null, addr: null, error: `bad request: ${e.message}` };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
