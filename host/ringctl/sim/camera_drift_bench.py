"""`ring bench camera-drift`: held-out scenes judged after the camera changed since calibration.

Each scene's ring is calibrated from its empty photo as ever; its play frame is then changed as a
camera changes in service: moved on its mount (1, 2, 4x3 px), turned (0.3, 1 and 2 deg about the
picture's centre; 0.5 deg and moved 4x3 px), its white balance drifted (7% warmer, 7% cooler, 5%
greener, 20% warmer: past what `vision.balance` puts right), its brightness (0.8x, 1.25x), more
sensor noise (sigma 8), out of focus (blur sigma 2), JPEG at quality 50. Per change: scenes
right, unsure and wrong (a call where the scene is not that call, or a void of a valid spin), and
how many verdicts were judged again with the picture moved back onto the empty ring's photo or
named a moved camera (`vision.drift`), or named a colour cast (`vision.balance`); and what
measuring how the frame lies costs (`drift.camera_move`, ms per frame size: it runs on unsure and
void verdicts only). docs/VISION.md, "The camera moved or turned", "The camera's colour drifted".

    ring bench camera-drift [--sets edge-tune:30,tune-1080p:30] [--json] [--progress]
"""
import collections
import json
import sys
import time

import cv2
import numpy as np

from ..cliutil import OneLineParser
from ..errors import UserError
from ..vision import balance, drift, judge, ring as ringmod
from . import benchrun, heldout
from .vision_bench import heldout_model

CALLS = ("heads", "tails", "odds")
# each note's words up to its first field
MOVED = drift.LIES_OFF.split("{")[0]
BACK = drift.MOVED_BACK.split("{")[0]
CAST = balance.CAST.split("{")[0]


def _gain(img, bgr):
    return np.clip(np.rint(img.astype(np.float32) * np.array(bgr, np.float32)), 0, 255).astype(np.uint8)


def _warp(img, m):
    return cv2.warpAffine(img, np.float32(m), img.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)


def _turn(img, deg, dx=0, dy=0):
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
    m[:, 2] += (dx, dy)
    return _warp(img, m)


def _noise(img, sigma, seed):
    rng = np.random.default_rng([seed, 71])
    return np.clip(np.rint(img + rng.normal(0, sigma, img.shape)), 0, 255).astype(np.uint8)


def _jpeg(img, q):
    return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)


# name -> frame, seed -> the changed frame
CHANGES = {
    "none": lambda i, s: i,
    "moved 1 px": lambda i, s: _warp(i, [[1, 0, 1], [0, 1, 0]]),
    "moved 2x1 px": lambda i, s: _warp(i, [[1, 0, 2], [0, 1, -1]]),
    "moved 4x3 px": lambda i, s: _warp(i, [[1, 0, 4], [0, 1, 3]]),
    "turned 0.3 deg": lambda i, s: _turn(i, 0.3),
    "turned 1 deg": lambda i, s: _turn(i, -1.0),
    "turned 2 deg": lambda i, s: _turn(i, 2.0),
    "0.5 deg + 4x3 px": lambda i, s: _turn(i, 0.5, 4, -3),
    "7% warmer": lambda i, s: _gain(i, (0.93, 1, 1.07)),
    "7% cooler": lambda i, s: _gain(i, (1.07, 1, 0.93)),
    "5% greener": lambda i, s: _gain(i, (1, 1.05, 1)),
    "20% warmer": lambda i, s: _gain(i, (0.8, 1, 1.2)),
    "0.8x bright": lambda i, s: _gain(i, (0.8, 0.8, 0.8)),
    "1.25x bright": lambda i, s: _gain(i, (1.25, 1.25, 1.25)),
    "noise 8": lambda i, s: _noise(i, 8, s),
    "defocus 2 px": lambda i, s: cv2.GaussianBlur(i, (0, 0), 2.0),
    "JPEG 50": lambda i, s: _jpeg(i, 50),
}


