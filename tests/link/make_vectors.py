"""Writes tests/vectors/link_vectors.json under CPython (run by hand when the protocol changes)."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "firmware" / "lib"), str(ROOT / "tests" / "firmware")]

import mp_test_link  # noqa: E402

if __name__ == "__main__":
    out = ROOT / "tests" / "vectors" / "link_vectors.json"
    out.write_text(json.dumps(mp_test_link.gen_all(), indent=1) + "\n")
    print("wrote", out)
