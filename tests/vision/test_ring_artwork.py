"""vision.ring on rings whose printed artwork (boxes, lettering in an ink close to the coin's and
the wall's colour) reaches the wall (issue 12): calibration lands within 3 px of the layout's
edge or refuses with one line saying why and what to do - never silently off.

Before: the layout's colours, sampled round the image centre, included the ink; the wall then
looked like more layout and its OUTER edge was taken (sealed-8: 6 of 97 rings 21-47 px too big),
or rings were refused; a ring half on the layout's edge and half on the wall's outer edge was
accepted 12 px off (tune-1080p with artwork forced)."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import calib_bench, heldout
from ringctl.vision import ring as ringmod


def _empty_ring(name, seed, artwork=False):
    cfg = dict(heldout.SETS[name])
    if artwork:
        cfg.update(artwork=True, coins=(cfg["coin"],))
    spec, _ = heldout.make(seed, None, cfg)
    a = spec["ring"]["radius"]
    b = a * (spec["ring"].get("ellipse") or {"ratio": 1.0})["ratio"]
    return spec, heldout.empty_frame(spec, seed), (a, b)


def _refused_or_right(spec, seed):
    """The ring of `spec` is refused in one line, or calibrated within 3 px (axes and centre)."""
    a = spec["ring"]["radius"]
    b = a * (spec["ring"].get("ellipse") or {"ratio": 1.0})["ratio"]
    try:
        rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    except UserError as e:
        assert "\n" not in str(e)
        return
    assert abs(max(rm.axes) - max(a, b)) < 3.0 and abs(min(rm.axes) - min(a, b)) < 3.0, (rm.axes, a, b)
    assert np.hypot(*(np.array(rm.center) - spec["ring"]["center"])) < 3.0


@pytest.mark.parametrize("seed", [
    1136030020,   # a box of the wall's colour over the centre: was the wall's outer edge, 41 px off
    3638242149,   # oblique view: was 42 px off
    4257844535,   # was refused ("only 258 of 360 directions")
])
def test_sealed_8_rings_on_artwork_calibrate_on_the_layout_edge(seed):
    spec, img, (a, b) = _empty_ring("sealed-8", seed)
    assert spec.get("_artwork")
    rm = ringmod.calibrate(img, ring_mm=heldout.ring_mm(spec))
    assert ringmod.GROWN_NOTE not in rm.warnings   # found from the colours round the centre alone
    assert abs(rm.axes[0] - a) < 3.0 and abs(rm.axes[1] - b) < 3.0, (rm.axes, a, b, spec["ring"]["wall_px"])
    assert np.hypot(*(np.array(rm.center) - spec["ring"]["center"])) < 3.0


def test_a_box_of_ink_over_the_centre_is_refused_and_a_blend_tinted_circle_never_taken_for_the_wall():
    """edge-tune 3035816272: a box of copper ink over the centre blends into the maroon cloth; the
    wall and floor, of about such a blend, differ from the layout's colours by too little and the
    ring is refused in one line. A second search from the colours that are no blend (tried in the
    forty-first session) calibrated it, but on 3296310484 with a circle printed at 0.93 of the
    radius in the tint halfway between the cloth and the ink (the generator's printed circle) it
    took the circle, 36 px inside the wall: the ring must be refused or right, never off."""
    spec, img, _ = _empty_ring("edge-tune", 3035816272)
    with pytest.raises(UserError, match="no layout edge around the image centre") as exc:
        ringmod.calibrate(img, ring_mm=heldout.ring_mm(spec))
    assert "\n" not in str(exc.value)
    seed = 3296310484
    spec, _ = heldout.make(seed, None, heldout.SETS["edge-tune"])
    lay = spec["layout"]
    calib_bench.add_circle(spec, 0.93, 8.0, (0.5 * (np.array(lay["color"]) + np.array(lay["ink"]))).round().tolist())
    _refused_or_right(spec, seed)


@pytest.mark.parametrize("name, seed", [
    ("sealed-45", 1974744012),   # two boxes of ruby ink over a maroon cloth: 173 of 360 directions
    ("sealed-42", 4091115665),   # one box nearly to the wall at the top: 147 of 360
    ("edge-tune", 2397589051),   # a colour added and not seen inside is left out: 165 of 360
])
def test_a_box_of_ink_over_the_centre_leaves_the_cloth_to_be_found_past_it(name, seed):
    """The disc sampled round the image centre holds only the box's ink: the rays stop at the box's
    edges and no ellipse had support all round ("no ring found: only N of 360 directions").
    The colours inside the rays' best ellipse that the ink does not explain (the cloth) are added
    and the rays sent again; the boundary stands only where they are seen well inside it, and the
    calibration warns the technician to check the boundary drawn."""
    spec, img, (a, b) = _empty_ring(name, seed)
    rm = ringmod.calibrate(img, ring_mm=heldout.ring_mm(spec))
    assert abs(max(rm.axes) - max(a, b)) < 3.0 and abs(min(rm.axes) - min(a, b)) < 3.0, (rm.axes, a, b)
    assert np.hypot(*(np.array(rm.center) - spec["ring"]["center"])) < 3.0
    # the technician is told to check the boundary drawn, as for a ring found at half size
    assert ringmod.GROWN_NOTE in rm.warnings and "\n" not in ringmod.GROWN_NOTE


def test_a_line_printed_short_of_the_wall_is_never_taken_for_it_from_the_colours_added():
    """sealed-45 2335171947 (a box of ink over the centre, calibrated from the colours added) with
    a circle printed at 0.93 of the radius in a tint between the cloth and the wall: from the
    colours added the rays stop at the circle all round, and without the look just beyond the
    boundary (the cloth there, `ring._layout_beyond`) it was taken, 33 px inside the wall."""
    seed = 2335171947
    spec, _ = heldout.make(seed, None, heldout.SETS["sealed-45"])
    cloth_wall = 0.5 * (np.array(spec["layout"]["color"]) + np.array(spec["ring"]["wall_color"]))
    calib_bench.add_circle(spec, 0.93, 8.0, cloth_wall.round().tolist())
    _refused_or_right(spec, seed)


@pytest.mark.parametrize("name, seed, wall_px", [("sealed-45", 2335171947, None), ("sealed-45", 1974744012, 20.0)])
def test_a_wall_of_about_the_cloths_colour_is_never_passed_over_to_the_floor_from_the_colours_added(name, seed, wall_px):
    """A box of ink over the centre and a wall of about the cloth's colour (1.04 x it, 3 L*a*b*
    apart): once the cloth is among the colours added, the wall looks like more layout and the
    rays run on to the floor. Without asking for one band (the wall) beyond the boundary before
    the floor (`ring._steps_beyond`), the floor's edge was taken, 28 and 20 px outside the layout's
    (the review's finding): refused or right, never off."""
    spec, _ = heldout.make(seed, None, heldout.SETS[name])
    spec["ring"]["wall_color"] = (np.array(spec["layout"]["color"]) * 1.04).tolist()
    if wall_px:
        spec["ring"]["wall_px"] = wall_px
    _refused_or_right(spec, seed)


@pytest.mark.parametrize("item, seed", [
    ("edge-tune+tint", 3210010690),   # cloth-ink tint at 0.90: was taken, 50 px inside the wall
    ("edge-tune+tint", 2631370539),   # cloth-wall tint at 0.92: 44 px
    ("sealed-41+tint", 219507142),    # the floor's colour at 0.83: 81 px
])
def test_a_tinted_circle_with_the_cloth_past_it_is_refused_not_taken_for_the_wall(item, seed):
    """A circle printed at 0.83-0.92 of the radius in a tint of the ring's own colours (`ring
    bench calibration --sets NAME+tint`) that the first search's rays stop at all round, and
    that the printed-circle checks do not pass over: past it the cloth comes back and ends again
    at the wall (`ring._cloth_past`). Taken for the wall before, 44-81 px inside it (every coin
    between judged outside the ring: a valid spin voided); now refused in one line."""
    _, cfg, _, _ = calib_bench.set_config(item)
    spec, _ = heldout.make(seed, None, cfg)
    calib_bench.tinted_circle(spec, seed)
    with pytest.raises(UserError, match="shows again, and then another edge") as exc:
        ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    assert "\n" not in str(exc.value) and "contrasting tape" in str(exc.value)


@pytest.mark.parametrize("seed, factor", [(2240297063, 1.15), (3538555021, 0.92)])
def test_a_wall_of_about_the_cloths_colour_is_not_refused_as_cloth_past_the_edge(seed, factor):
    """tune-1080p with its wall 1.15 or 0.92 x the cloth (a few L*a*b* apart): past the layout's edge
    lies the wall, near the cloth's colour but as far from it as the edge's own step, and then the
    floor. Asking the colour back within 12 alone (the first try) refused such rings as a line
    printed short of the wall (11 of 14 in the review); asked back within 0.35 of the step at the
    edge (ring.LINE_BACK), they calibrate."""
    spec, _ = heldout.make(seed, None, heldout.SETS["tune-1080p"])
    spec["ring"]["wall_color"] = (np.array(spec["layout"]["color"], float) * factor).tolist()
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    a = spec["ring"]["radius"]
    assert max(abs(v - a) for v in rm.axes) < 3.0, (rm.axes, a)


@pytest.mark.parametrize("seed", [3051805348, 2952711084])
def test_a_narrow_wall_on_a_floor_of_the_cloths_colour_is_not_refused_as_cloth_past_the_edge(seed):
    """tune-1080p with a floor of about the cloth's colour past a narrow wall (4% of the radius):
    the cloth's colour comes back a wall's width past the layout's edge all round, as it does past
    a printed line, but it does not end again (no wall further out), so the ring calibrates."""
    spec, _ = heldout.make(seed, None, heldout.SETS["tune-1080p"])
    spec["floor"]["color"] = list(spec["layout"]["color"])
    spec["ring"]["wall_px"] = 0.04 * spec["ring"]["radius"]
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    a = spec["ring"]["radius"]
    assert max(abs(v - a) for v in rm.axes) < 3.0, (rm.axes, a)


def test_a_ring_with_a_box_along_the_wall_is_right_or_refused_never_off():
    """tune-1080p 3666578351 with artwork: a box of brass ink fills the ring's lower part up to
    the wall; the old code fitted half the layout's edge and half the wall's outer edge."""
    spec, img, (a, b) = _empty_ring("tune-1080p", 3666578351, artwork=True)
    try:
        rm = ringmod.calibrate(img, ring_mm=heldout.ring_mm(spec))
    except UserError as exc:
        msg = str(exc)
        assert "\n" not in msg and "ring edge" in msg and "photograph the empty ring again" in msg, msg
        return
    assert abs(rm.axes[0] - a) < 3.0 and abs(rm.axes[1] - b) < 3.0, (rm.axes, a, b)


def _plain_ring(r_in=300.0, wall_px=30.0):
    """A synthetic empty ring at 960x720 (no downscaling): green layout, brown wall, grey floor."""
    w, h = 960, 720
    cx, cy = w / 2 + 3.3, h / 2 - 2.1
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot(xx - cx, yy - cy)
    img = np.empty((h, w, 3), np.float32)
    img[:] = (110, 112, 118)
    img[d < r_in + wall_px] = (40, 80, 130)
    img[d < r_in] = (40, 100, 35)
    img += np.random.default_rng(5).normal(0, 2.0, img.shape)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 1.0)
    small = cv2.GaussianBlur(img, (0, 0), 1.5)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    return img, small, lab, (cx, cy)


