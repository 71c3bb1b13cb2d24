"""A few refused training photos are left out, named, and drawn; more than faceid.LEAVE_OUT_MAX
of a face's photos refused still refuses the training (issue 12: one coin laid where print hides
its rim sent a sealed-14 ring's technician back to retake all 24 photos)."""
import json
import shutil

import cv2
import pytest

from ringctl.sim import heldout
from ringctl.sim.vision_bench import ring_model
from ringctl.vision import faceid, ring as ringmod


def _scenes(main, tmp_path):
    out = tmp_path / "s"
    assert main(["sim", "scenes", "-o", str(out), "-n", "0"]) == 0
    assert main(["vision", "calibrate", str(out / "empty.png"), "--ring-mm", "395",
                 "-o", str(out / "ring.json")]) == 0
    return out


def _spoil(folder, k, empty):
    """The first k photos of a folder replaced by the empty ring (no coin: refused)."""
    photos = sorted(p for p in folder.iterdir() if p.suffix == ".png")
    for p in photos[:k]:
        shutil.copyfile(empty, p)
    return photos


def test_a_refused_photo_is_left_out_named_and_drawn(tmp_path, capsys):
    from ringctl.cli import main
    out = _scenes(main, tmp_path)
    photos = _spoil(out / "heads", 1, out / "empty.png")
    model = tmp_path / "m.json"
    capsys.readouterr()
    assert main(["vision", "train", "--heads", str(out / "heads"), "--tails", str(out / "tails"),
                 "--ring", str(out / "ring.json"), "-o", str(model)]) == 0
    text = capsys.readouterr().out
    drawn = tmp_path / "refused" / f"{photos[0].stem}.annotated.png"
    assert f"Left out of training: {photos[0]}: found 0 coin-like objects" in text and str(drawn) in text
    assert cv2.imread(str(drawn)) is not None
    report = json.loads(model.read_text())["report"]
    assert report["photos"]["heads"] == len(photos) - 1
    assert [e["photo"] for e in report["left_out"]] == [str(photos[0])]


def test_more_refused_photos_than_may_be_left_out_refuse_the_training(tmp_path, capsys):
    from ringctl.cli import main
    out = _scenes(main, tmp_path)
    photos = sorted(p for p in (out / "tails").iterdir() if p.suffix == ".png")
    k = int(faceid.LEAVE_OUT_MAX * len(photos)) + 1
    _spoil(out / "tails", k, out / "empty.png")
    capsys.readouterr()
    assert main(["vision", "train", "--heads", str(out / "heads"), "--tails", str(out / "tails"),
                 "--ring", str(out / "ring.json"), "-o", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert f"training photo {photos[0]}: found 0 coin-like objects" in err and "drawn in" in err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_the_sealed_14_ring_refused_for_one_photo_now_trains_without_it(monkeypatch):
    """sealed-14 (opened) 3812914895: in its heads#0 and tails#0 photos the coin lies on print,
    where the coin finder's outline and the circle of the calibrated size disagree by 3 and 4 px;
    the ring used to refuse training. It now trains from the other 22 photos. (Its lamps also
    wash the coin out, faceid.CLIPPED, which the bench's technician meets by lowering the
    exposure; that check is set aside here.)"""
    monkeypatch.setattr(faceid, "CLIP_MAX", 1.0)
    seed = 3812914895
    spec, _ = heldout.make(seed, None, heldout.SETS["sealed-14"])
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    refused = []
    model = ring_model(spec, seed, rm, refused=refused)
    assert [e.name for e in refused] == ["heads#0", "tails#0"]
    assert all("disagree by" in e.why and "retake" in e.why for e in refused)
    assert model.report["left_out"] == [{"photo": e.name, "why": e.why} for e in refused]
    assert model.report["photos"] == {"heads": 11, "tails": 11} and model.report["loo_errors"] == 0
