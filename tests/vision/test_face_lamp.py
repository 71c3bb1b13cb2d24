"""vision.faceid with a model trained under one lamp and used under another (issue 12): the
coin-wide lean of the edges is no match, a lamp higher than the training photos' needs a larger
margin, and an unread coin says why and what to do. A small subset of `ring bench face-light`."""
import cv2
import numpy as np
import pytest

from ringctl.sim import face_light_bench as sweep, heldout, vision_bench
from ringctl.vision import faceid, judge, ring as ringmod
import vcache
from visionkit import measured_outlines, relief_patch

N = 2 * faceid.PATCH_R + 1


def _smeared(seed, ang, length=9):
    """A random texture (no coin face at all) smeared along one direction, as camera shake does."""
    rng = np.random.default_rng(seed)
    im = cv2.GaussianBlur(rng.normal(128, 40, (N, N)).astype(np.float32), (0, 0), 1.0)
    k = np.zeros((length, length), np.float32)
    c = length // 2
    d = np.array([np.cos(np.deg2rad(ang)), np.sin(np.deg2rad(ang))]) * length / 2
    cv2.line(k, (int(round(c - d[0])), int(round(c - d[1]))), (int(round(c + d[0])), int(round(c + d[1]))),
             1.0, 1, cv2.LINE_AA)
    return np.clip(cv2.filter2D(im, -1, k / k.sum()), 0, 255).astype(np.uint8)


def test_edges_leaning_one_way_are_no_match():
    """Two unrelated textures whose edges both lean one way (each smeared along a line) matched
    0.29-0.42 at their best rotation - above the score a face needs (0.28) - on the lean alone;
    with the coin-wide lean taken out of the features they match < 0.2, as unrelated coins do."""
    scores = []
    for i in range(10):
        a, b = _smeared(2 * i, 10 * i), _smeared(2 * i + 1, 10 * i + 70)
        fa, fb = faceid.features(a), faceid.features(b)
        scores.append(faceid.best_match(faceid._spectrum(fa), faceid._spectrum(fb[None]), float(fa.size))[0])
        assert faceid.lean(a) > 0.4 and faceid.lean(b) > 0.4
    assert max(scores) < 0.2, np.round(scores, 3)


@pytest.fixture(scope="module")
def low_lamp():
    """`ring bench face-light`'s `relief-2` training site under a lamp 35 deg high."""
    return sweep.site_model("relief-2", 35)


def test_a_low_lamp_model_never_misreads_a_coin_under_a_high_lamp(low_lamp):
    """The sweep's scene where the reader before misread: a tails coin (85 px, 4K) lit 76 deg high,
    read heads by the model trained under a 35 deg lamp. Every coin of the scene is read right or
    left unsure, and the spin is never called wrong."""
    site, model = low_lamp
    cfg = sweep.play_cfg("relief-2")
    seed = 3224209072
    spec, _ = heldout.make(seed, "valid", cfg)
    assert spec["lighting"]["light_elev_deg"] > 70 and spec["size"] == [3840, 2160]
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    v = judge.classify(heldout.render_frame(spec, seed), rm, model)
    reads = sweep.coin_reads(v, spec)
    assert all(read in (None, true) for true, read in reads), reads
    truth = reads[0][0] if reads[0][0] == reads[1][0] else "odds"
    assert v["result"] in (truth, "unsure"), v


