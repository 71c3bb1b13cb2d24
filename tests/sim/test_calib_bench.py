"""sim.calib_bench: `ring bench calibration` counts a boundary off by its worst point round the
ring, not only by its axes (issue 12: edge-4k 3900661392 was 4.9 px off on an axis and 12 px at
its worst point, a turned ellipse the axes alone hide)."""
import numpy as np

from ringctl.sim import calib_bench
from ringctl.vision.ring import RingModel


def _spec(center=(960.0, 540.0), a=400.0, ratio=0.9, angle=30.0):
    return {"ring": {"center": list(center), "radius": a, "ellipse": {"ratio": ratio, "angle_deg": angle}}}


def _model(center, axes, angle):
    return RingModel((1920, 1080), center, axes, angle, np.zeros((4, 4, 3), np.uint8), 30.8, 3000.0)


def test_the_true_boundary_is_0_px_off():
    assert calib_bench.boundary_off(_model((960.0, 540.0), (400.0, 360.0), 30.0), _spec()) < 1e-3


def test_a_turned_ellipse_with_the_right_axes_is_counted_off():
    """Axes and centre right, long axis turned 5 deg: (400 - 360) x sin(10 deg) / 2 ~ 3.5 px out."""
    off = calib_bench.boundary_off(_model((960.0, 540.0), (400.0, 360.0), 35.0), _spec())
    assert 3.0 < off < 4.5, off


def test_a_shifted_boundary_is_off_by_the_shift():
    off = calib_bench.boundary_off(_model((962.0, 540.0), (400.0, 360.0), 30.0), _spec())
    assert 1.9 < off < 2.1, off
