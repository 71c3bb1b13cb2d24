"""vision.faceid's relit templates (issue 12): training photos of one coin under one lamp,
registered by their turns, give each face's shading against the lamp's azimuth relative to the
coin; the face drawn under other azimuths and a lower lamp is read where the photos alone are not."""
import cv2
import numpy as np
import pytest

from ringctl.sim import heldout, vision_bench
from ringctl.vision import faceid
from visionkit import relief_patch


@pytest.fixture(scope="module")
def site_model():
    """The `tune-relief` set's site model: 10 photos per face of a relief coin lit ~76 deg high,
    as `ring bench vision --train site` trains it."""
    site, model, _ = vision_bench.site_model(heldout.SETS["tune-relief"])
    assert site["lighting"]["light_elev_deg"] > 70
    return model


def test_relief_lit_low_is_read_by_a_model_trained_under_a_high_lamp(site_model):
    """72 relief coins lit 36-50 deg high from 12 azimuths: with the relit templates nearly all are
    read, none as the other face (the photos alone read 21 of them: the shading of a relief under a
    low lamp depends on where the lamp stands relative to the coin)."""
    rng = np.random.default_rng(7)
    right = wrong = 0
    for el in (36, 42, 50):
        for az in range(0, 360, 30):
            for face in ("heads", "tails"):
                read = site_model.read(faceid.features(relief_patch(face, az, el, rng.uniform(0, 360))))[0]
                right += read == face
                wrong += read not in (None, face)
    assert wrong == 0
    assert right >= 64, f"{right} of 72 low-lit relief coins read"
    assert site_model.report["relit_templates"] == 2 * (faceid.RELIGHT_TURNS + 1), site_model.report


def test_a_high_lamp_still_reads_and_the_thresholds_are_the_photos(site_model):
    """Under lamps 65-85 deg high every coin is read as before; the score floor and margin are the
    photos' own (leave-one-out), within their fixed bounds: the relit pictures change neither."""
    rng = np.random.default_rng(8)
    for el in (65, 85):
        for az in range(0, 360, 45):
            for face in ("heads", "tails"):
                assert site_model.read(faceid.features(relief_patch(face, az, el, rng.uniform(0, 360))))[0] == face
    assert site_model.min_score >= faceid.MIN_SCORE_FLOOR
    lo, hi = faceid.MARGIN_BOUNDS
    assert lo <= site_model.min_margin <= hi
    assert site_model.report["min_margin"] == round(site_model.min_margin, 4)


@pytest.mark.parametrize("el", [40, 76])
def test_registration_finds_each_photos_turn(el):
    """12 photos of one coin under one lamp at known turns: each photo's turn relative to the first
    is found within 6 deg, under a high lamp and a low one (where photos a few clock-hours apart no
    longer look alike)."""
    rng = np.random.default_rng(el)
    rots = (np.arange(12) * 30 + rng.uniform(-10, 10, 12)) % 360
    rng.shuffle(rots)
    big = [relief_patch("tails", 135, el, r, n=2 * faceid.RELIGHT_R + 1) for r in rots]
    feats = np.array([faceid.features(relief_patch("tails", 135, el, r)) for r in rots])
    turns = faceid._register(feats, big)
    # getRotationMatrix2D's sense is the opposite of the renderer's rotation_deg
    err = (turns + (rots - rots[0]) + 180) % 360 - 180
    assert np.abs(err).max() < 6, np.round(err, 1)


@pytest.mark.parametrize("face, fold", [("heads", 3), ("tails", 2)])
def test_a_design_alike_at_a_third_or_half_turn_registers(face, fold):
    """sealed-21's faces (opened): a colour wheel's wedges, alike a third of a turn on, and a
    checkerboard, alike half a turn on. 10 photos at random turns under a 76 deg lamp (as the
    bench's training site): each photo's turn is found within 6 deg, or (the checkerboard) half a
    turn off, which its shading cannot tell either; and the turns spread round the coin, so the
    face gets its relit templates. Before, their edges' best turns were a third or half turn off
    for some photos, the turns crowded into part of the circle, and neither face was relit."""
    rng = np.random.default_rng(21)
    rots = rng.uniform(0, 360, 10)
    big = [relief_patch(face, 208, 76, r, n=2 * faceid.RELIGHT_R + 1, design=116) for r in rots]
    feats = np.array([faceid.features(relief_patch(face, 208, 76, r, design=116)) for r in rots])
    turns = faceid._register(feats, big)
    err = (turns + (rots - rots[0]) + 180) % 360 - 180
    if fold == 2:
        err = (err + 90) % 180 - 90
    assert np.abs(err).max() < 6, np.round(err, 1)
    assert faceid.relit_templates(big, turns), "the turns do not spread round the coin"


