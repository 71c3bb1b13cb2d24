"""vision.judge (issue 4): each failure mode with its rule, valid spins under conditions, chips and
foreign objects, a real photo, and the held-out accuracy floor. Scenes are rendered at test time."""
import json

import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import judge, ring as ringmod
from visionkit import CALLS, run


@pytest.mark.parametrize("kind,reason", [
    ("outside", "7.3.1"), ("rim", "7.3.1"),
    ("tilted", "7.3.4 coin not lying flat"), ("leaning", "7.3.4 coin not lying flat"),
    ("stacked", "7.3.4")])
def test_invalid_spins_are_no_spin_with_rule(model, kind, reason):
    for seed in (11, 12):
        v, truth = run(model, seed, kind)
        assert truth["result"] == "no-spin"
        assert v["result"] == "no-spin", (seed, v)
        assert any(r.startswith(reason) for r in v["reasons"]), v["reasons"]


@pytest.mark.parametrize("kind,alone", [("outside", "7.3.1 coin outside the ring"),
                                        ("rim", "7.3.1 coin on the ring's rim"),
                                        ("stacked", "7.3.4 coin lying on the other coin")])
def test_a_void_that_rests_on_fewer_than_two_coins_in_the_ring_counts_the_coins_other_cameras_see(model, kind, alone):
    """A coin centred outside the ring voids the spin (7.3.1) only while the ring holds fewer than
    two, and one outline taken for two coins one on the other (7.3.4) only while no other coin
    lies there: the frame says so ("by_count"). A camera seeing half the ring counts the coins
    the others see there too (`elsewhere`, views.judge_views): beside two, that coin outside is
    a third, and the outline three or four coins (forty-sixth session)."""
    seed = 11
    spec = scenes.make(seed, kind)
    rm = bench.site(spec, seed)
    img, truth = render.render_scene(spec, np.random.default_rng(seed))
    alone_v = judge.classify(img, rm, model)
    assert alone_v["result"] == "no-spin" and alone_v["by_count"] == [alone], alone_v
    beside = judge.classify(img, rm, model, elsewhere=1)
    assert beside["result"] == "unsure" and beside["by_count"] == [], beside
    assert any("third coin-like object outside" in r or "measured as two coins one on the other" in r
               for r in beside["reasons"]), beside["reasons"]


@pytest.mark.parametrize("name,changes", [
    ("plain", {"layout": {"texture": "plain"}, "blur": 0, "noise": 0, "jpeg": None}),
    ("textured layout", {"layout": {"texture": "pattern", "strength": 0.14}}),
    ("uneven light", {"lighting": {"gradient": [0.3, -0.25], "vignette": 0.45}}),
    ("defocus", {"blur": 1.6}),
    ("noise", {"noise": 7.0}),
    ("jpeg", {"jpeg": 55}),
])
def test_valid_spins_called_right_under_conditions(model, name, changes):
    for seed in (21, 22, 23):
        v, truth = run(model, seed, "valid", **changes)
        assert truth["result"] in CALLS
        assert v["result"] == truth["result"], (name, seed, v)
        assert len(v["coins"]) == 2 and all(c["flat"] and c["inside"] for c in v["coins"])


def test_passing_shadow_over_a_coin(model):
    spec = scenes.make(31, "valid")
    c = spec["coins"][0]["center_px"]
    spec["lighting"]["shadows"] = [{"center": c, "axes": [150, 90], "angle_deg": 30, "strength": 0.35,
                                    "softness": 25}]
    rm = bench.site(spec, 31)
    img, truth = render.render_scene(spec, np.random.default_rng(1))
    v = judge.classify(img, rm, model)
    assert v["result"] in (truth["result"], "unsure")
    assert v["result"] == truth["result"], v


def test_chips_and_tokens_outside_are_not_coins(model):
    n_chips = 0
    for seed in (41, 42, 43):
        spec = scenes.make(seed, "valid", chips=4)
        n_chips += len(spec["chips"])
        rm = bench.site(spec, seed)
        img, truth = render.render_scene(spec, np.random.default_rng(seed))
        v = judge.classify(img, rm, model)
        assert v["result"] == truth["result"], v
        assert len(v["coins"]) == 2
    assert n_chips >= 9


