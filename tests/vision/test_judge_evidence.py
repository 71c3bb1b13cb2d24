"""No void without evidence, chips are not coins (issue 12): what lies OUTSIDE the ring voids a
spin only if it can be one of the spin's two coins, and a chip is told from a coin by its edge
spots even when it measures a coin's size. Each case failed before its fix (a valid spin voided
or left unsure)."""
import numpy as np
import pytest

from ringctl.sim import heldout
from vcache import heldout_model   # vision_bench.heldout_model, trained once per session
from ringctl.vision import chipcheck, detect, judge, ring as ringmod

CFG = dict(size=(1920, 1080), coin_px=(60, 60.01), coin="brass", faces="plate:b", stream=(44, 1))
CALLS = ("heads", "tails", "odds")


@pytest.fixture(scope="module")
def model():
    return heldout_model(CFG, n=6)


def _scene(kind, k=0, layout="green"):
    cfg = dict(CFG, layouts=[layout])
    seed = heldout.set_seeds(dict(cfg, stream=(44, 1, k)), 1)[0]
    spec, expect = heldout.make(seed, kind, cfg)
    spec.pop("_post")   # no motion blur or JPEG: the object's size is what the test sets
    spec["_post"] = {"jpeg": 90, "motion": None}
    spec["blur"] = 0.0
    spec["chips"] = []
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return spec, expect, rm, seed


def _free_spot(spec, d_out, r_obj):
    """A plane point d_out coin radii outside the wall, clear of the coins, well inside the frame."""
    c0, R, r = np.array(spec["ring"]["center"]), spec["ring"]["radius"], spec["_coin_r"]
    w, h = spec["size"]
    coins = [np.array(c["center_px"]) for c in spec["coins"]]
    for a in np.linspace(0, 2 * np.pi, 72, endpoint=False):
        p = c0 + (R + spec["ring"]["wall_px"] + d_out * r) * np.array([np.cos(a), np.sin(a)])
        q = np.array(heldout._to_image(spec, p))
        if 3 * r_obj < q[0] < w - 3 * r_obj and 3 * r_obj < q[1] < h - 3 * r_obj and \
                all(np.hypot(*(q - c)) > 4 * r for c in coins):
            return p
    raise AssertionError("no free spot")


def _chip(spec, p, radius, colour, n_spots=6):
    return {"center_px": heldout._to_image(spec, p), "radius_px": radius, "kind": "chip",
            "color": list(colour), "spots": [235, 235, 235], "n_spots": n_spots, "name": "test"}


def _judge(model, spec, rm, seed):
    return judge.classify(heldout.render_frame(spec, seed), rm, model)


def test_a_coin_sized_chip_outside_is_not_a_coin_outside(model):
    """One coin in view and a yellow chip no bigger than a coin outside the ring: before, the
    chip (the brass coin's colour, a clean disc of a coin's size) was 'a coin outside the ring'
    and the spin was voided. Its edge spots say chip: the spin is unsure (one coin found)."""
    spec, expect, rm, seed = _scene("one")
    r = spec["_coin_r"]
    spec["chips"] = [_chip(spec, _free_spot(spec, 3.0, 1.05 * r), 1.04 * r, heldout.CHIPS["yellow"])]
    v = _judge(model, spec, rm, seed)
    assert expect == "unsure"
    assert v["result"] == "unsure", v
    assert [o["kind"] for o in v["others"]] == ["chip"], v["others"]


def test_a_coin_sized_chip_in_the_ring_is_named(model):
    spec, expect, rm, seed = _scene("valid", 1)
    r, c0 = spec["_coin_r"], np.array(spec["ring"]["center"])
    coins = [np.array(c["center_px"]) for c in spec["coins"]]
    p = next(c0 + d * np.array([np.cos(a), np.sin(a)]) for d in (0, 4 * r, 8 * r) for a in np.linspace(0, 6, 9)
             if all(np.hypot(*(np.array(heldout._to_image(spec, c0 + d * np.array([np.cos(a), np.sin(a)]))) - q))
                    > 4 * r for q in coins))
    spec["chips"] = [_chip(spec, p, 1.04 * r, heldout.CHIPS["yellow"], 8)]
    v = _judge(model, spec, rm, seed)
    assert v["result"] == "unsure" and "7.3.2 a chip in the ring: boxer to check whether a coin hit it" \
        in v["reasons"], v
    assert len(v["coins"]) == 2 and all(c["face"] for c in v["coins"])


