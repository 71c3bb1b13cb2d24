"""`ring bench training`: the technician's training photos in each ring (`--train ring`), photo by
photo: how many the training refuses and why, and how far from the coin each accepted one was
measured (a patch off the coin would train a wrong model). With `--scale K,...`: each ring's
calibration with its boundary found K times as far from the centre (a wall's inner band or a
printed circle taken for the wall), and how often training refuses it (`faceid.check_scale`):
at K = 1 never, the further K lies from 1 the more often. With `--bands W,...`: each ring made a
calibration beside a band W of the radius wide, both ways round - the band the wall's inner part
(its inner side the wall's foot, the edge found beyond it) and a border printed on the layout
(the edge found the wall's foot, the band inside it) - and settled by the coins' size in its
photos (`faceid.settle`): right, refused, or wrong (the other boundary taken); `--ring-mm-off
K,...` gives the ring's diameter K times the truth as well (a tape across the wall's tops, a
typo). The band is made by moving the boundary, not drawn: the photos have none, so the coin
finder never meets one (the sealed sets' own band rings: `ring bench calibration --settle`)."""
import argparse
import collections
import json
import time

import cv2
import numpy as np

from ..errors import UserError
from ..vision import faceid, ring as ringmod
from . import benchrun, calib_bench, heldout

OFF_MAX = 0.1   # coin radii: an accepted photo measured further than this from its coin is counted "off"


def photos_of_ring(spec, seed, n=faceid.RECOMMENDED_PHOTOS):
    """[(name, photo, its coin)] for both faces, as `vision_bench.ring_model` trains a ring."""
    out = []
    for face in ("heads", "tails"):
        coins = []
        imgs = heldout.ring_training_frames(spec, seed, face, n, coins=coins)
        out += [(f"{face}#{k}", img, coin) for k, (img, coin) in enumerate(zip(imgs, coins))]
    return out


def sweep(name, n, all_rings=False, log=None):
    """Counts over the first `n` scenes of set `name` (rings with print only, unless `all_rings`)."""
    if name not in heldout.SETS:
        raise UserError(f"unknown scene set {name!r}; one of {', '.join(heldout.SETS)}")
    cfg = heldout.SETS[name]
    t = dict(rings=0, calibration_refused=0, rings_refused=0, photos=0, photos_refused=0, photos_off=0,
             worst_off_r=0.0)
    why, misses = collections.Counter(), []
    for seed in heldout.set_seeds(cfg, n):
        spec, _ = heldout.make(seed, None, cfg)
        if not (all_rings or spec.get("_artwork")):
            continue
        t["rings"] += 1
        try:
            rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
        except UserError:
            t["calibration_refused"] += 1
            continue
        refused = 0
        inv = cv2.invertAffineTransform(rm.to_plane)
        empty = heldout.empty_frame(spec, seed)   # the calibration's photo, as `ring vision train --empty`
        for pname, img, coin in photos_of_ring(spec, seed):
            t["photos"] += 1
            try:
                b = faceid.training_coin(img, rm, pname, empty)
            except faceid.TrainingPhotoError as exc:
                refused += 1
                cause = str(exc).split(": ", 1)[1]
                why[cause.split(":")[0].split(";")[0][:70]] += 1
                misses.append({"seed": seed, "photo": pname, "coin_px": round(2 * coin["radius_px"]), "why": cause})
                continue
            at = inv[:, :2] @ np.array(b.plane_center) + inv[:, 2]
            off = float(np.hypot(*(at - coin["center_px"]))) / coin["radius_px"]
            t["worst_off_r"] = round(max(t["worst_off_r"], off), 3)
            if off > OFF_MAX:
                t["photos_off"] += 1
                misses.append({"seed": seed, "photo": pname, "off_r": round(off, 3)})
        t["photos_refused"] += refused
        t["rings_refused"] += refused > 0
        if log:
            log(f"{name} {seed}: {refused} of 24 refused")
    return dict(t, causes=dict(why.most_common())), misses


def boundary_moved(rm, k, empty, ring_mm=None):
    """`rm` with its boundary found k times as far from the centre, the diameters given as they
    were (or the ring's as `ring_mm`), and its empty ring's photo at the detection scale that
    boundary sets (as `ringmod.calibrate` makes it)."""
    moved = ringmod.RingModel(rm.image_size, rm.center, [k * a for a in rm.axes], rm.angle_deg, None,
                              rm.coin_mm, ring_mm or rm.ring_mm, layout_bgr=rm.layout_bgr, edge_px=rm.edge_px)
    moved.background = moved.small(empty)
    return moved


