"""A band round the ring that calibration cannot place is settled at training by the coins' size
(`ring.calibrate(unsettled_ok=True)`, `faceid.settle`; docs/VISION.md "A band round the ring
settled by the coins' size")."""
import copy
import json

import cv2
import numpy as np
import pytest

from ringctl.cli import main
from ringctl.device import doctor
from ringctl.runner import cli as runner_cli
from ringctl.vision import cli as vision_cli
from ringctl.errors import UserError
from ringctl.sim import calib_bench, heldout, training_bench
from ringctl.vision import faceid, ring as ringmod

import vcache

# sealed-30 (opened): a border printed 10% of the radius inside the wall's foot, refused at
# calibration since the twenty-sixth session ("a band 10% of the radius wide ...")
BORDER = ("sealed-30", 3155147022)
# sealed-37 (opened): the edge found is the wall's outer edge, 6% beyond its foot, the band the
# wall: 42 px coins fit both boundaries
NARROW = ("sealed-37", 3653394631)


def _ring(name, seed):
    spec, _ = heldout.make(seed, None, dict(heldout.SETS[name]))
    return spec, vcache.empty_frame(spec, seed)


def _photos(spec, seed, frames=vcache.ring_training_frames):
    """The ring's 12 training photos per face: by default rendered once per session (vcache: copies
    of heldout.ring_training_frames' pixels), the BORDER and NARROW rings' being used by two tests each."""
    return [frames(spec, seed, face, 12) for face in ("heads", "tails")]


def _off(rm, spec):
    return max(abs(a - b) for a, b in zip(rm.axes, calib_bench.truth_axes(spec)))


def test_a_band_is_calibrated_unsettled_and_only_training_takes_it():
    spec, empty = _ring(*BORDER)
    with pytest.raises(ringmod.BandRefusal, match="a band 10% of the radius"):
        ringmod.calibrate(empty, ring_mm=heldout.ring_mm(spec))      # as before, unless asked
    rm = ringmod.calibrate(empty, ring_mm=heldout.ring_mm(spec), unsettled_ok=True)
    assert rm.unsettled.startswith("ring edge uncertain: a band 10%")
    assert _off(rm, spec) < 1.0 and 0.88 < rm.band_inner.axes[0] / rm.axes[0] < 0.92
    with pytest.raises(UserError, match="not settled yet.*ring vision train"):
        ringmod.RingModel.from_json(rm.to_json())
    back = ringmod.RingModel.from_json(rm.to_json(), unsettled_ok=True)
    assert back.unsettled == rm.unsettled and back.band_inner.axes == pytest.approx(rm.band_inner.axes, abs=1e-3)
    heads, tails = _photos(spec, BORDER[1])
    with pytest.raises(UserError, match="not settled yet"):
        faceid.train(heads, tails, rm)
    with pytest.raises(UserError, match="not settled yet"):      # nor is a frame judged with it
        rm.check_frame(empty)


