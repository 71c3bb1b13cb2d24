"""A flat coin lying across printed layout artwork (lines, box edges, lettering) of about its own
colour (issue 12): its rim hardly differs from the empty layout where it borders the ink, the
outline search stops short there, and the first fit is no circle. `detect._round_outline` finds
the round outline from the rest of the rim; anything that is not one round flat coin (tilted,
leaning, stacked, touching, a chip, a shape that is no circle) is measured and judged as before.

Scenes come from the held-out family `edge-1080p` / `edge-4k` (heldout.SETS: coins across printed
artwork in inks close to their colour, on green, blue, maroon and black layouts), never from
`edge-tune`, the set the search was tuned on."""
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import heldout, vision_bench as bench
from ringctl.vision import detect, judge, ring as ringmod

import vcache

# one coin colour for the whole test set, so that one face model (trained at the set's site)
# serves every scene; the artwork's ink still follows the coin
CFG = dict(heldout.SETS["edge-1080p"], coins=("brass",))
SEEDS = heldout.set_seeds(dict(CFG, stream=(5, 1, 9)), 40)


def _scene(seed, kind, cfg=CFG):
    # heldout.make, calibrated on its empty frame, rendered: once per session (vcache; the
    # valid scenes are also test_own_texture's)
    return vcache.scene(seed, kind, cfg)


def _scenes(seeds, kind, n, cfg=CFG):
    """The first `n` scenes of `kind` whose ring calibrates (a ring the calibration refuses is
    never judged: the technician is told at installation)."""
    out = []
    for seed in seeds:
        try:
            out.append((seed,) + _scene(seed, kind, cfg))
        except UserError:
            continue
        if len(out) == n:
            return out
    raise AssertionError(f"fewer than {n} {kind} scenes calibrate")


def _without_search(monkeypatch):
    """The coin finder as it was before the round-outline search (it never starts)."""
    monkeypatch.setattr(detect, "ROUND_AREA", (9.0, 9.0))


def _coin_blob(blobs, coin, rm):
    inv = np.array(ringmod.cv2.invertAffineTransform(rm.to_plane))
    near = []
    for b in blobs:
        if b.plane_center is None:
            continue
        c = inv[:, :2] @ np.array(b.plane_center) + inv[:, 2]
        if np.hypot(*(c - coin["center_px"])) < 0.5 * coin["radius_px"]:
            near.append((b, c))
    return near[0] if len(near) == 1 else (None, None)


@pytest.fixture(scope="module")
def model():
    return vcache.heldout_model(CFG)


def test_flat_coins_across_printed_artwork_measure_round_and_never_wrong(monkeypatch):
    """Over 12 valid scenes (24 coins, each across an edge of the print, 1080p): every coin whose
    outline the search found is a clean round disc at its true centre (2 px) and size (5%), and
    each is one more clean coin than without the search. (One coin here measures a clean disc 6%
    too big with or without it: a first fit the search does not touch.)"""
    clean = {"before": 0, "after": 0}
    found = 0
    for seed, spec, _, rm, img in _scenes(SEEDS[:16], "valid", 12):
        for mode in ("before", "after"):
            with monkeypatch.context() as m:
                if mode == "before":
                    _without_search(m)
                blobs = detect.find_blobs(img, rm)
            for coin in spec["coins"]:
                b, c = _coin_blob(blobs, coin, rm)
                if b is None or b.fit_err > 1.0 or b.axes[1] / b.axes[0] < judge.FLAT_RATIO:
                    continue
                clean[mode] += 1
                if any(k in b.extra for k in ("remeasured", "recentred", "textured")):   # an outline the search found
                    found += 1
                    assert np.hypot(*(c - coin["center_px"])) < 2.0, (seed, b)
                    assert abs(b.axes[0] / coin["radius_px"] - 1) < 0.05, (seed, b)
    assert clean["after"] - clean["before"] == found > 0, (clean, found)


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
@pytest.mark.parametrize("kind", ["tilted", "leaning", "stacked", "touching", "rim", "outside", "chip-in-ring"])
def test_what_is_not_one_flat_coin_is_judged_as_before_or_better(kind, model, monkeypatch):
    """Tilted, leaning, stacked and touching coins, coins on the rim or outside and chips in the
    ring, on printed artwork of the coins' colour: a verdict the search changes becomes the
    right one (a coin on the rim found round: unsure -> 7.3.1 no-spin), a right verdict stays,
    and the search makes no call and no void that was not there without it."""
    for seed, spec, expect, rm, img in _scenes(SEEDS[16:22], kind, 2):
        with monkeypatch.context() as m:
            _without_search(m)
            before = bench.score(judge.classify(img, rm, model)["result"], expect)
        after = bench.score(judge.classify(img, rm, model)["result"], expect)
        assert after == before or after == "right", (seed, kind, expect, before, after)


