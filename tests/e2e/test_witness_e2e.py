"""End to end (issue 16): the real firmware under micropython witnesses the demo's audit log.

`ring log verify --db W/audit.db --witness W/flash --witness-key W/witness.key` passes on the
demo's log, across a board restart (the board resumes from its flash, the host resends what
it lost), and fails once records are cut off or the chain is recomputed after an edit.
"""
import shutil
import sqlite3
import time

import pytest

from ringctl.cli import main
from ringctl.sim.session import DemoSession

import commissioned


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    work = tmp_path_factory.mktemp("witness")
    # test_demo_e2e's site (seed 11; this was seed 5: the witness does not depend on the site),
    # so its commissioning is shared (tests/commissioned.py)
    with commissioned.shared(), DemoSession(str(work), seed=11, coin_px=44, fps=15, say=lambda s: None) as d:
        d.play_spin(seed=101)
        d.board.restart()                       # RAM head lost; flash head survives
        assert d.link.wait_up(10.0)
        d.host.pump(0.5)
        d.play_spin(seed=102)
        # the board's receipt for the last records follows them over the link: on a busy machine
        # it came after the spin's end (1 receipt of 2 in a `make test` beside a benchmark)
        deadline = time.monotonic() + 10.0
        while len(_receipts(d)) < 2 and time.monotonic() < deadline:
            d.host.pump(0.2)
        yield d


def _receipts(demo):
    """The board's witness receipts in the log, as device events."""
    return [r for r in demo.log.records(kind="event", with_blobs=False)
            if r.data["name"] == "witness" and r.data["b"] == 0]


def verify_args(db, work):
    return ["log", "verify", "--db", str(db), "--witness", str(work / "flash"),
            "--witness-key", str(work / "witness.key")]


def test_demo_log_verifies_against_the_board(demo, capsys, tmp_path):
    from pathlib import Path
    work = Path(demo.work)
    assert (work / "flash" / "witness.bin").exists() and (work / "witness.key").exists()
    assert main(verify_args(work / "audit.db", work)) == 0
    out = capsys.readouterr().out
    assert '"receipts_bad": 0' in out and '"board_seq": 0' not in out
    # receipts are in the log, as device events
    assert len(_receipts(demo)) >= 2


def test_cut_tail_is_caught(demo, capsys, tmp_path):
    from pathlib import Path
    work = Path(demo.work)
    for f in ("audit.db", "audit.db-wal"):
        if (work / f).exists():
            shutil.copy(work / f, tmp_path / f)
    board_seq = demo.host.witness.board_seq
    db = sqlite3.connect(tmp_path / "audit.db")
    db.execute("DROP TRIGGER records_no_delete")
    db.execute("DELETE FROM records WHERE seq > ?", (board_seq - 10,))
    db.commit()
    db.close()
    assert main(verify_args(tmp_path / "audit.db", work)) == 1
    assert "witness-truncated" in capsys.readouterr().err


def test_live_board_answers_over_its_port(demo, capsys, tmp_path, monkeypatch):
    """--witness PORT: the board signs its live head over a fresh nonce (host link closed
    first: a verifier talks to the board while `ring run` is stopped)."""
    from pathlib import Path
    from ringctl.device import keys
    work = Path(demo.work)
    demo.link.close()
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    dev = (work / "flash" / "device_id").read_text().strip()
    keys.write_private(keys.key_path(dev), (work / "flash" / "key.bin").read_bytes())
    args = ["log", "verify", "--db", str(work / "audit.db"), "--witness", demo.board.tty,
            "--device-id", dev, "--witness-key", str(work / "witness.key")]
    assert main(args) == 0, capsys.readouterr().err
    assert demo.board.tty in capsys.readouterr().out
    (tmp_path / "other.key").write_bytes(b"x" * 32)
    assert main(args[:-1] + [str(tmp_path / "other.key")]) == 1
    assert "witness-rewritten" in capsys.readouterr().err
