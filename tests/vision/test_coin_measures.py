"""A coin is measured as it is (issue 12): its colour where a channel is at the camera's limit,
and where it lies when print of its colour joins its outline (sealed-19, opened)."""
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.vision import detect, judge
from vcache import heldout_model, scene

CFG = heldout.SETS["sealed-19"]


@pytest.fixture(scope="module")
def model():
    return heldout_model(CFG)


def test_face_colour_leaves_out_pixels_at_the_cameras_limit():
    """Half a face at (60, 120, 200), half clipped to (150, 255, 255): the chromaticity is the
    unclipped half's; with under UNCLIPPED_MIN unclipped, all pixels count; brightness is all's."""
    region = np.zeros((10, 10, 3), np.uint8)
    region[:5] = (60, 120, 200)
    region[5:] = (150, 255, 255)
    chroma, bright = detect.face_colour(region)
    assert np.allclose(chroma, np.array([60, 120, 200]) / 380, atol=1e-6)
    assert bright == pytest.approx(region.reshape(-1, 3).mean())
    region[1:] = (150, 255, 255)   # 10% unclipped: too few to stand for the face
    mean = region.reshape(-1, 3).mean(axis=0)
    assert np.allclose(detect.face_colour(region)[0], mean / mean.sum(), atol=1e-6)
    mask = np.zeros((10, 10), np.uint8)
    mask[:, :3] = 1
    region[:, :1] = (60, 120, 200)
    assert np.allclose(detect.face_colour(region, mask)[0], np.array([60, 120, 200]) / 380, atol=1e-6)


def test_a_coin_with_its_red_at_the_cameras_limit_is_a_coin(model):
    """sealed-19 3755854631 made valid: orange copper coins under an 85 deg lamp, red at 255 over
    70% of their faces; one measured 0.165 from the model's colour over all its pixels (the
    tolerance 0.16) and the spin was unsure ("may or may not be a coin"). Now called."""
    spec, expect, rm, img = scene(3755854631, "valid", CFG)
    v = judge.classify(img, rm, model)
    assert expect in ("heads", "tails", "odds") and v["result"] == expect, v
    assert not any("may or may not be a coin" in r for r in v["reasons"])


def test_a_coin_joined_to_print_of_its_colour_is_recorded_where_its_outline_is(model):
    """sealed-19 1816313811: a heads coin touching copper print on a black layout; its pixels
    (with the print's) had their centroid 0.73 coin radii off the coin, and that was the centre
    the record, the annotated picture and the cameras' fusion got. The fitted outline's centre is."""
    spec, expect, rm, img = scene(1816313811, None, CFG)
    v = judge.classify(img, rm, model)
    true = min(spec["coins"], key=lambda t: t["face"] != "heads")
    assert true["face"] == "heads"
    seen = [c for c in v["coins"] if c["face"] == "heads"]
    assert len(seen) == 1
    assert np.hypot(*np.subtract(seen[0]["center"], true["center_px"])) < 0.1 * true["radius_px"], seen
