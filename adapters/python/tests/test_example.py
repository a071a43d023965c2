"""Tests of the example adapter, through its real stdin/stdout loop.

Run: python3 -m unittest discover -s adapters/python
"""

from __future__ import annotations

import itertools
import json

import _paths  # noqa: F401
import subprocess
import sys
import unittest
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[1] / "examples" / "toy_adapter.py"
SCHEMA_1_1 = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json"
SCHEMA_1_0 = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
HANDSHAKE = {"id": 0, "session": "", "type": "handshake", "protocol_version": 1, "harness": "test"}


def run(*lines: str | dict, handshake: bool = True) -> list[dict]:
    """Pipes the lines (dicts are serialized) through a fresh adapter and
    returns every answer; the handshake's answer is dropped."""
    sent = [HANDSHAKE] if handshake else []
    sent += list(lines)
    text = "".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in sent)
    done = subprocess.run(
        [sys.executable, str(ADAPTER)], input=text, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(l) for l in done.stdout.splitlines()]
    assert len(answers) == len(sent), (sent, answers)
    return answers[1:] if handshake else answers


def request(kind: str, rid: int = 1, session: str = "s", **body) -> dict:
    return {"id": rid, "session": session, "type": kind, **body}


def manifest(**fields) -> dict:
    return {"$schema": SCHEMA_1_1, "name": "deploy-tools", "version": "2.1.0", **fields}


def validate(m) -> dict:
    (answer,) = run(request("validate_manifest", plugin={"manifest": m}))
    assert answer["type"] == "validation", answer
    return answer["plugin"]


def ext(perms) -> dict:
    return {"org.agent-plugins.permissions": perms}


class Handshake(unittest.TestCase):
    def test_claims_exactly_manifest_projection_and_tokens(self):
        (answer,) = run(HANDSHAKE, handshake=False)
        self.assertEqual(answer["id"], 0)
        self.assertEqual(answer["type"], "handshake")
        self.assertEqual(answer["protocol_version"], 1)
        self.assertEqual(sorted(answer["capabilities"]), ["manifest", "projection", "tokens"])
        self.assertEqual(
            answer["profile"],
            {
                "permissions_placement": "both",
                "rule_of_two_threshold": 2,
                "hard_to_reverse_local": "escalate",
                "undeclared_opaque_band": "escalate",
            },
        )

    def test_another_protocol_version_is_an_error(self):
        (answer,) = run({**HANDSHAKE, "protocol_version": 2}, handshake=False)
        self.assertEqual((answer["type"], answer["code"]), ("error", "protocol-version"))

    def test_requests_before_the_handshake_are_errors(self):
        (answer,) = run(request("project", scope="local"), handshake=False)
        self.assertEqual(answer["type"], "error")


class Robustness(unittest.TestCase):
    def test_bad_lines_get_errors_echoing_what_can_be_read(self):
        answers = run(
            "not json",
            "[1, 2]",
            '{"id": 5, "session": "q"}',
            '{"id": "7", "session": "q", "type": "project"}',
            '{"id": -1, "session": "q", "type": "project"}',
            '{"id": 8, "session": 3, "type": "project"}',
            request("project", rid=9, session="q", scope="Local"),
            request("project", rid=10, session="q", scop="local"),
            request("load_plugins", rid=11, session="q", plugins={}),
        )
        self.assertTrue(all(a["type"] == "error" for a in answers), answers)
        self.assertEqual([a["id"] for a in answers], [None, None, 5, None, None, 8, 9, 10, 11])
        self.assertEqual([a["session"] for a in answers], ["", "", "q", "q", "q", "", "q", "q", "q"])
        self.assertIn("scope", answers[6]["message"])
        self.assertIn("scop", answers[7]["message"])

    def test_other_requests_are_unsupported(self):
        op = {"id": "mcp:db/execute_sql", "kind": "sql", "arguments": {"sql": "SELECT 1"}}
        answers = run(
            request("evaluate", rid=1, operation=op),  # a sql inspector is not claimed
            request("approve", rid=2, operation=op, approver={"kind": "human", "name": "u"}),
            request("invoke", rid=3, operation=op, token="t"),
            request("set_policy", rid=4, critical=["skill:x"]),
            request("diff_manifests", rid=5, old={"manifest": manifest()}, new={"manifest": manifest()}),
            request("teleport", rid=6),
        )
        self.assertEqual([a["type"] for a in answers], ["unsupported"] * 6)
        self.assertEqual([a["id"] for a in answers], [1, 2, 3, 4, 5, 6])

    def test_sessions_are_echoed_and_reset_and_events_acked(self):
        answers = run(
            request("record_event", rid=1, session="a", event={"kind": "untrusted_content", "content": "x"}),
            request("record_event", rid=2, session="b", event={"kind": "environment", "vars": {"RBV_OFF": "1"}}),
            request("record_event", rid=3, session="b", event={"kind": "telepathy"}),
            request("reset_session", rid=4, session="a"),
        )
        self.assertEqual([a["type"] for a in answers], ["ack", "ack", "error", "ack"])
        self.assertEqual([a["session"] for a in answers], ["a", "b", "b", "a"])