def test_the_model_keeps_its_photos_lean_and_a_higher_lamp_needs_more_margin(low_lamp, tmp_path):
    """Each face's photos' lean, and the light's own lean fitted from them (the design's taken
    out), are kept in the model (and its file); a coin whose light leans far less than the photos'
    (a higher lamp) needs a margin growing to HIGHER_LAMP_MARGIN, a coin like them the photos' own."""
    _, model = low_lamp
    for face in ("heads", "tails"):
        lo, med, hi = model.report["lean"][face]
        assert 0 <= lo <= med <= hi <= 1 and med > 0.15   # a low lamp: the photos' edges lean
        light = model.report["light_lean"][face]["light"]
        assert light > 0.25 and model.report["light_lean"][face]["rms"] <= faceid.LIGHT_FIT_RMS
        assert model.lamp(light, face) == (model.min_margin, "")
        need_far, way = model.lamp(0.2 * light, face)
        assert way == "higher" and need_far == pytest.approx(max(model.min_margin, faceid.HIGHER_LAMP_MARGIN))
        assert model.min_margin < model.lamp(0.6 * light, face)[0] < need_far
        assert model.lamp(3 * light, face)[1] == "lower"
    path = tmp_path / "m.json"
    model.save(path)
    back = faceid.FaceModel.load(path)
    assert back.report["lean"] == model.report["lean"] and back.report["light_lean"] == model.report["light_lean"]
    assert back.report["template_turns"] == model.report["template_turns"]


def test_the_lights_lean_is_fitted_apart_from_the_designs():
    """light_fit: photos of a face at turns round the coin, each leaning as the design's own lean
    turned with the coin plus the lamp's, give both back; turns that do not spread give none."""
    rng = np.random.default_rng(4)
    design, light = 0.3 * np.exp(0.5j), 0.12 * np.exp(1.2j)
    turns = np.arange(10) * 36 + rng.uniform(-8, 8, 10)
    vectors = design * np.exp(-2j * np.deg2rad(turns)) + light + rng.normal(0, 0.01, (10, 2)) @ [1, 1j]
    d, l, rms = faceid.light_fit(vectors, turns)
    assert abs(d - design) < 0.02 and abs(l - light) < 0.02 and rms < 0.03
    assert faceid.light_fit(vectors[:5], np.full(5, 40.0)) is None


def test_a_coins_light_is_the_photos_at_any_turn_under_their_lamp(low_lamp):
    """A relief coin under the training lamp (35 deg, its azimuth) at 12 turns: the light's lean
    measured at each, the design's own lean turned to where its best template fits taken out,
    stays near the photos' light lean - which the coin's whole lean does not (it swings with the
    turn as the design's lean and the lamp's add or cancel). Under a lamp 80 deg high it is far
    smaller."""
    site, model = low_lamp
    az = site["lighting"]["light_az_deg"]
    for face in ("heads", "tails"):
        ref = model.report["light_lean"][face]["light"]
        same, high, whole = [], [], []
        for rot in range(0, 360, 30):
            f, v = faceid.features_lean(relief_patch(face, az, 35, rot, design=104))
            same.append(model.coin_light(f, v)[face])
            whole.append(abs(v))
            f, v = faceid.features_lean(relief_patch(face, az, 80, rot, design=104))
            high.append(model.coin_light(f, v)[face])
        assert max(abs(np.array(same) - ref)) < 0.12, (ref, np.round(same, 3))
        assert max(high) < 0.6 * ref, (ref, np.round(high, 3))
        assert np.ptp(same) < np.ptp(whole), (np.round(same, 3), np.round(whole, 3))


def test_a_shaken_coin_under_a_higher_lamp_is_not_misread_where_its_light_is_measured_from_the_other_face():
    """`ring bench face-light`'s relief site trained 40 deg high (its photos' turns not spread
    round the coin: no relit templates), scene 3822568200: a heads coin lit 87 deg high and shaken
    3.4 px, led by tails by 0.150. Its light measured at the turn heads fits (0.19 against the
    photos' 0.39) asked a margin of 0.147, and the light as tails would have it (0.32) none: read
    tails, a wrong face, until the coin's whole lean (0.14: 0.176) counted too and until only a
    registration the relit templates were made from is trusted for the light. The coin is unsure."""
    site, model = sweep.site_model("relief", 40)
    assert "light_lean" not in model.report and model.report["relit_templates"] == 0
    cfg = sweep.play_cfg("relief")
    seed = 3822568200
    spec, _ = heldout.make(seed, "valid", cfg)
    assert spec["lighting"]["light_elev_deg"] > 85 and spec["_post"]["motion"] is not None
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    v = judge.classify(heldout.render_frame(spec, seed), rm, model)
    reads = sweep.coin_reads(v, spec)
    assert all(read in (None, true) for true, read in reads), reads
    assert v["result"] in ("heads", "unsure"), v


