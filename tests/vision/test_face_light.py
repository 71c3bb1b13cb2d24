"""vision.faceid under light, blur and size it was not trained on (issue 12): the same coins relit
from every side and from low and high, blurred small coins, and a coin halfway between the two
faces. A face is read right or left unsure, never read as the other face."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import faces, heldout, render, scenes, vision_bench as bench
from ringctl.vision import faceid, judge

# the session model is trained on photos lit from 135 deg azimuth, 70 deg high (render's default)
LIGHTS = [(az, el) for el in (40, 60, 85) for az in (0, 60, 120, 180, 240, 300)]


def _coins_read(model, seed, size, lighting, motion=None, **changes):
    """-> [(true face, face read)] for the two flat coins of a valid scene of the tuning generator
    (`motion`: [length px, direction deg] of camera shake, then JPEG 75)."""
    spec = scenes.make(seed, "valid", size=size, chips=0, conditions=False)
    spec["lighting"] = dict(lighting)
    spec.update(noise=2.0, **changes)
    rm = bench.site(spec, seed)
    img, truth = render.render_scene(spec, np.random.default_rng(seed))
    if motion:
        img = heldout.post(img, {"_post": {"motion": motion, "jpeg": 75}})
    v = judge.classify(img, rm, model)
    out = []
    for t in truth["coins"]:
        near = [c for c in v["coins"] if np.hypot(c["center"][0] - t["center"][0], c["center"][1] - t["center"][1])
                < 0.3 * t["radius"]]
        out.append((t["face"], near[0]["face"] if near else None))
    return out


def _tally(pairs):
    wrong = sum(read is not None and read != true for true, read in pairs)
    read = sum(read is not None for _, read in pairs)
    return wrong, read


def test_relief_faces_relit_from_every_side_are_read_never_misread(model):
    """18 lights (6 azimuths x 40/60/85 deg high) on 36 coins at the training size: none is read
    as the other face and nearly all are read (the reader before issue 12's light-blind features
    left 12 of these 36 coins unread)."""
    pairs = []
    for k, (az, el) in enumerate(LIGHTS):
        pairs += _coins_read(model, 5000 + k, (960, 720), {"light_az_deg": az, "light_elev_deg": el})
    wrong, read = _tally(pairs)
    assert wrong == 0, pairs
    assert read >= 34, f"only {read} of {len(pairs)} relit coins read"


def test_small_blurred_coins_are_read_never_misread(model):
    """Coins 40 px across, defocused, shaken (motion blur) and JPEG'd, lit from elsewhere than the
    training photos (47 px, sharp, 135/70 deg): compared at one coarse scale, most are read (12 of
    16 now; the reader before issue 12's change read 4) and none is misread."""
    pairs = []
    for k, (az, el) in enumerate([(20, 45), (200, 50), (300, 55), (100, 45), (160, 60), (250, 50),
                                  (330, 70), (60, 80)]):
        pairs += _coins_read(model, 5100 + k, (800, 620), {"light_az_deg": az, "light_elev_deg": el},
                             motion=[4.0, 37.0 * k], blur=1.2)
    wrong, read = _tally(pairs)
    assert wrong == 0, pairs
    assert read >= 11, f"only {read} of {len(pairs)} small blurred coins read"


def _patch(face_weights, az=135.0, el=70.0, rotation=0.0):
    """A square-on coin patch (as coin_patch makes) of a relief mixing the two faces' heights."""
    h = sum(w * faces.height_map(f, 0) for f, w in face_weights.items())
    tex = render._shaded_coin(h.astype(np.float32), rotation, az, el, (70, 120, 190))
    grey = cv2.cvtColor((np.clip(tex, 0, 1) * 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    n = 2 * faceid.PATCH_R + 1
    return cv2.resize(cv2.GaussianBlur(grey, (0, 0), faces.TEX / n / 2), (n, n), interpolation=cv2.INTER_AREA)


def test_heads_vs_tails_margin_and_an_ambiguous_coin_is_unsure(model):
    """Each face reads as itself with a clear margin at any rotation and light. A relief morphed
    step by step from tails into heads reads tails, then unsure, then heads: never straight from
    one face to the other, so a coin between the two is the boxer's call. A blank disc is unsure."""
    for face in ("heads", "tails"):
        for rot, az, el in ((0, 135, 70), (90, 315, 50), (200, 20, 80)):
            read, conf, h, t = model.read(faceid.features(_patch({face: 1.0}, az, el, rot)))
            assert read == face, (face, rot, az, el, h, t)
            assert abs(h - t) >= model.min_margin
    for az, el, rot in ((135, 70, 30), (300, 50, 100)):
        reads = "".join({"heads": "H", "tails": "T", None: "?"}[
            model.read(faceid.features(_patch({"heads": w, "tails": 1 - w}, az, el, rot)))[0]]
            for w in np.linspace(0, 1, 41))
        # every tails read before every heads read, with unsure between: never straight from one
        # face to the other (a 27.5%-heads morph may read tails next to a 25% one left unsure)
        assert reads[0] == "T" and reads[-1] == "H", reads
        assert reads.rindex("T") < reads.index("H") and "TH" not in reads, reads
        assert set(reads[reads.rindex("T") + 1:reads.index("H")]) == {"?"}, reads
    n = 2 * faceid.PATCH_R + 1
    blank = np.full((n, n), 140, np.uint8) + np.random.default_rng(1).integers(0, 6, (n, n)).astype(np.uint8)
    assert model.read(faceid.features(blank))[0] is None


def test_margin_rule_bounds_hold_on_the_trained_model(model):
    """The margin a read needs stays within its fixed bounds, and the score floor above what a blank
    or noisy disc scores: no model lowers them below what keeps an ambiguous coin unsure."""
    lo, hi = faceid.MARGIN_BOUNDS
    assert lo <= model.min_margin <= hi
    assert model.min_score >= faceid.MIN_SCORE_FLOOR
    rng = np.random.default_rng(2)
    n = 2 * faceid.PATCH_R + 1
    for sd in (2, 8, 30):
        noisy = np.clip(128 + rng.normal(0, sd, (n, n)), 0, 255).astype(np.uint8)
        h, t = model.scores(faceid.features(noisy))
        assert max(h, t) < model.min_score or abs(h - t) < model.min_margin


def test_a_model_file_of_the_older_reader_is_refused_with_the_fix(model, tmp_path):
    path = tmp_path / "old.json"
    model.save(path)
    text = path.read_text().replace(f'"version": {faceid.FEATURES_VERSION}', '"version": 1')
    path.write_text(text)
    with pytest.raises(UserError, match="older version of the face reader.*train it again"):
        faceid.FaceModel.load(path)


def test_a_face_needs_every_cue_not_just_the_total():
    """A coin that matches tails' edge orientation but whose edge strength says nothing (matches
    both faces alike) is unsure however large the total margin; with edge strength matching too
    it reads tails. (tune-relief: a heads relief washed out by the light read tails so, its edge
    strength 0.001 nearer tails.)"""
    rng = np.random.default_rng(3)

    def unit(shape):
        a = rng.normal(size=shape).astype(np.float32)
        return a / np.sqrt((a * a).mean())

    shape = (faceid.N_RAD, faceid.N_ANG)
    heads = np.stack([unit(shape), unit(shape), unit(shape)])
    tails = np.stack([unit(shape), unit(shape), unit(shape)])
    fm = faceid.FaceModel(np.stack([heads, tails]), ["heads", "tails"], (0, 0, 0), 1.0, 0.28, 0.1, {})
    # orientation of tails; edge strength like both faces alike, a hair nearer tails (says nothing)
    both = heads[0] + 1.02 * tails[0]
    washed = np.stack([both / np.sqrt((both * both).mean()), tails[1], tails[2]])
    read, conf, h, t = fm.read(washed)
    assert t - h > 0.3 and read is None, (h, t)
    assert fm.read(np.stack([tails[0], tails[1], tails[2]]))[0] == "tails"
    assert fm.read(np.roll(heads, 17, axis=-1))[0] == "heads"   # any rotation