class Projection(unittest.TestCase):
    EXPECTED = {
        ("reversible", "local", "trusted"): "auto",
        ("reversible", "local", "untrusted"): "soft-ack",
        ("reversible", "shared-remote", "trusted"): "soft-ack",
        ("reversible", "shared-remote", "untrusted"): "soft-ack",
        ("hard-to-reverse", "local", "trusted"): "escalate",
        ("hard-to-reverse", "local", "untrusted"): "escalate",
        ("hard-to-reverse", "shared-remote", "trusted"): "escalate",
        ("hard-to-reverse", "shared-remote", "untrusted"): "escalate",
    }

    def test_all_18_combinations(self):
        combos = list(itertools.product(
            ["reversible", "hard-to-reverse", "irreversible"],
            ["local", "shared-remote", "external"],
            ["trusted", "untrusted"],
        ))
        reqs = [request("project", rid=i, reversibility=r, scope=s, trust=t) for i, (r, s, t) in enumerate(combos)]
        answers = run(*reqs)
        for (r, s, t), a in zip(combos, answers):
            self.assertEqual(a["type"], "projection")
            self.assertEqual(a["band"], self.EXPECTED.get((r, s, t), "escalate"), (r, s, t))

    def test_a_missing_axis_is_most_dangerous(self):
        answers = run(
            request("project", rid=1, reversibility="reversible", scope="local"),
            request("project", rid=2, reversibility="reversible", trust="trusted"),
            request("project", rid=3),
        )
        self.assertEqual([a["band"] for a in answers], ["soft-ack", "escalate", "escalate"])


