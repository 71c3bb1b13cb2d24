"""A camera moved (or shaken) since calibration (vision/drift.py): the layout no longer lines up
with the empty ring's photo, and every spin went to the boxer as an "unexplained object". An
unsure frame lying off the photo is judged again moved back onto it, and says so; one still
unsure names the shift and the fix; a camera where it was calibrated is never said to have moved."""
import re

import cv2
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.sim.vision_bench import heldout_model
from ringctl.vision import drift, judge, ring as ringmod, viewcal
from ringctl.vision.views import judge_view

BACK = "judged with the picture moved back"
OFF = "off the empty ring's photo (the camera has moved"


def _shifted(img, dx, dy):
    return cv2.warpAffine(img, np.float32([[1, 0, dx], [0, 1, dy]]), img.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)


def _scene(name, seed, kind):
    cfg = heldout.SETS[name]
    spec, expect = heldout.make(seed, kind, cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return expect, rm, heldout.render_frame(spec, seed)


@pytest.fixture(scope="module")
def scenes():
    """Valid scenes of tune-1080p (plain layouts; unsure when moved 4x3 px, before) and
    edge-tune (print), their rings and models; and a touching pair (unsure however judged)."""
    out = []
    for name, seeds, kind in (("tune-1080p", (2952711084, 1811304333), "valid"), ("edge-tune", (3210010690,), "valid"),
                              ("tune-1080p", (923768393,), "touching")):
        model = heldout_model(heldout.SETS[name])
        for seed in seeds:
            expect, rm, img = _scene(name, seed, kind)
            # the camera cannot tell touching from nearly: unsure (the boxer looks), not the void
            out.append((name, seed, model, "unsure" if kind == "touching" else expect, rm, img))
    return out


def _judges(img, rm, model):
    return judge.classify(img, rm, model), judge_view(img, viewcal.CameraView("A", np.eye(3), rm), model)


def test_the_shift_is_measured_against_the_empty_ring(scenes):
    for name, seed, _, _, rm, img in scenes:
        for dx, dy in ((0, 0), (3, 0), (0, -4), (6, 2)):
            mx, my, response = drift.camera_shift(rm, rm.small(_shifted(img, dx, dy)))
            assert abs(mx - dx) < 1.0 and abs(my - dy) < 1.0 and response > drift.MIN_RESPONSE, (name, seed, dx, dy, mx, my)


def test_a_frame_off_the_empty_ring_is_judged_moved_back_and_says_so(scenes):
    for name, seed, model, expect, rm, img in scenes:
        if expect == "unsure":
            continue
        for v in _judges(_shifted(img, 4, 3), rm, model):
            assert v["result"] == expect, (name, seed, v["reasons"])
            [note] = [r for r in v["reasons"] if BACK in r]
            assert v["reasons"][0] != note and re.search(r"moved back (4\.[5-9]|5\.[0-4]) px", note), v["reasons"]


def test_a_frame_still_unsure_moved_back_names_the_shift_and_the_fix(scenes):
    [(name, seed, model, expect, rm, img)] = [s for s in scenes if s[3] == "unsure"]
    for v in _judges(_shifted(img, 4, 3), rm, model):
        assert v["result"] == "unsure" and OFF in v["reasons"][0] and re.search("about [456] px", v["reasons"][0]), v["reasons"]
        assert "recalibrate" in v["reasons"][0]


def test_a_camera_where_it_was_calibrated_is_not_said_to_have_moved(scenes):
    for name, seed, model, expect, rm, img in scenes:
        assert drift.off_by(rm, rm.small(img)) is None, (name, seed, drift.camera_shift(rm, rm.small(img)))
        for v in _judges(img, rm, model):
            assert v["result"] == expect and not any(BACK in r or OFF in r for r in v["reasons"]), (name, seed, v["reasons"])
