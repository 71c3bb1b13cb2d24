"""`ring log frames` (issue 17): one spin's frames as image files, with its records beside them,
from a log written by RingHost; the folder is written whole or not at all."""
import json
import os

import cv2

from ringctl.cli import main
from ringctl.record.log import AuditLog
from test_host import arm, host, land_and_rest, run_until  # noqa: F401  (host is a fixture)


def two_spins(h):
    for _ in range(2):
        arm(h)
        land_and_rest(h.link)
        assert run_until(h, lambda: h.spin.finished)
        h.pump(0.05)        # the spin's last events (its at-rest phase) belong to it, not the next
        for op in ({"op": "bets-open"}, {"op": "bets-closed"}):
            from ringctl.runner.commands import TableOp
            h.submit(TableOp(op=op, user="ann", role="boxer"))


def test_frames_of_one_spin_as_jpeg_files_with_its_records(host, tmp_path, capsys):  # noqa: F811
    two_spins(host)
    out = tmp_path / "spin2"
    assert main(["log", "frames", "--db", host.log.path, "--spin", "2", "-o", str(out)]) == 0
    assert "spin 2: 3 frame(s)" in capsys.readouterr().out
    files = sorted(os.listdir(out))
    jpgs = [f for f in files if f.endswith(".jpg")]
    raw = [f for f in jpgs if not f.endswith("-annotated.jpg")]
    assert all(f.startswith("spin0002-frame") for f in jpgs)
    # each deciding still frame, and its annotated copy kept beside it by ring run (issue 12)
    assert len(raw) == host.stills and len(jpgs) == 2 * host.stills
    for f in jpgs:
        assert cv2.imread(str(out / f)) is not None                  # a real image
    for f in raw:
        verdict = json.loads((out / f.replace(".jpg", ".json")).read_text())
        assert verdict["result"] == "heads"
    lines = (out / "spin0002-records.txt").read_text().splitlines()
    assert any(" spin " in l and "HEADS decided by camera" in l for l in lines)
    assert any('"op":"spin"' in l for l in lines)                     # its settlement
    rows = [json.loads(l) for l in (out / "spin0002-records.jsonl").read_text().splitlines()]
    spins = {r["data"].get("spin") for r in rows if r["kind"] != "op"}
    assert spins == {2} and len(rows) == len(lines)
    frame_seqs = {r["seq"] for r in rows if r["kind"] == "frame"}
    assert {int(f[14:18]) for f in jpgs} == frame_seqs


def test_annotated_copies_are_named_and_bad_outputs_are_one_line(host, tmp_path, capsys):  # noqa: F811
    two_spins(host)
    kept = host.stills                      # ring run's own annotated copies (issue 12)
    jpg = cv2.imencode(".jpg", cv2.UMat(8, 8, cv2.CV_8UC3).get())[1].tobytes()
    host.log.append("frame", {"spin": 1, "meta": {"result": "heads", "annotated": True}}, blob=jpg)
    out = tmp_path / "s1"
    assert main(["log", "frames", "--db", host.log.path, "--spin", "1", "-o", str(out)]) == 0
    assert len([f for f in os.listdir(out) if f.endswith("-annotated.jpg")]) == kept + 1
    capsys.readouterr()
    for args, words in ((["--spin", "9", "-o", str(tmp_path / "x")], "no records of spin 9"),
                        (["--spin", "1", "-o", str(out)], "already exists"),
                        (["--spin", "1", "-o", str(tmp_path / "no" / "x")], "does not exist")):
        assert main(["log", "frames", "--db", host.log.path, *args]) != 0
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_a_disk_that_fills_midway_leaves_nothing_half_written(host, tmp_path, capsys,  # noqa: F811
                                                             monkeypatch):
    import builtins
    import errno
    from ringctl.record import frames
    two_spins(host)
    real_open, opened = builtins.open, []

    def filling(path, mode="r", *a, **kw):
        if "w" in mode and str(path).startswith(str(tmp_path)):
            opened.append(path)
            if len(opened) == 3:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, mode, *a, **kw)
    monkeypatch.setattr(frames, "open", filling, raising=False)
    assert main(["log", "frames", "--db", host.log.path, "--spin", "1", "-o", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert "No space left" in err and "nothing was written" in err
    assert len(opened) == 3
    assert not any(n.startswith((".x", "x")) for n in os.listdir(tmp_path))   # no temp left