def test_ring_vision_train_settles_the_band_by_the_coins_size_and_saves_it(tmp_path, capsys):
    spec, empty = _ring(*BORDER)
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    for face, imgs in zip(("heads", "tails"), _photos(spec, BORDER[1])):
        (tmp_path / face).mkdir()
        for i, img in enumerate(imgs):
            cv2.imwrite(str(tmp_path / face / f"{i:02d}.png"), img)
    ring_json, model = str(tmp_path / "ring.json"), str(tmp_path / "coins.model")
    calibrate = ["vision", "calibrate", str(tmp_path / "empty.png"), "--ring-mm", str(heldout.ring_mm(spec)),
                 "-o", ring_json]
    assert main(calibrate) != 0            # refused, as before, unless asked (the diameters are trusted)
    err = capsys.readouterr().err
    assert "a band 10% of the radius" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "contrasting tape" in err and "--settle-band" in err     # both fixes named
    assert main(calibrate + ["--settle-band"]) == 0
    out = capsys.readouterr()
    assert "not settled, two boundaries" in out.out and "train the coin faces in the ring next" in out.err
    # nothing but training takes it: one line, naming the fix
    assert main(["vision", "classify", str(tmp_path / "empty.png"), "--ring", ring_json, "--model", model]) != 0
    err = capsys.readouterr().err
    assert "not settled yet" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["vision", "train", "--heads", str(tmp_path / "heads"), "--tails", str(tmp_path / "tails"),
                 "--ring", ring_json, "--empty", str(tmp_path / "empty.png"), "-o", model]) == 0
    said = capsys.readouterr()
    assert "settled by the coins' size: the edge found" in said.out and "ring.settled.png" in said.out
    assert "ring vision confirm-edge --ring" in said.err
    pic = cv2.imread(str(tmp_path / "ring.settled.png"))    # both boundaries drawn for the technician
    assert pic is not None and pic.shape == empty.shape
    assert "settled by the coins' size" in json.load(open(model))["report"]["ring_settled"]
    # settled, but nothing takes it until the technician confirms the boundary drawn: not the
    # doctor, not a classify, not play (they all load it)
    with pytest.raises(UserError, match="nobody has confirmed it yet: look at /.*/ring.settled.png.*confirm-edge"):
        ringmod.RingModel.load(ring_json)
    with pytest.raises(UserError, match="nobody has confirmed"):     # ring run's camera takes it so
        runner_cli._one_camera_watcher("sim", {"ring": ring_json, "model": model})
    # training again leaves it so, and says so, with --json too
    train = ["vision", "train", "--heads", str(tmp_path / "heads"), "--tails", str(tmp_path / "tails"),
             "--ring", ring_json, "--empty", str(tmp_path / "empty.png"), "-o", model]
    assert main(train + ["--json"]) == 0
    said = capsys.readouterr()
    assert "nobody has confirmed" in json.loads(said.out)["ring_unconfirmed"] and "confirm-edge" in said.err
    report = doctor.Report()
    doctor.check_config(report, {"ring": ring_json})
    assert report.items[0]["status"] == doctor.FAIL and "confirm-edge --ring" in report.items[0]["fix"]
    assert main(["vision", "classify", str(tmp_path / "empty.png"), "--ring", ring_json, "--model", model]) != 0
    err = capsys.readouterr().err
    assert "nobody has confirmed" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["vision", "confirm-edge", "--ring", ring_json, "--by", " "]) != 0    # a name is needed
    assert "--by" in capsys.readouterr().err
    assert main(["vision", "confirm-edge", "--ring", ring_json, "--by", "T. Tech"]) == 0
    assert "confirmed by T. Tech" in capsys.readouterr().out
    settled = ringmod.RingModel.load(ring_json)       # settled and confirmed: any command takes it now
    assert settled.unsettled is None and _off(settled, spec) < 1.0
    assert any("settled by the coins' size" in w for w in settled.warnings)
    assert settled.settled_by_coins["confirmed"]["by"] == "T. Tech"
    assert settled.settled_by_coins["drawn"].endswith("ring.settled.png")
    report = doctor.Report()
    doctor.check_config(report, {"ring": ring_json})
    assert report.items[0]["status"] == doctor.OK and "confirmed by T. Tech" in report.items[0]["detail"]
    assert main(["vision", "confirm-edge", "--ring", ring_json, "--by", "Someone Else"]) == 0
    assert "already confirmed by T. Tech" in capsys.readouterr().out
    assert main(["vision", "classify", str(tmp_path / "empty.png"), "--ring", ring_json, "--model", model]) == 0


def _settled_ring(tmp_path):
    """A small ring saved as `ring vision train` saves one it settled (its picture drawn)."""
    pic = tmp_path / "ring.settled.png"
    cv2.imwrite(str(pic), np.full((48, 64, 3), 90, np.uint8))
    rm = ringmod.RingModel((640, 480), (320, 240), (200, 190), 0, np.zeros((12, 16, 3), np.uint8), 30.8, 300,
                           warnings=[ringmod.SETTLED + ": the edge found (...)"])
    rm.settled_by_coins = {"how": rm.warnings[0], "drawn": str(pic), "drawn_sha256": vision_cli._sha256(pic, "-o"),
                           "drawn_boundary": rm.boundary()}
    path = tmp_path / "ring.json"
    path.write_text(rm.to_json())
    return path, pic


def _edited(path, change):
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


def _confirm(path, by="T. Tech"):
    return main(["vision", "confirm-edge", "--ring", str(path), "--by", by])


