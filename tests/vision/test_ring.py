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
