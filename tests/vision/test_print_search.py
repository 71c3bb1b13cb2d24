"""A coin that does not stand out from the empty ring at all (issue 12): lying on print of its own
colour it shows nothing in the detection-scale difference, so the judge, finding fewer than two
coins and nothing else amiss on a ring printed in the coin's colour, looks for it by its own rim
and face texture (detect.find_on_print). Found, it is judged as any coin (never a void: it
carries extra["textured"]); where no coin lies the search finds none."""
import numpy as np
import pytest

from ringctl.sim import heldout
from ringctl.vision import balance, detect, faceid, judge, shade, viewcal, views
from ringctl.vision.views import judge_view
from vcache import heldout_model, scene

CFG = heldout.SETS["edge-tune"]
# drawn valid in edge-tune: one coin on a wide band of ink of its colour (1080p 28 px and 4K 40 px
# coins); before the search both were "unsure: 1 coin found ... (parts of the layout are the
# coin's colour: a coin lying there may not stand out)"
HIDDEN = (818293780, 1182067545)
# edge-tune rings printed in the coin's colour, 1080p; on 292819878 a printed circle of the coin's
# size made a clean outline 0.45 from the coin's colour, which only the colour test drops.
# (3767054407, whose print covered 0.08 of the layout, left: since the site model is trained at an
# exposure where its coin does not clip, faceid.CLIPPED, its colour no longer matches that print)
PRINTED = (3210010690, 456984185, 292819878)


@pytest.fixture(scope="module")
def model():
    return heldout_model(CFG)


def _played(seed, kind="valid"):
    spec, expect, rm, img = scene(seed, kind, CFG)
    return spec, expect, rm, img


@pytest.mark.parametrize("seed", HIDDEN)
def test_a_coin_that_does_not_stand_out_from_its_print_is_found_and_called(model, seed):
    spec, expect, rm, img = _played(seed)
    assert judge.may_hide(rm, model)
    blobs = detect.find_blobs(img, rm, skip_chroma=model.chroma)
    more = detect.find_on_print(img, rm, judge._hiding_places(rm, model), blobs, model.chroma, judge.PRINT_SEARCH_COLOUR,
                                judge.PRINT_SEARCH_NEED)
    # the one found lies where a coin of the scene lies, of its size
    truth = [np.array(c["center_px"]) for c in spec["coins"]]
    assert len(more) == 1
    d = min(np.hypot(*(np.array(more[0].center) - t)) for t in truth)
    assert d < 0.2 * rm.coin_radius_px and abs(more[0].axes[0] / rm.coin_radius_px - 1) < 0.1
    assert more[0].extra["textured"] and more[0].extra["on_print"] > 0
    v = judge.classify(img, rm, model)
    assert v["result"] == expect, v["reasons"]
    assert len(v["coins"]) == 2 and all(c["flat"] and c["inside"] for c in v["coins"])


@pytest.mark.parametrize("seed", HIDDEN[:1])
def test_the_live_judge_looks_on_print_too(model, seed):
    # the live path judges crops round what differs from the empty ring: a coin that differs in
    # nothing lies in no crop, so the view's judge looks over the whole frame
    spec, expect, rm, img = _played(seed)
    v = judge_view(img, viewcal.CameraView("A", np.eye(3), rm), model)
    assert v["result"] == expect and v["crops"] == 1, v["reasons"]


def test_what_the_search_finds_must_read_as_a_face_by_the_first_weighing(model, monkeypatch):
    # the outline found on print is a coin only if its face reads by the first weighing: the second,
    # within the relit drawings under a far lower lamp (faceid.FaceModel.read), is for coins, not
    # for telling a coin from print that makes a round outline of its colour
    spec, expect, rm, img = _played(HIDDEN[0])
    weighs, read = [], faceid.FaceModel.read

    def spy(self, feat, coin_lean=None, weigh_low=True):
        weighs.append(weigh_low)
        return read(self, feat, coin_lean, weigh_low)
    monkeypatch.setattr(faceid.FaceModel, "read", spy)
    assert judge.classify(img, rm, model)["result"] == expect
    assert weighs.count(False) == 1, weighs   # the one outline the search found


