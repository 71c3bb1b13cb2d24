"""vision.ring: the boundary is the layout's own edge, never the wall's outer edge, when the wall
is closer to the layout's colour than the floor is (a dark wall round a black or maroon layout).

Calibrating on the wall's outer edge puts a coin on the rim "inside" the ring: a paid wrong
call (seen on `check-4k`: a rim scene called tails)."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import heldout
from ringctl.vision import ring as ringmod


def _ring_photo(size, r_in, wall_px, layout, wall, floor, ramp):
    """A synthetic empty ring: layout disc, a wall band that shades from `wall` towards the
    floor's colour by `ramp` across its width, then the floor; light noise and blur."""
    w, h = size
    cx, cy = w / 2 + 7.3, h / 2 - 4.1
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot(xx - cx, yy - cy)
    img = np.empty((h, w, 3), np.float32)
    img[:] = floor
    t = np.clip((d - r_in) / wall_px, 0, 1)[..., None]
    band = (d >= r_in) & (d < r_in + wall_px)
    wall_c = np.asarray(wall, np.float32) * (1 - ramp * t) + np.asarray(floor, np.float32) * ramp * t
    img[band] = wall_c[band]
    img[d < r_in] = layout
    img += np.random.default_rng(3).normal(0, 2.0, img.shape)
    return cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 1.2), (cx, cy)


@pytest.mark.parametrize("wall_px", [14, 24, 40, 70])
@pytest.mark.parametrize("colours", [
    ((24, 31, 24), (29, 55, 88), (83, 65, 144)),     # black layout, brown wall, red floor
    ((42, 26, 130), (39, 74, 117), (101, 98, 87)),   # maroon layout, brown wall, grey floor
    ((40, 90, 30), (45, 80, 70), (200, 200, 200)),   # green layout, olive wall, white floor
])
def test_inner_edge_of_a_wall_closer_to_the_layout_than_the_floor(wall_px, colours):
    layout, wall, floor = colours
    img, (cx, cy) = _ring_photo((1920, 1080), 420.0, wall_px, layout, wall, floor, ramp=0.4)
    try:
        rm = ringmod.calibrate(img, ring_mm=420.0 / 14.0 * 30.8)
    except UserError as e:   # refusing is safe: the technician is told why, no frame is judged
        assert "ring" in str(e) and wall_px < 40 and colours[2] == (200, 200, 200), e
        return
    assert abs(rm.center[0] - cx) < 1.5 and abs(rm.center[1] - cy) < 1.5
    # the layout ends at 420 px; the wall's outer edge is `wall_px` further out
    assert abs(rm.axes[0] - 420.0) < 3.0 and abs(rm.axes[1] - 420.0) < 3.0, (rm.axes, wall_px)


@pytest.mark.parametrize("name,seed", [("check-4k", 1191812608), ("tune-1080p", 3629516942),
                                       ("check-1080p", 1675697852)])
def test_generated_rings_whose_wall_outsteps_the_layout_edge(name, seed):
    """The generated empty rings on which calibration used to take the wall's outer edge."""
    spec, _ = heldout.make(seed, None, heldout.SETS[name])
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    a = spec["ring"]["radius"]
    b = a * (spec["ring"].get("ellipse") or {"ratio": 1.0})["ratio"]
    assert spec["ring"]["wall_px"] > 15   # the wrong edge is that far out
    assert abs(rm.axes[0] - a) < 3.0 and abs(rm.axes[1] - b) < 3.0, (rm.axes, a, b)
