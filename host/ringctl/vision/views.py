"""Judge one moment seen by several cameras: single-view verdicts merged in ring millimetres.

Each camera's frame is judged on its own by `judge.classify` (the single-view judge), after
objects cut by that frame's border are painted over with the empty ring: a part of a coin
is not a coin, and the camera that sees it whole judges it. Every coin found is mapped to
ring mm by its camera's homography (`viewcal.CameraView`); the same coin seen in overlapping
views is one coin, taken from the view where it is largest; if another view that sees it
whole reads it differently (face, flat, inside), the call is "unsure", never a guess. What
a view says about objects (outside, on the rim, tilted, a chip in the ring...) stands for
the whole ring; what it says from counting its own coins does not (a view of half the ring
sees one coin): the count is made over the merged coins, and fewer than two with nothing
seen leaving is "unsure" (positive evidence before a void, rule 7.3.1).
"""
import time

import cv2
import numpy as np

from . import detect, judge

# single-view reasons that come from counting that view's coins: recomputed over all views
_COUNT_REASONS = ("7.3.1 fewer than two coins", "unsure: more than two coins",
                  "unsure: cannot read a coin's face", "both coins", "one head and one tail",
                  "unsure: fewer than two coins", "unsure: only", "unsure: 0 coins found",
                  "unsure: 1 coin found")
STRIP_COINS = 3.0     # border strip searched for cut objects, in coin diameters


def _is_count_reason(r):
    return r.startswith(_COUNT_REASONS)


