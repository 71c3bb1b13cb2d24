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


@pytest.mark.parametrize("seed", [pytest.param(730363319, marks=pytest.mark.slow), 1528749504])
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


def test_a_photo_refused_at_full_and_half_size_keeps_the_full_sizes_reason(monkeypatch):
    def refuse(img, notes=None):
        raise UserError(f"refused at {img.shape[1]} px")
    monkeypatch.setattr(ringmod, "_find_boundary", refuse)
    with pytest.raises(UserError, match="^refused at 3840 px$"):
        ringmod.find_boundary(np.zeros((2160, 3840, 3), np.uint8))
    with pytest.raises(UserError, match="^refused at 1920 px$"):   # under HALF_FROM: no second look
        ringmod.find_boundary(np.zeros((1080, 1920, 3), np.uint8))


@pytest.mark.parametrize("h, w", [(2160, 3840), (2161, 3843)])
def test_the_half_sizes_answer_is_put_back_in_full_size_px(monkeypatch, h, w):
    """Half size's pixel centre c is full size's 2 c + 0.5; axes and the edge's px double, the
    angle stays; an odd last row or column is left out, so the half is exactly half."""
    seen = []

    def half_only(img, notes=None):
        seen.append(img.shape[:2])
        if img.shape[1] >= ringmod.HALF_FROM:
            raise UserError("refused at full size")
        return (900.0, 500.0), (400.0, 380.0), 30.0, [1, 2, 3], 1.5
    monkeypatch.setattr(ringmod, "_find_boundary", half_only)
    (cx, cy), (a, b), an, layout, edge_px = ringmod.find_boundary(np.zeros((h, w, 3), np.uint8))
    assert seen == [(h, w), (h // 2, w // 2)]
    assert (cx, cy, a, b, an, layout, edge_px) == (1800.5, 1000.5, 800.0, 760.0, 30.0, [1, 2, 3], 3.0)


def test_a_ring_measured_at_half_size_says_so_to_the_technician(monkeypatch, tmp_path, capsys):
    """`ring vision calibrate` warns when the full size was refused and half size used, with the
    full size's reason: the technician then checks the boundary on the photo."""
    from ringctl.vision import cli

    def half_only(img, notes=None):
        if img.shape[1] >= ringmod.HALF_FROM:
            raise UserError("ring edge uncertain: a band 1% of the radius wide runs all round; cover it")
        return (960.0, 540.0), (400.0, 400.0), 0.0, [40, 105, 35], 1.2
    monkeypatch.setattr(ringmod, "_find_boundary", half_only)
    img = np.zeros((2160, 3840, 3), np.uint8)
    warned = ringmod.calibrate(img, ring_mm=1000.0).warnings   # coins 49 px: no size warning
    assert len(warned) == 1 and "measured at half the photo's size (1920 x 1080 px)" in warned[0]
    assert "(ring edge uncertain: a band 1% of the radius wide runs all round)" in warned[0]   # its fix left out
    assert ringmod.RingModel.from_json(ringmod.calibrate(img, ring_mm=1000.0).to_json()).warnings == warned
    monkeypatch.setattr(cli, "read_image", lambda path: img)
    out = tmp_path / "ring.json"
    assert cli.cmd_calibrate(type("A", (), dict(empty="e.png", output=str(out), coin_mm=30.8, ring_mm=1000.0, settle_band=False))) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: the ring's edge was measured at half") and out.exists()
    # measured at full size: no such warning
    monkeypatch.setattr(ringmod, "_find_boundary", lambda img, notes=None: ((1920.0, 1080.0), (800.0, 800.0), 0.0, [1, 2, 3], 1.0))
    assert ringmod.calibrate(img, ring_mm=1000.0).warnings == []