def _trains(ring, photos, empty):
    """None if `faceid.train` makes a model of these photos with this calibration (as `ring
    vision train --empty` would); else why not: "scale" (`check_scale`), "photos" (too many
    refused, `faceid.LEAVE_OUT_MAX`) or "faces" (they do not separate)."""
    faces = {"heads": [], "tails": []}
    for pname, img, _ in photos:
        faces[pname.split("#")[0]].append(img)
    try:
        faceid.train(faces["heads"], faces["tails"], ring, names=[p for p, _, _ in photos], empty=empty)
    except faceid.ScaleError:
        return "scale"
    except faceid.TrainingPhotoError:
        return "photos"
    except UserError:
        return "faces"
    return None


def _calibrated(name, n):
    """(seed, spec, empty ring's photo, RingModel or None where refused) of the first `n` rings of
    set `name`."""
    if name not in heldout.SETS:
        raise UserError(f"unknown scene set {name!r}; one of {', '.join(heldout.SETS)}")
    cfg = heldout.SETS[name]
    for seed in heldout.set_seeds(cfg, n):
        spec, _ = heldout.make(seed, None, cfg)
        empty = heldout.empty_frame(spec, seed)
        try:
            rm = ringmod.calibrate(empty, ring_mm=heldout.ring_mm(spec))
        except UserError:
            rm = None
        yield seed, spec, empty, rm


def scale_sweep(name, n, ks, log=None):
    """Per boundary factor K (text key): rings trained on, refused for the coins' size ("scale"),
    refused for too many photos ("photos"), over the first `n` rings of set `name`."""
    t = {f"{k:g}": collections.Counter() for k in ks}
    refused_at_calibration = 0
    for seed, spec, empty, rm in _calibrated(name, n):
        if rm is None:
            refused_at_calibration += 1
            continue
        photos = photos_of_ring(spec, seed)
        got = {f"{k:g}": _trains(boundary_moved(rm, k, empty), photos, empty) or "trained" for k in ks}
        for k, what in got.items():
            t[k][what] += 1
        if log:
            log(f"{name} {seed}: " + ", ".join(f"{k}: {what}" for k, what in got.items()))
    return {"calibration_refused": refused_at_calibration, "by_boundary": {k: dict(c) for k, c in t.items()}}


def unsettled(rm, k, empty, inner_is_wall):
    """A calibration beside a band as ring.calibrate(unsettled_ok=True) leaves it, made from `rm`
    (the wall's foot, right): the band's inner side at `rm` and the edge found k times as far out
    (`inner_is_wall`: the band is the wall's inner part), or the edge found at `rm` and the band's
    inner side k times as far in (a border printed on the layout)."""
    edge = boundary_moved(rm, k, empty) if inner_is_wall else rm
    out = boundary_moved(edge, 1.0, empty)
    out.band_inner = rm if inner_is_wall else boundary_moved(rm, 1 / k, empty)
    out.unsettled = "ring edge uncertain: a band round the ring (bench)"
    return out


def band_sweep(name, n, widths, log=None, mm_offs=(1.0,)):
    """Per band width W and ring diameter given K times the truth (text key "W" or "W mm xK") and
    way round ("wall's inner part", "printed border"): rings settled right, refused (and why: "both
    fit", "neither fits", "unclear", "too few"), settled wrong, over the first `n` rings of set
    `name` calibrated right (within 3 px: a ring refused or off is skipped)."""
    keys = [(w, k, f"{w:g}" + ("" if k == 1.0 else f" mm x{k:g}")) for w in widths for k in mm_offs]
    t = {key: {"wall's inner part": collections.Counter(), "printed border": collections.Counter()}
         for _, _, key in keys}
    skipped = 0
    for seed, spec, empty, rm in _calibrated(name, n):
        if rm is None or max(abs(a - b) for a, b in zip(rm.axes, calib_bench.truth_axes(spec))) > 3.0:
            skipped += 1
            continue
        faces = {"heads": [], "tails": []}
        for pname, img, _ in photos_of_ring(spec, seed):
            faces[pname.split("#")[0]].append(img)
        said = []
        for w, k, key in keys:
            foot = rm if k == 1.0 else boundary_moved(rm, 1.0, empty, rm.ring_mm * k)
            for way, inner_is_wall in (("wall's inner part", True), ("printed border", False)):
                ring = unsettled(foot, 1 / (1 - w), empty, inner_is_wall)
                try:
                    got, _ = faceid.settle(ring, faces["heads"], faces["tails"], empty=empty)
                except UserError as exc:
                    why = str(exc)
                    what = next((c for c in ("both fit", "neither fits", "apart clearly", "too few") if c in why),
                                "refused").replace("apart clearly", "unclear")
                else:
                    what = "right" if got.axes == foot.axes else "WRONG"
                t[key][way][what] += 1
                said.append(f"{key} {way}: {what}")
        if log:
            log(f"{name} {seed}: " + ", ".join(said))
    return {"skipped": skipped, "by_band": {key: {way: dict(c) for way, c in d.items()} for key, d in t.items()}}