def erase_cut(img, ring):
    """(frame, n): objects touching the frame's border painted over with the empty ring
    (the background's own pixels, upsampled). Only border strips are searched: cheap at 4K."""
    f = ring.factor
    small = ring.small(img)
    detect._blurred_background(ring)
    sh, sw = small.shape[:2]
    d_coin = 2 * ring.coin_radius_px / f
    s = int(min(max(4, STRIP_COINS * d_coin), sw // 2, sh // 2))
    strips = getattr(ring, "_cut_strips", None)
    if strips is None:       # the empty ring's features along the border, once per ring model
        strips = ring._cut_strips = [
            ((y0, y1, x0, x1), detect.colour_feats(ring._bg_blur[y0:y1, x0:x1]))
            for (y0, y1, x0, x1) in ((0, s, 0, sw), (sh - s, sh, 0, sw), (s, sh - s, 0, s),
                                     (s, sh - s, sw - s, sw))]
    out, n = img, 0
    for (y0, y1, x0, x1), bg_feats in strips:
        a = cv2.GaussianBlur(small[y0:y1, x0:x1], (3, 3), 0)
        dd = detect.diff_feats(detect.colour_feats(a), bg_feats)
        thr = max(45.0, 4.0 * float(np.median(dd[::4, ::4])))
        m = (dd > thr).astype(np.uint8)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        k, lbl, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        for j in range(1, k):
            x, y, w, h, area = stats[j]
            if area < 0.1 * d_coin * d_coin:
                continue
            gx, gy = x + x0, y + y0                 # in the small image
            if not (gx == 0 or gy == 0 or gx + w >= sw or gy + h >= sh):
                continue                            # not cut by the frame's border
            if out is img:
                out = img.copy()
            pad = int(np.ceil(d_coin))              # the rest of the object beyond the strip
            X0, Y0 = max(0, gx - pad), max(0, gy - pad)
            X1, Y1 = min(sw, gx + w + pad), min(sh, gy + h + pad)
            H, W = img.shape[:2]
            u0, v0, u1, v1 = X0 * f, Y0 * f, min(W, X1 * f), min(H, Y1 * f)
            patch = cv2.resize(ring.background[Y0:Y1, X0:X1], (u1 - u0, v1 - v0),
                               interpolation=cv2.INTER_LINEAR)
            out[v0:v1, u0:u1] = patch
            n += 1
    return out, n


def judge_views(frames, rig, model):
    """frames: one BGR frame per rig view (None: that camera gave none) ->
    {"result", "reasons", "coins": [{center_mm, diameter_px, face, flat, inside, confidence,
    camera, cameras}], "views": [per-view verdicts], "ms"}."""
    t0 = time.perf_counter()
    views = rig.views
    nospin, unsure, verdicts, entries = [], [], [], []
    for k, (v, img) in enumerate(zip(views, frames)):
        if img is None:
            unsure.append(f"unsure: camera {v.name} gave no frame")
            verdicts.append(None)
            continue
        clean, cut = erase_cut(img, v.ring)
        out = judge.classify(clean, v.ring, model)
        out["camera"], out["cut_objects"] = v.name, cut
        verdicts.append(out)
        tag = f" (camera {v.name})" if len(views) > 1 else ""
        for r in out["reasons"]:
            if _is_count_reason(r):
                continue
            # a view's no-spin lists only its voiding reasons; "7.3.2 a chip in the ring" is unsure
            (nospin if out["result"] == "no-spin" else unsure).append(r + tag)
        for c in out["coins"]:
            mm = v.to_mm([c["center"]])[0]
            ppm = float(v.px_per_mm([mm])[0])
            entries.append(dict(c, view=k, center_mm=mm, diameter_px=2 * c["radius"],
                                radius_mm=c["radius"] / ppm))
    coins, disagree = _merge(entries, rig)
    # two coins seen by different cameras can still touch (7.3.4): measured in ring mm
    for i in range(len(coins)):
        for j in range(i + 1, len(coins)):
            a, b = coins[i], coins[j]
            if a["camera"] == b["camera"]:
                continue      # the single-view judge has measured it
            gap = float(np.hypot(*(np.subtract(a["center_mm"], b["center_mm"])))) - a["radius_mm"] - b["radius_mm"]
            tol = max(2.0 / a["px_per_mm"], 0.06 * a["radius_mm"])
            if gap < tol:
                nospin.append("7.3.4 coin lying on or touching the other coin")
            elif gap < 2 * tol:
                unsure.append("unsure: coins nearly touching")
    if disagree:
        result, reasons = "unsure", sorted(set(disagree))
    elif nospin:
        result, reasons = "no-spin", sorted(set(nospin))
    elif unsure:
        result, reasons = "unsure", sorted(set(unsure))
    elif len(coins) < 2:
        result = "unsure"
        reasons = [f"unsure: only {len(coins)} coin(s) seen by the cameras and none seen leaving "
                   "the ring (7.3.1 needs evidence): the boxer looks"]
    elif len(coins) > 2:
        result, reasons = "unsure", ["unsure: more than two coins in view"]
    elif any(c["face"] is None for c in coins):
        result, reasons = "unsure", ["unsure: cannot read a coin's face"]
    else:
        faces = {c["face"] for c in coins}
        result = faces.pop() if len(faces) == 1 else "odds"
        reasons = [f"both coins {result}" if result != "odds" else "one head and one tail"]
    for c in coins:
        c.pop("px_per_mm", None)
    return {"result": result, "reasons": reasons, "coins": coins, "views": verdicts,
            "ms": round((time.perf_counter() - t0) * 1000, 2)}


def _merge(entries, rig):
    """Same coin in several views -> one coin, from the view where it is largest; a view that
    sees it whole and reads it otherwise is a disagreement (-> reasons)."""
    same_mm = 0.6 * rig.coin_mm
    clusters = []
    for e in sorted(entries, key=lambda e: -e["diameter_px"]):
        best = None
        for cl in clusters:
            if any(m["view"] == e["view"] for m in cl):
                continue      # one view never sees the same coin twice (a stack: two entries)
            d = float(np.hypot(*(np.subtract(cl[0]["center_mm"], e["center_mm"]))))
            if d < same_mm and (best is None or d < best[0]):
                best = (d, cl)
        if best is None:
            clusters.append([e])
        else:
            best[1].append(e)
    coins, disagree = [], []
    names = [v.name for v in rig.views]
    for cl in clusters:
        top = cl[0]
        for other in cl[1:]:
            for key in ("face", "flat", "inside"):
                a, b = top[key], other[key]
                if key == "face" and (a is None or b is None):
                    continue
                if a != b:
                    disagree.append(f"unsure: cameras {names[top['view']]} and {names[other['view']]} "
                                    f"disagree about a coin ({key}: {a} / {b})")
        v = rig.views[top["view"]]
        coins.append({"center_mm": [round(float(x), 1) for x in top["center_mm"]],
                      "radius_mm": float(top["radius_mm"]), "diameter_px": round(top["diameter_px"], 1),
                      "face": top["face"], "flat": top["flat"], "inside": top["inside"],
                      "confidence": top["confidence"], "camera": v.name,
                      "cameras": [names[m["view"]] for m in cl],
                      "px_per_mm": float(v.px_per_mm([top["center_mm"]])[0])})
    return coins, disagree