@pytest.fixture(scope="module")
def lettered():
    """sealed-18's site (opened): tails a line of lettering, photos ~76 deg high."""
    site, model, _ = vision_bench.site_model(heldout.SETS["sealed-18"])
    return site, model


def test_a_lettered_coins_light_is_measured_at_its_turn(lettered):
    """The lettering leans by itself (its fitted lean 0.41). A tails coin at 12 turns under the
    site's lamp: the light measured at each turn stays near the photos' (0.07), where the coin's
    whole lean is the lettering's (~0.45); the design's lean turned the other way round would
    measure up to ~0.9. Under a lamp 38 deg high the light measures well above the photos' at every
    turn, where the whole lean, the lettering's and the lamp's adding or cancelling, swings from
    near 0 to 0.75 (and so looked, at some turns, like a higher lamp)."""
    site, model = lettered
    az, el = site["lighting"]["light_az_deg"], site["lighting"]["light_elev_deg"]
    ref = model.report["light_lean"]["tails"]["light"]
    med = model.report["lean"]["tails"][1]
    for lamp in (el, 38):
        light, whole = [], []
        for rot in range(0, 360, 30):
            f, v = faceid.features_lean(relief_patch("tails", az, lamp, rot, design=113))
            light.append(model.coin_light(f, v)["tails"])
            whole.append(abs(v))
        light, whole = np.array(light), np.array(whole)
        if lamp == el:
            assert np.all(abs(light - ref) < 0.08) and np.all(whole > 0.3), (np.round(light, 3), np.round(whole, 3))
        else:
            assert np.all(light > 2 * ref), np.round(light, 3)
            assert whole.min() < min(faceid.LEAN_HIGHER * med, med - faceid.LEAN_GAP), np.round(whole, 3)
            assert all(model.lamp(x, "tails")[1] != "higher" for x in light)


def test_a_lettered_face_under_a_low_lamp_is_not_taken_for_a_higher_one(lettered):
    """sealed-18 (opened), scene 259053919 made valid: a tails coin struck with a line of lettering, lit 36 deg
    high and defocused 1.4 px, read by the set's site model (photos 76-81 deg high). The lettering
    leans by itself; under the low lamp its lean and the lamp's cancelled (the coin's lean 0.18,
    the photos' 0.42), so the coin looked lit by a higher lamp and needed a margin of 0.16 it did
    not have (0.142): the spin, odds, went to the boxer. With the design's lean taken out the light
    leans 0.59 (the photos' 0.07): no higher lamp, and the spin is called."""
    cfg = heldout.SETS["sealed-18"]
    _, model = lettered
    seed = 259053919
    spec, expect = heldout.make(seed, "valid", cfg)   # the seed's scene made a valid spin, as --kind valid does
    assert expect == "odds" and spec["lighting"]["light_elev_deg"] < 40
    rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
    img = heldout.render_frame(spec, seed)
    v = judge.classify(img, rm, model)
    assert v["result"] == "odds", v["reasons"]
    tails = [c for c in spec["coins"] if c["face"] == "tails"][0]
    balanced, _ = judge.balance.balanced(img, rm)
    for t, b in measured_outlines(img, rm, model, spec):
        if t is tails:
            f, lv = faceid.features_lean(faceid.coin_patch(balanced, rm, b))
            med = model.report["lean"]["tails"][1]   # the coin's whole lean against the photos' says higher
            assert abs(lv) < min(faceid.LEAN_HIGHER * med, med - faceid.LEAN_GAP)
            assert model.lamp(model.coin_light(f, lv)["tails"], "tails")[1] != "higher"
            break
    else:
        raise AssertionError("the tails coin's outline was not measured")


