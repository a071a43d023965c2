"""The protocol behaviour the SDK owns (PROTOCOL.md §2, §5, §10.1), on a
small in-process adapter; every answer must satisfy its schema."""

import io
import json
import re
import unittest

from _paths import REPO
from rbv_adapter import Adapter, BadRequest, loads, schema_for

HANDSHAKE = '{"id":0,"session":"handshake","type":"handshake","protocol_version":1,"harness":"test"}'


class Small(Adapter):
    implementation = {"name": "t", "version": "1"}
    capabilities = ["projection"]

    def __init__(self):
        self.logs = []
        self.resets = []
        super().__init__(log=self.logs.append)

    def new_session(self, session):
        return {"count": 0}

    def reset(self, session, old):
        self.resets.append((session, old))

    def project(self, req, ctx):
        ctx.state["count"] += 1
        return {"band": "auto" if ctx.state["count"] == 1 else "escalate"}

    def record_event(self, req, ctx):
        return {}

    def set_policy(self, req, ctx):
        return {}

    def evaluate(self, req, ctx):
        op = req["operation"]
        if op["id"] == "bad":
            raise BadRequest("no such thing")
        if op["id"] == "boom":
            raise RuntimeError("method bug")
        if op["id"] == "nonsense":
            return "escalate"
        if op["id"] == "unwritable":
            return {"band": object(), "decision": float("nan")}
        return {"band": "escalate", "decision": "ask", "declared": None}


def ask(test, adapter, line):
    text = adapter.answer_line(line)
    test.assertNotIn("\n", text)
    answer = loads(text)
    test.assertEqual(schema_for("responses", answer["type"]).errors(answer), [], text)
    return answer


def ready(test):
    adapter = Small()
    test.assertEqual(ask(test, adapter, HANDSHAKE)["type"], "handshake")
    return adapter


def protocol_rows():
    """The lines of cases/protocol/malformed.yaml that expect a type, with
    their placeholders filled in."""
    rows, expect = [], None
    for line in (REPO / "cases" / "protocol" / "malformed.yaml").read_text().splitlines():
        if line.startswith("table:"):
            expect = None
        m = re.search(r"expect: \{type: (\w+)\}", line)
        if m:
            expect = m.group(1)
        r = re.fullmatch(r"    - \{name: ([\w-]+), line: (['\"])(.*)\2\}", line)
        if r and expect:
            text = r.group(3).replace("''", "'").replace("$ID", "41").replace("$SESSION", "case-s")
            rows.append((r.group(1), expect, text))
    return rows


