"""vision.ring: calibration of circle and ellipse rings, warnings, bad files, and the same photo
giving the same calibration whatever ran before in the process."""
import json

import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import render, scenes
from ringctl.vision import ring as ringmod


def test_calibrate_circle_and_ellipse():
    for ell in (None, {"ratio": 0.8, "angle_deg": 30}):
        spec = scenes.base_spec(51, conditions=False, ellipse=ell)
        img, truth = render.render_scene(spec, np.random.default_rng(0))
        rm = ringmod.calibrate(img, ring_mm=scenes.ring_mm(spec))
        assert np.abs(np.subtract(rm.center, truth["ring"]["center"])).max() < 1.0
        assert np.abs(np.subtract(rm.axes, truth["ring"]["axes"])).max() < 1.5
        if ell:
            assert abs((rm.angle_deg - 30 + 90) % 180 - 90) < 2
        assert abs(rm.coin_radius_px - scenes.coin_radius(spec)) < 0.5
        back = ringmod.RingModel.from_json(rm.to_json())
        assert back.axes == rm.axes and back.background.shape == rm.background.shape
        # square-on the coins are ~47 px; squashed to 0.8 they are ~38 px: under 40, warned
        assert (rm.warnings == []) == (ell is None), rm.warnings


def test_calibration_warns_about_small_coins_and_bad_json():
    spec = scenes.base_spec(52, conditions=False)
    img, _ = render.render_scene(spec, np.random.default_rng(0))
    rm = ringmod.calibrate(img)   # a real 3 m ring in 960x720: coins ~3 px across
    assert rm.warnings and "px" in rm.warnings[0] and "sensor" in rm.warnings[0]
    with pytest.raises(UserError):
        ringmod.RingModel.from_json("{not json")
    with pytest.raises(UserError):
        ringmod.RingModel.from_json(json.dumps({"kind": "other"}))


def test_calibration_does_not_depend_on_opencv_global_rng():
    spec = scenes.base_spec(2)
    img, _ = render.render_scene(scenes.empty(spec), np.random.default_rng(0))
    mm = scenes.ring_mm(spec)
    first = ringmod.calibrate(img, ring_mm=mm)
    # anything else drawing from OpenCV's process-wide RNG in between
    cv2.kmeans(np.random.default_rng(1).random((50, 3), np.float32), 3, None,
               (cv2.TERM_CRITERIA_MAX_ITER, 5, 0), 1, cv2.KMEANS_PP_CENTERS)
    second = ringmod.calibrate(img, ring_mm=mm)
    assert first.to_json() == second.to_json()


@pytest.mark.parametrize("size", [(1920, 1080), (1000, 700)])   # whole and fractional small pixels
def test_small_region_is_that_region_of_the_small_copy(size):
    rng = np.random.default_rng(8)
    img = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 2)
    for coin_mm in (40.0, 60.0, 80.0, 100.0):      # factors 2..5 (1000 px is not 3 x 333)
        rm = ringmod.RingModel(size, (size[0] / 2, size[1] / 2), (400, 380), 0, None, coin_mm, 1000.0)
        w, h = rm.small_size
        for roi in ((0, 0, w, h), (3, 5, w - 7, h - 2), (w // 3, 1, w // 2, h // 2)):
            want = cv2.resize(img, rm.small_size, interpolation=cv2.INTER_LINEAR)[roi[1]:roi[3], roi[0]:roi[2]]
            rm._small_last = rm._region_last = None
            assert np.array_equal(rm.small_region(img, *roi), want), (coin_mm, roi)
            assert np.array_equal(rm.small_region(img, *roi), want)   # kept for the same frame
            rm.small(img)     # and from the frame's copy, when one was made
            assert np.array_equal(rm.small_region(img, *roi), want)


def test_primed_small_copy_is_used_for_its_frame_only_and_survives_newer_frames():
    rng = np.random.default_rng(9)
    size = (960, 540)
    frames = [rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8) for _ in range(3)]
    rm = ringmod.RingModel(size, (480, 270), (200, 190), 0, None, 60.0, 1000.0)
    primed = np.full((rm.small_size[1], rm.small_size[0], 3), 7, np.uint8)   # not a real copy: tells it apart
    rm.prime_small(frames[0], primed)
    rm.small(frames[1])                  # the rule's thread, a newer frame, meanwhile
    assert rm.small(frames[0]) is primed
    w, h = rm.small_size
    assert rm.small_region(frames[0], 2, 3, w // 2, h // 2) is not None
    assert np.array_equal(rm.small_region(frames[0], 2, 3, w // 2, h // 2), primed[3:h // 2, 2:w // 2])
    # any other frame gets its own copy
    want = cv2.resize(frames[2], rm.small_size, interpolation=cv2.INTER_LINEAR)
    assert np.array_equal(rm.small(frames[2]), want)
    assert not np.array_equal(rm.small(frames[1]), primed)