def test_an_unread_coin_lit_unlike_the_training_photos_says_so_and_the_fix(low_lamp):
    """A coin the low-lamp model leaves unread under a much higher lamp: the spin's reason names the
    problem (lit unlike the training photos, a higher lamp) and the fix (train again in the ring)."""
    _, model = low_lamp
    cfg = sweep.play_cfg("relief-2")
    for seed in heldout.set_seeds(cfg, 40):
        spec, _ = heldout.make(seed, "valid", cfg)
        if spec["lighting"]["light_elev_deg"] < 80:
            continue
        rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
        v = judge.classify(heldout.render_frame(spec, seed), rm, model)
        if v["reasons"][0].startswith("unsure: cannot read a coin's face"):
            break
    else:
        pytest.skip("no unread coin under a lamp over 80 deg in the first 40 scenes")
    assert "lit unlike the face model's training photos (a lamp higher" in v["reasons"][0], v["reasons"]
    assert "train the face model again" in v["reasons"][0]


def test_a_model_file_of_version_3_is_refused(low_lamp, tmp_path):
    """Version 4 features (the coin-wide lean taken out): a version 3 file's templates are not
    these, so it is refused with the fix."""
    _, model = low_lamp
    path = tmp_path / "old.json"
    model.save(path)
    path.write_text(path.read_text().replace(f'"version": {faceid.FEATURES_VERSION}', '"version": 3'))
    with pytest.raises(faceid.UserError, match="train it again"):
        faceid.FaceModel.load(path)


@pytest.fixture(scope="module")
def sealed43():
    """sealed-43's site model (opened): a relief portrait and a cup's handle, photographed under the
    site's lamp 76 deg high, as `ring bench vision --train site` trains it."""
    return heldout.SETS["sealed-43"], vcache.heldout_model(heldout.SETS["sealed-43"])


@pytest.mark.parametrize("seed, kind", [(2515059001, None), (4083612463, "valid")])
def test_a_coin_under_a_far_lower_lamp_is_read_within_the_relit_drawings(sealed43, seed, kind):
    """Two valid spins of two tails coins under a lamp 37 or 44 deg high: one coin read, the other
    left unread because a photo of heads, under the site's high lamp, matched it by chance
    (0.26-0.30) nearly as well as the tails drawings under a low lamp (0.31-0.36) and narrowed the
    margin over all. Its lamp is clearly lower than the photos' for both faces, so it is weighed
    once more within the relit drawings alone, by the same floor, margin and cues: read tails,
    the spin called."""
    cfg, model = sealed43
    spec, expect, rm, img = vcache.scene(seed, kind, cfg)
    assert spec["kind"] == "valid" and spec["lighting"]["light_elev_deg"] < 45 and expect == "tails"
    assert judge.classify(img, rm, model)["result"] == "tails"


def _weighed_again(monkeypatch):
    """The faces read by each weighing within the relit drawings alone, as they come."""
    faces = []
    first = faceid.FaceModel._decide

    def decide(self, h, t, picked, families, rot, coin_lean, **kw):
        got = first(self, h, t, picked, families, rot, coin_lean, **kw)
        if min(picked) >= self.n_photos and len(families) == 1:
            faces.append(got[0])
        return got
    monkeypatch.setattr(faceid.FaceModel, "_decide", decide)
    return faces


def test_within_the_relit_drawings_edge_strength_may_say_nothing(sealed43, monkeypatch):
    """sealed-43 1044870605 (two tails, a lamp 50 deg high): one coin leads tails by the drawings
    (0.384 against 0.257), and the photos tell the faces apart by 0.004. Its edge strength favours
    heads there by a hair (0.073 against 0.060) while edge orientation alone gives tails 0.140.
    Under a lamp this much lower than the photos', edge strength is what the light changes most
    (faceid.EDGE_SILENT): read tails, the spin called. Left unread with edge strength asked to carry
    its share (as before the forty-fifth session)."""
    cfg, model = sealed43
    spec, expect, rm, img = vcache.scene(1044870605, None, cfg)
    assert spec["kind"] == "valid" and expect == "tails"
    weighed_again = _weighed_again(monkeypatch)
    assert judge.classify(img, rm, model)["result"] == "tails"
    assert weighed_again == ["tails"], weighed_again
    monkeypatch.setattr(faceid, "EDGE_SILENT", -1.0)   # the rule off: every cue carries its share
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and "a lamp lower than theirs" in v["reasons"][0], v