@pytest.mark.parametrize("seed", PRINTED)
def test_no_coin_is_found_on_print_where_none_lies(model, seed):
    # the ring as play shows it (its own noise, shake and JPEG), no coins on it: the search
    # finds nothing and the call stays the boxer's
    spec, _ = heldout.make(seed, "valid", CFG)
    _, _, rm, _ = scene(seed, "valid", CFG)
    assert judge.may_hide(rm, model)
    img = heldout.render_frame(dict(spec, coins=[]), seed)
    assert detect.find_on_print(img, rm, judge._hiding_places(rm, model), [], model.chroma, judge.PRINT_SEARCH_COLOUR,
                                judge.PRINT_SEARCH_NEED, want=detect.PRINT_SEARCH_TOP) == []
    v = judge.classify(img, rm, model)
    assert v["result"] == "unsure" and v["coins"] == [] and "0 coins found" in v["reasons"][0]


def test_one_coin_on_print_stays_the_boxers_call(model):
    for seed in PRINTED:
        spec, expect, rm, img = _played(seed, "one")
        v = judge.classify(img, rm, model)
        assert expect == "unsure" and v["result"] == "unsure", (seed, v["reasons"])
        assert len(v["coins"]) <= 1


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_an_outline_print_makes_of_the_coins_colour_is_no_coin_unless_its_face_reads():
    # edge-4k, the ring re-rendered without coins: the ink inside a dark letter's round end makes
    # a clean round outline of the coin's size and colour (0.083 from it); its face does not read,
    # so the judge finds no coin
    cfg = heldout.SETS["edge-4k"]
    seed = 4225357673
    spec, _ = heldout.make(seed, "valid", cfg)
    _, _, rm, _ = scene(seed, "valid", cfg)
    m = heldout_model(cfg)
    img = heldout.render_frame(dict(spec, coins=[]), seed)
    outlines = detect.find_on_print(img, rm, judge._hiding_places(rm, m), [], m.chroma, judge.PRINT_SEARCH_COLOUR,
                                    judge.PRINT_SEARCH_NEED)
    assert len(outlines) == 1   # where no coin lies
    v = judge.classify(img, rm, m)
    assert v["result"] == "unsure" and v["coins"] == [], v["reasons"]


def test_a_coin_seen_only_in_part_on_its_print_is_found_whole(model):
    # edge-tune 985485456 drawn valid: of one coin only a part stood out from the ink ("coin-
    # coloured object that may or may not be a coin (it lies on print of the coin's colour: it
    # may be part of a coin whose rest the print hides)"); the search, run where that part lies
    # too, finds the whole coin, which holds the part, and the spin is called
    spec, expect, rm, img = _played(985485456)
    _, short, doubts = judge._judged(img, rm, model, detect.find_blobs(img, rm, skip_chroma=model.chroma))
    assert short == 1 and len(doubts) == 1
    v = judge.classify(img, rm, model)
    assert v["result"] == expect, v["reasons"]
    assert len(v["coins"]) == 2 and all(o["kind"] != "doubtful" for o in v.get("others", []))


@pytest.mark.parametrize("name,seed", [("edge-tune", 4237230137), pytest.param("sealed-13", 3098010207, marks=pytest.mark.slow)])
def test_a_tilted_coin_measured_nearly_round_again_on_print_is_not_called(name, seed):
    # a coin tilted 30 deg lying across print: its outline, measured again where print hid part
    # of it, came out 0.959 / 0.951 round, above the flat line (0.945), and the spin was called
    # "heads" (paid wrong calls, found this session); such an outline needs 0.965 to be flat
    cfg = heldout.SETS[name]
    spec, expect, rm, img = scene(seed, "tilted", cfg)
    v = judge.classify(img, rm, heldout_model(cfg))
    assert expect == "no-spin" and v["result"] in ("no-spin", "unsure"), v["reasons"]


