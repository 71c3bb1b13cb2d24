"""`ring bench calibration [--json]`: ring calibration alone on held-out empty rings (issue 12).

Per set: rings calibrated, refused, left unsettled beside a band (both boundaries saved for
training in the ring to settle by the coins' size: `ring.calibrate(unsettled_ok=True)`; listed
with how far each is off; with `--settle`, settled by the coins' size in the ring's own training
photos as `ring vision train` settles it, `faceid.settle`, and then counted as calibrated, or
refused), calibrated more than 3 px off the generator's own layout
edge (an axis's error, as `ring bench vision` counts it; the centre's apart; and the boundary's:
the largest distance of the calibrated boundary from the true one round the ring, which also
counts a turned ellipse), the worst error, and calibrate() CPU ms; much faster than
`ring bench vision` (no scenes judged, no faces trained). `NAME+art` forces printed artwork (lines, boxes, lettering in an ink
close to the coin's colour, `heldout._print_artwork`) into every ring of a set that has none;
`NAME+circle` prints a circle round the layout's middle of each ring (`printed_circle`: an ink,
radius and width drawn per ring), which must be passed over to the wall or refused, never taken
for the boundary (docs/VISION.md "A circle printed inside the ring"). `NAME+tint` prints, as the
generator prints its own circles, a circle at 0.7-0.97 of the radius in a tint between two of the
ring's own colours (cloth, ink, wall, floor) or in the wall's or the floor's colour
(`tinted_circle`): the print that lies closest to what calibration takes for the wall
(docs/VISION.md "A box of ink over the ring's centre: the cloth found past it").
"""
import json
import os
import time

import cv2
import numpy as np

from ..cliutil import OneLineParser
from ..errors import UserError
from ..vision import faceid, ring as ringmod
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


def printed_circle(img, spec, seed):
    """`img` (an empty ring's frame) with a circle printed round the layout's middle, concentric
    with the ring and seen as it is: an ink of any colour, at 0.5-0.95 of the ring's radius,
    5-40 px wide at 1920 (drawn from `seed`). Returns the circle's (radius share, width px)."""
    rng = np.random.default_rng([seed, 7])
    ring = spec["ring"]
    ell = ring.get("ellipse") or {"ratio": 1.0, "angle_deg": 0.0}
    share, width = float(rng.uniform(0.5, 0.95)), float(rng.uniform(5, 40)) * img.shape[1] / 1920
    ink = tuple(int(v) for v in rng.integers(0, 256, 3))
    r = share * ring["radius"]
    cv2.ellipse(img, (int(round(ring["center"][0])), int(round(ring["center"][1]))),
                (int(round(r)), int(round(r * ell["ratio"]))), ell["angle_deg"], 0, 360, ink,
                max(1, int(round(width))), cv2.LINE_AA)
    return round(share, 3), round(width, 1)


TINTS = ("cloth-ink", "cloth-wall", "ink-wall", "cloth-floor", "wall", "floor")


def add_circle(spec, share, width, bgr):
    """Add to `spec` (before it is rendered) a circle concentric with the ring at `share` of its
    radius, `width` px wide, in `bgr`, in the generator's own form (`layout["circles"]`)."""
    c = np.array(spec["ring"]["center"]) - heldout._canvas(spec)[0]
    spec["layout"]["circles"] = list(spec["layout"].get("circles") or []) + [
        [float(c[0]), float(c[1]), share * spec["ring"]["radius"], width, list(bgr)]]


def tinted_circle(spec, seed):
    """Add to `spec` (before it is rendered) a circle printed round the layout's middle as the
    generator prints its own (`heldout._print_circle`), at 0.7-0.97 of the ring's radius, 4-16 px
    wide at 1920, in a tint halfway between two of the ring's colours or in one of them (TINTS,
    drawn from `seed`). Returns (radius share, width px, tint)."""
    rng = np.random.default_rng([seed, 11])
    lay, ring = spec["layout"], spec["ring"]
    colours = {"cloth": lay["color"], "ink": lay.get("ink") or lay["color"], "wall": ring["wall_color"],
               "floor": spec["floor"]["color"]}
    tint = TINTS[int(rng.integers(len(TINTS)))]
    one, _, other = tint.partition("-")
    ink = (0.5 * (np.array(colours[one], float) + np.array(colours[other or one], float))).round().tolist()
    share, width = float(rng.uniform(0.7, 0.97)), float(rng.uniform(4, 16)) * spec["size"][0] / 1920
    add_circle(spec, share, width, ink)
    return round(share, 3), round(width, 1), tint


