"""The console is a client of RingHost's API: it imports no stand-in (ringctl.sim) and not the
runner package (the host and its command parser are handed in)."""
from pathlib import Path

from test_architecture import imported

CONSOLE = Path(__file__).resolve().parents[2] / "host" / "ringctl" / "console"


def test_console_imports_neither_sim_nor_runner():
    bad = []
    for path in sorted(CONSOLE.glob("*.py")):
        for name in imported(path):
            if name.startswith(("ringctl.sim", "ringctl.runner")):
                bad.append(f"{path.name} imports {name}")
    assert not bad, bad
    assert any(True for _ in imported(CONSOLE / "app.py"))      # the scan sees imports at all