def test_edge_spots_tell_chips_from_coins(model):
    """chipcheck on rendered objects: every chip colour with 4-8 spots against both coin faces."""
    spec, _, rm, seed = _scene("valid", 2, layout="blue")
    r = spec["_coin_r"]
    spots = [_free_spot(spec, d, 1.3 * r) for d in (2.5, 6.0)]
    feats = {"chip": [], "coin": []}
    for i, name in enumerate(heldout.CHIPS):
        spec["chips"] = [_chip(spec, spots[i % 2], 1.25 * r, heldout.CHIPS[name], (4, 6, 8)[i % 3])]
        img = heldout.render_frame(spec, seed + i)
        for b in detect.find_blobs(img, rm):
            if b.axes is None or b.fit_err > 1.0:
                continue
            near_chip = np.hypot(*(np.array(b.center) - spec["chips"][0]["center_px"])) < 0.5 * r
            if near_chip or i == 0:
                feats["chip" if near_chip else "coin"].append(chipcheck.chip_rim(img, rm, b))
    assert len(feats["chip"]) >= 5 and len(feats["coin"]) == 2, feats
    assert all(f["spot"] >= judge.RIM_SPOT and f["periodic"] >= judge.RIM_PERIODIC for f in feats["chip"]), feats
    assert not any(f["spot"] >= judge.RIM_SPOT and f["periodic"] >= judge.RIM_PERIODIC for f in feats["coin"]), feats


def test_a_bigger_coin_coloured_disc_outside_is_not_one_of_the_two_coins(model):
    """Two flat coins in the ring and, outside, a plain brass disc 12% bigger (a token, a coin
    of another game): before, a coin outside the ring voided the spin. It is not one of the
    spin's two coins, which are both in the ring: the spin is called."""
    spec, expect, rm, seed = _scene("valid", 3)
    r = spec["_coin_r"]
    extra = dict(spec["coins"][0], center_px=heldout._to_image(spec, _free_spot(spec, 3.0, 1.2 * r)),
                 radius_px=1.12 * r, face="heads")
    spec["coins"] = spec["coins"] + [extra]
    v = _judge(model, spec, rm, seed)
    assert expect in CALLS
    assert v["result"] == expect, v
    assert len(v["coins"]) == 2


def test_a_third_coin_outside_is_the_boxers_call_not_a_void(model):
    """Two flat coins in the ring and a third like them outside: not evidence that one of the
    spin's coins left the ring (both are in it), so no void; the boxer looks."""
    spec, expect, rm, seed = _scene("valid", 4)
    r = spec["_coin_r"]
    extra = dict(spec["coins"][0], center_px=heldout._to_image(spec, _free_spot(spec, 3.0, r)))
    spec["coins"] = spec["coins"] + [extra]
    v = _judge(model, spec, rm, seed)
    assert v["result"] == "unsure", v
    assert "unsure: a third coin-like object outside the ring" in v["reasons"]


def test_one_coin_in_the_ring_and_one_outside_is_still_a_void(model):
    spec, expect, rm, seed = _scene("outside", 5)
    spec["chips"] = [_chip(spec, _free_spot(spec, 6.0, 1.3 * spec["_coin_r"]), 1.25 * spec["_coin_r"],
                           heldout.CHIPS["yellow"])]
    v = _judge(model, spec, rm, seed)
    assert expect == "no-spin"
    assert v["result"] == "no-spin" and "7.3.1 coin outside the ring" in v["reasons"], v


