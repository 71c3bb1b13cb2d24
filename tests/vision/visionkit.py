"""Helpers for the vision tests: judge one rendered scene (spec from sim.scenes, with changes)."""
import numpy as np

from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import judge

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
