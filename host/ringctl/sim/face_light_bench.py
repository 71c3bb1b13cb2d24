"""`ring bench face-light`: face models trained under one lamp, used under others (issue 12).

For each kind of coin face (relief struck from a real coin, drawn relief, a face photographed
flat) a training site is lit by a lamp at each of TRAIN_ELEVS deg high (its own azimuth, 1080p or
4K, coins 40-120 px; 10 sharp photos per face, as `ring bench vision --train site`) and trains
one model; every model then judges the same play scenes (valid spins, lamps 35-88 deg high from
every azimuth, 1080p and 4K, coins 40-120 px, defocus and shake, JPEG). Each coin is counted
right / unsure / wrong per (training lamp, play lamp) pair, and each scene's call. A wrong face
is a paid wrong call: the sweep must show 0 wrong (exit status 1 otherwise).

    ring bench face-light [--faces relief,drawn,photo] [--scenes 24] [--train-elevs 35,45,60,75,88] [--json]
"""
import json
import sys
import time

import numpy as np

from ..cliutil import OneLineParser
from ..errors import UserError
from ..vision import judge, ring as ringmod
from . import benchrun, heldout, vision_bench

TRAIN_ELEVS = (35, 45, 60, 75, 88)
PLAY_BINS = ((35, 45), (45, 58), (58, 72), (72, 89))   # play lamp elevation, deg: [lo, hi)
DIRECTION_BINS = ((0, 45), (45, 135), (135, 181))        # play lamp azimuth from the training lamp's, deg
# the kinds of face (heldout's set settings; streams of their own, used nowhere else): `relief`
# and `drawn` are the designs the reader was tuned on (tune-relief, tune-light); `relief-2`
# (sealed-7's relief, opened) and `photo` (sealed-1's real pair, opened) only looked at here
FACES = {
    "relief": dict(coin="brass", faces="render:100", stream=(12, 70)),
    "relief-2": dict(coin="old-gold", faces="render:104", stream=(12, 71)),
    "drawn": dict(coin="copper", faces="render:0", stream=(12, 72)),
    "photo": dict(coin="brass", faces="plate:b", stream=(12, 73)),
    # sealed-18's relief (opened): a field of specks, and a line of lettering whose edges lean one
    # way by themselves (the light's lean at a coin is told from the design's: FaceModel.light_leans)
    "lettered": dict(coin="gunmetal", faces="render:113", stream=(12, 74)),
}
PLAY = dict(size=None, coin_px=(40, 120), light_elev=(35, 88), blur_p=0.4, blur=(0.4, 1.6), motion_p=0.4)


def play_cfg(kind):
    return dict(PLAY, **FACES[kind])


def site_model(kind, elev, n=10):
    """(the training site's lighting, the face model) of `kind` trained under a lamp `elev` deg high:
    sharp photos (no defocus, no shake), the site's azimuth, size and coin size its own; the
    exposure lowered while the coin clips (vision_bench.site_model)."""
    cfg = dict(play_cfg(kind), light_elev=(elev, elev), blur_p=0.0, motion_p=0.0)
    return vision_bench.site_model(cfg, n, seed=1000 + int(elev))[:2]   # another site for each lamp


def play_scenes(kind, n):
    """(seed, spec, calibrated ring, frame) of `n` valid spins of `kind` (rings that do not
    calibrate are skipped: the technician would be told)."""
    cfg = play_cfg(kind)
    for seed in heldout.set_seeds(cfg, n):
        spec, _ = heldout.make(seed, "valid", cfg)
        try:
            rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
        except UserError:
            continue
        yield seed, spec, rm, heldout.render_frame(spec, seed)


def _bin(v, bins):
    return next(i for i, (lo, hi) in enumerate(bins) if lo <= v < hi)


def coin_reads(verdict, spec):
    """[(true face, face read or None)] for each of the scene's coins (None: not found or unread)."""
    out = []
    for c in spec["coins"]:
        near = [v for v in verdict["coins"] if np.hypot(v["center"][0] - c["center_px"][0],
                                                        v["center"][1] - c["center_px"][1]) < 0.3 * c["radius_px"]]
        out.append((c["face"], near[0].get("face") if near else None))
    return out


def _cell():
    return {"right": 0, "unsure": 0, "wrong": 0}


