"""A camera moved, turned (or shaken) since calibration (vision/drift.py): the layout no longer
lines up with the empty ring's photo, and every spin went to the boxer as an "unexplained object"
(turned 0.4 deg, a valid spin on print was voided). An unsure or void frame lying off the photo is
judged again moved back onto it, and says so; one still unsure names the move and the fix; a void
stands only if the frame moved back is void too; a camera where it was calibrated is never said
to have moved."""
import functools
import re

import cv2
import numpy as np
import pytest

from ringctl.sim import heldout
from vcache import heldout_model   # vision_bench.heldout_model, trained once per session
from ringctl.vision import drift, judge, ring as ringmod, viewcal
from ringctl.vision.views import judge_view

BACK = "judged with the picture moved back"
OFF = "does not line up with the empty ring's photo"


def _turned(img, deg, dx=0, dy=0):
    """The frame turned `deg` about its centre (as `ring bench camera-drift` does) and moved dx, dy;
    and the 2x3 matrix that did it."""
    m = cv2.getRotationMatrix2D((img.shape[1] / 2, img.shape[0] / 2), deg, 1.0)
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(img, m, img.shape[1::-1], borderMode=cv2.BORDER_REPLICATE), m


def _shifted(img, dx, dy):
    return _turned(img, 0, dx, dy)[0]


@functools.lru_cache(maxsize=None)
def _model(name):
    return heldout_model(heldout.SETS[name])   # trained once per set for the whole module


