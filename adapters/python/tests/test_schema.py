import json
import unittest

from _paths import REPO, ROOT
from rbv_adapter import REQUEST_TYPES, RESPONSE_TYPES, Schema, loads, schema_for

MINE = ROOT / "src" / "rbv_adapter" / "schema"
THEIRS = REPO / "protocol" / "schema"


def ok(test, direction, kind, line):
    test.assertEqual(schema_for(direction, kind).errors(loads(line)), [], line)


def bad(test, direction, kind, line, fragment):
    errors = schema_for(direction, kind).errors(loads(line))
    test.assertTrue(any(fragment in e for e in errors), f"{line}: {errors}")


class Schemas(unittest.TestCase):
    def test_the_package_copy_is_protocol_schema_byte_for_byte(self):
        for d in ("requests", "responses"):
            names = sorted(p.name for p in (THEIRS / d).iterdir())
            self.assertEqual(sorted(p.name for p in (MINE / d).iterdir()), names,
                             "copy protocol/schema/ into src/rbv_adapter/schema/")
            for name in names:
                self.assertEqual((MINE / d / name).read_bytes(), (THEIRS / d / name).read_bytes(), f"{d}/{name}")

    def test_type_lists_name_every_schema(self):
        self.assertEqual(sorted(REQUEST_TYPES), sorted(p.stem for p in (THEIRS / "requests").iterdir()))
        self.assertEqual(sorted(RESPONSE_TYPES), sorted(p.stem for p in (THEIRS / "responses").iterdir()))

    def test_protocol_examples_are_valid(self):
        ok(self, "requests", "evaluate", '{"id":6,"session":"c1","type":"evaluate","operation":{"plugin":"db-tools","id":"mcp:db/execute_sql","kind":"sql","arguments":{"sql":"SELECT 1"}}}')
        ok(self, "requests", "record_event", '{"id":4,"session":"c1","type":"record_event","event":{"kind":"untrusted_content","source":"s","content":"x"}}')
        ok(self, "requests", "reset_session", '{"id":18446744073709551615,"session":"s","type":"reset_session"}')
        ok(self, "responses", "error", '{"id":null,"session":"","type":"error","code":"bad-json","message":"m"}')
        ok(self, "responses", "evaluation", '{"id":1,"session":"s","type":"evaluation","band":"auto","decision":"allow","audit":{"timestamp":"2026-11-30T10:00:00Z","actor":"m","operation":"o","signature":"s","band":"auto","decision":"allow","gate":"g","outcome":"allowed"}}')

    def test_violations_name_the_field(self):
        bad(self, "requests", "evaluate", '{"id":1,"session":"s","type":"evaluate","operation":{"id":"x","kind":"SQL"}}', '/operation/kind: "SQL" is not one of')
        bad(self, "requests", "evaluate", '{"id":1,"session":"s","type":"evaluate","operation":{"id":"x","colour":1}}', "/operation/colour: unknown field")
        bad(self, "requests", "reset_session", '{"id":1.5,"session":"s","type":"reset_session"}', "/id: number is not integer")
        bad(self, "requests", "reset_session", '{"id":1.0,"session":"s","type":"reset_session"}', "/id: number is not integer")
        bad(self, "requests", "reset_session", '{"id":-1,"session":"s","type":"reset_session"}', "below the minimum")
        bad(self, "requests", "handshake", '{"id":0,"session":"h","type":"handshake","protocol_version":4294967296,"harness":"x"}', "uint32")
        bad(self, "requests", "record_event", '{"id":1,"session":"s","type":"record_event","event":{"kind":"environment"}}', "missing `vars`")
        bad(self, "requests", "set_policy", '{"id":1,"session":"s","type":"set_policy","floors":{"a":"soft_ack"}}', "/floors/a")
        bad(self, "requests", "project", '{"id":1,"session":"s","type":"project","trust":true}', "/trust")
        bad(self, "responses", "evaluation", '{"id":1,"session":"s","type":"evaluation","band":"Escalate","decision":"ask"}', '/band: "Escalate" is not one of')
        bad(self, "responses", "approval", '{"id":1,"session":"s","type":"approval","granted":1}', "/granted: integer is not boolean")

    def test_an_unknown_keyword_is_refused(self):
        with self.assertRaises(ValueError):
            Schema(json.loads('{"type":"string","maxLength":3}'))


if __name__ == "__main__":
    unittest.main()
