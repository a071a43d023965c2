"""Makes the package and the example importable from a checkout: the tests
run without installing anything (`python3 -m unittest discover -s adapters/python/tests`)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPO = ROOT.parents[1]
for p in (ROOT / "src", ROOT / "examples"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
