"""A camera whose colour balance drifted since calibration is judged in the empty ring photo's
balance (vision/balance.py): a 7% warmer frame once raised detection's level until a red chip in
the ring on red print went unseen and both coins were called (7.3.2 leaves that spin to the
boxer); a cast too large to put right is named with the fix, never called through."""
import re

import numpy as np
import pytest

from ringctl.sim import heldout
from vcache import heldout_model   # vision_bench.heldout_model, trained once per session
from ringctl.vision import balance, faceid, judge, ring as ringmod, viewcal
from ringctl.vision.views import judge_view

from test_training import _site_photos

CHIP = "7.3.2 a chip in the ring"
CAST = "the picture's colours differ from the empty ring's photo"


def _cast(img, bgr):
    return np.clip(np.rint(img.astype(np.float32) * np.array(bgr, np.float32)), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def chip_scene():
    """edge-tune (opened) 2861369368: a red chip in the ring on red print, two coins tails."""
    cfg = heldout.SETS["edge-tune"]
    seed = 2861369368
    spec, expect = heldout.make(seed, None, cfg)
    assert spec["kind"] == "chip-in-ring"
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return rm, heldout_model(cfg), heldout.render_frame(spec, seed)


def _judges(img, rm, model):
    return judge.classify(img, rm, model), judge_view(img, viewcal.CameraView("A", np.eye(3), rm), model)


@pytest.mark.parametrize("bgr", [(1, 1, 1), (0.93, 1, 1.07), (1.07, 1, 0.93), (1, 1.05, 1)])
def test_a_chip_in_the_ring_is_seen_whatever_the_cameras_colour_balance(chip_scene, bgr):
    rm, model, img = chip_scene
    for v in _judges(_cast(img, bgr), rm, model):
        assert v["result"] == "unsure" and any(r.startswith(CHIP) for r in v["reasons"]), (bgr, v["reasons"])


def test_the_gains_are_measured_and_an_unchanged_frame_is_left_as_it_is(chip_scene):
    rm, _, img = chip_scene
    same, note = balance.balanced(img, rm)
    assert same is img and note == "" and np.allclose(balance.gains(img, rm)[0], 1, atol=0.002)
    for bgr in ((0.93, 1, 1.07), (1, 1.05, 1), (1.1, 0.95, 1)):
        want = np.array(bgr) / np.mean(bgr)
        assert np.allclose(balance.gains(_cast(img, bgr), rm)[0], want, atol=0.005), bgr
        fixed, note = balance.balanced(_cast(img, bgr), rm)
        assert note == "" and np.allclose(balance.gains(fixed, rm)[0], 1, atol=0.005)


def test_thinned_samples_measure_the_gains_as_all_of_them(chip_scene, monkeypatch):
    """A 4K view of half a big ring has ~35 000 samples, thinned to SAMPLES_MAX: here a 1080p
    ring's ~1 000 thinned to 400 measure every cast as all of them do, to a tenth of BALANCE_TOL."""
    rm, _, img = chip_scene
    frames = [_cast(img, bgr) for bgr in ((1, 1, 1), (0.93, 1, 1.07), (1, 1.05, 1), (1.1, 0.95, 1), (0.8, 0.8, 0.8))]
    every = [balance.gains(f, rm) for f in frames]
    n_all = len(balance._samples(rm)[0])
    monkeypatch.setattr(balance, "SAMPLES_MAX", 400)
    del rm._balance_samples
    try:
        n_thin = len(balance._samples(rm)[0])
        assert n_all > 800 and 300 <= n_thin <= 400
        for f, (g, e) in zip(frames, every):
            g2, e2 = balance.gains(f, rm)
            assert np.abs(g2 - g).max() < 0.1 * balance.BALANCE_TOL and abs(e2 - e) < 0.1 * balance.EXPOSURE_TOL
    finally:
        del rm._balance_samples


def test_a_cast_too_large_to_put_right_is_named_and_never_called(chip_scene):
    rm, model, img = chip_scene
    for v in _judges(_cast(img, (0.8, 1, 1.2)), rm, model):
        assert v["result"] == "unsure" and CAST in v["reasons"][0] and "white balance" in v["reasons"][0], v["reasons"]


def test_a_training_photo_far_from_the_calibrations_colours_is_refused_saying_so():
    rm, photos = _site_photos((1920, 1080), 60, "green")
    heads = [_cast(photos["heads"][0], (0.8, 1, 1.2))] + photos["heads"][1:]
    with pytest.raises(faceid.TrainingPhotoError, match=CAST) as err:
        faceid.train(heads, photos["tails"], rm)
    assert err.value.name == "heads#0" and "recalibrate" in str(err.value)


EXPOSED = "than the empty ring's photo (the camera's exposure or the lamps changed since calibration)"


@pytest.fixture(scope="module")
def dim_scene():
    """edge-tune (opened) 3328957122: two coins tails on printed artwork of their colour; 0.8x as
    bright, the print differed everywhere and the spin was 'unexplained object in the ring'."""
    cfg = heldout.SETS["edge-tune"]
    seed = 3328957122
    spec, expect = heldout.make(seed, None, cfg)
    assert expect == "tails"
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return rm, heldout_model(cfg), heldout.render_frame(spec, seed)


def test_the_exposure_is_measured_and_put_right(dim_scene):
    rm, _, img = dim_scene
    assert abs(balance.gains(img, rm)[1] - 1) < 0.005
    for k in (0.7, 0.8, 1.25):
        colour, exposure = balance.gains(_cast(img, (k, k, k)), rm)
        assert abs(exposure / k - 1) < 0.01 and np.allclose(colour, 1, atol=balance.BALANCE_TOL / 2), (k, exposure, colour)
        fixed, note = balance.balanced(_cast(img, (k, k, k)), rm)
        assert note == "" and abs(balance.gains(fixed, rm)[1] - 1) < 0.01, k


@pytest.mark.parametrize("k", [0.7, 0.8, 1.25])
def test_a_dimmer_or_brighter_frame_is_called_as_the_unchanged_one(dim_scene, k):
    rm, model, img = dim_scene
    for v in _judges(_cast(img, (k, k, k)), rm, model):
        assert v["result"] == "tails", (k, v["reasons"])


@pytest.mark.parametrize("k", [0.5, 1.7])
def test_an_exposure_too_far_off_to_put_right_is_named_and_never_called(dim_scene, k):
    rm, model, img = dim_scene
    for v in _judges(_cast(img, (k, k, k)), rm, model):
        assert v["result"] == "unsure" and EXPOSED in v["reasons"][0] and "exposure fixed" in v["reasons"][0], v["reasons"]
        assert ("darker" if k < 1 else "brighter") in v["reasons"][0]


def test_a_training_photo_far_from_the_calibrations_exposure_is_refused_saying_so():
    rm, photos = _site_photos((1920, 1080), 60, "green")
    tails = photos["tails"][:-1] + [_cast(photos["tails"][-1], (0.5, 0.5, 0.5))]
    with pytest.raises(faceid.TrainingPhotoError, match=re.escape(EXPOSED)) as err:
        faceid.train(photos["heads"], tails, rm)
    assert err.value.name == f"tails#{len(tails) - 1}" and "recalibrate" in str(err.value)


def test_a_black_frame_is_named_as_too_dark_not_as_a_colour_cast(dim_scene):
    rm, model, img = dim_scene
    v = judge.classify(_cast(img, (0.02, 0.02, 0.02)), rm, model)
    assert v["result"] == "unsure" and EXPOSED in v["reasons"][0] and "darker" in v["reasons"][0], v["reasons"]