def main(argv=None):
    p = argparse.ArgumentParser(prog="ring bench training", description=__doc__)
    p.add_argument("--sets", default="edge-tune:8",
                   help="NAME:N,... scene sets and how many scenes of each (default edge-tune:8)")
    p.add_argument("--all-rings", action="store_true", help="every ring, not only rings with printed artwork")
    p.add_argument("--misses", action="store_true", help="list each refused (or off) photo")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="say each ring on stderr")
    p.add_argument("--scale", metavar="K,...", help="each ring's boundary found K times as far from its "
                   "centre (e.g. 0.9,1,1.05,1.1): how often training refuses it for the coins' size")
    p.add_argument("--bands", metavar="W,...", help="each ring calibrated beside a band W of the radius wide "
                   "(e.g. 0.05,0.1,0.2), both ways round, and settled by the coins' size: right, refused or wrong")
    p.add_argument("--ring-mm-off", metavar="K,...", help="with --bands: the ring's diameter given K times the "
                   "truth too (e.g. 1,1.06,0.94; default 1)")
    a = p.parse_args(argv)
    sets = heldout.parse_sets(a.sets, 8)
    log, out = benchrun.start(a.progress, sets={})
    t0 = time.process_time()
    if a.bands:
        try:
            ws = [float(w) for w in a.bands.split(",")]
        except ValueError:
            raise UserError(f"--bands {a.bands!r}: give widths like 0.05,0.1,0.2 (shares of the radius)") from None
        if not all(0 < w < 0.5 for w in ws):
            raise UserError(f"--bands {a.bands!r}: each width a share of the radius between 0 and 0.5, e.g. 0.1")
        try:
            ks = [float(k) for k in (a.ring_mm_off or "1").split(",")]
        except ValueError:
            raise UserError(f"--ring-mm-off {a.ring_mm_off!r}: give factors like 1,1.06,0.94") from None
        for name, n in sets:
            out["sets"][name] = band_sweep(name, n, ws, log, ks)
    elif a.scale:
        try:
            ks = [float(k) for k in a.scale.split(",")]
        except ValueError:
            raise UserError(f"--scale {a.scale!r}: give factors like 0.9,1,1.1") from None
        for name, n in sets:
            out["sets"][name] = scale_sweep(name, n, ks, log)
    else:
        for name, n in sets:
            tally, misses = sweep(name, n, a.all_rings, log)
            out["sets"][name] = dict(tally, misses=misses) if a.misses else tally
    out["cpu_s"] = round(time.process_time() - t0, 1)
    if a.json:
        print(json.dumps(out))
    else:
        (_print_bands if a.bands else _print_scale if a.scale else _print_photos)(out)
    if a.bands:   # a band is never settled on the wrong boundary
        return 0 if all(c.get("WRONG", 0) == 0 for r in out["sets"].values() for d in r["by_band"].values()
                        for c in d.values()) else 1
    if a.scale:   # a right calibration is never refused for the coins' size
        return 0 if all(r["by_boundary"].get("1", {}).get("scale", 0) == 0 for r in out["sets"].values()) else 1
    return 0 if all(r["photos_off"] == 0 for r in out["sets"].values()) else 1


def _print_bands(out):
    for name, r in out["sets"].items():
        print(f"{name}: {r['skipped']} rings skipped (refused or off at calibration); settled by the coins' size, "
              "by the band's width (x the radius; the band moved, not drawn):")
        for w, d in r["by_band"].items():
            for way, c in d.items():
                print(f"  {w:>12} {way:<18}: " + ", ".join(f"{c.get(k, 0)} {k}" for k in
                                                         ("right", "both fit", "neither fits", "unclear", "too few",
                                                          "WRONG")))


def _print_scale(out):
    for name, r in out["sets"].items():
        print(f"{name}: {r['calibration_refused']} rings refused at calibration; training, by where the "
              "boundary was found (x the radius):")
        for k, c in r["by_boundary"].items():
            print(f"  {k:>5}: " + ", ".join(f"{c.get(w, 0)} {w}" for w in ("trained", "scale", "photos", "faces")))


def _print_photos(out):
    for name, r in out["sets"].items():
        print(f"{name}: {r['rings']} rings ({r['calibration_refused']} refused at calibration), "
              f"{r['rings_refused']} refused a photo; photos {r['photos_refused']}/{r['photos']} refused, "
              f"{r['photos_off']} accepted off the coin (worst {r['worst_off_r']} coin radii)")
        for cause, k in r["causes"].items():
            print(f"  {k:4d}  {cause}")
        for m in r.get("misses", []):
            print("  ", json.dumps(m))
