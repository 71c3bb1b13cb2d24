"""Host vision (issue 4): each failure mode, held-out accuracy floor, a real photo, calibration,
training refusal, motion/adjudication, sources and the CLI. Scenes are rendered at test time."""
import json

import cv2
import numpy as np
import pytest

from ringctl.errors import UserError
from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import faceid, judge, motion, ring as ringmod, sources

CALLS = ("heads", "tails", "odds")


@pytest.fixture(scope="module")
def model():
    return bench.face_model()


def run(model, seed, kind, **changes):
    spec = scenes.make(seed, kind)
    for k, v in changes.items():
        if isinstance(v, dict) and isinstance(spec.get(k), dict):
            spec[k] = dict(spec[k], **v)
        else:
            spec[k] = v
    rm = bench.site(spec, seed)
    img, truth = render.render_scene(spec, np.random.default_rng(seed))
    return judge.classify(img, rm, model), truth


@pytest.mark.parametrize("kind,reason", [
    ("outside", "7.3.1"), ("rim", "7.3.1"), ("one", "7.3.1 fewer than two coins in view"),
    ("tilted", "7.3.4 coin not lying flat"), ("leaning", "7.3.4 coin not lying flat"),
    ("stacked", "7.3.4"), ("touching", "7.3.4")])
def test_invalid_spins_are_no_spin_with_rule(model, kind, reason):
    for seed in (11, 12):
        v, truth = run(model, seed, kind)
        assert truth["result"] == "no-spin"
        assert v["result"] == "no-spin", (seed, v)
        assert any(r.startswith(reason) for r in v["reasons"]), v["reasons"]


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


def test_heldout_accuracy_floor(model):
    """Held-out seeds (never used for tuning): zero wrong calls, most valid spins called."""
    counts = bench.evaluate(scenes.HELDOUT_SEEDS[:30], model)
    assert counts["wrong"] == 0, counts
    assert counts["valid"] >= 8
    assert counts["valid_called"] >= 0.95 * counts["valid"], counts
    judged = 30 - counts["calibration_failed"]
    assert counts["calibration_failed"] <= 2, counts
    assert counts["right"] >= 0.9 * judged, counts


def test_coin_faces_differ_but_not_by_brightness():
    spec = {"coins": [{"center_px": [380, 360], "radius_px": 40, "face": "heads"},
                      {"center_px": [580, 360], "radius_px": 40, "face": "tails"}]}
    img, _ = render.render_scene(spec, np.random.default_rng(0))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float)
    yy, xx = np.mgrid[0:720, 0:960]
    means = [grey[(xx - x) ** 2 + (yy - 360) ** 2 < 30 ** 2].mean() for x in (380, 580)]
    assert abs(means[0] - means[1]) < 0.06 * np.mean(means)
    h, t = render.faces.height_map("heads"), render.faces.height_map("tails")
    assert np.abs(h - t).mean() > 0.05


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


def test_calibrate_circle_and_ellipse():
    for ell in (None, {"ratio": 0.8, "angle_deg": 30}):
        spec = scenes.base_spec(51, conditions=False, ellipse=ell)
        img, truth = render.render_scene(spec, np.random.default_rng(0))
        rm = ringmod.calibrate(img, ring_mm=scenes.ring_mm(spec))
        assert np.abs(np.subtract(rm.center, truth["ring"]["center"])).max() < 1.0
        assert np.abs(np.subtract(rm.axes, truth["ring"]["axes"])).max() < 1.5
        if ell:
            assert abs((rm.angle_deg - 30 + 90) % 180 - 90) < 2
        assert abs(rm.coin_radius_px - scenes.coin_radius(spec)) < 0.5
        back = ringmod.RingModel.from_json(rm.to_json())
        assert back.axes == rm.axes and back.background.shape == rm.background.shape
        # square-on the coins are ~47 px; squashed to 0.8 they are ~38 px: under 40, warned
        assert (rm.warnings == []) == (ell is None), rm.warnings


def test_calibration_warns_about_small_coins_and_bad_json():
    spec = scenes.base_spec(52, conditions=False)
    img, _ = render.render_scene(spec, np.random.default_rng(0))
    rm = ringmod.calibrate(img)   # a real 3 m ring in 960x720: coins ~3 px across
    assert rm.warnings and "px" in rm.warnings[0] and "sensor" in rm.warnings[0]
    with pytest.raises(UserError):
        ringmod.RingModel.from_json("{not json")
    with pytest.raises(UserError):
        ringmod.RingModel.from_json(json.dumps({"kind": "other"}))