def _scene(name, seed, kind):
    cfg = heldout.SETS[name]
    spec, expect = heldout.make(seed, kind, cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return expect, rm, heldout.render_frame(spec, seed)


@pytest.fixture(scope="module")
def scenes():
    """Valid scenes of tune-1080p (plain layouts; unsure when moved 4x3 px, before) and
    edge-tune (print; 74383634 at 4K unsure turned 0.4 deg, before), their rings and models; and a
    touching pair (unsure however judged)."""
    out = []
    for name, seeds, kind in (("tune-1080p", (2952711084, 1811304333), "valid"), ("edge-tune", (3210010690,), "valid"),
                              ("edge-tune", (74383634,), None), ("tune-1080p", (923768393,), "touching")):
        model = _model(name)
        for seed in seeds:
            expect, rm, img = _scene(name, seed, kind)
            # the camera cannot tell touching from nearly: unsure (the boxer looks), not the void
            out.append((name, seed, model, "unsure" if kind == "touching" else expect, rm, img))
    return out


def _judges(img, rm, model):
    return judge.classify(img, rm, model), judge_view(img, viewcal.CameraView("A", np.eye(3), rm), model)


def test_the_shift_and_the_turn_are_measured_against_the_empty_ring(scenes):
    for name, seed, _, _, rm, img in scenes:
        for deg, dx, dy in ((0, 0, 0), (0, 3, 0), (0, 0, -4), (0, 6, 2), (0.4, 0, 0), (-0.5, 4, -3), (2, 0, 0)):
            frame, m = _turned(img, deg, dx, dy)
            move = drift.camera_move(rm, rm.small(frame))
            # the ring's centre moves where the turn about the picture's centre and the shift take it
            cx, cy = m @ [*rm.center, 1] - rm.center
            assert abs(move.dx - cx) < 1.0 and abs(move.dy - cy) < 1.0 and abs(move.deg - deg) < 0.05, \
                (name, seed, deg, dx, dy, move)


def test_a_frame_off_the_empty_ring_is_judged_moved_back_and_says_so(scenes):
    for name, seed, model, expect, rm, img in scenes:
        if expect == "unsure":
            continue
        for v in _judges(_shifted(img, 4, 3), rm, model):
            assert v["result"] == expect, (name, seed, v["reasons"])
            [note] = [r for r in v["reasons"] if BACK in r]
            assert v["reasons"][0] != note and re.search(r"\((4\.[5-9]|5\.[0-4]) px off;", note), v["reasons"]


def test_a_turned_frame_is_judged_moved_back_and_says_so(scenes):
    for name, seed, model, expect, rm, img in scenes:
        if expect == "unsure":
            continue
        for deg, dx, dy, words in ((0.4, 0, 0, r"\(turned 0\.4 deg;"),
                                   (-0.4, 4, -3, r"\([45]\.\d px off and turned 0\.4 deg;")):
            frame, _ = _turned(img, deg, dx, dy)
            for v in _judges(frame, rm, model):
                assert v["result"] == expect, (name, seed, deg, v["reasons"])
                notes = [r for r in v["reasons"] if BACK in r]
                # judged moved back only where the frame was unsure as it came: 74383634 (4K, print)
                # always; the plain 1080p layouts mostly not (a turn costs them little)
                assert not notes or re.search(words, notes[0]), v["reasons"]
                assert notes or seed != 74383634, v["reasons"]


@pytest.fixture(scope="module")
def on_print():
    """edge-tune 1095336870 (4K, both coins heads on print of their colour; unsure unmoved: 1 coin
    found): turned 0.4 deg either way, a coin's outline cut by the print was judged "lying on the
    other coin" and the valid spin voided, before (as it came, or moved back the shift alone)."""
    name, seed = "edge-tune", 1095336870
    expect, rm, img = _scene(name, seed, None)
    return _model(name), rm, img


def test_a_turned_valid_spin_on_print_is_not_voided(on_print):
    model, rm, img = on_print
    for deg in (0.4, -0.4):
        for v in _judges(_turned(img, deg)[0], rm, model):
            assert v["result"] in ("heads", "unsure"), (deg, v["reasons"])
            assert any(BACK in r and "(turned 0.4 deg;" in r for r in v["reasons"]) if v["result"] == "heads" \
                else OFF in v["reasons"][0] and "turned about 0.4 deg" in v["reasons"][0], (deg, v["reasons"])


def test_a_void_stands_only_if_the_frame_moved_back_is_void_too():
    first = {"result": "no-spin", "reasons": ["7.3.4 coin lying on the other coin"]}
    turned = drift.Move(0.0, 0.0, -0.4, (1920.0, 1080.0), 900.0)
    v = drift.realigned({"result": "heads", "reasons": ["both coins heads"]}, turned, first)
    assert v["result"] == "unsure" and OFF in v["reasons"][0] and "turned about 0.4 deg" in v["reasons"][0]
    assert v["reasons"][1:] == ["as it came: 7.3.4 coin lying on the other coin", "moved back: both coins heads"]
    void = {"result": "no-spin", "reasons": ["7.3.1 coin outside the ring"]}
    v = drift.realigned(void, turned, first)
    assert v["result"] == "no-spin" and v["reasons"][0] == "7.3.1 coin outside the ring" and BACK in v["reasons"][1]
    assert "(turned 0.4 deg;" in v["reasons"][1]


def test_a_frame_still_unsure_moved_back_names_the_shift_and_the_fix(scenes):
    [(name, seed, model, expect, rm, img)] = [s for s in scenes if s[3] == "unsure"]
    for v in _judges(_shifted(img, 4, 3), rm, model):
        assert v["result"] == "unsure" and OFF in v["reasons"][0] and re.search("about [456] px", v["reasons"][0]), v["reasons"]
        assert "recalibrate" in v["reasons"][0]


def test_a_camera_where_it_was_calibrated_is_not_said_to_have_moved(scenes):
    for name, seed, model, expect, rm, img in scenes:
        move = drift.camera_move(rm, rm.small(img))
        # well under the thresholds (unmoved held-out frames measure up to 0.55 px, 0.024 deg)
        assert move.off_px < drift.ALIGN_PX * 0.6 and abs(move.deg) < drift.TURN_DEG / 3, (name, seed, move)
        assert drift.off_by(rm, rm.small(img)) is None
        for v in _judges(img, rm, model):
            assert v["result"] == expect and not any(BACK in r or OFF in r for r in v["reasons"]), (name, seed, v["reasons"])


def test_a_move_under_a_pixel_each_way_is_named_by_how_far_the_wall_lies_off():
    """sealed-39 10475607 (opened) was left to the boxer "about 0 px off": a shift of under a pixel
    and a turn too small to name, which together moved the ring's wall a pixel or more."""
    move = drift.Move(0.3, 0.1, 0.09, (960.0, 540.0), 500.0)
    assert move.off_px >= drift.ALIGN_PX
    assert move.words("about ") == "about 1.1 px off at the ring's wall"
    assert drift.Move(4.8, 0.0, 0.01, (960.0, 540.0), 500.0).words() == "4.8 px off"
