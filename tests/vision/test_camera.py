"""What a real camera does to the picture besides the lens's bend (heldout `camera-tune`): colour
fringes round every edge growing towards the corners, its own sharpening with halos, sensor
noise up to 8 grey levels. A 4K ring the fringes made look banded is calibrated at half size,
and the noise's specks are never a chip (docs/VISION.md "What a camera does to the picture")."""
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import heldout
from ringctl.vision import judge, ring as ringmod

import vcache

CFG = heldout.SETS["camera-tune"]


@pytest.mark.parametrize("seed", [730363319, 1528749504])
def test_the_noise_of_a_sharpened_frame_is_no_chip(seed):
    """Sensor noise of sd 6.5-6.8, sharpened, on a dark layout: specks lighter and darker than the
    empty ring round one centre were named "a chip in the ring (only its edge spots stand out)",
    and a valid spin left to the boxer. A chip's spots are all lighter (or all darker)."""
    spec, expect, rm, img = vcache.scene(seed, None, CFG)
    assert spec["noise"] > 6 and spec["_post"]["sharpen"][0] > 0.4
    v = judge.classify(img, rm, vcache.heldout_model(CFG))
    assert v["result"] == expect != "unsure", v["reasons"]
    assert not [o for o in v["others"] if o["inside"] and o["kind"] == "chip"]


@pytest.mark.parametrize("seed", [1642736537, 3389223764])
def test_a_4k_ring_whose_lens_fringes_look_banded_is_calibrated_at_half_size(seed):
    """Colour fringes of 1.5-2 px at the wall (a lens imaging red 0.24% larger than blue's 0.24%
    smaller) ran all round the ring's edge: refused at full size as a band inside the edge or
    two bands beyond it. At half size the ring is found, within 2 px of the generator's."""
    spec, _ = heldout.make(seed, "tilted", CFG)
    img = heldout.empty_frame(spec, seed)
    assert spec["size"] == [3840, 2160] and spec["_post"]["aberration"] > 0.002
    with pytest.raises(UserError):
        ringmod._find_boundary(img)
    (cx, cy), (a, b) = ringmod.find_boundary(img)[:2]
    r, (tx, ty) = spec["ring"]["radius"], spec["ring"]["center"]
    # the lens (1-3% barrel) draws the ring a little smaller than the generator's: r (1 + k r^2)
    k, n = spec["_post"]["distort"], np.hypot(1920, 1080)
    seen = r * (1 + k * (r / n) ** 2)
    ratio = spec["ring"].get("ellipse", {}).get("ratio", 1.0)   # a ring seen at a slant
    assert max(abs(a - seen), abs(b - ratio * seen), abs(cx - tx), abs(cy - ty)) < 2.0


def test_a_photo_refused_at_full_and_half_size_keeps_the_full_sizes_reason():
    img = np.full((2160, 3840, 3), 90, np.uint8)   # nothing to find at any size
    with pytest.raises(UserError) as full:
        ringmod._find_boundary(img)
    with pytest.raises(UserError) as got:
        ringmod.find_boundary(img)
    assert str(got.value) == str(full.value)