def _circle_points(c, a, b, n=72):
    t = np.arange(n) * 2 * np.pi / n
    return np.stack([c[0] + a * np.cos(t), c[1] + b * np.sin(t)], 1)


@pytest.mark.parametrize("pts,flat", [
    (_circle_points((1.5, -1.0), 51.0, 51.0), True),    # the rim grown and shifted by a drop shadow
    (_circle_points((0.0, 0.0), 48.0, 48.0), True),     # the rim itself
    (_circle_points((0.0, 0.0), 48.0, 48.0 * 0.87), False),   # a rim tilted 30 deg
    (_circle_points((0.0, 0.0), 44.0, 44.0), False),    # inside the outline
    (_circle_points((9.0, 0.0), 48.0, 48.0), False),    # far off it
])
def test_the_difference_may_show_a_flat_coins_rim_grown_by_its_shadow_never_a_tilted_one(pts, flat):
    # outline (0, 0) r 48 of a coin of radius 48 (on-circle tolerance 1.2 px)
    assert detect._rim_and_shadow(pts, (0.0, 0.0), 48.0, 48.0, 1.2) is flat


@pytest.mark.parametrize("seed", (pytest.param(1602863869, marks=pytest.mark.slow), 758794766))
def test_a_coin_on_a_layout_of_its_colour_whose_shadow_stands_out_is_found_and_called(seed):
    # sealed-20 (opened), forced valid: the layout jittered to about the coin's colour; the
    # difference alone showed the shadow's edge 2-4.6 px beyond the rim on the side away from the
    # lamp, and the coin found by its texture was refused: "unsure: 1 coin found ..."
    cfg = heldout.SETS["sealed-20"]
    spec, expect, rm, img = scene(seed, "valid", cfg)
    v = judge.classify(img, rm, heldout_model(cfg))
    assert v["result"] == expect, v["reasons"]
    assert len(v["coins"]) == 2


def _at(*deg):
    t = np.radians(deg)
    return np.stack([np.cos(t), np.sin(t)], 1)


@pytest.mark.parametrize("v,one", [
    (_at(200, 240, 280, 320), True),       # a drop shadow away from the lamp
    (_at(10), True),
    (_at(0, 179), True),                   # just within half a turn
    (_at(-10, 0, 10, 170, 180, 190), False),   # both ends of a tilted coin's long axis
    (_at(0, 120, 240), False),             # all round
])
def test_a_drop_shadows_edges_lie_on_one_side_of_the_coin(v, one):
    assert detect._within_half_turn(v) is one


def test_a_coin_half_off_a_box_of_its_colour_whose_shadow_edges_the_rest_is_found_and_called():
    # sealed-56 (opened) 3361331566, drawn valid: the heads coin lies across the top of a box of its
    # colour on a dark layout. Found by its texture, its rim shows all along the box, and off it,
    # on the dark cloth, the difference's edge is its drop shadow, 2.5-3.3 px beyond the circle:
    # those rays left an arc of 64 deg with no edge on the circle and no print beyond, and the coin
    # was refused ("unsure: 1 coin found ..."). Now they cover their arc (one side of the circle
    # only), the outline is fitted through the rim alone, and no rim inside the circle may refuse it
    cfg = heldout.SETS["sealed-56"]
    spec, expect, rm, img = scene(3361331566, None, cfg)   # as drawn (a valid spin)
    m = heldout_model(cfg)
    v = judge.classify(img, rm, m)
    assert expect == "odds" and v["result"] == expect, v["reasons"]
    heads = np.array(spec["coins"][1]["center_px"])
    # looked for as classify looks (in its balanced frame, beside the objects it did not doubt)
    img = shade.lifted(balance.balanced(img, rm)[0], rm)
    blobs = detect.find_blobs(img, rm, skip_chroma=m.chroma)
    _, short, doubts = judge._judged(img, rm, m, blobs)
    assert short == 1
    seen = [b for b in blobs if not any(b is d for d in doubts)]
    more = detect.find_on_print(img, rm, judge._hiding_places(rm, m), seen, m.chroma, judge.PRINT_SEARCH_COLOUR,
                                judge.PRINT_SEARCH_NEED, want=1)
    assert len(more) == 1 and np.hypot(*(np.array(detect.seen_center(more[0], rm)) - heads)) < 0.2 * rm.coin_radius_px
    # (its rims inside the circle looked for as on hidden arcs, and judged as such an outline)
    assert more[0].extra["shadow_rays"] >= 5 and "arcs_hidden" in more[0].extra
    assert more[0].axes[1] / more[0].axes[0] >= judge.DENTED_FLAT