def test_a_face_alike_at_every_turn_finds_its_turns_by_the_shading():
    """sealed-50's tails (opened): one round cell filling the field, which looks alike at every
    turn. 10 photos at random turns under a 76 deg lamp, their turns started crowded to a third
    of what they are (as its site's photos registered): the search over the shading finds each
    within 6 deg, spread round the coin; started from the true turns, it keeps them. Photos of
    noise, too few photos, or one photo ten times give nothing to find (None); photos all at one
    turn nothing the shading fit takes."""
    rng = np.random.default_rng(50)
    rots = rng.uniform(0, 360, 10)
    big = [relief_patch("tails", 208, 76, r, n=2 * faceid.RELIGHT_R + 1, design=145) for r in rots]
    truth = (-(rots - rots[0]) + 180) % 360 - 180
    crowded = truth / 3
    assert faceid._spread(crowded) < faceid.RELIGHT_SPREAD_MIN
    found = faceid._search_turns(big, crowded)
    assert found is not None and found[0] == 0   # relative to the first photo, as `_register`'s
    err = (found - truth + 180) % 360 - 180
    assert np.abs(err).max() < 6, np.round(err, 1)
    assert faceid._spread(found) >= faceid.RELIGHT_SPREAD_MIN
    again = faceid._search_turns(big, truth)
    assert again is not None
    assert np.abs((again - again[0] - truth + 180) % 360 - 180).max() < 6
    noise = np.random.default_rng(3).uniform(0, 255, (10,) + big[0].shape).astype(np.float32)
    assert faceid._search_turns([cv2.GaussianBlur(p, (0, 0), 3) for p in noise], np.arange(10) * 3.0) is None
    # four photos of noise can fit some turns far better than most (this one, spread 0.62): too
    # few to tell a face's shading by
    few = np.random.default_rng(6).uniform(0, 255, (4,) + big[0].shape)
    assert faceid._search_turns([cv2.GaussianBlur(p.astype(np.float32), (0, 0), 3) for p in few],
                                np.arange(4) * 3.0) is None
    assert faceid._search_turns([big[0]] * 10, np.arange(10) * 3.0) is None   # alike: fit whole at any turns
    same = [relief_patch("tails", 208, 76, rots[0] + 0.5 * k, n=2 * faceid.RELIGHT_R + 1, design=145)
            for k in range(10)]
    again = faceid._search_turns(same, -0.5 * np.arange(10))
    assert again is None or faceid.shading_basis(same, again) is None


def test_a_site_trained_face_alike_at_every_turn_gets_its_relit_templates(monkeypatch):
    """sealed-50's site (opened): its tails photos' turns registered crowded (0.22 of the spread)
    and neither face was relit; 18 of its 70 valid scenes were left unsure for a tails face
    unread under other lamps (49 called; 65 with the search). Now the search finds the tails
    photos' turns within 20 deg of the true ones, and both faces get their relit templates; the
    light's lean is not fitted to turns searched."""
    coins, found = [], []
    make, search = heldout._coin, faceid._search_turns
    monkeypatch.setattr(heldout, "_coin", lambda *a, **k: coins.append(make(*a, **k)) or coins[-1])
    monkeypatch.setattr(faceid, "_search_turns", lambda *a: found.append(search(*a)) or found[-1])
    model = vision_bench.heldout_model(heldout.SETS["sealed-50"])
    assert model.report["relit_templates"] == 2 * (faceid.RELIGHT_TURNS + 1), model.report["relit_note"]
    assert model.report["relit_refused"] is None and model.report["turns_searched"] == ["tails"]
    assert "light_lean" not in model.report
    rots = np.array([c["rotation_deg"] for c in coins[-10:]])   # the site's tails photos
    assert len(found) == 1
    err = (found[0] - found[0][0] + (rots - rots[0]) + 180) % 360 - 180
    assert np.abs(err).max() < 20, np.round(err, 1)


