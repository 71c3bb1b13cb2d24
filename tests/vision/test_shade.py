"""A player's shade across the ring is lifted before the frame is judged (vision/shade.py): a shade
15-45% deep once made valid spins unsure ("unexplained object in the ring"); a dark object that is
not the empty ring darkened (a sleeve, a hand) is left as it is, and a frame without a shade is
used as it is."""
import cv2
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.vision import judge, shade, viewcal
from ringctl.vision.views import judge_view

import vcache

CFG = heldout.SETS["shadow-tune"]


def _unshaded(spec):
    return dict(spec, lighting=dict(spec["lighting"], shadows=[]))


@pytest.mark.parametrize("seed", [pytest.param(4014907150, marks=pytest.mark.slow), 2018130635])
def test_a_players_shade_across_a_valid_spin_is_lifted_and_the_spin_called(seed):
    """shadow-tune 4014907150 (heads, a shade 41% deep on maroon) and 2018130635 (odds, 43%, soft
    edges): unsure, "unexplained object in the ring", before the lift."""
    spec, expect, rm, img = vcache.scene(seed, None, CFG)
    (sh,) = spec["lighting"]["shadows"]
    assert sh["strength"] > 0.4
    model = vcache.heldout_model(CFG)
    out = shade.lifted(img, rm)
    assert out is not img
    plain = heldout.render_frame(_unshaded(spec), seed)
    # under the shade, the lifted frame is the unshaded one to within the sensor's noise
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(mask, tuple(int(v) for v in sh["center"]), tuple(int(0.8 * v) for v in sh["axes"]),
                sh["angle_deg"], 0, 360, 1, -1)
    ring_px = np.zeros_like(mask)
    cv2.ellipse(ring_px, (rm.center, tuple(2 * a for a in rm.axes), rm.angle_deg), 1, -1)
    under = (mask > 0) & (ring_px > 0)
    assert under.sum() > 1000
    before = np.abs(img[under].astype(int) - plain[under]).mean()
    after = np.abs(out[under].astype(int) - plain[under]).mean()
    assert after < 0.3 * before, (before, after)
    v = judge.classify(img, rm, model)
    assert v["result"] == expect, v["reasons"]


def test_the_multi_view_judge_lifts_the_shade_too():
    seed = 4014907150
    spec, expect, rm, img = vcache.scene(seed, None, CFG)
    v = judge_view(img, viewcal.CameraView("A", np.eye(3), rm), vcache.heldout_model(CFG))
    assert v["result"] == expect, v["reasons"]


@pytest.mark.parametrize("name", ["tune-1080p", pytest.param("tune-4k", marks=pytest.mark.slow), "edge-tune"])
def test_a_frame_without_shade_is_used_as_it_is(name):
    for seed in heldout.set_seeds(heldout.SETS[name], 4):
        spec, _, rm, img = vcache.scene(seed, "valid", heldout.SETS[name])
        assert shade.lifted(img, rm) is img


def _blotch(img, rm, colour, texture):
    """A dark object over part of the ring: an ellipse a third of the ring's radius across,
    `colour` (BGR) with grain of `texture` grey levels."""
    out = img.copy()
    m = np.zeros(img.shape[:2], np.uint8)
    c = (int(rm.center[0] + 0.5 * rm.axes[0]), int(rm.center[1]))
    cv2.ellipse(m, (c, (int(0.6 * rm.axes[0]), int(0.3 * rm.axes[0])), 30.0), 1, -1)
    grain = np.random.default_rng(5).normal(0, texture, img.shape[:2])[..., None]
    paint = np.clip(np.array(colour, float) + grain, 0, 255)
    out[m > 0] = paint[m > 0].astype(np.uint8)
    return out, m > 0


def test_a_dark_sleeve_over_the_ring_is_no_shade():
    """An object darker than the layout, of another colour or the layout's colour with a texture
    of its own, is not the empty ring darkened: it is left for detection to see."""
    seed = 4014907150
    spec, _, rm, _ = vcache.scene(seed, None, CFG)
    empty = heldout.empty_frame(spec, seed)
    lay = np.array(spec["layout"]["color"], float)
    for colour, texture in (((60, 50, 45), 6), (0.5 * lay, 25)):
        sleeve, _ = _blotch(empty, rm, colour, texture)
        assert shade.factor(sleeve, rm) is None, (colour, texture)
    # the same place darkened as a shade darkens it (colour and texture kept) is lifted
    m = _blotch(empty, rm, (0, 0, 0), 0)[1]
    dark = empty.copy()
    dark[m] = (empty[m] * 0.6).astype(np.uint8)
    dark = cv2.GaussianBlur(dark, (0, 0), 0.1)
    assert shade.factor(dark, rm) is not None


