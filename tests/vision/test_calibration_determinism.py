"""The same empty-ring photo gives the same calibration, whatever ran before in the process."""
import cv2
import numpy as np

from ringctl.sim import scenes
from ringctl.vision import calibrate
from ringctl.sim.render import render_scene


def test_calibration_does_not_depend_on_opencv_global_rng():
    spec = scenes.base_spec(2)
    img, _ = render_scene(scenes.empty(spec), np.random.default_rng(0))
    mm = scenes.ring_mm(spec)
    first = calibrate(img, ring_mm=mm)
    # anything else drawing from OpenCV's process-wide RNG in between
    cv2.kmeans(np.random.default_rng(1).random((50, 3), np.float32), 3, None,
               (cv2.TERM_CRITERIA_MAX_ITER, 5, 0), 1, cv2.KMEANS_PP_CENTERS)
    second = calibrate(img, ring_mm=mm)
    assert first.to_json() == second.to_json()