@pytest.mark.parametrize("seed", (1468260707, 1248951051))
def test_the_rest_of_a_coin_found_by_its_texture_is_part_of_it(seed):
    # sealed-20 (opened), forced valid: a coin across print of its colour found by its texture from
    # the part of it that stood out (detect._textured); another part, centred inside that outline,
    # was left "object in the ring that is not a coin (it lies on print ...)" and the spin unsure
    cfg = heldout.SETS["sealed-20"]
    spec, expect, rm, img = scene(seed, "valid", cfg)
    m = heldout_model(cfg)
    blobs = [b for b in detect.find_blobs(img, rm, skip_chroma=m.chroma) if b.extra.get("in_ring_coins", 0) > 0]
    assert len(blobs) == 2 and any("textured" in b.extra and b.extra.get("pieces") for b in blobs)
    v = judge.classify(img, rm, m)
    assert v["result"] == expect, v["reasons"]


def test_a_sliver_of_a_coin_joined_to_ink_does_not_keep_the_search_away():
    # sealed-18 (opened) 3058423945, forced valid: a coin on print of its colour stood out as two
    # parts, one of them joined to a printed line ("object in the ring that is not a coin (it lies
    # on print ...)"); that part was kept as an object found, so the search for the coin looked
    # nowhere near it and the spin stayed unsure
    cfg = heldout.SETS["sealed-18"]
    spec, expect, rm, img = scene(3058423945, "valid", cfg)
    v = judge.classify(img, rm, heldout_model(cfg))
    assert v["result"] == expect, v["reasons"]
    assert len(v["coins"]) == 2 and not [o for o in v.get("others", []) if o["inside"]]


def test_a_coin_against_the_wall_on_a_layout_of_its_colour_is_found_where_it_lies():
    # sealed-38 (opened) 1031180732, valid at 4K: the layout all about the coin's colour, one coin
    # lying 19 px from the wall's foot. The wall's foot, sharp in the frame and blurred in the
    # stored empty ring, showed as an arc of texture that drew the search's circle 20 px towards
    # the wall, where the coin's outline was refused: "unsure: 1 coin found ..."
    cfg = heldout.SETS["sealed-38"]
    spec, expect, rm, img = scene(1031180732, "valid", cfg)
    m = heldout_model(cfg)
    wall = np.array(spec["coins"][1]["center_px"])
    more = detect.find_on_print(img, rm, judge._hiding_places(rm, m), detect.find_blobs(img, rm, skip_chroma=m.chroma),
                                m.chroma, judge.PRINT_SEARCH_COLOUR, judge.PRINT_SEARCH_NEED)
    assert any(np.hypot(*(np.array(b.center) - wall)) < 0.2 * rm.coin_radius_px for b in more)
    v = judge.classify(img, rm, m)
    assert v["result"] == expect, v["reasons"]
    assert len(v["coins"]) == 2 and all(c["flat"] and c["inside"] for c in v["coins"])