def _strip(img, rm, colour=None, texture=0, depth=None):
    """A strip about a coin wide (2.2 coin radii) and 10 coin radii long, reaching in across the
    ring's edge as a narrow player's shade does: painted `colour` with grain of `texture` grey
    levels, or the frame darkened by `depth` (its colour and texture kept) with soft edges."""
    r = rm.coin_radius_px
    c = (rm.center[0] + rm.axes[0] - 1.5 * r, rm.center[1])
    m = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(m, ((c[0], c[1]), (10.0 * r, 2.2 * r), 0.0), 1, -1)
    if depth is not None:
        soft = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 0.15 * r)
        return np.clip(img * (1 - depth * soft)[..., None], 0, 255).astype(np.uint8)
    out = img.copy()
    grain = np.random.default_rng(7).normal(0, texture, img.shape[:2])[..., None]
    paint = np.clip(np.array(colour, float) + grain, 0, 255)
    out[m > 0] = paint[m > 0].astype(np.uint8)
    return out


def test_a_shade_about_a_coin_wide_across_the_rings_edge_is_lifted_and_a_sleeve_is_not():
    """A shade no wider than a coin is flattened by the median (sealed-43 2330663049, opened: a
    shade 1.9 coin radii wide, "object in the ring that is not a coin"): found by each sample's
    own depth where it reaches in across the ring's edge. A sleeve as narrow, of another colour or
    of the layout's with a grain of its own, is still left for detection."""
    seed = 4014907150
    spec, _, rm, _ = vcache.scene(seed, None, CFG)
    empty = heldout.empty_frame(spec, seed)
    shaded = _strip(empty, rm, depth=0.35)
    got = shade.factor(shaded, rm)
    assert got is not None
    assert got[0].min() < -0.3, got[0].min()
    # along the strip's middle in the ring, the lifted frame is the empty ring's to within an
    # eighth of what the shade took (0.06 with each sample lifted by its own ratio; 0.2 when it
    # was lifted by its 3 x 3 mean)
    r = rm.coin_radius_px
    middle = np.zeros(empty.shape[:2], np.uint8)
    cv2.ellipse(middle, ((rm.center[0] + rm.axes[0] - 1.5 * r, rm.center[1]), (8.0 * r, 1.6 * r), 0.0), 1, -1)
    ring_px = np.zeros_like(middle)
    cv2.ellipse(ring_px, (rm.center, tuple(2 * a for a in rm.axes), rm.angle_deg), 1, -1)
    under = (middle > 0) & (ring_px > 0)
    before = np.abs(shaded[under].astype(int) - empty[under]).mean()
    after = np.abs(shade.lifted(shaded, rm)[under].astype(int) - empty[under]).mean()
    assert after < 0.125 * before, (before, after)
    # sleeves: another colour; the layout's with a coarse grain; the layout's darkened as deep
    # as the shade with a fine grain (nearest the test)
    lay = np.array(spec["layout"]["color"], float)
    for colour, texture in (((40, 35, 30), 6), (0.5 * lay, 25), (0.6 * lay, 6)):
        assert shade.factor(_strip(empty, rm, colour, texture), rm) is None, (colour, texture)


def test_a_narrow_shade_over_a_valid_spin_is_lifted_and_the_spin_called():
    """shadow-tune 2372739038 (forced valid, tails): a shade 3 coin radii wide (1.5 its half
    width) and 37% deep reaching in over the wall, unsure ("object in the ring that is not a
    coin") before."""
    seed = 2372739038
    spec, expect, rm, img = vcache.scene(seed, "valid", CFG)
    (sh,) = spec["lighting"]["shadows"]
    assert sh["axes"][1] < 1.6 * spec["_coin_r"]
    assert shade.lifted(img, rm) is not img
    v = judge.classify(img, rm, vcache.heldout_model(CFG))
    assert v["result"] == expect, v["reasons"]


def test_dark_coins_and_their_shadows_across_the_rings_edge_are_no_shade():
    """Coin-sized dark patches of the layout's colour (no relief), two with a shadow each or four
    in a row, straddling the ring's edge: the 3 x 3 mean spreads a region a sample past them into
    layout that is not darker, and counted so they passed as a narrow shade and were lifted
    (erased) in this session's first form (the review's case); only darkened samples count."""
    seed = 4014907150
    spec, _, rm, _ = vcache.scene(seed, None, CFG)
    empty = heldout.empty_frame(spec, seed)
    r = rm.coin_radius_px
    for n, shadow in ((2, 1.5), (4, 0.0)):
        img = empty.copy()
        for i in range(n):
            p = (rm.center[0] + rm.axes[0] - 0.3 * r, rm.center[1] + (i - (n - 1) / 2) * 2.05 * r)
            for c, k in ((((p[0] - shadow * r), p[1]), 0.65), (p, 0.6)) if shadow else ((p, 0.6),):
                m = np.zeros(img.shape[:2], np.uint8)
                cv2.circle(m, (int(c[0]), int(c[1])), int(r), 1, -1, cv2.LINE_AA)
                img[m > 0] = (img[m > 0] * k).astype(np.uint8)
        assert shade.factor(img, rm) is None, (n, shadow)
