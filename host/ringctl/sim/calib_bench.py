"""`ring bench calibration [--json]`: ring calibration alone on held-out empty rings (issue 12).

Per set: rings calibrated, refused, calibrated more than 3 px off the generator's own layout
edge (an axis's error, as `ring bench vision` counts it; the centre's apart; and the boundary's:
the largest distance of the calibrated boundary from the true one round the ring, which also
counts a turned ellipse), the worst error, and calibrate() CPU ms; much faster than
`ring bench vision` (no scenes judged, no faces trained). `NAME+art` forces printed artwork (lines, boxes, lettering in an ink
close to the coin's colour, `heldout._print_artwork`) into every ring of a set that has none.
"""
import json
import os
import time

import cv2
import numpy as np

from ..cliutil import OneLineParser
from ..errors import UserError
from ..vision import ring as ringmod
from . import heldout


def truth_axes(spec):
    a = spec["ring"]["radius"]
    return a, a * (spec["ring"].get("ellipse") or {"ratio": 1.0})["ratio"]


def boundary_off(rm, spec):
    """The largest distance (px) of the calibrated boundary from the generator's, round the ring."""
    a, b = truth_axes(spec)
    truth = (tuple(spec["ring"]["center"]), (2 * a, 2 * b), (spec["ring"].get("ellipse") or {}).get("angle_deg", 0.0))
    x, y = ringmod._ellipse_points((rm.center, (2 * rm.axes[0], 2 * rm.axes[1]), rm.angle_deg),
                                   np.linspace(0, 2 * np.pi, 360, endpoint=False), 1.0)
    return float(np.abs(ringmod._ell_residual(np.stack([x, y], 1), truth)).max())


def set_config(item):
    """'NAME[+art][:N]' -> (label, cfg, n or None)."""
    name, _, n = item.partition(":")
    try:
        n = int(n) if n else None
    except ValueError:
        raise UserError(f"--sets {item!r}: give NAME, NAME:RINGS or NAME+art:RINGS, e.g. tune-1080p+art:50")
    base, art = (name[:-4], True) if name.endswith("+art") else (name, False)
    if base not in heldout.SETS:
        raise UserError(f"unknown scene set {base!r}; one of {', '.join(heldout.SETS)}")
    cfg = dict(heldout.SETS[base])
    if art:
        cfg.update(artwork=True, coins=cfg.get("coins") or (cfg["coin"],))
    return name, cfg, n


def measure(cfg, n, misses=None):
    """Calibrate the empty ring of `n` scenes of a set -> figures (misses appended to `misses`)."""
    off, cen, edge, ms, refused = [], [], [], [], 0
    for seed in heldout.set_seeds(cfg, n):
        spec, _ = heldout.make(seed, None, cfg)
        img = heldout.empty_frame(spec, seed)
        c0 = time.thread_time()
        try:
            rm = ringmod.calibrate(img, ring_mm=heldout.ring_mm(spec))
        except UserError as exc:
            refused += 1
            if misses is not None:
                misses.append({"seed": seed, "artwork": bool(spec.get("_artwork")), "refused": str(exc)})
            continue
        finally:
            ms.append((time.thread_time() - c0) * 1000)
        a, b = truth_axes(spec)
        e = max(abs(rm.axes[0] - a), abs(rm.axes[1] - b))   # as `ring bench vision` counts it
        c = float(np.hypot(*(np.array(rm.center) - spec["ring"]["center"])))
        g = boundary_off(rm, spec)
        off.append(e)
        cen.append(c)
        edge.append(g)
        if max(e, c, g) > 3.0 and misses is not None:
            misses.append({"seed": seed, "artwork": bool(spec.get("_artwork")), "off_px": round(e, 2),
                           "center_off_px": round(c, 2), "boundary_off_px": round(g, 2),
                           "axes": [round(v, 1) for v in rm.axes],
                           "truth": [round(a, 1), round(b, 1)]})
    return {"rings": n, "refused": refused, "off_3px": sum(e > 3.0 for e in off),
            "off_px_max": round(max(off), 2) if off else None,
            "off_px_median": round(float(np.median(off)), 2) if off else None,
            "center_off_3px": sum(c > 3.0 for c in cen), "center_off_px_max": round(max(cen), 2) if cen else None,
            "boundary_off_3px": sum(g > 3.0 for g in edge),
            "boundary_off_px_max": round(max(edge), 2) if edge else None,
            "calibrate_cpu_ms_median": round(float(np.median(ms)), 1) if ms else None}


def main(argv=None):
    p = OneLineParser(prog="ring bench calibration", description=__doc__)
    p.add_argument("--sets", default="sealed-8:97,edge-tune:60",
                   help="comma-separated NAME[+art][:RINGS] (default sealed-8:97,edge-tune:60)")
    p.add_argument("--rings", type=int, default=50, help="rings per set without :RINGS (default 50)")
    p.add_argument("--misses", action="store_true", help="list every ring refused or more than 3 px off")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    out = {"threads": 1, "load_avg_1min": round(os.getloadavg()[0], 2), "sets": {}}
    for item in [s for s in args.sets.split(",") if s]:
        label, cfg, n = set_config(item)
        misses = [] if args.misses else None
        t0 = time.perf_counter()
        res = measure(cfg, n or args.rings, misses)
        res["seconds"] = round(time.perf_counter() - t0, 1)
        if misses is not None:
            res["misses"] = misses
        out["sets"][label] = res
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {json.dumps(v, indent=1) if isinstance(v, dict) else v}")
    return 0
