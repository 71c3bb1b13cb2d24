"""`ring run` with a camera writes what judges its spins into the audit log first: each vision
file with its SHA-256, and for a ring settled by the coins' size how and who confirmed it
(records.record_vision; docs/VISION.md "The technician confirms it")."""
import hashlib
import io
import json
import subprocess
import sys
import zipfile

import numpy as np

from ringctl.cli import main
from ringctl.console.evidence import build_pack
from ringctl.console.spins import SpinIndex
from ringctl.game.engine import Engine
from ringctl.record import frames, show
from ringctl.record.log import AuditLog
from ringctl.runner.visionfiles import vision_in_use
from ringctl.runner.host import RingHost
from ringctl.vision import ring as ringmod


def _files(tmp_path, settled):
    rm = ringmod.RingModel((640, 480), (320, 240), (200, 190), 0, np.zeros((12, 16, 3), np.uint8), 30.8, 300)
    if settled:
        rm.settled_by_coins = {"how": ringmod.SETTLED + ": the edge found (...)", "drawn": "/x/ring.settled.png"}
        rm.confirm("T. Tech", "2026-12-06T03:40:00+00:00")
    (tmp_path / "ring.json").write_text(rm.to_json())
    (tmp_path / "coins.model").write_bytes(b"a face model's bytes")
    cfg = {"ring": str(tmp_path / "ring.json"), "model": str(tmp_path / "coins.model")}
    return cfg, ringmod.RingModel.load(cfg["ring"])


def _host_log(tmp_path, vision):
    path = str(tmp_path / "audit.db")
    host = RingHost(None, AuditLog(path), Engine(), vision=vision)
    host.close()
    host.log.close()
    with AuditLog(path) as log:
        return list(log.records())


def test_the_files_that_judge_the_spins_are_recorded_before_any_spin(tmp_path):
    cfg, rm = _files(tmp_path, settled=True)
    vision = vision_in_use(cfg, rm)
    assert vision["ring"]["sha256"] == hashlib.sha256((tmp_path / "ring.json").read_bytes()).hexdigest()
    assert vision["model"]["sha256"] == hashlib.sha256(b"a face model's bytes").hexdigest()
    assert vision["ring"]["settled_by_coins"]["confirmed"]["by"] == "T. Tech"
    recs = _host_log(tmp_path, vision)
    assert [r.kind for r in recs] == ["vision"] and recs[0].data == json.loads(json.dumps(vision))
    said = show.line(recs[0])
    assert said.count("vision in use: ") == 1 and "ring " + cfg["ring"] in said and vision["ring"]["sha256"][:12] in said
    assert "edge settled by the coins' size, confirmed by T. Tech at 2026-12-06T03:40:00+00:00" in said


def test_a_ring_calibrated_as_ever_is_recorded_without_a_settlement(tmp_path):
    cfg, rm = _files(tmp_path, settled=False)
    vision = vision_in_use(cfg, rm)
    assert "settled_by_coins" not in vision["ring"]
    said = show.line(_host_log(tmp_path, vision)[0])
    assert "coins.model" in said and "settled" not in said


def test_no_camera_no_vision_record(tmp_path):
    assert _host_log(tmp_path, None) == []


def test_each_spin_names_the_vision_in_force_when_it_was_armed(tmp_path, capsys):
    """Surveillance's spin detail and evidence pack carry the last `vision` record before the spin:
    a host restarted with other files between spins names those for the later spin only."""
    path = str(tmp_path / "audit.db")
    with AuditLog(path) as log:
        log.append("vision", {"ring": {"file": "ring.json", "sha256": "a" * 64}})
        log.append("arm", {"spin": 1, "user": "ann", "role": "boxer"})
        log.append("spin", {"spin": 1, "outcome": {"result": "heads", "reasons": []}})
        log.append("vision", {"ring": {"file": "ring.json", "sha256": "c" * 64}})
        log.append("arm", {"spin": 2, "user": "ann", "role": "boxer"})
    index = SpinIndex(path)
    assert index.detail(1)["vision"]["data"]["ring"]["sha256"] == "a" * 64
    assert index.detail(2)["vision"]["data"]["ring"]["sha256"] == "c" * 64 and index.detail(2)["vision"]["seq"] == 4
    z = zipfile.ZipFile(io.BytesIO(build_pack(index, 2)))
    pack = json.loads(z.read("records.json"))
    assert json.loads(pack["vision"]["data"])["ring"]["sha256"] == "c" * 64     # whole, as stored
    # the pack's verifier checks it: it is the record the segment chains from here
    out = tmp_path / "pack"
    z.extractall(out)
    ok = subprocess.run([sys.executable, "-I", str(out / "verify.py")], capture_output=True, text=True)
    assert ok.returncode == 0 and "OK spin 2" in ok.stdout, ok.stdout
    pack["vision"]["data"] = pack["vision"]["data"].replace("c" * 64, "f" * 64)     # another file named
    (out / "records.json").write_text(json.dumps(pack))
    bad = subprocess.run([sys.executable, "-I", str(out / "verify.py")], capture_output=True, text=True)
    assert bad.returncode == 1 and "vision record seq 4: content does not match its hash" in bad.stdout
    with AuditLog(path) as log:      # and `ring log show --spin N`
        assert [(r.seq, r.kind) for r in show.select(log.records(), spin=2)] == [(4, "vision"), (5, "arm")]
        assert [(r.seq, r.kind) for r in show.select(log.records(), spin=1)] == [(1, "vision"), (2, "arm"), (3, "spin")]
        assert [r.kind for r in show.select(log.records(), spin=1, kinds=["arm"])] == ["arm"]
        assert [r.seq for r in show.select(log.records(), spin=1, kinds=["vision"])] == [1]
        late = max(r.ts for r in log.records())
        assert list(show.select(log.records(), spin=1, since=late + 1)) == []     # nothing of spin 1 then
        # and `ring log frames --spin N`'s records beside the frames
        assert [(r.seq, r.kind) for r in frames.spin_records(log, 2)] == [(4, "vision"), (5, "arm")]
        assert [(r.seq, r.kind) for r in frames.spin_records(log, 1)] == [(1, "vision"), (2, "arm"), (3, "spin")]
    capsys.readouterr()
    assert main(["log", "show", "--db", path, "--spin", "2", "--kind", "vision", "--json"]) == 0
    assert [json.loads(l)["seq"] for l in capsys.readouterr().out.splitlines()] == [4]
