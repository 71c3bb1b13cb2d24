"""The board's witness code under CPython: the same tests and vectors as
tests/firmware/mp_test_witness.py (run under micropython), checked against the stdlib hmac."""
import hashlib
import hmac
import importlib
import json
import struct
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    sys.path[:0] = [str(ROOT / "firmware" / "lib"), str(ROOT / "tests" / "firmware")]
    try:
        return importlib.import_module("mp_test_witness")
    finally:
        del sys.path[:2]


mod = _load()
NAMES = sorted(n for n in dir(mod) if n.startswith("test_"))


@pytest.mark.parametrize("name", NAMES)
def test_witness_cpython(name, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TMPDIR", str(tmp_path))   # the boards' files: pytest's, not /tmp's
    getattr(mod, name)()


def test_vectors_match_the_generator_and_the_stdlib():
    v = json.loads((ROOT / mod.VECTORS).read_text())
    assert mod.gen_all() == v
    key = bytes.fromhex(v["key"])
    head = bytes.fromhex(v["heads"][-1])
    want = hmac.new(key, b"ring-witness-receipt-v1\0" + struct.pack("<I", 5) + head, hashlib.sha256)
    assert want.hexdigest() == v["receipt_mac"]
    h = b"\0" * 32
    for d in v["digests"]:
        h = hashlib.sha256(h + bytes.fromhex(d)).digest()
    assert h.hex() == v["heads"][-1]


def test_host_imports_the_same_module():
    from ringctl.fw import witness
    assert witness.extend(bytes(32), bytes(32)) == hashlib.sha256(bytes(64)).digest()


if __name__ == "__main__":      # regenerate the vectors (only when the format changes)
    (ROOT / mod.VECTORS).write_text(json.dumps(mod.gen_all(), indent=1) + "\n")