class Manifest(unittest.TestCase):
    def test_no_permissions_declares_nothing(self):
        report = validate(manifest())
        self.assertTrue(report["loaded"])
        self.assertEqual((report["declarations"], report["default_floor"]), ({}, None))

    def test_the_base_specification_rejects_whole_plugins(self):
        perms = ext({"operations": [{"id": "skill:x", "band": "auto"}]})
        for bad in [
            manifest(**{"$schema": "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json"}),
            {"name": "deploy-tools", "extensions": perms},
            manifest(name="Deploy"),
            manifest(name="a--b"),
            manifest(name="x" * 65),
            manifest(name="-a"),
            manifest(version=2),
            manifest(author={"name": "a", "phone": "1"}),
            manifest(keywords="a"),
            manifest(extensions={"com.example": []}),
            [],
        ]:
            if isinstance(bad, dict):
                bad.setdefault("extensions", perms)
            report = validate(bad)
            self.assertFalse(report["loaded"], bad)
            self.assertEqual(report["declarations"], {}, bad)

    def test_unknown_top_level_fields_are_warned_and_ignored(self):
        report = validate({**manifest(), "colour": "red"})
        self.assertTrue(report["loaded"])
        self.assertIn("warning", [d["severity"] for d in report["diagnostics"]])
        # displayName is a 1.1.0 field: under 1.0.0 it is merely unknown.
        report = validate({**manifest(), "$schema": SCHEMA_1_0, "displayName": "D"})
        self.assertTrue(report["loaded"])
        self.assertTrue(any(d.get("pointer") == "/displayName" for d in report["diagnostics"]))

    def test_both_placements_are_read_and_merged(self):
        top = {"operations": [{"id": "mcp:deploy/a", "band": "soft-ack"}]}
        inside = {"default": "escalate", "operations": [
            {"id": "mcp:deploy/a", "band": "auto"}, {"id": "skill:b", "band": "auto"}]}
        report = validate(manifest(permissions=top, extensions=ext(inside)))
        self.assertTrue(report["loaded"])
        self.assertEqual(report["declarations"], {"mcp:deploy/a": "soft-ack", "skill:b": "auto"})
        self.assertEqual(report["default_floor"], "escalate")

    def test_invalid_entries_invalidate_only_themselves(self):
        ops = [
            {"id": "skill:good", "band": "soft-ack"},
            {"id": "skill:case", "band": "Escalate"},
            {"id": "skill:sep", "band": "soft_ack"},
            {"id": "skill:num", "band": 1},
            {"id": "skill:typo", "band": "auto", "scop": "local"},
            {"id": "execute_sql", "band": "auto"},
            {"id": "client:shell", "band": "auto"},
            {"id": "mcp:db/a/b", "band": "auto"},
            {"id": "MCP:db/x", "band": "auto"},
            {"id": "skill:nothing"},
            {"band": "auto"},
            "skill:string",
        ]
        report = validate(manifest(extensions=ext({"operations": ops})))
        self.assertTrue(report["loaded"])
        self.assertEqual(report["declarations"], {"skill:good": "soft-ack"})

    def test_duplicates_axes_and_band(self):
        ops = [
            {"id": "mcp:db/q", "band": "auto"},
            {"id": "mcp:db/q", "band": "escalate"},
            {"id": "mcp:db/q", "band": "Auto"},
            {"id": "mcp:deploy-api/list", "reversibility": "reversible", "scope": "shared-remote",
             "trust": "untrusted", "band": "soft-ack"},
            {"id": "mcp:deploy-api/promote", "reversibility": "irreversible", "scope": "external", "band": "auto"},
            {"id": "skill:low-band", "reversibility": "reversible", "scope": "local", "trust": "trusted",
             "band": "soft-ack"},
            {"id": "skill:low-axes", "reversibility": "reversible", "scope": "local", "trust": "trusted",
             "band": "auto"},
            {"id": "skill:partial", "reversibility": "reversible", "scope": "local"},
            {"id": "skill:band-only", "band": "auto"},
        ]
        report = validate(manifest(extensions=ext({"operations": ops})))
        self.assertEqual(report["declarations"], {
            "mcp:db/q": "escalate",
            "mcp:deploy-api/list": "soft-ack",
            "mcp:deploy-api/promote": "escalate",
            "skill:low-band": "soft-ack",
            "skill:low-axes": "auto",
            "skill:partial": "soft-ack",
            "skill:band-only": "auto",
        })

    def test_malformed_permissions_declare_nothing_and_reject_nothing(self):
        for perms in [[], "escalate", {"operations": {}}, {"operations": [1, None]}, {"default": "Escalate"}]:
            report = validate(manifest(permissions=perms))
            self.assertTrue(report["loaded"], perms)
            self.assertEqual((report["declarations"], report["default_floor"]), ({}, None), perms)

    def test_load_plugins_reports_each_plugin(self):
        good = {"manifest": manifest(extensions=ext({"operations": [{"id": "skill:x", "band": "auto"}]}))}
        bad = {"manifest": manifest(name="BAD")}
        (answer,) = run(request("load_plugins", plugins=[good, bad]))
        self.assertEqual(answer["type"], "loaded")
        self.assertEqual([p["loaded"] for p in answer["plugins"]], [True, False])
        self.assertEqual(answer["plugins"][0]["declarations"], {"skill:x": "auto"})