def test_the_check_passes_the_layout_edge():
    img, small, lab, (cx, cy) = _plain_ring()
    ringmod._check_edge(lab, small, ((cx, cy), (600.0, 600.0), 0.0))


def test_the_check_refuses_the_walls_outer_edge():
    img, small, lab, (cx, cy) = _plain_ring()
    with pytest.raises(UserError, match="inside the one found also runs all round"):
        ringmod._check_edge(lab, small, ((cx, cy), (660.0, 660.0), 0.0))


def test_the_check_refuses_an_ellipse_half_on_each_edge_of_the_wall():
    """Shifted by the wall's width: on the layout's edge on one side, on the floor's on the other,
    with floor just outside it there (not the wall's colour all round)."""
    img, small, lab, (cx, cy) = _plain_ring()
    with pytest.raises(UserError, match="ring edge uncertain"):
        ringmod._check_edge(lab, small, ((cx, cy - 30.0), (630.0, 630.0), 0.0))


def test_the_check_refuses_a_printed_box():
    """An ellipse through a printed square's corners has layout, not wall, outside it."""
    img, small, lab, (cx, cy) = _plain_ring()
    ink = small.copy()
    cv2.rectangle(ink, (int(cx - 120), int(cy - 120)), (int(cx + 120), int(cy + 120)), (40, 80, 130), -1)
    lab = cv2.cvtColor(ink, cv2.COLOR_BGR2LAB).astype(np.float32)
    with pytest.raises(UserError, match="ring edge uncertain"):
        ringmod._check_edge(lab, ink, ((cx, cy), (240.0, 240.0), 0.0))