class Protocol(unittest.TestCase):
    def test_the_protocol_area_lines(self):
        adapter = ready(self)
        rows = protocol_rows()
        self.assertGreaterEqual(len(rows), 30)
        for name, expect, line in rows:
            answer = ask(self, adapter, line)
            self.assertEqual(answer["type"], expect, f"{name}: {line}")
            try:
                sent = json.loads(line)
            except ValueError:
                sent = None
            id_ok = isinstance(sent, dict) and type(sent.get("id")) is int and 0 <= sent["id"] < 2**64
            self.assertEqual(answer["id"], sent["id"] if id_ok else None, name)
            session = sent.get("session") if isinstance(sent, dict) else None
            self.assertEqual(answer["session"], session if isinstance(session, str) else "", name)
        self.assertEqual(ask(self, adapter, '{"id":99,"session":"x","type":"project"}')["type"], "projection")

    def test_ids_come_back_digit_for_digit(self):
        adapter = ready(self)
        for rid in ("18446744073709551615", "9007199254740993", "0"):
            text = adapter.answer_line(f'{{"id":{rid},"session":"s","type":"reset_session"}}')
            self.assertTrue(text.startswith(f'{{"id":{rid},"session":"s","type":"ack"'), text)
        for bad in ("-0", "1.0", "1e0", "18446744073709551616"):
            answer = loads(adapter.answer_line(f'{{"id":{bad},"session":"s","type":"reset_session"}}'))
            self.assertEqual((answer["type"], answer["id"]), ("error", None), bad)

    def test_before_the_handshake_and_other_versions(self):
        adapter = Small()
        answer = ask(self, adapter, '{"id":5,"session":"s","type":"project"}')
        self.assertEqual((answer["type"], answer["id"]), ("error", 5))
        answer = ask(self, adapter, HANDSHAKE.replace('"protocol_version":1', '"protocol_version":2'))
        self.assertEqual(answer["code"], "protocol-version")
        self.assertEqual(ask(self, adapter, HANDSHAKE)["capabilities"], ["projection"])
        self.assertEqual(ask(self, adapter, '{"id":6,"session":"s","type":"project"}')["type"], "projection")

    def test_missing_methods_are_unsupported_after_the_request_is_checked(self):
        adapter = ready(self)
        op = '"operation":{"id":"mcp:a/b"}'
        line = f'{{"id":1,"session":"s","type":"approve",{op},"approver":{{"kind":"human","name":"u"}}}}'
        self.assertEqual(ask(self, adapter, line)["type"], "unsupported")
        self.assertEqual(ask(self, adapter, f'{{"id":2,"session":"s","type":"invoke",{op},"x":1}}')["type"], "error")

    def test_method_failures_are_errors_and_the_adapter_survives(self):
        adapter = ready(self)
        ev = lambda rid, op_id: ask(self, adapter, f'{{"id":{rid},"session":"s","type":"evaluate","operation":{{"id":"{op_id}"}}}}')
        self.assertEqual(ev(1, "bad")["code"], "bad-request")
        self.assertEqual(ev(2, "boom")["code"], "internal")
        self.assertTrue(any("method bug" in l for l in adapter.logs))
        self.assertEqual(ev(3, "nonsense")["code"], "internal")
        self.assertEqual(ev(5, "unwritable")["code"], "internal")
        self.assertEqual(ev(4, "fine")["type"], "evaluation")

    def test_sessions_are_separate_and_reset(self):
        adapter = ready(self)
        p = lambda rid, s: ask(self, adapter, f'{{"id":{rid},"session":"{s}","type":"project"}}')["band"]
        self.assertEqual([p(1, "a"), p(2, "__proto__"), p(3, "a")], ["auto", "auto", "escalate"])
        ask(self, adapter, '{"id":4,"session":"a","type":"reset_session"}')
        self.assertEqual(adapter.resets, [("a", {"count": 2})])
        self.assertEqual([p(5, "a"), p(6, "__proto__")], ["auto", "escalate"])

    def test_a_workspace_reaches_the_methods_and_a_relative_one_is_refused(self):
        seen = []

        class Rooted(Small):
            capabilities = ["shell", "workspace"]

            def set_policy(self, req, ctx):
                ctx.state["workspace"] = req.get("workspace")
                return {}

            def evaluate(self, req, ctx):
                seen.append(req["operation"].get("workspace") or ctx.state.get("workspace"))
                return {"band": "auto", "decision": "allow", "declared": None}

        adapter = Rooted()
        ask(self, adapter, HANDSHAKE)
        ask(self, adapter, '{"id":1,"session":"a","type":"set_policy","workspace":{"root":"/srv/app"}}')
        ask(self, adapter, '{"id":2,"session":"a","type":"evaluate","operation":{"id":"client:shell"}}')
        ask(self, adapter, '{"id":3,"session":"a","type":"evaluate","operation":{"id":"client:shell",'
                           '"workspace":{"root":"/work/p","cwd":"/work/p/web","home":"/home/me"}}}')
        self.assertEqual(seen, [{"root": "/srv/app"}, {"root": "/work/p", "cwd": "/work/p/web", "home": "/home/me"}])
        for rid, ws in ((4, '{"root":"srv/app"}'), (5, '{"root":"/srv/app","cwd":"web"}')):
            answer = ask(self, adapter, f'{{"id":{rid},"session":"a","type":"set_policy","workspace":{ws}}}')
            self.assertEqual((answer["type"], answer["id"], answer["code"]), ("error", rid, "bad-request"), answer)
            self.assertIn("does not match ^/", answer["message"])

    def test_claims_without_methods_are_warned_about(self):
        class Claims(Small):
            capabilities = ["tokens", "manfest"]

        logs = Claims().logs
        self.assertTrue(any("claims `tokens` without method(s) approve, invoke" in l for l in logs), logs)
        self.assertTrue(any("`manfest` is not a capability" in l for l in logs), logs)


class Framing(unittest.TestCase):
    def serve(self, data: bytes, limit=None):
        adapter = Small()
        if limit:
            adapter.max_line_bytes = limit
        out = io.StringIO()
        self.assertEqual(adapter.serve(io.BytesIO(data), out), 0)
        self.assertTrue(out.getvalue().endswith("\n"))
        return [json.loads(l) for l in out.getvalue().splitlines()]

    def test_crlf_blank_lines_and_a_last_line_without_newline(self):
        data = (HANDSHAKE + "\r\n\n  \n" + '{"id":1,"session":"s","type":"project"}\r\n'
                + '{"id":2,"session":"s","type":"project"}').encode()
        self.assertEqual([a["type"] for a in self.serve(data)], ["handshake", "projection", "projection"])

    def test_every_line_that_is_not_blank_is_answered(self):
        # Blank is spaces and tabs only: each of these lines is not JSON and gets an error.
        odd = ["\v", "\f", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\ufeff",
               "\r\r", " \v\t"]
        data = (HANDSHAKE + "\n \t\n\t\r\n" + "".join(line + "\n" for line in odd)
                + '{"id":2,"session":"s","type":"project"}\n').encode()
        answers = self.serve(data)
        self.assertEqual([a["type"] for a in answers], ["handshake"] + ["error"] * len(odd) + ["projection"])
        self.assertTrue(all(a["id"] is None and a["session"] == "" for a in answers[1:-1]), answers)

    def test_invalid_utf8_and_overlong_lines_are_errors_and_skipped(self):
        big = b'{"id":1,"session":"s","type":"project","pad":"' + b"x" * 5000 + b'"}\n'
        data = HANDSHAKE.encode() + b"\n\xff\xfe\n" + big + '{"id":2,"session":"\u00e9","type":"project"}\n'.encode()
        answers = self.serve(data, limit=1000)
        self.assertEqual([a.get("code", a["type"]) for a in answers], ["handshake", "bad-json", "line-too-long", "projection"])
        self.assertEqual(answers[3]["session"], "\u00e9")


if __name__ == "__main__":
    unittest.main()
