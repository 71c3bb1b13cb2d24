"""`ring run` with a camera against the simulated board: before any spin it records which ring
calibration and face model judge the spins (each file's SHA-256: records.record_vision), and a
ring settled by the coins' size that nobody has confirmed is refused at start with one line."""
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess

from ringproc import LINK_UP_S, LINK_WAIT, RING, Proc, board  # noqa: F401  (board is a fixture)
from ringctl.cli import main
from ringctl.record import records
from ringctl.record.log import AuditLog, LogWriteError
from ringctl.vision import ring as ringmod


def _vision_files(d):
    """A ring calibration and face model made from the simulated scenes, a camera folder and a
    config naming them."""
    assert main(["sim", "scenes", "-o", str(d / "s"), "-n", "0"]) == 0
    assert main(["vision", "calibrate", str(d / "s" / "empty.png"), "--ring-mm", "395", "-o", str(d / "ring.json")]) == 0
    assert main(["vision", "train", "--heads", str(d / "s" / "heads"), "--tails", str(d / "s" / "tails"),
                 "--ring", str(d / "ring.json"), "-o", str(d / "coins.model")]) == 0
    (d / "cam").mkdir()
    shutil.copy(d / "s" / "empty.png", d / "cam" / "0000.png")
    cfg = d / "ring-config.json"
    cfg.write_text(json.dumps({"ring": "ring.json", "model": "coins.model", "log": "audit.db"}))
    return cfg


def test_ring_run_with_a_camera_records_what_judges_the_spins_first(board, tmp_path):
    b, keyfile = board
    cfg = _vision_files(tmp_path)
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    proc = Proc([RING, "run", "--port", b.tty, "--key", keyfile, "--camera", str(tmp_path / "cam"),
                 "--config", str(cfg)] + LINK_WAIT, env)
    try:
        proc.expect("link up", LINK_UP_S)
        proc.send("q")
        assert proc.p.wait(10) == 0
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
    log = AuditLog(str(tmp_path / "audit.db"))
    assert log.verify()["ok"]
    recs = list(log.records(with_blobs=False))
    log.close()
    vision = [r for r in recs if r.kind == "vision"]
    assert len(vision) == 1 and recs[0].kind == "vision"       # the first record of the session
    for key, name in (("ring", "ring.json"), ("model", "coins.model")):
        assert vision[0].data[key]["sha256"] == hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()


def test_ring_run_refuses_a_ring_settled_by_the_coins_nobody_confirmed(board, tmp_path):
    b, keyfile = board
    cfg = _vision_files(tmp_path)
    rm = ringmod.RingModel.load(tmp_path / "ring.json")
    rm.settled_by_coins = {"how": ringmod.SETTLED + ": the edge found (...)", "drawn": str(tmp_path / "x.png")}
    (tmp_path / "ring.json").write_text(rm.to_json())
    p = subprocess.run([RING, "run", "--port", b.tty, "--key", keyfile, "--camera", str(tmp_path / "cam"),
                        "--config", str(cfg)] + LINK_WAIT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, RING_HOME=str(tmp_path / "home")))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "nobody has confirmed it yet" in p.stderr and "confirm-edge --ring" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "audit.db").exists()             # a refused start leaves no log behind


def test_a_log_that_cannot_take_the_vision_record_refuses_the_start(board, tmp_path, monkeypatch, capsys):
    """Record, then announce: the `vision` record is the first write; a disk full there stops the
    start with the log's own line (one line, the link and camera closed), not a traceback."""
    b, keyfile = board
    cfg = _vision_files(tmp_path)
    capsys.readouterr()

    def full(log, vision):
        raise LogWriteError(str(tmp_path / "audit.db"), sqlite3.OperationalError("database or disk is full"))
    monkeypatch.setattr(records, "record_vision", full)
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    rc = main(["run", "--port", b.tty, "--key", keyfile, "--camera", str(tmp_path / "cam"),
               "--config", str(cfg)] + LINK_WAIT)
    err = capsys.readouterr().err
    assert rc == 1 and "cannot start" in err and "disk full" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
