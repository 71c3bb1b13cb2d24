"""Collects firmware tests (tests/firmware/mp_test_*.py) and runs them under `micropython`.

Each `def test_*` in such a file becomes a pytest item; the file is run once under the
real unix-port binary and every item reports its own line, so a failing firmware test
fails `make test` like any other.
"""
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# Bytecode caches on for the run and its children, whatever the shell says: with
# PYTHONDONTWRITEBYTECODE set, pytest rewrites (recompiles) every test module's asserts on every
# run (~10 s of collection) and every `ring` child process compiles the ringctl modules it
# imports again. The .pyc files go to __pycache__/ (git-ignored); nothing a test checks.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
from mprun import run_mp  # noqa: E402
from hypothesis import settings  # noqa: E402

# No Hypothesis deadline (200 ms an example by default) in any test; most already say
# deadline=None. What they check is the property, not an example's speed, and on two workers
# (and whatever else the machine runs) an example may wait for a core.
settings.register_profile("ring", deadline=None)
settings.load_profile("ring")

_results = {}


def _run_file(path):
    if path not in _results:
        proc = run_mp(path, timeout=300)
        lines = {}
        for line in proc.stdout.splitlines():
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[0] == "MPTEST" and parts[1] in ("ok", "fail", "skip"):
                lines[parts[2]] = (parts[1], parts[3] if len(parts) > 3 else "")
        _results[path] = (proc, lines)
    return _results[path]


class MPFile(pytest.File):
    def collect(self):
        for name in re.findall(r"^def (test_\w+)\(", self.path.read_text(), re.M):
            yield MPItem.from_parent(self, name=name)


class MPItem(pytest.Item):
    def runtest(self):
        proc, lines = _run_file(self.path)
        status, msg = lines.get(self.name, (None, ""))
        if status == "skip":
            pytest.skip(msg)
        if status != "ok":
            tail = (proc.stdout[-3000:] + "\n" + proc.stderr[-3000:]).strip()
            raise MPFailure(f"{self.name}: {msg or 'did not report (crash?)'}\n{tail}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, MPFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"[micropython] {self.name}"


class MPFailure(Exception):
    pass


def _is_mp_test(path):
    return path.name.startswith("mp_test_") and path.suffix == ".py"


def pytest_collect_file(parent, file_path):
    # A file named on the command line is collected by the python plugin, which asks
    # pytest_pycollect_makemodule below: don't collect it twice.
    if _is_mp_test(file_path) and not parent.session.isinitpath(file_path):
        return MPFile.from_parent(parent, path=file_path)


def pytest_pycollect_makemodule(module_path, parent):
    # Never import a firmware test under CPython: it runs under micropython.
    if _is_mp_test(module_path):
        return MPFile.from_parent(parent, path=module_path)


@pytest.fixture(scope="session")
def site2():
    """A simulated two-camera site (1.2 m ring, 44 px coins), calibrated with the sheet and
    trained once, for the multi-camera tests (vision, runner)."""
    from ringctl.sim.restbench import Site
    return Site(ring_mm=1200.0, cameras=2, coin_px=44.0, seed=3)