def test_a_confirmation_names_who_when_and_the_boundary_and_nothing_else_passes(tmp_path, capsys):
    path, pic = _settled_ring(tmp_path)
    with pytest.raises(UserError, match="nobody has confirmed"):
        ringmod.RingModel.load(path)
    # no name, or one that would break the line shown or the audit log: controls, a right-to-left
    # override, an undecodable byte as the shell passes it
    for bad in ("", "  ", "T.\x1b[2J", "T.\x9b2J", "T. \u202eTech", "T. Tech\udcff"):
        assert _confirm(path, bad) != 0
        assert "--by" in capsys.readouterr().err
    assert _confirm(path) == 0
    capsys.readouterr()
    done = ringmod.RingModel.load(path).settled_by_coins["confirmed"]
    assert done["by"] == "T. Tech" and done["boundary"] == [320.0, 240.0, 200.0, 190.0, 0.0]
    confirmed = path.read_text()
    # a confirmation is of one boundary: a file changed after is refused, and cannot be confirmed
    # again against the old picture
    _edited(path, lambda d: d.update(axes=[180.0, 171.0]))
    with pytest.raises(UserError, match="but the boundary confirmed by T. Tech at .* is not this file's.*calibrate "
                                        "again"):
        ringmod.RingModel.load(path)
    assert _confirm(path) != 0
    assert "is not this file's" in capsys.readouterr().err
    # hand-made confirmations are refused with one line naming the field
    for change in (lambda d: d["settled_by_coins"]["confirmed"].update(by=""),
                   lambda d: d["settled_by_coins"]["confirmed"].update(by=None),
                   lambda d: d["settled_by_coins"]["confirmed"].update(at="yesterday"),
                   lambda d: d["settled_by_coins"]["confirmed"].update(at="2026-12-06"),
                   lambda d: d["settled_by_coins"]["confirmed"].update(at="2026-12-06T03:40:00"),
                   lambda d: d["settled_by_coins"]["confirmed"]["boundary"].__setitem__(0, "nan"),
                   lambda d: d["settled_by_coins"]["confirmed"]["boundary"].__setitem__(1, float("inf")),
                   lambda d: d["settled_by_coins"]["confirmed"].pop("boundary"),
                   lambda d: d["settled_by_coins"].update(confirmed="yes"),
                   lambda d: d["settled_by_coins"].update(drawn_boundary=[1, 2]),
                   lambda d: d.update(settled_by_coins=None)):
        path.write_text(confirmed)
        _edited(path, change)
        with pytest.raises(UserError, match="settled_by_coins is not as 'ring vision train' wrote it"):
            ringmod.RingModel.load(path)


def test_a_boundary_other_than_the_one_drawn_cannot_be_confirmed(tmp_path, capsys):
    path, pic = _settled_ring(tmp_path)
    _edited(path, lambda d: d.update(center=[300.0, 260.0], axes=[215.0, 205.0]))
    with pytest.raises(UserError, match="its boundary is not the one drawn in"):
        ringmod.RingModel.load(path)
    assert _confirm(path) != 0
    assert "is not the one drawn" in capsys.readouterr().err


def test_a_boundary_is_the_same_after_a_round_trip_whatever_its_decimals():
    for centre, axes, angle in (((2.675, 1.005), (199.995, 190.0049), 179.996), ((320, 240), (200, 190), 89.995),
                                ((320.123456, 240.98765), (200.11111, 190.4444), 0.004)):
        rm = ringmod.RingModel((640, 480), centre, axes, angle, np.zeros((12, 16, 3), np.uint8), 30.8, 300)
        rm.settled_by_coins = {"how": ringmod.SETTLED, "drawn": "/x.png", "drawn_boundary": rm.boundary()}
        rm.confirm("T. Tech", "2026-12-06T03:40:00+00:00")
        back = ringmod.RingModel.from_json(rm.to_json())
        assert back.settled_by_coins["confirmed"]["by"] == "T. Tech"
    assert ringmod.same_boundary([0, 0, 1, 1, 179.996], [0, 0, 1, 1, 0.002])     # the long axis, either way
    assert not ringmod.same_boundary([0, 0, 1, 1, 0], [0, 0, 1, 1.02, 0])


def test_a_ring_settled_before_confirmations_were_kept_is_calibrated_again(tmp_path, capsys):
    path, pic = _settled_ring(tmp_path)
    _edited(path, lambda d: d.pop("settled_by_coins"))     # as a6d4f0a-294d8a3 saved it: the warning only
    with pytest.raises(UserError, match="no picture of its boundary was drawn .settled before confirmations were kept.*calibrate again"):
        ringmod.RingModel.load(path)
    assert _confirm(path) != 0
    err = capsys.readouterr().err
    assert "before confirmations were kept" in err and "--settle-band" in err and len(err.strip().splitlines()) == 1
    report = doctor.Report()
    doctor.check_config(report, {"ring": str(path)})
    assert report.items[0]["status"] == doctor.FAIL and "--settle-band" in report.items[0]["fix"]


def test_only_the_picture_drawn_for_the_boundary_confirms_it(tmp_path, capsys):
    path, pic = _settled_ring(tmp_path)
    before = path.read_text()
    cv2.imwrite(str(pic), np.full((48, 64, 3), 91, np.uint8))
    assert _confirm(path) != 0
    assert "changed since training drew it" in capsys.readouterr().err
    pic.unlink()
    assert _confirm(path) != 0
    assert "neither there nor beside" in capsys.readouterr().err
    assert path.read_text() == before


def test_a_ring_moved_with_its_picture_is_confirmed_by_the_picture_beside_it(tmp_path, capsys):
    path, pic = _settled_ring(tmp_path)
    (tmp_path / "moved").mkdir()
    path.rename(tmp_path / "moved" / "ring.json")
    pic.rename(tmp_path / "moved" / pic.name)
    assert _confirm(tmp_path / "moved" / "ring.json") == 0
    assert str(tmp_path / "moved" / pic.name) in capsys.readouterr().out