def test_a_doubtful_object_outside_does_not_stop_a_call(model):
    """A coin-coloured object outside that cannot be measured as a coin (20% too big and seen
    at a slant: a medallion, a dropped token) while both coins lie flat in the ring: before, its
    long outline was taken for two coins touching and the spin was voided (7.3.4). Even were it
    coins, they would not be the spin's two: the spin is called."""
    spec, expect, rm, seed = _scene("valid", 6)
    r = spec["_coin_r"]
    extra = dict(spec["coins"][0], center_px=heldout._to_image(spec, _free_spot(spec, 3.0, 1.3 * r)),
                 radius_px=1.2 * r, tilt_deg=35.0, tilt_axis_deg=20.0)
    spec["coins"] = spec["coins"] + [extra]
    v = _judge(model, spec, rm, seed)
    assert expect in CALLS
    assert v["result"] == expect, v
    assert len(v["coins"]) == 2 and [o["inside"] for o in v["others"]] == [False], v


def test_a_smaller_coin_coloured_disc_outside_does_not_stop_a_call(model):
    """Both coins flat in the ring and, outside, a brass disc 18% smaller than a coin (a token
    or a foreign coin): before, 'coin-coloured object of the wrong size' left the spin unsure."""
    spec, expect, rm, seed = _scene("valid", 7)
    r = spec["_coin_r"]
    extra = dict(spec["coins"][1], center_px=heldout._to_image(spec, _free_spot(spec, 3.0, r)), radius_px=0.82 * r)
    spec["coins"] = spec["coins"] + [extra]
    v = _judge(model, spec, rm, seed)
    assert expect in CALLS
    assert v["result"] == expect, v
    assert [(o["kind"], o["inside"]) for o in v["others"]] == [("doubtful", False)], v["others"]


