"""vision.ring: the layout's edge measured again at full resolution round the fitted boundary
(issue 12). The refinement's points and the final check's picture are a detection-scale pixel
(~6 px at 4K) apart, so a boundary a few px off passed both silently (edge-4k 3900661392: 4.9 px
off on an axis, 12 px at its worst point); and a refinement that found too few points, where print
meets the wall, refused rings whose edge shows in most directions (edge-tune 2157405063)."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import heldout
from ringctl.vision import ring as ringmod

TRUTH = ((1925.3, 1071.7), (1800.0, 1640.0), 20.0)   # the layout's edge: centre, axes, angle


def _ring_4k(ink_arcs=((200, 250),), ink=(60, 80, 112)):
    """A synthetic empty ring at 3840x2160: green layout, brown wall, grey floor; ink boxes of
    about the wall's colour meet the wall over `ink_arcs` (degrees round the centre)."""
    (cx, cy), (d1, d2), an = TRUTH
    img = np.empty((2160, 3840, 3), np.uint8)
    img[:] = (110, 112, 118)
    cv2.ellipse(img, ((cx, cy), (d1 + 120, d2 + 120), an), (45, 85, 135), -1)
    cv2.ellipse(img, ((cx, cy), (d1, d2), an), (40, 90, 30), -1)
    inside = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(inside, ((cx, cy), (d1, d2), an), 255, -1)
    cv2.circle(inside, (int(cx), int(cy)), 500, 0, -1)   # the ink stays off the centre
    for a0, a1 in ink_arcs:      # a wedge of ink out to the wall, clipped to the layout
        wedge = np.zeros_like(inside)
        cv2.ellipse(wedge, (int(cx), int(cy)), (3000, 3000), 0, a0, a1, 255, -1)
        img[(wedge > 0) & (inside > 0)] = ink
    img = img.astype(np.float32) + np.random.default_rng(4).normal(0, 3.0, img.shape)
    return cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 2.0)


def _off(rm):
    """The largest distance (px) of the calibrated boundary from the true one, round the ring."""
    x, y = ringmod._ellipse_points((rm.center, (2 * rm.axes[0], 2 * rm.axes[1]), rm.angle_deg),
                                   np.linspace(0, 2 * np.pi, 360, endpoint=False), 1.0)
    return float(np.abs(ringmod._ell_residual(np.stack([x, y], 1), TRUTH)).max())


def test_the_synthetic_ring_calibrates_on_its_edge():
    assert _off(ringmod.calibrate(_ring_4k(), ring_mm=3000.0)) < 1.5


def test_a_refinement_a_few_px_off_is_corrected_at_full_resolution(monkeypatch):
    """The refinement made 4 px too big and 2 px aside (what print at the wall did to it at 4K):
    the full-resolution measurement finds the edge again; before, the check passed it."""
    (cx, cy), (d1, d2), an = TRUTH
    real = ringmod._refine
    def off_refine(img, ell, layout_bgr, f, n=360, local=False):
        out = real(img, ell, layout_bgr, f, n, local)
        return (cx + 2.0, cy - 1.0), (d1 / 2 + 4.0, d2 / 2 + 4.0), an, out[3]
    monkeypatch.setattr(ringmod, "_refine", off_refine)
    rm = ringmod.calibrate(_ring_4k(), ring_mm=3000.0)
    assert _off(rm) < 1.5, (rm.center, rm.axes, rm.angle_deg)


def test_ink_of_the_walls_own_colour_along_the_wall_never_leaves_the_boundary_off(monkeypatch):
    """Ink of the wall's own colour meets a sixth of the wall: the edge there cannot be told; a
    refinement 4 px off is corrected from the rest of the ring, or refused - never taken."""
    (cx, cy), (d1, d2), an = TRUTH
    real = ringmod._refine
    def off_refine(img, ell, layout_bgr, f, n=360, local=False):
        out = real(img, ell, layout_bgr, f, n, local)
        return (cx + 2.0, cy - 1.0), (d1 / 2 + 4.0, d2 / 2 + 4.0), an, (out or (0, 0, 0, 1.0))[3]
    monkeypatch.setattr(ringmod, "_refine", off_refine)
    img = _ring_4k(ink_arcs=((0, 60),), ink=(45, 85, 135))
    try:
        rm = ringmod.calibrate(img, ring_mm=3000.0)
    except UserError as exc:
        msg = str(exc)
        assert "\n" not in msg and "photograph the empty ring" in msg, msg
        return
    assert _off(rm) < 3.0, (rm.center, rm.axes, rm.angle_deg)


@pytest.mark.parametrize("name,seed", [
    ("edge-tune", 2157405063),   # print meets the wall: was refused (too few refinement points)
    ("edge-tune", 1095336870),   # the same, a round ring
])
def test_print_meeting_the_wall_calibrates_from_the_directions_where_the_edge_shows(name, seed):
    spec, _ = heldout.make(seed, None, heldout.SETS[name])
    assert spec.get("_artwork")
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    a = spec["ring"]["radius"]
    b = a * (spec["ring"].get("ellipse") or {"ratio": 1.0})["ratio"]
    assert abs(rm.axes[0] - a) < 3.0 and abs(rm.axes[1] - b) < 3.0, (rm.axes, a, b)
    assert np.hypot(*(np.array(rm.center) - spec["ring"]["center"])) < 3.0
