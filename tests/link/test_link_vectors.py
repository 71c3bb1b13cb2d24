"""The golden link vectors under CPython: the same functions tests/firmware/mp_test_link.py runs under micropython."""
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    sys.path[:0] = [str(ROOT / "firmware" / "lib"), str(ROOT / "tests" / "firmware")]
    try:
        return importlib.import_module("mp_test_link")
    finally:
        del sys.path[:2]


mod = _load()
NAMES = sorted(n for n in dir(mod) if n.startswith("test_") and n not in mod.MICROPYTHON_ONLY)


@pytest.mark.parametrize("name", NAMES)
def test_vector_cpython(name, monkeypatch):
    monkeypatch.chdir(ROOT)          # the vector path is relative to the repo root
    getattr(mod, name)()


def test_vectors_are_what_the_generator_makes(monkeypatch):
    """The JSON was produced by this code (guards against hand edits drifting)."""
    import json
    monkeypatch.chdir(ROOT)
    assert mod.gen_all() == json.loads((ROOT / "tests/vectors/link_vectors.json").read_text())
