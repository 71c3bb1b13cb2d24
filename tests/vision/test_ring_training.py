"""Training a ring's face model in that ring, under its own lights (issue 12): struck (relief)
coins lit low from the side read at every turn they land in, and training photos that do not
cover the coin's turns are refused with how to retake them."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import heldout, render, vision_bench as bench
from ringctl.vision import judge, ring as ringmod

import vcache

# a small ring lit low (36-45 deg high): relief shading then turns with the coin
LOW_LIGHT = dict(size=(1280, 720), coin_px=(44, 60), coin="brass", stream=(9, 12), light_elev=(36, 45),
                 blur_p=0.5, blur=(0.4, 1.2), motion_p=0.0)


def _ring(design, seed):
    cfg = dict(LOW_LIGHT, faces=f"render:{design}")
    spec, _ = heldout.make(seed, "valid", cfg)
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    return cfg, spec, rm


def _reads(model, spec, seed, rm, turns):
    """[(true face, face read)] of the scene's two coins laid at each pair of `turns`."""
    out = []
    for k, (a, b) in enumerate(turns):
        sp = dict(spec, coins=[dict(spec["coins"][0], rotation_deg=a, face=("heads", "tails")[k % 2]),
                               dict(spec["coins"][1], rotation_deg=b, face=("tails", "heads")[k % 3 == 0])])
        v = judge.classify(heldout.render_frame(sp, seed + 7 * k), rm, model)
        for c in sp["coins"]:
            near = [r for r in v["coins"] if np.hypot(r["center"][0] - c["center_px"][0],
                                                      r["center"][1] - c["center_px"][1]) < 0.3 * c["radius_px"]]
            out.append((c["face"], near[0]["face"] if near else None))
    return out


@pytest.mark.parametrize("design,seed", [(100, 11), (101, 23)])
def test_a_ring_trained_under_its_own_low_light_reads_relief_coins_at_every_turn(design, seed):
    """Relief struck from real coins, lit 36-45 deg high: a model trained elsewhere (the set's
    training site, lit ~76 deg high) left most such coins unread (tune-relief: every uncalled
    valid spin was lit under 58 deg). Trained in the ring itself - 12 photos per face, a
    clock-hour turn apart, at different spots - every coin reads right at any of 12 turns."""
    cfg, spec, rm = _ring(design, seed)
    model = bench.ring_model(spec, seed, rm)
    turns = [(17 + 30 * k, 200 + 47 * k) for k in range(6)]
    pairs = _reads(model, spec, seed, rm, turns)
    wrong = [p for p in pairs if p[1] is not None and p[1] != p[0]]
    assert not wrong, pairs
    assert all(read == true for true, read in pairs), pairs


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_six_photos_a_sixth_of_a_turn_apart_are_refused_under_a_low_light_with_how_to_retake():
    """Under a light 42 deg high, 6 photos per face a sixth of a turn apart do not separate the
    faces (a coin between two photos' turns looks like neither); the refusal says to take 12, a
    clock-hour apart - and 12 such photos train the ring."""
    cfg = heldout.SETS["tune-relief"]
    seed = 1822388060   # a tune-relief ring lit from 173 deg, 42 deg high
    spec, _ = heldout.make(seed, None, cfg)
    assert spec["lighting"]["light_elev_deg"] < 45
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    with pytest.raises(UserError, match="take 12 photos per face, turning the coin a clock-hour"):
        bench.ring_model(spec, seed, rm, n=6)
    assert bench.ring_model(spec, seed, rm, n=12).report["loo_errors"] == 0


def _sealed6_refused_ring():
    """sealed-6's ring whose 4th heads photo was refused (opened): 4K, maroon layout, a coin lying
    flat across the edge of a printed letter close to its colour."""
    seed = 2450304478
    spec, expect, rm, _ = vcache.scene(seed, None, heldout.SETS["sealed-6"])   # made once per session
    return seed, spec, expect, rm


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_a_coin_across_a_printed_edge_of_its_colour_trains_and_the_ring_reads():
    """The photo refused in sealed-6 (its outline fit no circle, fit error 1.9, axes 48 x 34)
    now measures as the round coin it is (detect._round_outline): the ring trains from all 24
    photos and its model calls that ring's spin right."""
    from ringctl.vision import faceid
    seed, spec, expect, rm = _sealed6_refused_ring()
    photos = vcache.ring_training_frames(spec, seed, "heads", 12)
    blob = faceid.training_coin(photos[3], rm, "heads#3")
    assert abs(blob.axes[0] / rm.coin_radius_px - 1) < 0.05 and blob.axes[1] / blob.axes[0] > 0.97
    assert blob.fit_err < 0.5 and blob.extra["first_fit_err"] > 1.5
    # bench.ring_model (12 photos per face in the ring, faceid.train), its heads photos the ones
    # just checked rather than the same 12 rendered again
    model = vcache.ring_model(spec, seed, rm)
    assert model.report["loo_errors"] == 0
    v = judge.classify(heldout.render_frame(spec, seed), rm, model)
    assert expect in ("heads", "tails", "odds") and v["result"] == expect, v


