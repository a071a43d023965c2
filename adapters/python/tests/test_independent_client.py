"""Tests of the independent client example (examples/independent_client/),
through its real stdin/stdout loop: it claims every capability and its
inspectors decide by what runs, not by words.

Run: python3 -m unittest discover -s adapters/python/tests
"""

from __future__ import annotations

import json
import subprocess
import sys
import unittest
from pathlib import Path

import _paths  # noqa: F401

CLIENT = Path(__file__).resolve().parents[1] / "examples" / "independent_client" / "client.py"
HANDSHAKE = {"session": "handshake", "type": "handshake", "protocol_version": 1, "harness": "test"}


def answers(*requests: dict) -> list[dict]:
    lines = [{"id": 0, **HANDSHAKE}, *({"id": i + 1, "session": "s", **r} for i, r in enumerate(requests))]
    done = subprocess.run([sys.executable, str(CLIENT)], input="".join(json.dumps(x) + "\n" for x in lines),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def band(kind: str, **arguments: str) -> str:
    op = {"id": f"client:{kind}", "kind": kind, "arguments": arguments}
    (_, answer) = answers({"type": "evaluate", "operation": op})
    assert answer["type"] == "evaluation", answer
    return str(answer["band"])


class IndependentClient(unittest.TestCase):
    def test_claims_all_ten_capabilities(self) -> None:
        (hello,) = answers()
        self.assertEqual(len(hello["capabilities"]), 10, hello)

    def test_shell_judges_what_runs(self) -> None:
        self.assertEqual(band("shell", command='echo "rm -rf /"'), "auto")
        self.assertEqual(band("shell", command='bash -c "rm -rf /"'), "escalate")
        self.assertEqual(band("shell", command="$'\\x72m' -rf build"), "escalate")

    def test_sql_reads_words_in_literals_as_data(self) -> None:
        self.assertEqual(band("sql", sql="SELECT 'DROP TABLE users' AS s"), "auto")
        self.assertEqual(band("sql", sql="SELECT 1; DROP TABLE users"), "escalate")

    def test_fetch_decides_loopback_on_the_parsed_host(self) -> None:
        self.assertEqual(band("fetch", url="http://localhost:3000/health"), "auto")
        self.assertEqual(band("fetch", url="http://localhost.evil.com/"), "soft-ack")
        self.assertEqual(band("fetch", url="http://169.254.169.254/latest/meta-data/"), "escalate")

    def test_a_token_authorizes_its_call_once(self) -> None:
        op = {"plugin": "p", "id": "mcp:db/delete_row", "arguments": {"id": 7}}
        child = subprocess.Popen([sys.executable, str(CLIENT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
        assert child.stdin is not None and child.stdout is not None

        def ask(rid: int, request: dict) -> dict:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(json.dumps({"id": rid, "session": "s", **request}) + "\n")
            child.stdin.flush()
            return dict(json.loads(child.stdout.readline()))

        try:
            ask(0, HANDSHAKE)
            token = ask(1, {"type": "approve", "operation": op, "approver": {"kind": "human", "name": "u"}})["token"]
            other = {**op, "arguments": {"id": 8}}
            self.assertFalse(ask(2, {"type": "invoke", "operation": other, "token": token})["allowed"])
            self.assertTrue(ask(3, {"type": "invoke", "operation": op, "token": token})["allowed"])
            self.assertFalse(ask(4, {"type": "invoke", "operation": op, "token": token})["allowed"])
        finally:
            child.stdin.close()
            child.wait(timeout=10)
            child.stdout.close()

if __name__ == "__main__":
    unittest.main()
