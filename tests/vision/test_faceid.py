"""vision.faceid: learning the casino's two faces, refusing faces that do not separate, real coin
photos as faces, and the model file."""
import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import faceid, judge, ring as ringmod


def test_train_refuses_faces_that_do_not_separate():
    base = scenes.base_spec(bench.TRAIN_SITE_SEED, conditions=False)
    empty, _ = render.render_scene(scenes.empty(base), np.random.default_rng(0))
    rm = ringmod.calibrate(empty, ring_mm=scenes.ring_mm(base))
    imgs = [render.render_scene(sp, np.random.default_rng(i))[0]
            for i, sp in enumerate(scenes.training_specs(bench.TRAIN_SITE_SEED, "heads", 10))]
    with pytest.raises(UserError, match="do not separate"):
        faceid.train(imgs[:5], imgs[5:], rm)


def test_real_coin_faces_from_the_photo(tmp_path):
    """Two real coins from scikit-image's plate as the casino's heads and tails: the faces are
    learnt from 8 photos each and read in fresh scenes, never wrongly."""
    from skimage import data
    grey = data.coins()
    paths = {}
    for face, (x, y, r) in {"heads": (212, 194, 23), "tails": (215, 52, 22)}.items():
        paths[face] = str(tmp_path / f"{face}.png")
        cv2.imwrite(paths[face], grey[y - r:y + r + 1, x - r:x + r + 1])
    style = {"face_images": paths}
    base = scenes.base_spec(bench.TRAIN_SITE_SEED, conditions=False)
    empty, _ = render.render_scene(scenes.empty(base), np.random.default_rng(0))
    rm = ringmod.calibrate(empty, ring_mm=scenes.ring_mm(base))
    imgs = {}
    for face in ("heads", "tails"):
        specs = scenes.training_specs(bench.TRAIN_SITE_SEED, face, 8)
        imgs[face] = [render.render_scene(dict(sp, coin_style=style), np.random.default_rng(i))[0]
                      for i, sp in enumerate(specs)]
    fm = faceid.train(imgs["heads"], imgs["tails"], rm)
    assert fm.report["loo_errors"] == 0
    right = 0
    for seed in range(81, 89):
        spec = dict(scenes.make(seed, "valid", chips=1), coin_style=style)
        site = bench.site(spec, seed)
        img, truth = render.render_scene(spec, np.random.default_rng(seed))
        v = judge.classify(img, site, fm)
        assert v["result"] in (truth["result"], "unsure"), (seed, v, truth["result"])
        right += v["result"] == truth["result"]
    assert right >= 6


def test_face_model_save_load_and_bad_files(model, tmp_path):
    path = tmp_path / "model.json"
    model.save(path)
    back = faceid.FaceModel.load(path)
    f = model.templates[0]
    assert back.read(f)[0] == model.read(f)[0] == model.labels[0]
    assert abs(back.scores(f)[0] - model.scores(f)[0]) < 1e-2
    (tmp_path / "bad.json").write_text('{"kind": "ringctl.vision.FaceModel"}')
    for bad in (tmp_path / "bad.json", tmp_path / "missing.json"):
        with pytest.raises(UserError):
            faceid.FaceModel.load(bad)


def test_one_pass_gives_the_features_and_the_lean_of_two(model):
    """features_lean (one blur, one pair of gradients) gives exactly what features() and
    lean_vector() give apart (and lean() its size), and a read made from it is the same read, on coins of every scene kind. (One
    OpenCV thread: with two, its blurs differ in the last float bit from call to call.)"""
    from ringctl.vision import detect
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        n = 0
        for k, kind in enumerate(scenes.KINDS):
            spec = scenes.make(500 + k, kind, chips=1)
            rm = bench.site(spec, 500 + k)
            img, _ = render.render_scene(spec, np.random.default_rng(500 + k))
            for b in detect.find_blobs(img, rm):
                if b.axes is None or b.plane_center is None:
                    continue
                patch = faceid.coin_patch(img, rm, b)
                f, x = faceid.features_lean(patch)
                assert np.array_equal(f, faceid.features(patch)) and x == faceid.lean_vector(patch)
                assert abs(x) == faceid.lean(patch)
                assert model.read(f, x) == model.read(faceid.features(patch), faceid.lean_vector(patch))
                n += 1
        assert n >= 10
    finally:
        cv2.setNumThreads(threads)