def test_settling_needs_at_least_as_many_coins_measured_with_the_boundary_taken(monkeypatch):
    """The edge found fits the coins and the band's inner side does not, but the finder measured
    the coin in more photos with the band's inner side: not settled. The same fits with the counts
    the other way round settle on the edge found. (Fits and counts stand in for the photos.)"""
    edge = ringmod.RingModel((640, 480), (320, 240), (200, 190), 0, np.zeros((12, 16, 3), np.uint8), 30.8, 300)
    edge.unsettled, edge.band_inner = "ring edge uncertain: a band", copy.copy(edge)
    edge.band_inner.axes = (180.0, 171.0)
    counts = {}
    monkeypatch.setattr(faceid, "_coins_found", lambda photos, r, names, empty: r.axes)
    monkeypatch.setattr(faceid, "_finder_sizes", lambda axes: [0] * counts[axes])
    monkeypatch.setattr(faceid, "scale_fits", lambda r, axes: (1.0, True) if axes == edge.axes else (1.12, False))
    photos = [np.zeros((480, 640, 3), np.uint8)] * 4
    counts.update({edge.axes: 5, edge.band_inner.axes: 7})
    with pytest.raises(UserError, match="does not tell them apart clearly"):
        faceid.settle(edge, photos, photos)
    counts.update({edge.axes: 7, edge.band_inner.axes: 5})
    got, line = faceid.settle(edge, photos, photos)
    assert got.axes == edge.axes and "settled by the coins' size: the edge found" in line
    assert got.unconfirmed and not got.unsettled
    with pytest.raises(UserError, match="no picture of its boundary was drawn"):   # training draws it
        ringmod.RingModel.from_json(got.to_json())


def test_a_band_the_coins_cannot_settle_is_refused_with_the_tape_fix():
    spec, empty = _ring(*NARROW)
    rm = ringmod.calibrate(empty, ring_mm=heldout.ring_mm(spec), unsettled_ok=True)
    assert rm.unsettled and _off(rm.band_inner, spec) < 2.0 and _off(rm, spec) > 20   # the wall's outer edge
    heads, tails = _photos(spec, NARROW[1])
    with pytest.raises(UserError, match="both fit the coins' size.*contrasting tape"):
        faceid.settle(rm, heads, tails, empty=empty)


def test_the_wall_s_inner_part_settles_on_its_inner_side(monkeypatch):
    """The other way round: the edge found 25% beyond the wall's foot (the band the wall's inner
    part) settles on the band's inner side, the foot (made from a right calibration:
    training_bench.unsettled, as `ring bench training --bands` makes it). There the finder takes
    something else of the size the edge found expects for the coin in 7 photos of 24, which fit
    it: the coins' size counts only where the finder measured half the photos or more."""
    name, seed = "sealed-35", 1471872027
    spec, empty = _ring(name, seed)
    rm = ringmod.calibrate(empty, ring_mm=heldout.ring_mm(spec))
    heads, tails = _photos(spec, seed, heldout.ring_training_frames)   # 24 4K photos used here only: not kept
    ring = training_bench.unsettled(rm, 1.25, empty, True)
    found, measure = {}, faceid._coins_found      # the second settle finds the same coins: once each
    monkeypatch.setattr(faceid, "_coins_found", lambda photos, r, names, empty: found.get(r.axes) or
                        found.setdefault(r.axes, measure(photos, r, names, empty)))
    got, line = faceid.settle(ring, heads, tails, empty=empty)
    assert got.axes == rm.axes and "settled by the coins' size: the band's inner side" in line
    assert "1.03 of it in 7 of 24 photos" in line and len(found) == 2
    monkeypatch.setattr(faceid, "SETTLE_FOUND", 0.0)
    with pytest.raises(UserError, match="both fit"):
        faceid.settle(ring, heads, tails, empty=empty)


def test_a_ring_diameter_given_too_large_does_not_settle_beyond_the_wall_s_foot():
    """sealed-37 3653394631 with --ring-mm 16% too large (a tape across the wall's tops): the
    coins then measure 1.13 of what the edge found (the wall's outer edge) expects, and 1.19 of
    the foot. The first form (training's window for both) took the edge found, 28 px beyond the
    foot; fitting without the room for the diameters refuses it."""
    spec, empty = _ring(*NARROW)
    rm = ringmod.calibrate(empty, ring_mm=heldout.ring_mm(spec) * 1.16, unsettled_ok=True)
    heads, tails = _photos(spec, NARROW[1])
    with pytest.raises(UserError, match="neither fits the coins' size"):
        faceid.settle(rm, heads, tails, empty=empty)