def test_a_coin_across_lines_of_its_colour_is_measured_whole_where_the_lines_hide_its_rim():
    # sealed-39 (opened) 3849006545, valid: a coin lying across three printed lines of about its
    # colour stood out as two pieces; its texture found the right circle, but the lines hid its
    # rim on 9 of the 36 arcs and the outline was refused ("coin-coloured object of the wrong
    # size"). Those arcs lie where the empty ring is printed in the coin's colour just beyond the
    # rim: 6 of them count, and it is measured whole (in its own ring's training, called)
    cfg = heldout.SETS["sealed-39"]
    spec, expect, rm, img = scene(3849006545, "valid", cfg)
    m = heldout_model(cfg)
    truth = np.array(spec["coins"][0]["center_px"])
    got = [b for b in detect.find_blobs(img, rm, skip_chroma=m.chroma)
           if np.hypot(*(np.array(b.center) - truth)) < rm.coin_radius_px]
    assert len(got) == 1
    b = got[0]
    assert b.extra["textured"] and b.extra["arcs_hidden"] > 0
    assert np.hypot(*(rm.image_points([b.plane_center])[0] - truth)) < 0.1 * rm.coin_radius_px
    assert b.axes[1] / b.axes[0] > judge.FLAT_RATIO and abs(b.axes[0] / rm.coin_radius_px - 1) < 0.05
    # the same circle 200 px up, on plain layout: no arc is printed
    up = np.array(b.plane_center) - (0.0, 200.0)
    assert detect._printed_arcs(rm, up, float(np.mean(b.axes)), np.arange(27), m.chroma).sum() == 0


def test_a_tilted_coin_whose_print_hides_arcs_of_its_rim_is_not_measured_round(monkeypatch):
    # sealed-39 (opened) 1273470481, forced tilted: the tilted coin (26 deg) lies on lines of its
    # colour. With the arcs they hide counted, its texture gave an outline 0.95 round; but 8 of
    # the rays off that circle found its rim inside it (its short sides), and more than
    # HIDDEN_INSIDE_MAX refuse the outline
    cfg = heldout.SETS["sealed-39"]
    spec, expect, rm, img = scene(1273470481, "tilted", cfg)
    m = heldout_model(cfg)
    tilted = np.array(spec["coins"][1]["center_px"])
    assert spec["coins"][1]["tilt_deg"] > 25

    def outline():
        got = [b for b in detect.find_blobs(img, rm, skip_chroma=m.chroma)
               if np.hypot(*(np.array(b.center) - tilted)) < rm.coin_radius_px]
        assert len(got) == 1
        return got[0]
    b = outline()
    assert "arcs_hidden" not in b.extra and b.axes[1] / b.axes[0] < judge.TILT_RATIO
    v = judge.classify(img, rm, m)
    assert v["result"] in ("no-spin", "unsure"), v["reasons"]
    # without the rule the outline found is round enough to be judged on its roundness alone
    monkeypatch.setattr(detect, "HIDDEN_INSIDE_MAX", 99)
    b = outline()
    assert b.extra.get("arcs_hidden") and judge.FLAT_RATIO < b.axes[1] / b.axes[0] < judge.DENTED_FLAT


def test_an_outline_with_arcs_hidden_is_flat_only_from_the_dented_rule():
    # a tilted coin's outline with arcs hidden by print came out up to 0.96 round (edge-tune
    # 2549244875, 25 deg), over RESCUED_FLAT: such an outline is flat only from DENTED_FLAT. The
    # flat coin of sealed-39 3849006545, its outline made 0.966 round
    cfg = heldout.SETS["sealed-39"]
    spec, expect, rm, img = scene(3849006545, "valid", cfg)
    m = heldout_model(cfg)
    blobs = detect.find_blobs(img, rm, skip_chroma=m.chroma)
    b = [b for b in blobs if "arcs_hidden" in b.extra][0]
    b.axes = (b.axes[0], 0.966 * b.axes[0])
    assert judge.RESCUED_FLAT < 0.966 < judge.DENTED_FLAT
    out, _, _ = judge._judged(img, rm, m, blobs)
    assert out["result"] == "unsure"
    assert any("cannot tell whether a coin lies flat" in r and "did not stand out" in r for r in out["reasons"]), \
        out["reasons"]