def sweep(name, n, log=None):
    """{change: {right, unsure, wrong, moved_named, cast_named}}, the wrong calls and {frame size:
    [ms of drift.camera_move on each unchanged frame]}, over `n` scenes of held-out set `name`
    (scenes whose calibration is refused are left out)."""
    cfg = heldout.SETS[name]
    model = heldout_model(cfg)
    tally = {c: collections.Counter(right=0, unsure=0, wrong=0, moved_back=0, moved_named=0, cast_named=0)
             for c in CHANGES}
    wrong, scenes, move_ms = [], 0, collections.defaultdict(list)
    for seed in heldout.set_seeds(cfg, n):
        spec, expect = heldout.make(seed, None, cfg)
        try:
            rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
        except UserError:
            continue
        scenes += 1
        img = heldout.render_frame(spec, seed)
        small = rm.small(img)   # made by detection before the judge asks how the frame lies
        t1 = time.perf_counter()
        drift.camera_move(rm, small)
        move_ms["x".join(map(str, rm.image_size))].append((time.perf_counter() - t1) * 1000)
        for change, f in CHANGES.items():
            v = judge.classify(f(img, seed), rm, model)
            got = v["result"]
            if got == expect:
                k = "right"
            elif got == "unsure":
                k = "unsure"
            elif got in CALLS or expect in CALLS:   # a call not the scene's, or a valid spin voided
                k = "wrong"
                wrong.append({"set": name, "seed": int(seed), "change": change, "kind": spec["kind"],
                              "expected": expect, "got": got, "reasons": v["reasons"]})
            else:
                k = "right"   # an invalid spin voided: flagged either way
            t = tally[change]
            t[k] += 1
            t["moved_back"] += any(BACK in r for r in v["reasons"])
            t["moved_named"] += any(MOVED in r for r in v["reasons"])
            t["cast_named"] += any(CAST in r for r in v["reasons"])
        if log:
            log(f"{name} {seed} done")
    return {"scenes": scenes, "changes": {c: dict(t) for c, t in tally.items()}}, wrong, move_ms


def main(argv=None):
    p = OneLineParser(prog="ring bench camera-drift", description=__doc__)
    p.add_argument("--sets", default="edge-tune:30,tune-1080p:30",
                   help="comma-separated held-out sets, NAME or NAME:SCENES (default edge-tune:30,tune-1080p:30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="say each scene on stderr")
    a = p.parse_args(argv)
    sets = heldout.parse_sets(a.sets, 30)
    log, out = benchrun.start(a.progress, sets={}, wrong=[])
    t0 = time.process_time()
    move_ms = collections.defaultdict(list)
    for name, n in sets:
        out["sets"][name], w, ms = sweep(name, n, log)
        out["wrong"] += w
        for size, v in ms.items():
            move_ms[size] += v
    out["cpu_s"] = round(time.process_time() - t0, 1)
    out["move_ms"] = {size: {"p50": round(float(np.median(v)), 2), "p90": round(float(np.percentile(v, 90)), 2),
                             "max": round(max(v), 2), "frames": len(v)} for size, v in sorted(move_ms.items())}
    if a.json:
        print(json.dumps(out))
    else:
        for name, r in out["sets"].items():
            print(f"{name} ({r['scenes']} scenes): change: right / unsure / wrong; verdicts judged moved back, "
                  "naming a moved camera, naming a cast")
            for c, t in r["changes"].items():
                print(f"  {c:>16}: {t['right']:3d} / {t['unsure']:3d} / {t['wrong']:2d};  {t['moved_back']:3d}, "
                      f"{t['moved_named']:3d}, {t['cast_named']:3d}")
        for size, m in out["move_ms"].items():
            print(f"measuring how a {size} frame lies (drift.camera_move, unsure and void verdicts only): "
                  f"{m['p50']} ms median, {m['p90']} p90, {m['max']} max over {m['frames']} frames")
        for w in out["wrong"]:
            print("WRONG", json.dumps(w))
        print(f"wrong calls: {len(out['wrong'])} (cpu {out['cpu_s']} s, load {out['load_avg_1min']})")
    sys.stdout.flush()
    return 0 if not out["wrong"] else 1