def sweep(kind, n_scenes, train_elevs=TRAIN_ELEVS, log=None):
    """Confusion of one kind of face: per training lamp, per play lamp bin (elevation, and azimuth
    from the training lamp's) the coins read right / left unsure / read wrong, and the scenes."""
    models = []
    for e in train_elevs:
        try:
            models.append((e,) + site_model(kind, e))
        except UserError as exc:   # a site whose photos do not train is a figure too
            models.append((e, None, str(exc)))
    by_elev = {e: [_cell() for _ in PLAY_BINS] for e in train_elevs}
    by_dir = {e: [_cell() for _ in DIRECTION_BINS] for e in train_elevs}
    scenes = {e: _cell() for e in train_elevs}
    wrong = []
    n_seen = 0
    for seed, spec, rm, img in play_scenes(kind, n_scenes):
        n_seen += 1
        light = spec["lighting"]
        for e, site, model in models:
            if site is None:
                continue
            v = judge.classify(img, rm, model)
            truth = spec["coins"][0]["face"] if spec["coins"][0]["face"] == spec["coins"][1]["face"] else "odds"
            s = "right" if v["result"] == truth else "unsure" if v["result"] == "unsure" else "wrong"
            scenes[e][s] += 1
            daz = abs((light["light_az_deg"] - site["lighting"]["light_az_deg"] + 180) % 360 - 180)
            for true, read in coin_reads(v, spec):
                k = "right" if read == true else "unsure" if read is None else "wrong"
                by_elev[e][_bin(light["light_elev_deg"], PLAY_BINS)][k] += 1
                by_dir[e][_bin(daz, DIRECTION_BINS)][k] += 1
                if k == "wrong":
                    wrong.append({"seed": seed, "train_elev": e, "play_elev": round(light["light_elev_deg"], 1),
                                  "play_az_from_training": round(daz, 1), "face": true, "read": read,
                                  "coin_px": round(2 * spec["_coin_r"]), "size": spec["size"]})
        if log:
            log(f"{kind}: scene {n_seen}/{n_scenes}")
    total = _cell()
    for e in train_elevs:
        for c in by_elev[e]:
            for k in total:
                total[k] += c[k]
    return {"scenes": n_seen, "coins": total,
            "trained": {str(e): (m.report["relit_templates"] if site else f"refused: {m}") for e, site, m in models},
            "by_play_elevation": {str(e): {f"{lo}-{hi}": c for (lo, hi), c in zip(PLAY_BINS, cells)}
                                  for e, cells in by_elev.items()},
            "by_play_azimuth_from_training": {str(e): {f"{lo}-{hi}": c for (lo, hi), c in zip(DIRECTION_BINS, cells)}
                                              for e, cells in by_dir.items()},
            "scene_calls": {str(e): c for e, c in scenes.items()}, "wrong": wrong}


def table(kind, res):
    """The confusion as text: rows the training lamp, columns the play lamp; right/unsure/wrong."""
    cols = [f"play {lo}-{hi - 1 if hi == 89 else hi} deg" for lo, hi in PLAY_BINS]
    dcols = [f"az {lo}-{min(hi, 180)}" for lo, hi in DIRECTION_BINS]
    head = f"{kind}: coins right/unsure/wrong ({res['scenes']} scenes)"
    lines = [head, "train lamp | " + " | ".join(cols + dcols) + " | scenes called right/unsure/wrong"]
    for e, cells in res["by_play_elevation"].items():
        dirs = res["by_play_azimuth_from_training"][e]
        fmt = lambda c: f"{c['right']}/{c['unsure']}/{c['wrong']}"   # noqa: E731
        lines.append(f"{e:>6} deg | " + " | ".join(fmt(c) for c in list(cells.values()) + list(dirs.values()))
                     + f" | {fmt(res['scene_calls'][e])}")
    for e, t in res["trained"].items():
        if isinstance(t, str):
            lines.append(f"{e:>6} deg: no model ({t})")
    c = res["coins"]
    lines.append(f"all: {c['right']} right, {c['unsure']} unsure, {c['wrong']} wrong of "
                 f"{sum(c.values())} coin reads")
    return "\n".join(lines)


def main(argv=None):
    p = OneLineParser(prog="ring bench face-light", description=__doc__)
    p.add_argument("--faces", default=",".join(FACES), help=f"kinds of face, comma-separated ({', '.join(FACES)})")
    p.add_argument("--scenes", type=int, default=24, help="play scenes (valid spins, 2 coins) per kind of face")
    p.add_argument("--train-elevs", default=",".join(map(str, TRAIN_ELEVS)),
                   help="training lamp elevations, deg, comma-separated")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="say each scene on stderr")
    a = p.parse_args(argv)
    kinds = [k for k in a.faces.split(",") if k]
    bad = [k for k in kinds if k not in FACES]
    if bad:
        raise UserError(f"--faces: unknown kind {bad[0]!r}; one of {', '.join(FACES)}")
    try:
        elevs = tuple(int(x) for x in a.train_elevs.split(",") if x)
    except ValueError:
        raise UserError(f"--train-elevs {a.train_elevs!r}: give whole degrees, e.g. 35,60,88")
    log, out = benchrun.start(a.progress, train_elevs=list(elevs), faces={})
    t0 = time.process_time()
    for k in kinds:
        out["faces"][k] = sweep(k, a.scenes, elevs, log)
    out["cpu_s"] = round(time.process_time() - t0, 1)
    out["wrong"] = sum(r["coins"]["wrong"] for r in out["faces"].values())
    if a.json:
        print(json.dumps(out))
    else:
        for k, r in out["faces"].items():
            print(table(k, r))
            for w in r["wrong"]:
                print("  WRONG", json.dumps(w))
            print()
        print(f"wrong face reads over the sweep: {out['wrong']} (cpu {out['cpu_s']} s, load {out['load_avg_1min']})")
    sys.stdout.flush()
    return 0 if out["wrong"] == 0 else 1
