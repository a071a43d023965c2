"""The TypedDicts of rbv_adapter.messages agree with protocol/schema/: the
same keys, optional exactly where the schema does not require them (an
answer's `type` is always optional: the SDK fills it in, except in error and
unsupported), and every enumeration a Literal with exactly its values."""

import json
import typing
import unittest

from _paths import REPO
from rbv_adapter import messages

SCHEMAS = REPO / "protocol" / "schema"


def camel(name: str) -> str:
    return "".join(w.capitalize() for w in name.split("_"))


def literal_values(tp) -> set:
    return set(typing.get_args(tp))


class Messages(unittest.TestCase):
    def check_object(self, cls, schema, skip=frozenset(), optional=frozenset()):
        want = set(schema["properties"]) - skip
        self.assertEqual(set(cls.__annotations__), want, cls.__name__)
        required = {k for k in schema.get("required", []) if k in want} - optional
        self.assertEqual(set(cls.__required_keys__), required, f"{cls.__name__}: required keys")

    def test_every_message_and_definition(self):
        seen = set()
        for direction, suffix in (("requests", "Request"), ("responses", "Answer")):
            for path in sorted((SCHEMAS / direction).iterdir()):
                schema = json.loads(path.read_text())
                cls = getattr(messages, camel(path.stem) + suffix)
                if direction == "requests":
                    self.check_object(cls, schema, skip={"id", "session", "type"})
                else:
                    opt = set() if path.stem in ("error", "unsupported") else {"type"}
                    self.check_object(cls, schema, skip={"id", "session"}, optional=opt)
                for name, sub in schema.get("$defs", {}).items():
                    if name in seen:
                        continue
                    seen.add(name)
                    if "properties" in sub:
                        self.check_object(getattr(messages, name), sub)
                    elif "enum" in sub:
                        self.assertEqual(literal_values(getattr(messages, name)), set(sub["enum"]), name)
                    elif sub.get("type") == "string":
                        self.assertIs(getattr(messages, name), str, name)
                    elif "oneOf" in sub:
                        union = typing.get_args(getattr(messages, name))
                        self.assertEqual(len(union), len(sub["oneOf"]), name)
                        for cls_alt, alt in zip(union, sub["oneOf"]):
                            self.check_object(cls_alt, alt)
                            kind = typing.get_type_hints(cls_alt, include_extras=False)["kind"]
                            self.assertEqual(literal_values(kind), {alt["properties"]["kind"]["const"]})
                    else:
                        self.fail(f"{name}: a definition this check does not understand")
        self.assertIn("Operation", seen)

    def test_capabilities_are_protocol_md(self):
        doc = (REPO / "PROTOCOL.md").read_text()
        row = next(l for l in doc.splitlines() if l.startswith("| capability |"))
        names = set(row.split("|")[2].replace("`", "").replace(",", " ").split())
        self.assertEqual(literal_values(messages.Capability), names)


if __name__ == "__main__":
    unittest.main()
