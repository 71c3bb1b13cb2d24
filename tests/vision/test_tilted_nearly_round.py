"""Tilted coins measured nearly round, found by forcing every scene of a set to be tilted, and
called before (fourteenth session):
- a small coin tilted 25 deg, blurred and smeared by motion across its short axis, measures 0.946
  on plain cloth (edge-1080p 2247935845; flat counted from 0.945): under judge.FLAT_FULL 0.95 a
  coin is flat only if its short axis is judge.SHORT_MIN of the coin's radius (a tilt shortens
  it), and the flat coin beside it still measures flat;
- a coin tilted 28 deg beside a print strip, whose first outline was a clean ellipse of a coin's
  area, was recentred (detect._recentred) round 0.983 through its side and shadow (sealed-10
  484943726): such an ellipse is the coin's outline and is not recentred (RECENTRE_WHOLE)."""
from ringctl.sim import heldout
from ringctl.vision import detect, judge, ring as ringmod
from vcache import heldout_model, scene   # trained / rendered once per session
from visionkit import measured_outlines

CFG = heldout.SETS["edge-1080p"]
SEALED10 = heldout.SETS["sealed-10"]


def _outlines(img, rm, model, spec):
    """(truth coin, plain outline's roundness, its short half-axis over the coin's radius) of each
    coin's outline not measured again."""
    r_exp = rm.coin_radius_px * model.radius_ratio
    return [(t, b.axes[1] / b.axes[0], b.axes[1] / r_exp)
            for t, b in measured_outlines(img, rm, model, spec) if not judge._rescued(b)]


def test_a_blurred_tilted_coin_measured_nearly_round_is_not_called(monkeypatch):
    model = heldout_model(CFG)
    spec, expect, rm, img = scene(2247935845, "tilted", CFG)
    assert expect == "no-spin" and spec["_post"]["motion"]
    with monkeypatch.context() as m:   # the first pass alone, as it was measured then
        m.setattr(detect, "ROUND_DENT", (0.0, 0.0))
        tilted = [(ratio, short) for t, ratio, short in _outlines(img, rm, model, spec) if t.get("tilt_deg", 0) >= 25]
    # the precondition: its outline is clean and as round as a flat coin's can be, its short axis short
    assert tilted and all(judge.FLAT_RATIO <= r < judge.FLAT_FULL and s < judge.SHORT_MIN for r, s in tilted)
    # since the twenty-eighth session such an outline is measured again near the circle through the
    # rest (detect.ROUND_DENT): the smeared short sides come out nearer it (0.955), still not round
    again = [b.axes[1] / b.axes[0] for t, b in measured_outlines(img, rm, model, spec)
             if t.get("tilt_deg", 0) >= 25 and "dented" in b.extra]
    assert again and all(r < judge.DENTED_FLAT for r in again)
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and any(r.startswith("unsure: cannot tell whether a coin lies flat")
                                           for r in v["reasons"]), v


def test_the_flat_coin_beside_it_measures_flat():
    model = heldout_model(CFG)
    spec, _, rm, img = scene(2247935845, "tilted", CFG)
    flat = [(ratio, short) for t, ratio, short in _outlines(img, rm, model, spec) if not t.get("tilt_deg")]
    assert flat and all(r >= judge.FLAT_FULL or (r >= judge.FLAT_RATIO and s >= judge.SHORT_MIN) for r, s in flat)


def test_a_tilted_coins_clean_ellipse_is_not_recentred_round():
    model = heldout_model(SEALED10)
    spec, expect, rm, frame = scene(484943726, "tilted", SEALED10)
    assert expect == "no-spin"
    tilted = [b for t, b in measured_outlines(frame, rm, model, spec) if t.get("tilt_deg", 0) >= 25]
    assert tilted and all("recentred" not in b.extra and b.axes[1] / b.axes[0] < judge.TILT_RATIO for b in tilted)
    v = judge.classify(frame, rm, model)
    assert v["result"] == "unsure" and any("looks tilted" in r for r in v["reasons"])


def test_a_coin_tilted_21_deg_measured_again_nearly_round_is_not_called():
    # edge-tune 2272943424 forced tilted, its coin set to 21 deg (the generator draws 25-60; any
    # tilt is 7.3.4): measured again and dented 0.956 round, it is left to the boxer. A rule that
    # freed such outlines by the face (thirty-fourth session, reverted: docs/VISION.md "A face
    # squeezed as a tilted coin's: tried, not kept") called it "both coins heads" and paid it
    cfg = heldout.SETS["edge-tune"]
    spec, expect = heldout.make(2272943424, "tilted", cfg)
    tilted = [c for c in spec["coins"] if c.get("tilt_deg", 0) >= 25]
    assert len(tilted) == 1 and expect == "no-spin"
    tilted[0]["tilt_deg"] = 21.0
    rm = ringmod.calibrate(heldout.empty_frame(spec, 2272943424), ring_mm=heldout.ring_mm(spec))
    img = heldout.render_frame(spec, 2272943424)
    model = heldout_model(cfg)
    # the precondition: its outline is one measured again (dented), nearly round
    again = [(b.axes[1] / b.axes[0], sorted(b.extra)) for t, b in measured_outlines(img, rm, model, spec)
             if t is tilted[0]]
    assert any(judge.FLAT_FULL <= r < judge.RESCUED_FLAT and "dented" in extra for r, extra in again), again
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and any("comes out nearly round, not round" in r for r in v["reasons"]), v["reasons"]


def test_a_flat_coin_whose_deep_rays_do_not_lie_to_one_side_is_still_held_to_dented_flat():
    # edge-tune 3139415968 made valid: a flat coin measured 0.947 round whose rays off the circle
    # lie to one side over all of them, not over the deep ones alone (two dents). Measured again
    # it stays nearly round (0.954), dented, unsure. A first form of detect.DENT_DEEP that tested
    # the deep rays in place of all of them left it undented and called it flat by its short axis
    # (forty-eighth session, not kept): the deep rays are an "or", never a loosening
    cfg = heldout.SETS["edge-tune"]
    spec, expect, rm, img = scene(3139415968, "valid", cfg)
    model = heldout_model(cfg)
    got = [(b.axes[1] / b.axes[0], sorted(b.extra)) for t, b in measured_outlines(img, rm, model, spec)
           if detect.ROUND_DENT[0] <= b.axes[1] / b.axes[0] < judge.DENTED_FLAT]
    assert len(got) == 1 and "dented" in got[0][1], got
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and any("comes out nearly round, not round" in r for r in v["reasons"]), v["reasons"]