class Evaluate(unittest.TestCase):
    def test_opaque_tools_get_their_declared_floor_or_the_undeclared_policy(self):
        perms = {"default": "auto", "operations": [{"id": "skill:x", "band": "soft-ack"},
                                                   {"id": "skill:bad", "band": "Auto"}]}
        plugin = {"manifest": manifest(extensions=ext(perms))}
        op = lambda i: {"plugin": "deploy-tools", "id": i}
        _, x, bad, unlisted, other = run(
            request("load_plugins", plugins=[plugin]),
            request("evaluate", rid=2, operation=op("skill:x")),
            request("evaluate", rid=3, operation=op("skill:bad")),
            request("evaluate", rid=4, operation=op("skill:unlisted")),
            request("evaluate", rid=5, session="other", operation=op("skill:x")),
        )
        self.assertEqual((x["band"], x["decision"], x["declared"]), ("soft-ack", "note", "soft-ack"))
        # An invalid entry is undeclared, never auto; `default: auto` lowers nothing.
        self.assertEqual((bad["band"], bad["declared"]), ("escalate", None))
        self.assertEqual((unlisted["band"], unlisted["declared"]), ("escalate", None))
        # Plugins belong to the session that loaded them.
        self.assertEqual((other["band"], other["declared"]), ("escalate", None))

    def test_policy_floors_and_untrusted_input_only_raise_and_invoke_follows(self):
        perms = {"operations": [{"id": "skill:x", "band": "auto"}]}
        plugin = {"manifest": manifest(extensions=ext(perms))}
        op = {"plugin": "deploy-tools", "id": "skill:x"}
        _, plain, untrusted, _, _, floored, _, ingested, invoked = run(
            request("load_plugins", plugins=[plugin]),
            request("evaluate", rid=2, operation=op),
            request("evaluate", rid=3, operation={**op, "trust": "untrusted"}),
            request("set_policy", rid=4, floors={"skill:x": "escalate"}),
            request("set_policy", rid=41, floors={"skill:x": "auto"}),
            request("evaluate", rid=5, operation=op),
            request("record_event", rid=6, session="t", event={"kind": "untrusted_content"}),
            request("evaluate", rid=7, session="t", operation={"id": "skill:y"}),
            request("invoke", rid=8, operation=op),
        )
        self.assertEqual(plain["band"], "auto")
        self.assertEqual(untrusted["band"], "soft-ack")
        self.assertEqual(floored["band"], "escalate")
        self.assertEqual(ingested["band"], "escalate")
        self.assertEqual((invoked["type"], invoked["allowed"]), ("invocation", False))


class Tokens(unittest.TestCase):
    """Tokens are minted at run time: one adapter process, driven step by step."""

    def setUp(self):
        self.child = subprocess.Popen([sys.executable, str(ADAPTER)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        self.rid = 0
        self.assertEqual(self.send(HANDSHAKE)["type"], "handshake")

    def tearDown(self):
        self.child.stdin.close()
        self.assertEqual(self.child.wait(timeout=30), 0)
        self.child.stdout.close()

    def send(self, message):
        line = message if isinstance(message, str) else json.dumps(message)
        self.child.stdin.write(line + "\n")
        self.child.stdin.flush()
        return json.loads(self.child.stdout.readline())

    def op_text(self, args: str) -> str:
        return '{"plugin":"p","id":"mcp:db/delete_row","arguments":%s}' % args

    def approve(self, args: str, kind: str = "human", session: str = "s") -> dict:
        self.rid += 1
        return self.send('{"id":%d,"session":"%s","type":"approve","operation":%s,"approver":{"kind":"%s","name":"u"}}'
                         % (self.rid, session, self.op_text(args), kind))

    def invoke(self, args: str, token: str, session: str = "s") -> dict:
        self.rid += 1
        return self.send('{"id":%d,"session":"%s","type":"invoke","operation":%s,"token":%s}'
                         % (self.rid, session, self.op_text(args), json.dumps(token)))

    def test_a_token_is_bound_to_the_exact_data_and_single_use(self):
        granted = self.approve('{"id":412}')
        self.assertTrue(granted["granted"])
        token = granted["token"]
        for kind in ("model", "tool", "plugin"):
            refused = self.approve('{"id":412}', kind=kind)
            self.assertEqual((refused["granted"], refused.get("token")), (False, None), kind)
        # Another spelling, value, type or key set is another operation.
        for other in ("412.0", "4.12e2", "413", '"412"', '412,"x":1'):
            self.assertFalse(self.invoke('{"id":%s}' % other, token)["allowed"], other)
        self.assertFalse(self.invoke('{"id":412}', token, session="elsewhere")["allowed"])
        self.assertFalse(self.invoke('{"id":412}', token + "0")["allowed"])
        redeemed = self.invoke('{"id":412}', token)
        self.assertEqual((redeemed["allowed"], redeemed["band"], redeemed["decision"]), (True, "escalate", "ask"))
        self.assertFalse(self.invoke('{"id":412}', token)["allowed"], "spent")

    def test_reset_session_voids_tokens_and_key_order_is_ignored(self):
        token = self.approve('{"a":1,"b":[2.50]}')["token"]
        self.assertTrue(self.invoke('{"b":[2.50],"a":1}', token)["allowed"])
        token = self.approve('{"a":1}')["token"]
        self.rid += 1
        self.send({"id": self.rid, "session": "s", "type": "reset_session"})
        self.assertFalse(self.invoke('{"a":1}', token)["allowed"])


if __name__ == "__main__":
    unittest.main()
