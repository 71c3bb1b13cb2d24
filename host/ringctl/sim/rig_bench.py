"""`ring bench rig`: the multi-camera judge on rigs whose cameras each see part of the ring.

Each site is a rig of two cameras over the halves of a ring, or four over its quarters
(`--cameras 4`; overlapping 0.1 m), calibrated with the sheet and trained as a technician does (`restbench.Site`). Its
scenes lay coins flat, each turned at random, from the kinds below; each moment is judged by
`views.judge_views` and counted right / unsure / voided (a valid spin made no-spin) / wrong (a
call unlike the truth, or a call on a void). A void of a valid spin is a wrong call too: the
sweep must show 0 of both (exit status 1 otherwise).

- valid:          two coins in the ring (anywhere, each whole in at least one camera's frame);
- third:          a valid spin and a third coin on the floor beyond the wall (the spin stands:
                  the boxer looks at a third coin, or it is called);
- outside:        one coin in the ring and the spin's other coin on the floor (7.3.1: no-spin);
- outside-third:  one coin in the ring and two on the floor (7.3.1: no-spin);
- seam:           two coins in the ring, one cut by a camera's frame (whole in another's) and
                  the other 1.25-3 diameters from it, centre to centre.

A camera that sees half the ring counts only its own coins: before the forty-sixth session a
third coin on the floor beside one coin in a camera's half voided the valid spin. Before the
forty-ninth session a view that saw one coin cut by its frame with another beside it (one gate
object) judged both with the cut part left in, and doubted them (`views._Gate.cut`).

    ring bench rig [--scenes 40] [--sites 44:3,60:5] [--cameras 2|4] [--json] [--progress]
"""
import json
import sys
import time

import numpy as np

from ..cliutil import OneLineParser
from ..errors import UserError
from . import benchrun
from .multiview_bench import _moment

KINDS = ("valid", "third", "outside", "outside-third", "seam")
RING_MM = 1200.0
SITES = "44:3,60:5"   # coin px : site seed (each site its own cameras' calibration and training)
COIN_PX_MIN, COIN_PX_MAX = 30, 120   # coins across in the cameras' frames (coverage asks 40 or more)


def _whole_in_a_frame(site, x, y):
    """Whether a coin centred at (x, y) m on the layout lies whole in some camera's frame, by the
    simulated cameras' own projection (the truth, not the rig's calibration under test)."""
    r = site.coin.radius_m
    for cam in site.cams:
        w, h = cam.size
        pts = [cam.project((x + dx, y + dy, 0.0))[:2] for dx, dy in ((r, 0), (-r, 0), (0, r), (0, -r))]
        if all(4 < u < w - 4 and 4 < v < h - 4 for u, v in pts):
            return True
    return False


def _cut_by_a_frame(site, x, y):
    """Whether a coin centred at (x, y) m on the layout is cut by some camera's frame (part of
    it in view, part not), by the simulated cameras' own projection."""
    r = site.coin.radius_m
    for cam in site.cams:
        w, h = cam.size
        seen = [0 <= u < w and 0 <= v < h for u, v in
                (cam.project((x + r * np.cos(a), y + r * np.sin(a), 0.0))[:2] for a in np.linspace(0, 2 * np.pi, 16))]
        if any(seen) and not all(seen):
            return True
    return False


def _beside_a_cut_coin(site, rng, R):
    """Two coins in the ring (x, y) m: the first cut by one camera's frame and whole in another's,
    the other 1.25-3 coin diameters from it (centre to centre) and whole in some frame."""
    d = 2 * site.coin.radius_m
    for _ in range(10000):
        x, y = _place(site, rng, 0.0, R, [])
        if not _cut_by_a_frame(site, x, y):
            continue
        a, s = rng.uniform(0, 2 * np.pi), d * rng.uniform(1.25, 3.0)
        u, v = x + s * np.cos(a), y + s * np.sin(a)
        if np.hypot(u, v) < R and _whole_in_a_frame(site, u, v):
            return (x, y), (u, v)
    raise RuntimeError("no place for two coins across a seam")   # the rig's frames overlap


def _place(site, rng, r_lo, r_hi, taken):
    """(x, y) m: a coin centre between radii r_lo and r_hi, whole in some camera's frame, clear of
    the coins `taken` by two coin diameters."""
    d = 2 * site.coin.radius_m
    for _ in range(10000):
        a = rng.uniform(0, 2 * np.pi)
        r = np.sqrt(rng.uniform(r_lo ** 2, r_hi ** 2))
        x, y = r * np.cos(a), r * np.sin(a)
        if _whole_in_a_frame(site, x, y) and all(np.hypot(x - p, y - q) > 2 * d for p, q, _ in taken):
            return x, y
    raise RuntimeError("no place for a coin in view")   # the rig's frames always hold the floor


