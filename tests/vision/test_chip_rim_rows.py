"""A chip's edge spots measured radius by radius just inside its outline, merged beyond it
(chipcheck.chip_rim, nineteenth session): a coin lying between the other coin and print of its
colour is not named a chip by a pattern one row beyond it finds by chance (sealed-23, opened:
3112304161, a valid spin whose tails coin measured 0.92 in one row beyond its outline, 0.77 merged).
The black chips named by their rows inside the outline: tests/vision/test_away_size.py."""
import numpy as np

from ringctl.sim import heldout
from ringctl.vision import balance, chipcheck, detect, judge
from vcache import heldout_model, scene

CFG = heldout.SETS["sealed-23"]


def test_a_coin_between_the_other_coin_and_print_is_not_named_a_chip():
    model = heldout_model(CFG)
    spec, expect, rm, img = scene(3112304161, None, CFG)
    assert spec["kind"] == "valid" and not [c for c in spec["chips"] if np.hypot(
        *np.subtract(c["center_px"], spec["coins"][1]["center_px"])) < 3 * c["radius_px"]]
    im, _ = balance.balanced(img, rm)
    coin = spec["coins"][1]
    blob = min((b for b in detect.find_blobs(im, rm, skip_chroma=model.chroma) if b.axes is not None),
               key=lambda b: np.hypot(*np.subtract(detect.seen_center(b, rm), coin["center_px"])))
    assert np.hypot(*np.subtract(detect.seen_center(blob, rm), coin["center_px"])) < 0.3 * coin["radius_px"]
    f = chipcheck.chip_rim(im, rm, blob)
    assert not (f["spot"] >= judge.RIM_SPOT and f["periodic"] >= judge.RIM_PERIODIC), f
    v = judge.classify(img, rm, model)
    # still the boxer's call (the coin lies on print of its colour), but not for a chip in the ring
    assert v["result"] != "no-spin" and not any("7.3.2" in r for r in v["reasons"]), v["reasons"]


def test_a_row_apart_finds_what_the_merged_rows_do_not():
    """Five spots in one row of an otherwise plain band: apart they stand out, merged with three
    rows that carry a once-round change (an off-centre line) they do not."""
    na = chipcheck.N_ANG
    t = np.arange(na) * 2 * np.pi / na
    band = np.full((4, na, 3), 60.0, np.float32)
    band[1, (np.cos(5 * t) > 0.9)] = 230.0            # the spots' row
    band[0, np.cos(t) > 0.2] = 200.0                  # a line crossed on one side only
    apart = chipcheck.rim_features(band, apart=True)
    merged = chipcheck.rim_features(band, apart=False)
    assert apart["n"] == 5 and apart["periodic"] >= judge.RIM_PERIODIC, apart
    assert merged["periodic"] < judge.RIM_PERIODIC, merged