@pytest.mark.parametrize("change", [None, ("HIDDEN_MAX_GAP", detect.ROUND_MAX_GAP), ("HIDDEN_ARC_OUT", (1.15,)),
                                    ("HIDDEN_SHADOW", 0.0)])
def test_a_coin_half_on_a_box_of_its_colour_is_measured_whole_across_the_box(monkeypatch, change):
    # sealed-41 (opened) 3596520664, valid, 4K: a zinc coin lies half on a pale grey box and
    # against a letter's stroke, both of about its colour. Its texture found the right circle, but
    # its rim showed no edge along 74 deg in one piece (over ROUND_MAX_GAP) and the box's and
    # stroke's arcs lay within 1.1 radii of it; along the box the difference's edge was the coin's
    # drop shadow on the box, 4-5 px beyond. Each of the three rules is needed: without any one of
    # them the coin is "coin-coloured object of the wrong size" and the spin unsure
    cfg = heldout.SETS["sealed-41"]
    spec, expect, rm, img = scene(3596520664, None, cfg)
    m = heldout_model(cfg)
    if change:
        monkeypatch.setattr(detect, *change)
    v = judge.classify(img, rm, m)
    if change:
        assert v["result"] == "unsure", v["reasons"]
        return
    assert v["result"] == expect == "odds", v["reasons"]
    truth = spec["coins"][0]
    got = min(v["coins"], key=lambda c: np.hypot(*np.subtract(c["center"], truth["center_px"])))
    assert np.hypot(*np.subtract(got["center"], truth["center_px"])) < 2.0
    assert abs(got["radius"] / truth["radius_px"] - 1) < 0.03 and got["flat"] and got["face"] == truth["face"]


@pytest.mark.parametrize("gap", [None, 75])
def test_a_coin_whose_rim_a_box_and_letters_hide_along_80_deg_is_measured_whole(monkeypatch, gap):
    # sealed-41 (opened) 3539133754, valid, 4K: both zinc coins lie across pale letters and a
    # pale box of about their colour; each stood out only in slivers ("0 coins found"). One's
    # rim shows no edge along 80 deg in one piece, all of it hidden by that print: it is measured
    # whole (HIDDEN_MAX_GAP; with 75 deg allowed it is not). The other's texture outline is
    # right, but 7 of the first-pass edges of the sliver it holds lie 1.5-6.9 px beyond its rim
    # (its drop shadow): it stays a doubtful object. Since the forty-fifth session a black chip in
    # doubt on the floor no longer keeps the print search away: it finds that coin whole, and the
    # spin is called
    # (Since the fifty-second session 3 rays of its drop shadow on plain layout cover part of that
    # gap, 53 deg is left, and the coin is measured whole with 75 deg allowed too: the rule is
    # looked at here without them, SHADOW_COVER 0)
    cfg = heldout.SETS["sealed-41"]
    spec, expect, rm, img = scene(3539133754, None, cfg)
    m = heldout_model(cfg)
    monkeypatch.setattr(detect, "SHADOW_COVER", 0.0)
    if gap:
        monkeypatch.setattr(detect, "HIDDEN_MAX_GAP", gap)
    truth = spec["coins"][0]
    got = [b for b in detect.find_blobs(img, rm, skip_chroma=m.chroma) if b.axes is not None and
           np.hypot(*np.subtract(detect.seen_center(b, rm), truth["center_px"])) < 0.3 * truth["radius_px"]]
    whole = [b for b in got if abs(b.axes[0] / truth["radius_px"] - 1) < 0.03 and b.extra.get("gap_hidden")]
    if gap:
        assert not whole, [(b.axes, b.extra) for b in got]
        return
    assert len(whole) == 1 and 75 < whole[0].extra["gap_hidden"] <= detect.HIDDEN_MAX_GAP
    assert whole[0].axes[1] / whole[0].axes[0] >= judge.DENTED_FLAT
    v = judge.classify(img, rm, m)
    assert v["result"] == expect == "odds" and len(v["coins"]) == 2, v["reasons"]
    for c in spec["coins"]:
        assert any(np.hypot(*np.subtract(f["center"], c["center_px"])) < 2.0 and f["face"] == c["face"]
                   for f in v["coins"]), v["coins"]


