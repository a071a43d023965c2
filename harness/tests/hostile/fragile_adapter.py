#!/usr/bin/env python3
"""A fragile adapter, for tests of the `protocol` area: it forwards every
line to a real adapter (the command after `--`) and returns its answers,
except on the kind of line its first argument names:

  bad-json          exits on a line that is not JSON
  unknown-type      exits on a request type it does not know
  before-handshake  exits on a request that comes before the handshake
  float-ids         reads ids as doubles, as JSON.parse does (and answers
                    with the rounded id)
  trim-blank        skips every line str.strip() empties (U+000B, U+00A0,
                    U+001C, ...), not only blank ones, as the SDKs once did
  deep-ack          answers `ack` to a line nested 8 deep or more (`[[[...`)
                    instead of reading it
  wide-space-ack    answers `ack` to a line of whitespace holding U+00A0 or
                    U+3000, as if it were a keep-alive

  every N           exits on every Nth request after the handshake: on the
                    Nth of its life, unanswered (a restart starts counting
                    anew)
  after N           exits after answering the Nth request after the
                    handshake (of its life), before the next one arrives
  none              forwards everything (the control)

Modes combine with `+` (`trim-blank+deep-ack`: two bugs); `every` and
`after` take their N as the next argument.

Such an adapter judges every operation exactly as the real one does: only
the protocol cases can tell them apart.
"""
import io
import json
import subprocess
import sys

KNOWN = {"handshake", "load_plugins", "validate_manifest", "project", "record_event",
         "set_policy", "evaluate", "approve", "invoke", "diff_manifests", "reset_session"}


def main():
    modes = set(sys.argv[1].split("+"))
    every = 0
    if modes & {"every", "after"}:
        every, sys.argv = int(sys.argv[2]), sys.argv[:2] + sys.argv[3:]
    sep, command = sys.argv[2], sys.argv[3:]
    served = 0
    assert sep == "--", "usage: fragile_adapter.py MODE -- COMMAND..."
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    shaken = False
    # Lines end at "\n" only: universal newlines would split at a lone "\r".
    for line in io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="\n"):
        blank = line.rstrip("\n").removesuffix("\r").strip(" \t") == ""
        if blank:
            continue
        if "wide-space-ack" in modes and not line.strip() and ("\u00a0" in line or "\u3000" in line):
            sys.stdout.write(json.dumps({"id": None, "session": "", "type": "ack"}) + "\n")
            sys.stdout.flush()
            continue
        if "trim-blank" in modes and not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            if "bad-json" in modes:
                sys.exit("fragile: not JSON, giving up")
            message = None
        if "deep-ack" in modes and "[" * 8 in line:
            envelope = message if isinstance(message, dict) else {}
            rid = envelope.get("id")
            readable = isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid < 2**64
            session = envelope.get("session")
            sys.stdout.write(json.dumps({"id": rid if readable else None,
                                         "session": session if isinstance(session, str) else "",
                                         "type": "ack"}) + "\n")
            sys.stdout.flush()
            continue
        if isinstance(message, dict):
            kind = message.get("type")
            if "unknown-type" in modes and isinstance(kind, str) and kind not in KNOWN:
                sys.exit(f"fragile: unknown type {kind!r}, giving up")
            if "before-handshake" in modes and not shaken and kind != "handshake":
                sys.exit("fragile: no handshake yet, giving up")
            if every and kind != "handshake":
                served += 1
                if served == every and "every" in modes:
                    sys.exit(f"fragile: request {served}, giving up")
            shaken = shaken or kind == "handshake"
        child.stdin.write(line if line.endswith("\n") else line + "\n")
        child.stdin.flush()
        answer = child.stdout.readline()
        if "float-ids" in modes:
            parsed = json.loads(answer)
            if isinstance(parsed.get("id"), int):
                parsed["id"] = int(float(parsed["id"]))
            answer = json.dumps(parsed) + "\n"
        sys.stdout.write(answer)
        sys.stdout.flush()
        if "after" in modes and served == every:
            sys.exit(0)


if __name__ == "__main__":
    main()
