"""vision.faceid with a model trained under one lamp and used under another (issue 12): the
coin-wide lean of the edges is no match, a lamp higher than the training photos' needs a larger
margin, and an unread coin says why and what to do. A small subset of `ring bench face-light`."""
import cv2
import numpy as np
import pytest

from ringctl.sim import face_light_bench as sweep, heldout
from ringctl.vision import faceid, judge, ring as ringmod

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
    """Each face's photos' lean is kept in the model (and its file); a coin leaning far less than
    the photos of the face it would be read as (a higher lamp) needs a margin growing to
    HIGHER_LAMP_MARGIN, a coin like them the photos' own."""
    _, model = low_lamp
    for face in ("heads", "tails"):
        lo, med, hi = model.report["lean"][face]
        assert 0 <= lo <= med <= hi <= 1 and med > 0.15   # a low lamp: the photos' edges lean
        assert model.lamp(med, face) == (model.min_margin, "")
        need_far, way = model.lamp(0.2 * med, face)
        assert way == "higher" and need_far == pytest.approx(max(model.min_margin, faceid.HIGHER_LAMP_MARGIN))
        assert model.min_margin < model.lamp(0.6 * med, face)[0] < need_far
        assert model.lamp(3 * med, face)[1] == "lower"
    path = tmp_path / "m.json"
    model.save(path)
    assert faceid.FaceModel.load(path).report["lean"] == model.report["lean"]


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