def test_a_face_drawn_under_an_unseen_azimuth_matches_a_photo_taken_there():
    """The shading fitted from 11 photos (a clock-hour apart, lamp 42 deg high) draws the face under
    the 12th photo's azimuth: the drawing matches that photo better than all the photos but its two
    neighbours a clock-hour away, and within 0.05 of those. (Before the coin-wide lean of the edges
    was taken out of the features it beat those too: the lean follows the lamp's azimuth.)"""
    el, rots = 42, np.arange(12) * 30.0
    big = [relief_patch("heads", 200, el, r, n=2 * faceid.RELIGHT_R + 1) for r in rots]
    feats = np.array([faceid.features(relief_patch("heads", 200, el, r)) for r in rots])
    out = 5
    keep = [i for i in range(12) if i != out]
    basis = faceid.shading_basis([big[i] for i in keep], -(rots[keep] - rots[0]))
    psi = np.deg2rad(rots[out] - rots[0])   # the lamp's azimuth relative to the coin, in the first photo's frame
    drawn = basis[0] + basis[1] * np.cos(psi) + basis[2] * np.sin(psi)
    n = 2 * faceid.PATCH_R + 1
    f = faceid.features(cv2.normalize(cv2.resize(drawn.astype(np.float32), (n, n), interpolation=cv2.INTER_AREA),
                                      None, 0, 255, cv2.NORM_MINMAX))
    spec = faceid._spectrum(feats)
    drawn_score = faceid.best_match(spec[out], faceid._spectrum(f[None]), float(f.size))[0]
    photo_scores = faceid.best_match(spec[out], spec[keep], float(f.size))
    assert drawn_score > np.sort(photo_scores)[-3] and drawn_score > photo_scores.max() - 0.05, \
        (drawn_score, np.sort(photo_scores)[-3:])


def test_photos_all_at_one_turn_give_no_relit_templates():
    """Photos that do not sample the lamp's azimuth round the coin cannot tell shading from
    design: no shading is fitted, and the model is the photos alone."""
    big = [relief_patch("heads", 135, 45, 10 + k, n=2 * faceid.RELIGHT_R + 1) for k in range(8)]
    assert faceid.shading_basis(big, -np.arange(8.0)) is None
    assert faceid.shading_basis(big, -np.arange(8) * 45.0) is not None


def test_photos_all_at_one_turn_register_without_error():
    """Eight photos of a face alike at every turn, all at one turn: registration finds them all at
    one turn and the shading fit refuses them. Before, the shading's misfit of turns crowded
    together raised "Singular matrix" out of training (a ring of sealed-15, 4080481716, trained
    in itself: a traceback for the technician), or came out far below zero and was preferred."""
    big = [relief_patch("heads", 135, 45, 10, n=2 * faceid.RELIGHT_R + 1, design=145) for _ in range(8)]
    feats = np.array([faceid.features(relief_patch("heads", 135, 45, 10, design=145)) for _ in range(8)])
    turns = faceid._register(feats, big)
    assert np.abs(turns).max() < 1, turns
    assert faceid.shading_basis(big, turns) is None
    misfit = faceid._ShadingFit.misfit(np.array([0.0, 1e-7, 2e-7, 0.0]), np.eye(4) + 1.0)
    assert abs(misfit - 3) < 1e-6   # the four photos' variation about their mean: trace 8 less 20 / 4


def test_the_model_file_keeps_which_templates_are_photos(site_model, tmp_path):
    path = tmp_path / "model.json"
    site_model.save(path)
    back = faceid.FaceModel.load(path)
    assert back.n_photos == site_model.n_photos == 20
    assert len(back.labels) == 20 + site_model.report["relit_templates"]
    f = faceid.features(relief_patch("tails", 300, 40, 77))
    assert back.read(f)[0] == site_model.read(f)[0] == "tails"


@pytest.mark.slow   # make soak (ARCHITECTURE "Test run time")
def test_a_coin_under_a_far_lower_lamp_is_read_at_gain_6_and_not_at_4(monkeypatch):
    """sealed-22 3510653600 (opened): a valid odds spin under a lamp 36 deg high, the set's site
    trained under one ~76 deg high. The face drawn at shading gain 6 reads both coins; drawn at 4
    (before the nineteenth session) one coin is left unread and the spin unsure: the gain is what
    the call rests on (docs/VISION.md "The low lamp's drawing at gain 6")."""
    from ringctl.vision import judge
    from vcache import heldout_model, scene
    cfg = heldout.SETS["sealed-22"]
    spec, expect, rm, img = scene(3510653600, "valid", cfg)
    assert expect == "odds" and spec["lighting"]["light_elev_deg"] < 40
    assert faceid.RELIGHT_GAINS == (0.0, 6.0)
    assert judge.classify(img, rm, heldout_model(cfg))["result"] == "odds"
    monkeypatch.setattr(faceid, "RELIGHT_GAINS", (0.0, 4.0))
    v = judge.classify(img, rm, vision_bench.site_model(cfg)[1])
    assert v["result"] == "unsure" and v["reasons"][0].startswith("unsure: cannot read a coin's face"), v["reasons"]