@pytest.fixture(scope="module")
def sealed48():
    """sealed-48's site model (opened): a relief portrait and a patch of brick wall, photographed
    under the site's lamp 76 deg high (the vision tests' group shares it with test_away_size)."""
    return heldout.SETS["sealed-48"], vcache.heldout_model(heldout.SETS["sealed-48"])


def test_within_the_relit_drawings_edge_strength_against_the_face_keeps_it_unread(sealed48, monkeypatch):
    """sealed-48 2730988457, forced valid (odds, a lamp 47 deg high): the tails coin leads by the
    drawings by 0.164, edge orientation alone by 0.217, but edge strength is against it by 0.054,
    more than a lamp can be blamed for (EDGE_SILENT 0.03): weighed again and left unread, the spin
    goes to the boxer saying its lamp is lower than the training photos' and to train in the ring."""
    cfg, model = sealed48
    spec, expect, rm, img = vcache.scene(2730988457, "valid", cfg)
    assert spec["kind"] == "valid" and expect == "odds"
    weighed_again = _weighed_again(monkeypatch)
    v = judge.classify(img, rm, model)
    assert weighed_again == [None], weighed_again
    assert v["result"] == "unsure" and [c["face"] for c in v["coins"]].count(None) == 1, v
    assert "a lamp lower than theirs" in v["reasons"][0], v["reasons"]
    monkeypatch.setattr(faceid, "EDGE_SILENT", 0.06)   # the rule is what keeps it unread
    assert judge.classify(img, rm, model)["result"] == "odds"


@pytest.fixture(scope="module")
def weighed_again(sealed43):
    """(model, features, lean) of sealed-43 2515059001's coin that only the weighing within the
    relit drawings reads (tails), as the judge measured it."""
    cfg, model = sealed43
    spec, _, rm, img = vcache.scene(2515059001, None, cfg)
    reads = []
    first = faceid.FaceModel.read

    def read(self, feat, coin_lean=None, weigh_low=True):
        reads.append((feat, coin_lean))
        return first(self, feat, coin_lean, weigh_low)
    faceid.FaceModel.read = read
    try:
        judge.classify(img, rm, model)
    finally:
        faceid.FaceModel.read = first
    again = [(f, lean) for f, lean in reads
             if model.read(f, lean)[0] == "tails" and model.read(f, lean, weigh_low=False)[0] is None]
    assert len(again) == 1, len(again)
    return (model,) + again[0]


def test_the_print_search_s_filter_weighs_once(weighed_again):
    """What the print search finds is a coin only if it reads as a face by the first weighing
    (`weigh_low=False`): print can make a clean round outline of the coin's colour, and a coin
    under a far lower lamp read only within the drawings is no proof that such an outline is a
    coin. The coin that the second weighing reads is left unread by the first alone."""
    model, feat, lean = weighed_again
    face, _, h, t = model.read(feat, lean, weigh_low=False)
    assert face is None and model.read(feat, lean)[0] == "tails"
    assert (h, t) == model.scores(feat)   # the scores over all templates, not the drawings'


def test_a_read_within_the_drawings_must_lead_over_all_templates(weighed_again, monkeypatch):
    """The same coin, had the best photo of heads matched it better than any tails template over
    all (the pair over all templates turned round), is not read tails from the drawings alone:
    a face read within one family must be the one that leads over every template too."""
    model, feat, lean = weighed_again
    pairs = faceid.FaceModel._pairs

    def turned(self, f):
        (over_all, *families), rot = pairs(self, f)
        h, t, ch, ct, ih, it = over_all
        return [(t, h, ct, ch, ih, it)] + families, rot
    monkeypatch.setattr(faceid.FaceModel, "_pairs", turned)
    face, _, h, t = model.read(feat, lean)
    assert face is None and h > t, (face, h, t)