def test_the_colours_added_are_measured_only_well_inside_the_boundary():
    """`_seen_inside` (the grown palette's check that the colours added lie on the layout, not
    beyond it): a boundary of radius 200 full-res px seen at half scale. Ink of the second colour
    fills the left half of the ellipse GROW_INSIDE of it: about half its area; ink of the third
    colour in a band just inside the boundary, past GROW_INSIDE, counts nothing; pixels beyond
    GROW_DIST of every colour (nearest the ink, 20 from it) count for none."""
    cloth, ink, band, odd = (50.0, -20.0, 20.0), (60.0, 10.0, 40.0), (30.0, 30.0, -30.0), (80.0, 10.0, 40.0)
    lab = np.zeros((300, 300, 3), np.float32)
    lab[:] = cloth
    cx, cy, r = 150, 150, 100                          # detection px: 200 full-res px at scale 0.5
    inner = ringmod.GROW_INSIDE * r
    yy, xx = np.mgrid[0:300, 0:300]
    d = np.hypot(xx - cx, yy - cy)
    lab[(d <= inner) & (xx < cx)] = ink
    lab[(d > inner + 2) & (d <= r)] = band
    palette = np.array([cloth, ink, band], np.float32)
    found = ((300.0, 300.0), (200.0, 200.0), 0.0)
    seen = ringmod._seen_inside(lab, palette, 1, found, 0.5)
    assert abs(seen[0] - 0.5) < 0.02 and seen[1] == 0, seen
    lab[(d <= inner) & (xx >= cx)] = odd   # nearest the ink but 20 from it: unexplained, the ink still half
    seen = ringmod._seen_inside(lab, palette, 1, found, 0.5)
    assert abs(seen[0] - 0.5) < 0.02 and seen[1] == 0, seen
    assert ringmod._seen_inside(lab, palette, 2, found, 0.5).tolist() == [0.0]   # only the band's colour