def test_train_refuses_faces_that_do_not_separate():
    base = scenes.base_spec(bench.TRAIN_SITE_SEED, conditions=False)
    empty, _ = render.render_scene(scenes.empty(base), np.random.default_rng(0))
    rm = ringmod.calibrate(empty, ring_mm=scenes.ring_mm(base))
    imgs = [render.render_scene(sp, np.random.default_rng(i))[0]
            for i, sp in enumerate(scenes.training_specs(bench.TRAIN_SITE_SEED, "heads", 10))]
    with pytest.raises(UserError, match="do not separate"):
        faceid.train(imgs[:5], imgs[5:], rm)


def test_motion_check_and_agreeing_frames(model):
    spec = scenes.make(61, "valid", chips=0)
    rm = bench.site(spec, 61)
    mc = motion.MotionCheck(rm, window_s=0.3)
    frames = []
    for i in range(12):
        s = json.loads(json.dumps(spec))
        if i < 5:   # still rolling
            s["coins"][0]["center_px"][0] += 6 * (5 - i)
            s["coins"][0]["rotation_deg"] += 20 * i
        img, truth = render.render_scene(s, np.random.default_rng(i))
        st = mc.update(img, i / 10)
        if i == 4:
            assert not st["still"]
        frames.append(img)
    assert st["still"] and len(st["coins"]) == 2
    v = motion.adjudicate_frames(frames[-3:], rm, model)
    assert v["result"] == truth["result"] and v["agree"] == 3
    other = scenes.make(62, "valid", chips=0)
    other_img, other_truth = render.render_scene(other, np.random.default_rng(0))
    if other_truth["result"] != truth["result"]:
        v2 = motion.adjudicate_frames(frames[-2:] + [other_img], rm, model)
        assert v2["result"] == "unsure"


def test_sources(tmp_path):
    img = np.zeros((20, 30, 3), np.uint8)
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i}.png"), img + i)
    with sources.open_source(str(tmp_path)) as src:
        got = list(src)
    assert [int(f[0, 0, 0]) for f, _ in got] == [0, 1, 2] and src.size == (30, 20)
    src = sources.open_source(iter([img, img]), fps=10)
    assert src.read()[1] == 0.0 and src.read()[1] == 0.1 and src.read()[0] is None
    with pytest.raises(UserError):
        sources.open_source(str(tmp_path / "missing.mp4"))


def test_cli_end_to_end(tmp_path, capsys):
    from ringctl.cli import main
    out = tmp_path / "s"
    assert main(["sim", "scenes", "-o", str(out), "-n", "3", "--seed", "2"]) == 0
    mm = scenes.ring_mm(scenes.base_spec(2))
    assert main(["vision", "calibrate", str(out / "empty.png"), "--ring-mm", f"{mm:.1f}",
                 "-o", str(out / "ring.json")]) == 0
    assert main(["vision", "train", "--heads", str(out / "heads"), "--tails", str(out / "tails"),
                 "--ring", str(out / "ring.json"), "-o", str(out / "model.json")]) == 0
    capsys.readouterr()
    imgs = sorted(str(p) for p in out.glob("scene*.png"))
    assert main(["vision", "classify", "--ring", str(out / "ring.json"), "--model", str(out / "model.json"),
                 "--json", *imgs]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    truth = json.loads((out / "truth.json").read_text())
    assert len(lines) == 3
    for line in lines:
        v = json.loads(line)
        assert set(v) == {"image", "result", "reasons", "coins", "ms"}
        assert v["result"] == truth[v["image"].rsplit("/", 1)[1]]["result"], v
    assert main(["vision", "classify", "--ring", str(out / "nope.json"), "--model", "m", "x.png"]) == 2
    (tmp_path / "bad.png").write_text("not an image")
    assert main(["vision", "classify", "--ring", str(out / "ring.json"), "--model", str(out / "model.json"),
                 str(tmp_path / "bad.png")]) == 2
    assert "cannot read image" in capsys.readouterr().err


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
    assert v["result"] == "unsure" and any("not a coin" in x for x in v["reasons"]), v


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
