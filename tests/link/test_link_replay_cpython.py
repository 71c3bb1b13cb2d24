"""The replaying-attacker proofs (tests/firmware/mp_test_link_replay.py) under CPython too: one ringlink, both runtimes."""
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    sys.path[:0] = [str(ROOT / "firmware" / "lib"), str(ROOT / "tests" / "firmware")]
    try:
        return importlib.import_module("mp_test_link_replay")
    finally:
        del sys.path[:2]


mod = _load()
# the App test needs the firmware's modules (asyncio, machine stand-ins): micropython only
NAMES = sorted(n for n in dir(mod) if n.startswith("test_") and "_app_" not in n)


@pytest.mark.parametrize("name", NAMES)
def test_replay_cpython(name):
    getattr(mod, name)()
