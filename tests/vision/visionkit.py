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