def _heldout(name, seed, kind=None, **over):
    cfg = dict(heldout.SETS[name], **over)
    spec, expect = heldout.make(seed, kind, cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return judge.classify(heldout.render_frame(spec, seed), rm, heldout_model(cfg)), expect


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_a_flat_coin_joined_to_print_of_its_colour_is_not_voided_as_tilted():
    """A valid edge-tune spin (a copper coin on print of its colour) was voided as "7.3.4 coin not
    lying flat (tilted)": the ink joined to the coin's outline made it an ellipse the coin and ink
    fill like a tilted coin. The empty ring shows the print round it: no evidence, the boxer
    calls it. (sealed-8 voided scene 73136373 the same way; the coin finder now measures that
    coin round, so the test below only checks it is not voided.)"""
    v, expect = _heldout("edge-tune", 1098359971, "valid", coins=("copper",))
    # since the texture search (detect._textured) that coin is measured round: called right
    assert expect in CALLS and v["result"] in (expect, "unsure"), v["reasons"]
    assert v["result"] == expect or any("lies on print of its own colour" in r for r in v["reasons"])


def test_sealed_8s_coin_against_lettering_is_not_voided():
    v, expect = _heldout("sealed-8", 73136373)
    assert expect == "unsure" and v["result"] == "unsure", v["reasons"]


def test_a_coin_half_on_darker_print_of_its_colour_is_not_voided():
    """sealed-11 (run once, then opened) voided a valid spin: a coin lying half on brown
    lettering on a black layout, the lettering at 0.54 of the coin's brightness; the half over
    the black cloth stood out as a tilted-looking ellipse. Darker ink of the coin's colour hides a
    coin too: the boxer calls it."""
    v, expect = _heldout("sealed-11", 635058549)
    assert expect in CALLS and v["result"] in (expect, "unsure"), v["reasons"]


def test_a_coin_across_print_of_another_colour_is_not_voided():
    """sealed-12 (run once on the seventh session's final code, then opened) voided a valid spin
    as "7.3.4 coin not lying flat (tilted)": a brown coin across the edge of a grey box on a blue
    layout, only its half over the cloth standing out (0.61 round). It lay on no ink of its own
    colour; just beyond its outline, where the rest of a flat coin would be, the frame is not the
    empty layout: the boxer calls it."""
    v, expect = _heldout("sealed-12", 777449863)
    assert expect in CALLS and v["result"] in (expect, "unsure"), v["reasons"]
    assert v["result"] == expect or any("where a flat coin would be" in r for r in v["reasons"])


@pytest.mark.parametrize("name,seed,kind", [("sealed-12", 4139739620, None), pytest.param("edge-tune", 430980151, "valid", marks=pytest.mark.slow)])
def test_a_coin_whose_outline_print_cut_short_is_not_voided(name, seed, kind):
    """sealed-12 (opened) voided a valid spin as "tilted": a coin across a brown box on maroon,
    its darker rim over the box too like the box, so the rays stopped a few px short of the rim
    (0.885 round, the sliver within 2 detection px: nothing shows beyond the outline). A valid
    edge-tune spin was voided the same way. The empty ring shows print where the outline's short
    side ends: the boxer calls it (since the twelfth session's site model, trained unclipped with
    the coin's truer colour, edge-tune's says the coin lies on print of its own colour instead)."""
    v, expect = _heldout(name, seed, kind)
    assert expect in CALLS and v["result"] in (expect, "unsure"), v["reasons"]
    assert v["result"] == expect or any("print" in r and "cannot tell whether it lies flat" in r for r in v["reasons"])


def test_print_under_a_tilted_outlines_short_side_is_measured_on_the_empty_ring():
    """The share is the empty ring's: the same tilted coin measures none on the plain layout, and
    most of one side once a box of another colour is printed there in the empty ring (not in
    the frame: what the coin covers is not seen in play)."""
    spec, expect, rm, seed = _scene("tilted")
    img = heldout.render_frame(spec, seed)
    b = next(b for b in detect.find_blobs(img, rm) if b.axes and b.axes[1] / b.axes[0] < judge.TILT_RATIO)
    assert judge._print_under_short_sides(rm, b) < 0.1
    f, (a, bb) = rm.factor, b.axes
    t = np.deg2rad(b.angle_deg)
    side = np.array(b.center) + 1.2 * bb * np.array([-np.sin(t), np.cos(t)])   # beyond one short side
    box = np.round((side + 0.5) / f - 0.5).astype(int)
    k = int(np.ceil(0.9 * a / f))
    rm.background = rm.background.copy()
    rm.background[box[1] - k:box[1] + k, box[0] - k:box[0] + k] = (60, 70, 90)
    for cached in ("_bg_blur", "_bg_feats", "_bg_feats_grid", "_in_ring_grid"):
        rm.__dict__.pop(cached, None)
    assert judge._print_under_short_sides(rm, b) > judge.PRINT_SIDE_SHARE


@pytest.mark.parametrize("name,seed,kind", [("tune-1080p", 1311118443, "tilted"), pytest.param("tune-4k", 1310130480, "leaning", marks=pytest.mark.slow)])
def test_a_tilted_coin_on_patterned_print_is_still_a_void(name, seed, kind):
    """The hidden-part check looks beyond a tilted-looking outline for the rest of a flat coin;
    past a coin that is really tilted on a patterned layout it finds the empty print, and the
    spin stays void."""
    v, expect = _heldout(name, seed, kind)
    assert expect == "no-spin" and v["result"] == "no-spin", v["reasons"]
    assert any(r.startswith("7.3.4") for r in v["reasons"]), v["reasons"]


@pytest.mark.parametrize("name,seed", [pytest.param("check-4k", 3189094319, marks=pytest.mark.slow), ("check-1080p", 1645421708)])
def test_a_coin_leaning_on_the_wall_of_a_plain_ring_is_still_a_void(name, seed):
    """The print check sees neither the ring's coin-coloured wall nor a black layout's noisy
    chroma as print (both read as 'print of the coin's colour' before the wall and dark pixels
    were left out): a coin leaning on the wall is still a void."""
    v, expect = _heldout(name, seed, "leaning")
    assert expect == "no-spin" and v["result"] == "no-spin", v["reasons"]
    assert any("not lying flat" in r for r in v["reasons"])


def _on_print_dense(ring, chroma, b):
    """The print check's share as it was computed before its mask was kept: over the whole picture."""
    f = ring.factor
    bg = ring.background.astype(np.float32)
    total = bg.sum(2)
    ink = (np.abs(bg / (total[..., None] + 1e-6) - np.asarray(chroma, np.float32)).sum(2) <= judge.COLOUR_TOL) & \
        (total > 3 * judge.PRINT_BRIGHT * b.extra.get("brightness", 100.0))
    ink = ringmod.cv2.morphologyEx(ink.astype(np.uint8), ringmod.cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0
    cx, cy = (b.center[0] + 0.5) / f - 0.5, (b.center[1] + 0.5) / f - 0.5
    a = b.axes[0] / f
    h, w = ink.shape
    yy, xx = np.ogrid[0:h, 0:w]
    r = np.hypot(xx - cx, yy - cy)
    band = (r >= 0.7 * a) & (r <= 1.35 * a) & (ringmod.cv2.erode(detect.ring_mask(ring), np.ones((3, 3), np.uint8)) > 0)
    return float(ink[band].mean()) if band.any() else 0.0


def test_the_print_check_keeps_the_rings_ink_mask_and_measures_as_before():
    """`judge._on_print` built the coin-coloured ink mask over the whole empty ring on every call;
    it is now built once per ring and coin colour and only the object's neighbourhood is looked
    at: the same share everywhere (near the picture's edges too, any brightness), one mask."""
    cfg = dict(heldout.SETS["edge-1080p"], coins=("brass",))
    seed = heldout.set_seeds(dict(cfg, stream=(5, 1, 9)), 1)[0]
    spec, _ = heldout.make(seed, "valid", cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    blobs = [b for b in detect.find_blobs(heldout.render_frame(spec, seed), rm) if b.axes is not None]
    coin = np.array(spec["coins"][0]["center_px"])
    chroma = min(blobs, key=lambda b: np.hypot(*(np.array(b.center) - coin))).chroma
    model = type("M", (), {"chroma": chroma})()
    w, h = rm.image_size
    r = rm.coin_radius_px
    probes = [detect.Blob(center=(x, y), area_coins=1.0, axes=(r, r), extra={"brightness": br})
              for x in np.linspace(-r, w + r, 9) for y in np.linspace(-r, h + r, 7) for br in (60.0, 120.0)]
    shares = []
    for b in blobs + probes:
        shares.append(judge._on_print(rm, model, b))
        assert shares[-1] == pytest.approx(_on_print_dense(rm, chroma, b), abs=1e-12), b.center
    assert max(shares) > judge.PRINT_NEAR   # the print is seen: the comparison is not of zeros
    assert judge._print_colour(rm, chroma)[0] is judge._print_colour(rm, chroma)[0]


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_a_dark_chip_of_a_silver_coins_colour_is_no_pair_of_coins_outside():
    """sealed-16 (run once on the twelfth session's code, then opened) 1659922415, trained in the
    ring: one silver coin in the ring and a black chip (the coin's grey colour) on the floor whose
    edge spots broke its outline (1.15 coin radii long, 7.2 px off an ellipse) was taken for two
    coins one on the other outside the ring and the spin voided ("7.3.1 coin outside the ring"),
    with nothing seen leaving. A stacked pair that short fits an ellipse to 1.83 px at most."""
    from ringctl.sim.vision_bench import exposed_ring
    seed = 1659922415
    spec, expect = heldout.make(seed, None, heldout.SETS["sealed-16"])
    assert spec["kind"] == "one" and expect == "unsure"
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    _, rm, img, model = exposed_ring(spec, seed, rm, heldout.render_frame(spec, seed))
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and "unsure: 1 coin found" in v["reasons"], v["reasons"]


@pytest.mark.parametrize("name,seed", [pytest.param("sealed-14", 3887631544, marks=pytest.mark.slow), ("edge-tune", 3916098184)])
def test_a_coin_lying_on_the_other_is_still_a_void(name, seed):
    """Two coins, one on the other in the ring (outlines 1.17-1.30 long, 0.11-0.85 px off an
    ellipse): 7.3.4 voids the spin, as before the stacked-fit limit."""
    v, expect = _heldout(name, seed, "stacked")
    assert expect == "no-spin" and v["result"] == "no-spin", v["reasons"]
