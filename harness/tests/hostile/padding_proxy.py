#!/usr/bin/env python3
"""An adapter proxy for rbv's memory benchmark (stdlib only).

Usage: padding_proxy.py [--message] BYTES COMMAND...: runs COMMAND (an
adapter, e.g. `rbv serve`) and passes rbv's requests to it unchanged.
To every answer but the handshake it adds a legal extra key `padding` of
BYTES bytes, which the protocol lets an implementation send and rbv must
not keep; with `--message` it replaces every such answer by an
`unsupported` one whose message is BYTES bytes: every case fails, with a
huge failure message.
"""
import json
import subprocess
import sys

args = sys.argv[1:]
message = args[0] == "--message"
if message:
    args = args[1:]
size = int(args[0])
child = subprocess.Popen(args[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
padding = (', "padding": "' + "p" * size + '"}').encode()
text = "m" * size
for line in sys.stdin.buffer:
    child.stdin.write(line)
    child.stdin.flush()
    answer = child.stdout.readline()
    if not answer:
        break
    answer = answer.rstrip(b"\r\n")
    if b'"type":"handshake"' not in answer and answer.endswith(b"}"):
        if message:
            request = json.loads(line)
            answer = json.dumps({"id": request.get("id"), "session": request.get("session"),
                                 "type": "unsupported", "message": text}).encode()
        else:
            answer = answer[:-1] + padding
    sys.stdout.buffer.write(answer + b"\n")
    sys.stdout.buffer.flush()