def set_config(item):
    """'NAME[+art|+circle|+tint][:N]' -> (label, cfg, n or None, circle: None, or "circle" or "tint" for
    a circle printed in each ring)."""
    name, _, n = item.partition(":")
    try:
        n = int(n) if n else None
    except ValueError:
        raise UserError(f"--sets {item!r}: give NAME, NAME:RINGS, NAME+art:RINGS, NAME+circle:RINGS or "
                        "NAME+tint:RINGS, e.g. tune-1080p+art:50")
    base, _, extra = name.partition("+")
    if extra not in ("", "art", "circle", "tint"):
        raise UserError(f"--sets {item!r}: after + give art, circle or tint, e.g. tune-1080p+circle:50")
    if base not in heldout.SETS:
        raise UserError(f"unknown scene set {base!r}; one of {', '.join(heldout.SETS)}")
    cfg = dict(heldout.SETS[base])
    if extra == "art":
        cfg.update(artwork=True, coins=cfg.get("coins") or (cfg["coin"],))
    return name, cfg, n, extra if extra in ("circle", "tint") else None


def measure(cfg, n, misses=None, circle=None, settle=False):
    """Calibrate the empty ring of `n` scenes of a set -> figures (misses appended to `misses`;
    `circle`: "circle", each ring's photo with a printed circle, `printed_circle`, or "tint",
    `tinted_circle`; `settle`: a ring left
    unsettled is settled by its training photos, `faceid.settle`)."""
    off, cen, edge, ms, refused, unsettled = [], [], [], [], 0, 0
    settled = settle_refused = 0
    for seed in heldout.set_seeds(cfg, n):
        spec, _ = heldout.make(seed, None, cfg)
        drawn = tinted_circle(spec, seed) if circle == "tint" else None
        img = heldout.empty_frame(spec, seed)
        drawn = printed_circle(img, spec, seed) if circle == "circle" else drawn
        c0 = time.thread_time()
        try:
            rm = ringmod.calibrate(img, ring_mm=heldout.ring_mm(spec), unsettled_ok=True)
        except UserError as exc:
            refused += 1
            if misses is not None:
                misses.append({"seed": seed, "artwork": bool(spec.get("_artwork")), "refused": str(exc)}
                              | ({"circle": drawn} if drawn else {}))
            continue
        finally:
            ms.append((time.thread_time() - c0) * 1000)
        if rm.unsettled:   # neither boundary is this calibration's until training settles it
            unsettled += 1
            told = {"seed": seed, "artwork": bool(spec.get("_artwork")), "unsettled": rm.unsettled,
                    "edge_found_off_px": round(boundary_off(rm, spec), 2),
                    "band_inner_off_px": round(boundary_off(rm.band_inner, spec), 2)}
            if drawn:
                told["circle"] = drawn
            if settle:
                faces = [heldout.ring_training_frames(spec, seed, face, faceid.RECOMMENDED_PHOTOS)
                         for face in ("heads", "tails")]
                try:
                    rm, told["settled"] = faceid.settle(rm, *faces, empty=img)
                    settled += 1
                except UserError as exc:
                    settle_refused += 1
                    told["settle_refused"] = str(exc)
            if misses is not None:
                misses.append(told)
            if rm.unsettled:
                continue
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
                           "truth": [round(a, 1), round(b, 1)]} | ({"circle": drawn} if drawn else {}))
    return ({"rings": n, "refused": refused, "unsettled": unsettled}
            | ({"settled": settled, "settle_refused": settle_refused} if settle else {})
            | {"off_3px": sum(e > 3.0 for e in off),
               "off_px_max": round(max(off), 2) if off else None,
               "off_px_median": round(float(np.median(off)), 2) if off else None,
               "center_off_3px": sum(c > 3.0 for c in cen), "center_off_px_max": round(max(cen), 2) if cen else None,
               "boundary_off_3px": sum(g > 3.0 for g in edge),
               "boundary_off_px_max": round(max(edge), 2) if edge else None,
               "calibrate_cpu_ms_median": round(float(np.median(ms)), 1) if ms else None})


def main(argv=None):
    p = OneLineParser(prog="ring bench calibration", description=__doc__)
    p.add_argument("--sets", default="sealed-8:97,edge-tune:60",
                   help="comma-separated NAME[+art|+circle|+tint][:RINGS] (default sealed-8:97,edge-tune:60)")
    p.add_argument("--rings", type=int, default=50, help="rings per set without :RINGS (default 50)")
    p.add_argument("--misses", action="store_true", help="list every ring refused, unsettled or more than 3 px off")
    p.add_argument("--settle", action="store_true", help="settle each ring left unsettled beside a band by the "
                   "coins' size in its own training photos, as `ring vision train` does, and count it calibrated")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    out = {"threads": 1, "load_avg_1min": round(os.getloadavg()[0], 2), "sets": {}}
    for item in [s for s in args.sets.split(",") if s]:
        label, cfg, n, circle = set_config(item)
        misses = [] if args.misses else None
        t0 = time.perf_counter()
        res = measure(cfg, n or args.rings, misses, circle, args.settle)
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
