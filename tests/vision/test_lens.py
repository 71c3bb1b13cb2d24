"""A camera's lens bends the picture (barrel distortion): a flat coin near the wall is squashed
along the radius and can look tilted. Through a lens of 16% at the frame's corner (a wide M12
lens; hardware/INSTALL.md asks for a low-distortion one) a valid spin is called or left to the
boxer, never voided, and a tilted coin is still a void (docs/VISION.md "A lens's distortion")."""
import pytest

from ringctl.sim import heldout
from ringctl.vision import judge

import vcache

CFG = heldout.SETS["lens-16"]


@pytest.mark.parametrize("seed, called", [(2118879492, True), (2206213840, True), (361123030, False),
                                          (3063877299, False)])
def test_a_valid_spin_seen_through_a_wide_lens_is_never_voided(seed, called):
    """Coins 0.88-0.94 of the radius out, at 1080p and 4K; two are called, and two whose coin by
    the wall measures not quite round are left to the boxer ("cannot tell whether a coin lies flat")."""
    spec, expect, rm, img = vcache.scene(seed, "valid", CFG)
    assert spec["_post"]["distort"] == -0.16
    v = judge.classify(img, rm, vcache.heldout_model(CFG))
    assert v["result"] == (expect if called else "unsure"), v["reasons"]


@pytest.mark.parametrize("seed", heldout.set_seeds(CFG, 2))
def test_a_tilted_coin_seen_through_a_wide_lens_is_still_a_void(seed):
    spec, expect, rm, img = vcache.scene(seed, "tilted", CFG)
    v = judge.classify(img, rm, vcache.heldout_model(CFG))
    assert expect == v["result"] == "no-spin", v["reasons"]
