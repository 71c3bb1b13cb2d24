"""A coin-like object outside the ring is evidence for a void (7.3.1) only if it can be one of the
spin's two coins: with one coin in the ring, the object must be that coin's size (within
judge.SAME_COIN), as a third coin-like object must be when two lie in the ring, and one object, not
two together. sealed-22 (opened, eighteenth session): black chips whose six spots measured not
periodic enough to name them (0.72 of 0.8), one taken for a coin 1.13x the patina coin's size, one
for two coins together, voided spins whose second coin was hidden. Since the nineteenth session
those chips are named by their spots (chipcheck measures each radius of the rim on its own: the
chip's light inner ring line no longer takes the spots' share); the rule is tested as for a chip
whose spots are not seen."""
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.vision import balance, chipcheck, detect, judge, shade
from vcache import heldout_model, scene

CFG = heldout.SETS["sealed-22"]
# "one" scenes (a coin in the ring, the other hidden) with a black chip outside: drawn so, and forced
CHIP_AS_COIN = ((1397025808, None, "not the size or brightness of the coin in it"),
                (2910297966, "one", "two coin-like objects together outside the ring"))
OUTSIDE = (3005506637, 2424664411)   # forced "outside": a coin in the ring, the other on the floor


@pytest.fixture(scope="module")
def model():
    return heldout_model(CFG)


@pytest.mark.parametrize("seed, kind, why", CHIP_AS_COIN)
def test_a_black_chip_with_an_inner_ring_line_is_named_by_its_spots(model, seed, kind, why):
    spec, expect, rm, img = scene(seed, kind, CFG)
    chip = next(c for c in spec["chips"] if c["name"] == "black")
    im, _ = balance.balanced(img, rm)
    blob = min((b for b in detect.find_blobs(im, rm, skip_chroma=model.chroma) if b.axes is not None),
               key=lambda b: np.hypot(*np.subtract(detect.seen_center(b, rm), chip["center_px"])))
    assert np.hypot(*np.subtract(detect.seen_center(blob, rm), chip["center_px"])) < 0.3 * chip["radius_px"]
    f = chipcheck.chip_rim(im, rm, blob)
    assert f["n"] == chip["n_spots"] and f["spot"] >= judge.RIM_SPOT and f["periodic"] >= judge.RIM_PERIODIC, f
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and all(c["inside"] for c in v["coins"]), (v["reasons"], v["coins"])


@pytest.mark.parametrize("seed, kind, why", CHIP_AS_COIN)
def test_an_object_outside_not_like_the_coin_in_the_ring_does_not_void(model, seed, kind, why, monkeypatch):
    # as a chip whose spots are not seen (worn, or washed out by the light)
    monkeypatch.setattr(judge, "_chip_rim", lambda img, ring, b: False)
    spec, expect, rm, img = scene(seed, kind, CFG)
    assert spec["kind"] == "one" and expect == "unsure"
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure", v["reasons"]
    assert any(why in r for r in v["reasons"]), v["reasons"]
    # the chip was taken for a coin outside: the rule, not a chip's name, keeps the void out
    assert any(not c["inside"] for c in v["coins"]), v["coins"]


@pytest.mark.parametrize("seed", OUTSIDE)
def test_the_spins_other_coin_outside_still_voids(model, seed):
    spec, expect, rm, img = scene(seed, "outside", CFG)
    assert expect == "no-spin"
    v = judge.classify(img, rm, model)
    assert v["result"] == "no-spin" and "7.3.1 coin outside the ring" in v["reasons"], v["reasons"]


def test_a_chip_outside_measured_across_its_inner_line_and_its_edge_does_not_void():
    """sealed-48 1501054356 (opened, forty-fourth session): a black chip on the floor, in a
    player's shade, its outline measured 33 x 20 px from its inner ring line on one side to its
    edge on the other, was taken for two coins together outside, and the spin voided (7.3.1),
    while its coins lay unseen on a layout of their own colour. Round its outline's short half-axis
    (the inner line) its spots are plain: it is named a chip, and with no coin seen the spin is the
    boxer's."""
    cfg = heldout.SETS["sealed-48"]
    spec, expect, rm, img = scene(1501054356, None, cfg)
    chip = next(c for c in spec["chips"] if c["name"] == "black")
    v = judge.classify(img, rm, heldout_model(cfg))
    assert v["result"] == "unsure" and expect == "unsure", v["reasons"]
    assert any(o["kind"] == "chip" and not o["inside"] and
               np.hypot(*np.subtract(o["center"], chip["center_px"])) < 0.3 * chip["radius_px"] for o in v["others"]), v


def test_a_chip_so_named_on_the_rim_is_a_chip_in_the_ring(monkeypatch):
    """The same chip's outline moved onto the ring's rim (its centre outside, its edge over the
    ring's), still taken for two coins together and its spots seen round a half-axis: a chip
    touching the ring is 7.3.2 (the boxer checks whether a coin hit it), as a chip named round its
    own outline is, not an object outside to be ignored."""
    cfg = heldout.SETS["sealed-48"]
    spec, _, rm, img = scene(1501054356, None, cfg)
    model = heldout_model(cfg)
    img, _ = balance.balanced(img, rm)
    img = shade.lifted(img, rm)
    blobs = detect.find_blobs(img, rm, skip_chroma=model.chroma)
    chip = next(c for c in spec["chips"] if c["name"] == "black")
    b = min((b for b in blobs if b.axes is not None),
            key=lambda b: np.hypot(*np.subtract(detect.seen_center(b, rm), chip["center_px"])))
    c = np.array(rm.center)
    out = np.subtract(b.plane_center, c)
    b.plane_center = tuple(c + out / np.hypot(*out) * (rm.radius + 0.5 * b.axes[0]))
    monkeypatch.setattr(judge, "_both_coins", lambda *a: True)
    monkeypatch.setattr(judge, "_chip_either_axis", lambda *a: True)
    v, _, _ = judge._judged(img, rm, model, blobs)
    assert v["result"] == "unsure" and judge.CHIP_IN_RING.format("chip") in v["reasons"], v["reasons"]
    assert any(o["kind"] == "chip" and o["inside"] for o in v["others"]), v["others"]
