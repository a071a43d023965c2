import unittest
from decimal import Decimal

import _paths  # noqa: F401
from rbv_adapter import JsonError, JsonNumber, canonical, dumps, loads


class Lossless(unittest.TestCase):
    def test_numbers_keep_their_text(self):
        line = '{"id":18446744073709551615,"a":[0.10000000000000001,1e400,-0,1.0,1E+2,412]}'
        self.assertEqual(dumps(loads(line)), line)
        v = loads(line)
        self.assertIsInstance(v["id"], JsonNumber)
        self.assertIsInstance(v["id"], Decimal)
        self.assertEqual(int(v["id"]), 2**64 - 1)
        self.assertFalse(v["a"][3].is_integer_text())
        self.assertEqual(v["a"][3], 1)  # a Decimal: exact arithmetic

    def test_spelling_is_data(self):
        forms = [canonical(loads(f'{{"n":{n}}}')) for n in ("1", "1.0", "1e0", "9007199254740993", "9007199254740992")]
        self.assertEqual(len(set(forms)), len(forms))

    def test_canonical_ignores_key_order_not_values(self):
        self.assertEqual(canonical(loads('{"b":1,"a":[true,null]}')), canonical(loads('{ "a" : [true, null], "b" : 1 }')))
        self.assertEqual(canonical(loads('{"b":1,"a":2}')), '{"a":2,"b":1}')
        # UTF-16 code unit order, as RFC 8785 sorts keys (U+1F600 is D83D DE00).
        self.assertEqual(canonical({"\U0001F600": 1, "\uFFFF": 2}), canonical({"\uFFFF": 2, "\U0001F600": 1}))
        self.assertTrue(canonical({"\U0001F600": 1, "\uFFFF": 2}).startswith('{"\\ud83d\\ude00"'))
        self.assertNotEqual(canonical({"s": "\u00e9"}), canonical({"s": "e\u0301"}))

    def test_strict_grammar(self):
        for bad in ["", "{", "{'a':1}", "[1,]", "NaN", "Infinity", "-Infinity", "-", "01", "1.", ".5",
                    '{"a":1} x', '"\x01"', '"\\x"', "tru", "[" * 100000]:
            with self.assertRaises(JsonError, msg=bad[:20]):
                loads(bad)

    def test_json_number_refuses_other_text(self):
        for bad in ["1.", "NaN", "0x10", " 1", "1_000"]:
            with self.assertRaises(ValueError):
                JsonNumber(bad)

    def test_dumps_refuses_what_json_cannot_say(self):
        for bad in [float("nan"), Decimal("Infinity"), object()]:
            with self.assertRaises((ValueError, TypeError)):
                dumps(bad)
        self.assertEqual(dumps({"s": "\ud800", "n": Decimal("1.50")}), '{"s":"\\ud800","n":1.50}')


if __name__ == "__main__":
    unittest.main()