def _paint(img, rm, shape, colour):
    """`img` with a coin-coloured object of `shape` ("square": a rounded square as wide as a coin;
    "bitten": a coin-sized disc with a straight cut half way to its centre) painted in the ring,
    shaded and blurred like the renderer's objects."""
    r = rm.coin_radius_px
    c = np.array(rm.center) + (0.3 * rm.radius, -0.2 * rm.radius)
    mask = np.zeros(img.shape[:2], np.uint8)
    s = 16   # sub-pixel drawing
    if shape == "square":
        h = 0.9 * r
        box = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) + c
        cv2.fillPoly(mask, [np.round(box * s).astype(np.int32)], 255, cv2.LINE_AA, 4)
    else:
        t = np.linspace(-np.pi / 6, 7 * np.pi / 6, 200)   # the arc; the chord closes it at 0.5 r
        pts = c + r * np.stack([np.cos(t), np.sin(t)], 1)
        cv2.fillPoly(mask, [np.round(pts * s).astype(np.int32)], 255, cv2.LINE_AA, 4)
    a = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 0.8)[..., None]
    grain = np.random.default_rng(5).normal(1, 0.05, img.shape[:2])[..., None]
    out = img * (1 - a) + np.array(colour, np.float32) * grain * a
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("shape,says", [("square", "could not fit a clean round outline"),
                                        ("bitten", "not lying flat")])
def test_a_coin_coloured_object_that_is_not_round_is_still_refused_with_what_to_do(shape, says):
    """Something coin-sized and coin-coloured that is not round fits no circle, and training
    refuses it saying what to do: a rounded square (no circle through most of its outline: the
    round-outline search leaves it as it was) as an outline that is not round; a disc with a
    straight cut half way to its centre (an ellipse fits it, 47 x 38 px) as a coin not lying flat."""
    from ringctl.vision import faceid
    seed, spec, _, rm = _sealed6_refused_ring()
    empty, _ = render.render_scene(dict(heldout._render_spec(spec), coins=[], chips=[]), np.random.default_rng(9))
    photo = heldout.post(empty, dict(spec, _post=dict(spec["_post"], motion=None)))   # the ring, no coin
    img = _paint(photo, rm, shape, spec["coin_style"]["color"])
    with pytest.raises(faceid.TrainingPhotoError) as err:
        faceid.training_coin(img, rm, "heads#0")
    assert says in str(err.value) and "retake" in str(err.value)


def test_a_coin_mostly_on_print_of_its_colour_trains_measured_whole():
    """sealed-8 (opened), one of its rings refused 13 of its 24 training photos. In its first heads
    photo the coin lies mostly on a printed box of its colour: only a sliver (0.14 coin areas)
    stands out from the empty layout, and the photo was refused ("found 0 coin-like objects").
    Measured again near a coin-sized circle through that sliver's arc, each ray against its own
    faint contrast (`detect._round_outline` now that the ring is calibrated right on its print,
    `detect._recentred` when it was not), it is the round coin it is: accepted, measured at the
    size the scene draws it (5%) and round. The coin finder before either change refuses it."""
    from ringctl.vision import faceid
    seed = 3638242149
    spec, _ = heldout.make(seed, None, heldout.SETS["sealed-8"])
    assert spec.get("_artwork")
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    [photo] = heldout.ring_training_frames(spec, seed, "heads", 1)
    blob = faceid.training_coin(photo, rm, "heads#0")
    seen = blob.extra.get("seen_area_coins", blob.area_coins)
    assert (blob.extra.get("recentred") or blob.extra.get("remeasured")) and seen < 0.3, blob.extra
    assert abs(np.mean(blob.axes) / spec["_coin_r"] - 1) < 0.05 and blob.axes[1] / blob.axes[0] >= judge.FLAT_RATIO


def test_a_coin_across_print_of_its_colour_trains_found_by_its_size_and_nothing_else_slips_in():
    """edge-tune (the tuning family of coins laid across print of their colour): in this ring the
    coin finder refused 7 of the 12 heads photos (part of a coin, no clean outline, "not lying
    flat"). Training knows one coin of the calibrated size lies in an empty ring: the circle of
    that size through its rim finds each (`faceid._coin_of_size`), measured within 0.08 coin
    radii of where the photo has it. A coin-coloured object beside it is still refused."""
    from ringctl.vision import faceid
    seed = 3210010690
    cfg = heldout.SETS["edge-tune"]
    spec, _ = heldout.make(seed, None, cfg)
    assert spec.get("_artwork")
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    coins = []
    photos = heldout.ring_training_frames(spec, seed, "heads", faceid.RECOMMENDED_PHOTOS, coins=coins)
    inv = cv2.invertAffineTransform(rm.to_plane)
    for k, (img, coin) in enumerate(zip(photos, coins)):
        b = faceid.training_coin(img, rm, f"heads#{k}")
        at = inv[:, :2] @ np.array(b.plane_center) + inv[:, 2]
        assert np.hypot(*(at - coin["center_px"])) < 0.08 * coin["radius_px"], (k, at, coin["center_px"])
        assert abs(b.axes[0] / coin["radius_px"] - 1) < 0.06
    # something else in the ring with the coin: a coin-coloured disc a few radii away
    img = photos[1].copy()
    c = np.array(coins[1]["center_px"])
    away = c + 4 * coins[1]["radius_px"] * (np.array(rm.center) - c) / np.hypot(*(np.array(rm.center) - c))
    cv2.circle(img, tuple(int(v) for v in away), int(coins[1]["radius_px"]), spec["coin_style"]["color"], -1, cv2.LINE_AA)
    with pytest.raises(faceid.TrainingPhotoError, match="other objects in the ring"):
        faceid.training_coin(img, rm, "heads#1")
