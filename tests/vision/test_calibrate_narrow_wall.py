"""Calibration finds the ring's INNER boundary when the wall is narrow and dark against a dark
layout (issue 12): its inner and outer edges then merge into one ramp of colour change, and the
wall's outer edge was taken for the boundary - a ring ~8% too big, so chips just outside were
judged as coins in play or outside it (a valid spin voided) and a coin on the rim as inside
(check-4k scene 1191812608: a coin on the rim called "tails", a paid wrong call)."""
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.vision import ring as ringmod

CFG = dict(size=(1920, 1080), coin_px=(60, 60.01), coin="brass", faces="render:0", stream=(43, 1))


@pytest.mark.parametrize("layout,wall,floor,wall_frac,ellipse", [
    ((25, 23, 32), (36, 68, 107), (60, 129, 110), 0.088, None),    # black layout, dark brown wall
    ((44, 30, 115), (34, 64, 101), (64, 113, 83), 0.054, None),    # maroon layout, dark brown wall
    ((33, 23, 98), (32, 61, 97), (119, 91, 58), 0.069, None),
    ((24, 31, 24), (30, 56, 89), (84, 65, 144), 0.07, {"ratio": 0.889, "angle_deg": 3.0}),   # oblique
])
def test_inner_boundary_of_a_narrow_dark_wall(layout, wall, floor, wall_frac, ellipse):
    seed = heldout.set_seeds(CFG, 1)[0]
    spec, _ = heldout.make(seed, "valid", CFG)
    R = spec["ring"]["radius"]
    spec["ring"].pop("ellipse", None)
    if ellipse:
        spec["ring"]["ellipse"] = ellipse
    spec["ring"].update(wall_px=wall_frac * R, wall_color=list(wall))
    spec["layout"].update(color=list(layout), texture="felt")
    spec["floor"]["color"] = list(floor)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    assert abs(rm.axes[0] - R) < 0.005 * R, (rm.axes, R, R * (1 + wall_frac))
    b = R * (ellipse["ratio"] if ellipse else 1.0)
    assert abs(rm.axes[1] - b) < 0.005 * R, (rm.axes, b)


def test_the_check_4k_scene_whose_rim_coin_was_called():
    """The scene itself: 4K, an oblique view of a dark green layout inside a 58 px dark wall."""
    cfg = heldout.SETS["check-4k"]
    spec, expect = heldout.make(1191812608, None, cfg)
    assert spec["kind"] == "rim" and expect == "no-spin"
    rm = ringmod.calibrate(heldout.empty_frame(spec, 1191812608), ring_mm=heldout.ring_mm(spec))
    R = spec["ring"]["radius"]
    assert abs(rm.axes[0] - R) < 0.005 * R, (rm.axes, R, R + spec["ring"]["wall_px"])
