"""A coin-like object outside the ring is evidence for a void (7.3.1) only if it can be one of the
spin's two coins: with one coin in the ring, the object must be that coin's size (within
judge.SAME_COIN), as a third coin-like object must be when two lie in the ring. sealed-22
(opened, eighteenth session): a black chip 1.13x the patina coin's size, its six spots measured
not periodic enough to name it (0.72 of 0.8), voided a spin whose second coin was hidden."""
import pytest

from ringctl.sim import heldout
from ringctl.vision import judge
from vcache import heldout_model, scene

CFG = heldout.SETS["sealed-22"]
CHIP_AS_COIN = 1397025808      # drawn "one": a coin in the ring, the other hidden; a black chip outside
OUTSIDE = (3005506637, 2424664411)   # forced "outside": a coin in the ring, the other on the floor


@pytest.fixture(scope="module")
def model():
    return heldout_model(CFG)


def test_an_object_outside_not_the_size_of_the_coin_in_the_ring_does_not_void(model):
    spec, expect, rm, img = scene(CHIP_AS_COIN, None, CFG)
    assert spec["kind"] == "one" and expect == "unsure"
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure", v["reasons"]
    assert any("not the size of the coin in it" in r for r in v["reasons"]), v["reasons"]
    # the object was taken as a coin outside: the rule, not a chip's name, keeps the void out
    assert any(not c["inside"] and c["flat"] for c in v["coins"]), v["coins"]


@pytest.mark.parametrize("seed", OUTSIDE)
def test_the_spins_other_coin_outside_still_voids(model, seed):
    spec, expect, rm, img = scene(seed, "outside", CFG)
    assert expect == "no-spin"
    v = judge.classify(img, rm, model)
    assert v["result"] == "no-spin" and "7.3.1 coin outside the ring" in v["reasons"], v["reasons"]
