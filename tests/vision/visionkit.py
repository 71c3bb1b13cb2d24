"""Helpers for the vision tests: judge one rendered scene (spec from sim.scenes, with changes)."""
import cv2
import numpy as np

from ringctl.sim import faces, render, scenes, vision_bench as bench
from ringctl.vision import detect, faceid, judge

CALLS = ("heads", "tails", "odds")


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


def measured_outlines(img, rm, model, spec):
    """(truth coin nearest it, blob) for each object detect measures an outline of in the frame as
    the judge sees it (balanced): a held-out scene's coins beside what was measured of them."""
    img, _ = judge.balance.balanced(img, rm)
    out = []
    for b in detect.find_blobs(img, rm, skip_chroma=model.chroma):
        if b.axes is not None:
            t = min(spec["coins"], key=lambda t: (t["center_px"][0] - b.center[0]) ** 2 + (t["center_px"][1] - b.center[1]) ** 2)
            out.append((t, b))
    return out


def calibrated_scenes(main, out, n, seed):
    """`ring sim scenes` into `out`, then `ring vision calibrate` and `train` on them, as a
    technician would. -> (ring.json, model.json, the scene images)."""
    assert main(["sim", "scenes", "-o", str(out), "-n", str(n), "--seed", str(seed)]) == 0
    mm = scenes.ring_mm(scenes.base_spec(seed))
    ring, model = out / "ring.json", out / "model.json"
    assert main(["vision", "calibrate", str(out / "empty.png"), "--ring-mm", f"{mm:.1f}",
                 "-o", str(ring)]) == 0
    assert main(["vision", "train", "--heads", str(out / "heads"), "--tails", str(out / "tails"),
                 "--ring", str(ring), "-o", str(model)]) == 0
    return ring, model, sorted(str(p) for p in out.glob("scene*.png"))


def relief_patch(face, az, el, rot, n=2 * faceid.PATCH_R + 1, design=100):
    """A square-on grey patch (as coin_patch makes, 2r+1 px) of a relief coin of RELIEF_PLATE
    `design` turned `rot` deg, lit from azimuth `az`, `el` deg high."""
    tex = render._shaded_coin(faces.height_map(face, design).astype(np.float32), rot, az, el, (90, 150, 190))
    grey = cv2.cvtColor((np.clip(tex, 0, 1) * 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    return cv2.resize(cv2.GaussianBlur(grey, (0, 0), faces.TEX / n / 2), (n, n), interpolation=cv2.INTER_AREA)
