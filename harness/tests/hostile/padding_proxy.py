#!/usr/bin/env python3
"""An adapter proxy for rbv's memory benchmark (stdlib only).

Usage: padding_proxy.py BYTES COMMAND...: runs COMMAND (an adapter, e.g.
`rbv adapter`), passes rbv's requests to it unchanged and adds to every
answer but the handshake a legal extra key `padding` of BYTES bytes, which
the protocol lets an implementation send and rbv must not keep.
"""
import subprocess
import sys

size = int(sys.argv[1])
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
padding = (', "padding": "' + "p" * size + '"}').encode()
for line in sys.stdin.buffer:
    child.stdin.write(line)
    child.stdin.flush()
    answer = child.stdout.readline()
    if not answer:
        break
    answer = answer.rstrip(b"\r\n")
    if b'"type":"handshake"' not in answer and answer.endswith(b"}"):
        answer = answer[:-1] + padding
    sys.stdout.buffer.write(answer + b"\n")
    sys.stdout.buffer.flush()