def test_valid_spins_across_printed_artwork_are_called_more_and_never_wrong(model, monkeypatch):
    """In play (a face model from the set's site): valid spins with both coins across the print,
    1080p: no wrong call either way, no void the search adds, and the search calls more."""
    called = {"before": 0, "after": 0}
    for seed, spec, expect, rm, img in _scenes(SEEDS[22:40], "valid", 12):
        score = {}
        for mode in ("before", "after"):
            with monkeypatch.context() as m:
                if mode == "before":
                    _without_search(m)
                v = judge.classify(img, rm, model)
            score[mode] = bench.score(v["result"], expect)
            assert score[mode] != "wrong", (seed, mode, expect, v)
            called[mode] += score[mode] == "right"
        assert score["after"] != "voided" or score["before"] == "voided", (seed, score)
    assert called["after"] > called["before"], called


def test_a_4k_coin_across_a_printed_box_measures_round():
    """At 4K: the coins of a valid edge-4k scene measure round, centred and sized."""
    cfg = dict(heldout.SETS["edge-4k"], coins=("bronze",))
    [(seed, spec, _, rm, img)] = _scenes(heldout.set_seeds(dict(cfg, stream=(5, 2, 9)), 4), "valid", 1, cfg)
    blobs = detect.find_blobs(img, rm)
    for coin in spec["coins"]:
        b, c = _coin_blob(blobs, coin, rm)
        assert b is not None and b.fit_err <= 1.0 and b.axes[1] / b.axes[0] >= judge.FLAT_RATIO, (coin, b)
        assert np.hypot(*(c - coin["center_px"])) < 2.0 and abs(b.axes[0] / coin["radius_px"] - 1) < 0.05, b


@pytest.mark.parametrize("seed", [1136030020, 1651600651])
def test_a_flat_coin_partly_on_ink_of_its_colour_whose_seen_part_looks_tilted_is_not_voided(seed):
    """sealed-8 (run once, then opened) voided these two valid spins as "7.3.4 coin not lying
    flat": a flat coin lying partly on printed ink of its colour, its seen part fitting an
    ellipse 0.85 and 0.77 round that it fills only 0.70 and 0.52 of (a tilted coin fills its
    ellipse: >= 0.81). That is no evidence the coin is not flat: unsure, the boxer calls it (or,
    with the coin measured whole by its own texture, the right call)."""
    cfg = heldout.SETS["sealed-8"]
    spec, expect = heldout.make(seed, None, cfg)
    assert expect in ("heads", "tails", "odds")
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    v = judge.classify(heldout.render_frame(spec, seed), rm, vcache.heldout_model(cfg))
    # since the texture search (detect._textured) the coin is measured whole: the spin is called
    # right, or left to the boxer with print named as the cause (since the tenth session an
    # outline measured again where print hid part of the coin must be 0.965 round to be flat:
    # judge.RESCUED_FLAT); never voided
    assert v["result"] in (expect, "unsure"), v
    assert v["result"] == expect or any("part of the coin is seen" in r or "coin's colour" in r or
                                        "measured again where print hid part of it" in r for r in v["reasons"])


def _sealed8_scene(seed):
    cfg = heldout.SETS["sealed-8"]
    spec, expect = heldout.make(seed, None, cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return spec, expect, rm, heldout.render_frame(spec, seed)


def _clean_round(blobs, coin, rm):
    """The blob of `coin`: a clean flat disc at its true centre (2 px) and size (6%), or None."""
    b, c = _coin_blob(blobs, coin, rm)
    if b is None or b.fit_err > 1.0 or b.axes[1] / b.axes[0] < judge.FLAT_RATIO:
        return None
    if np.hypot(*(c - coin["center_px"])) >= 2.0 or abs(np.mean(b.axes) / coin["radius_px"] - 1) >= 0.06:
        return None
    return b


@pytest.mark.parametrize("seed", [3373096051, 1097703775, 2628670964])
def test_a_coin_mostly_on_ink_of_its_colour_measures_whole_in_play(seed, monkeypatch):
    """sealed-8 (opened) left these valid spins unsure: one coin of each lay across a printed box
    or letter of about its colour and only part of it stood out from the empty layout (a half
    with its rim beside a thin printed line, 5 edges beyond the circle; a sliver of a third; two
    pieces, the band of ink between them), measured as an ellipse of the wrong size or as
    something that is not a coin. Both coins of each now measure a clean round disc at their
    true centre and size (`detect._recentred`, and `_round_outline` with a few edges beyond the
    circle along a printed line); without the search one of them does not."""
    spec, expect, rm, img = _sealed8_scene(seed)
    assert expect in ("heads", "tails", "odds") and spec.get("_artwork")

    def whole(blobs):   # both coins clean, nothing else in the ring (no piece left over)
        coins = [_clean_round(blobs, coin, rm) for coin in spec["coins"]]
        rest = [b for b in blobs if b.extra.get("in_ring_coins", 0) > 0.2 and not any(b is c for c in coins)]
        return None not in coins and not rest
    assert whole(detect.find_blobs(img, rm)), seed
    with monkeypatch.context() as m:
        _without_search(m)
        assert not whole(detect.find_blobs(img, rm)), seed