def test_three_coins_or_a_chip_in_the_ring_is_unsure(model):
    spec = scenes.make(71, "valid", chips=0)
    rm = bench.site(spec, 71)
    c0 = np.array(spec["ring"]["center"])
    r = spec["coins"][0]["radius_px"]
    spots = [c0 + d * np.array([np.cos(a), np.sin(a)]) for d in (0, 80, 160) for a in np.linspace(0, 6, 7)]
    free = next(p for p in spots if all(np.hypot(*(p - np.array(c["center_px"]))) > 3 * r for c in spec["coins"]))
    three = json.loads(json.dumps(spec))
    three["coins"].append({"center_px": free.tolist(), "radius_px": r, "face": "heads", "rotation_deg": 10})
    img, truth = render.render_scene(three, np.random.default_rng(0))
    v = judge.classify(img, rm, model)
    assert truth["result"] == "unsure" and v["result"] == "unsure", v
    chip = json.loads(json.dumps(spec))
    chip["chips"] = [{"center_px": free.tolist(), "radius_px": 1.3 * r, "color": [200, 60, 40]}]
    img, truth = render.render_scene(chip, np.random.default_rng(0))
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and "7.3.2 a chip in the ring: boxer to check whether a coin hit it" \
        in v["reasons"], v
    assert len(v["coins"]) == 2 and all(c["face"] for c in v["coins"])   # the coins are still read
    assert [o["kind"] for o in v["others"] if o["inside"]] == ["chip"]


def test_something_big_reaching_into_the_ring_is_unsure(model):
    """A big object (an arm, a bag) from outside over the ring's edge may hide a coin."""
    spec = scenes.make(72, "valid", chips=0)
    rm = bench.site(spec, 72)
    c0 = np.array(spec["ring"]["center"])
    r = spec["coins"][0]["radius_px"]
    far = max((c0 + spec["ring"]["radius"] * np.array([np.cos(a), np.sin(a)]) for a in np.linspace(0, 6.2, 32)),
              key=lambda p: min(np.hypot(*(p - np.array(c["center_px"]))) for c in spec["coins"]))
    spec["chips"] = [{"center_px": (c0 + (far - c0) * 1.15).tolist(), "radius_px": 5 * r, "color": [60, 90, 160]}]
    img, truth = render.render_scene(spec, np.random.default_rng(0))
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and "unsure: unexplained object in the ring" in v["reasons"], v


def test_real_photo_skimage_coins(model):
    """scikit-image's real photo of 24 coins: no ring in it (calibration refuses), and judged
    against a ring drawn over the whole plate it is never called heads/tails/odds."""
    from skimage import data
    grey = data.coins()
    img = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    with pytest.raises(UserError):
        ringmod.calibrate(img)
    h, w = grey.shape
    rm = ringmod.RingModel((w, h), (w / 2, h / 2), (w, w), 0, None, 19.0, 19.0 * w * 2 / 40)
    rm.background = rm.small(cv2.medianBlur(img, 31))
    v = judge.classify(img, rm, model)
    assert v["result"] not in CALLS, v


def test_one_coin_in_view_is_unsure_not_a_void(model):
    """No void without evidence (issue 12): one coin found and nothing seen leaving is the
    boxer's call, not a no-spin."""
    for seed in (11, 12):
        v, truth = run(model, seed, "one")
        assert v["result"] == "unsure", (seed, v)
        assert any("1 coin found" in r for r in v["reasons"]), v["reasons"]
        assert len(v["coins"]) == 1


@pytest.mark.slow   # make soak: a rate over 30 scenes; each failure mode above has its own fast test
def test_heldout_accuracy_floor(model):
    """Held-out seeds (never used for tuning): zero wrong calls, most valid spins called."""
    counts = bench.evaluate(scenes.HELDOUT_SEEDS[:30], model).summary()
    assert counts["wrong_including_voided"] == 0, counts
    assert counts["valid"] >= 8
    assert counts["valid_called"] >= 0.95 * counts["valid"], counts
    judged = 30 - counts["calibration_failed"]
    assert counts["calibration_failed"] <= 2, counts
    assert counts["right"] >= 0.9 * judged, counts


def test_coins_touching_or_close_are_never_voided(model):
    """Two flat coins touching, or a few px apart, make one outline at the detection scale. Rule
    7.3.4 voids a coin that does not lie flat, and the camera cannot tell touching from just over
    the other's edge: the boxer looks (unsure), never a void (a valid heads was voided so in the
    demo). One coin well over the other's edge is still a void."""
    import copy
    for seed in (11, 12, 13):
        spec0 = scenes.make(seed, "touching")
        a, b = (np.array(c["center_px"], float) for c in spec0["coins"])
        u = (b - a) / np.hypot(*(b - a))
        r = scenes.coin_radius(spec0)
        rm = bench.site(spec0, seed)
        for f, want in ((0.7, "no-spin"), (0.97, "unsure"), (1.0, "unsure"), (1.03, None)):
            spec = copy.deepcopy(spec0)
            spec["coins"][1]["center_px"] = (a + u * 2 * r * f).tolist()
            img, truth = render.render_scene(spec, np.random.default_rng(seed))
            v = judge.classify(img, rm, model)
            if want is None:   # apart: called right, or unsure - never a void, never wrong
                assert v["result"] in (truth["result"], "unsure") and truth["result"] in CALLS, (f, v)
            else:
                assert v["result"] == want, (seed, f, v["reasons"])
            if want == "unsure":
                assert judge.TOUCHING in v["reasons"], v["reasons"]