def scene(site, kind, seed):
    """(coins [(x_m, y_m, face)], truth: "heads"|"tails"|"odds"|"no-spin")."""
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    rc = site.coin.radius_m
    R = site.ring.layout_radius_m
    floor = site.ring.wall_radius_m + site.ring.wall_thickness_m + rc + 0.005   # beyond the wall
    coins = []
    if kind == "seam":
        coins = [p + (str(rng.choice(["heads", "tails"])),) for p in _beside_a_cut_coin(site, rng, R - 2 * rc)]
    for _ in range({"valid": 2, "third": 2, "outside": 1, "outside-third": 1, "seam": 0}[kind]):
        coins.append(_place(site, rng, 0.0, R - 2 * rc, coins) + (str(rng.choice(["heads", "tails"])),))
    for _ in range({"valid": 0, "third": 1, "outside": 1, "outside-third": 2, "seam": 0}[kind]):
        coins.append(_place(site, rng, floor, floor + 0.3, coins) + (str(rng.choice(["heads", "tails"])),))
    if kind in ("outside", "outside-third"):
        return coins, "no-spin"
    faces = {f for *_, f in coins[:2]}
    return coins, faces.pop() if len(faces) == 1 else "odds"


def outcome(truth, result):
    """right / unsure / voided (a valid spin made no-spin) / wrong (any other call unlike the truth)."""
    if result == "unsure":
        return "unsure"
    if result == truth:
        return "right"
    return "voided" if result == "no-spin" else "wrong"


def sweep(site, n, log=None):
    """{"kinds": {kind: {right, unsure, voided, wrong}}, "bad": [the voided and wrong scenes]} of
    `n` scenes per kind on `site` (restbench.Site, two or four cameras)."""
    from ..vision.views import judge_views
    out = {"kinds": {}, "bad": []}
    for kind in KINDS:
        counts = dict.fromkeys(("right", "unsure", "voided", "wrong"), 0)
        for seed in range(n):
            coins, truth = scene(site, kind, seed)
            # every camera's frame, each coin turned at random (the two-4K-view timing's moments)
            frames = _moment(site.ring, site.cams, np.random.default_rng([seed, 7]), coins)
            v = judge_views(frames, site.rig, site.model)
            o = outcome(truth, v["result"])
            counts[o] += 1
            if o in ("voided", "wrong"):
                out["bad"].append({"kind": kind, "seed": seed, "truth": truth, "result": v["result"],
                                   "reasons": v["reasons"]})
            if log:
                log(f"{kind} {seed}: {truth} -> {v['result']} {v['reasons'][:1]}")
        out["kinds"][kind] = counts
    return out


def main(argv=None):
    p = OneLineParser(prog="ring bench rig", description=__doc__)
    p.add_argument("--scenes", type=int, default=40, help="scenes per kind per site")
    p.add_argument("--sites", default=SITES, help="sites as COIN_PX:SEED, comma-separated (default %(default)s)")
    p.add_argument("--cameras", type=int, default=2, help="cameras over the ring: 2 (halves) or 4 (quarters)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="say each scene on stderr")
    a = p.parse_args(argv)
    try:
        sites = [(float(px), int(seed)) for px, seed in (s.split(":") for s in a.sites.split(",") if s)]
    except ValueError:
        raise UserError(f"--sites {a.sites!r}: give COIN_PX:SEED pairs, e.g. 44:3,60:5")
    if not sites:
        raise UserError("--sites names no site: give COIN_PX:SEED pairs, e.g. 44:3,60:5")
    for px, seed in sites:
        if not (COIN_PX_MIN <= px <= COIN_PX_MAX) or seed < 0:
            raise UserError(f"--sites {px:g}:{seed}: coins {COIN_PX_MIN}-{COIN_PX_MAX} px across and a "
                            "seed of 0 or more, e.g. 44:3")
    if a.cameras not in (2, 4):
        raise UserError(f"--cameras {a.cameras}: the simulated rigs have 2 or 4 cameras")
    if a.scenes < 1:
        raise UserError(f"--scenes {a.scenes}: give 1 or more")
    log, out = benchrun.start(a.progress, ring_mm=RING_MM, cameras=a.cameras, sites=[])
    t0 = time.process_time()
    from .restbench import Site
    for px, seed in sites:
        site = Site(ring_mm=RING_MM, cameras=a.cameras, coin_px=px, seed=seed)
        out["sites"].append(dict(coin_px=px, site_seed=seed, **sweep(site, a.scenes, log)))
    out["cpu_s"] = round(time.process_time() - t0, 1)
    out["voided_or_wrong"] = sum(len(s["bad"]) for s in out["sites"])
    if a.json:
        print(json.dumps(out))
    else:
        for s in out["sites"]:
            print(f"site {s['coin_px']:.0f} px coins, {a.cameras} cameras (seed {s['site_seed']}): "
                  "right / unsure / voided / wrong")
            for kind, c in s["kinds"].items():
                print(f"  {kind:14s} {c['right']:4d} {c['unsure']:4d} {c['voided']:4d} {c['wrong']:4d}")
            for b in s["bad"]:
                print("  BAD", json.dumps(b))
        print(f"voided or wrong over the sweep: {out['voided_or_wrong']} (cpu {out['cpu_s']} s, load {out['load_avg_1min']})")
    sys.stdout.flush()
    return 0 if out["voided_or_wrong"] == 0 else 1