def test_a_tilted_coin_whose_sliver_reaches_beyond_a_round_texture_outline_is_not_called():
    # edge-tune 1650403162, forced tilted (34 deg): letting what stood out reach the drop shadow's
    # distance beyond an outline found by its texture (tried in the thirty-eighth session, taken
    # out) gave this coin an outline 0.961 round, 0.004 short of RESCUED_FLAT; the spin must never
    # be called, and no outline found by its texture may make it nearly round
    spec, expect, rm, img = _played(1650403162, "tilted")
    assert spec["coins"][1]["tilt_deg"] > 30
    m = heldout_model(CFG)
    tilted = np.array(spec["coins"][1]["center_px"])
    near = [b for b in detect.find_blobs(img, rm, skip_chroma=m.chroma) if b.axes is not None and
            np.hypot(*(np.array(detect.seen_center(b, rm)) - tilted)) < 0.3 * rm.coin_radius_px]
    assert not any("textured" in b.extra and b.axes[1] / b.axes[0] > judge.FLAT_RATIO for b in near), \
        [(b.axes, b.extra) for b in near]
    v = judge.classify(img, rm, m)
    assert v["result"] in ("no-spin", "unsure"), v["reasons"]
    assert not any(c["flat"] and np.hypot(*(np.array(c["center"]) - tilted)) < 0.3 * rm.coin_radius_px
                   for c in v["coins"]), v["coins"]


def test_an_object_in_doubt_outside_does_not_keep_the_search_from_the_ring():
    # sealed-49 3175999918 (opened, forty-fifth session), as drawn: the heads coin lay half on a box
    # printed in about its colour and was not found; a black chip on the floor, measured badly,
    # "may or may not be a coin". That doubt outside kept the search from looking on the print in
    # the ring; now the search finds the coin, the spin is judged again with both coins in the
    # ring, and the chip outside is no concern: one head and one tail
    cfg = heldout.SETS["sealed-49"]
    spec, expect, rm, img = scene(3175999918, None, cfg)
    assert spec["kind"] == "valid" and expect == "odds"
    v = judge.classify(img, rm, heldout_model(cfg))
    assert v["result"] == "odds" and len(v["coins"]) == 2, v["reasons"]
    for c in spec["coins"]:   # each coin where it lies, its face read right
        assert any(np.hypot(*np.subtract(f["center"], c["center_px"])) < 2.0 and f["face"] == c["face"]
                   for f in v["coins"]), v["coins"]
    assert [o["kind"] for o in v["others"]] == ["doubtful"] and not v["others"][0]["inside"]


def test_a_view_in_crops_counts_a_doubt_outside_only_with_fewer_than_two_coins(monkeypatch):
    # the same spin on the live path, its view judged in crops (each counting its own coins in
    # the ring): the crop of the chip on the floor says it "may or may not be a coin", with no coin
    # of its own; the crops together hold both coins inside, so that doubt does not count
    cfg = heldout.SETS["sealed-49"]
    spec, expect, rm, img = scene(3175999918, None, cfg)
    monkeypatch.setattr(views, "WHOLE_VIEW_SHARE", 1.0)   # judged in crops, as a view with less in it is
    v = views.judge_view(img, viewcal.CameraView("A", np.eye(3), rm), heldout_model(cfg))
    assert v["crops"] > 1 and v["result"] == expect == "odds", v["reasons"]
