"""Find objects on the ring: background difference on the downscaled frame, then measure each
object's outline at full resolution (sub-pixel edge along rays) in ring-plane coordinates.

The difference is mostly chromatic, so a passing shadow or a lighting change (which scale
brightness, not colour) barely registers, while a copper coin on any layout does.
"""
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

N_RAYS = 72


def diff_image(a, b):
    """Per-pixel difference of two BGR images: chroma change plus (weaker) log-brightness change."""
    # per-channel 2-D arithmetic: numpy reductions over a length-3 last axis are slow
    ac = [c.astype(np.float32) for c in cv2.split(a)]
    bc = [c.astype(np.float32) for c in cv2.split(b)]
    sa = ac[0] + ac[1] + ac[2] + 30
    sb = bc[0] + bc[1] + bc[2] + 30
    ia, ib = 300.0 / sa, 300.0 / sb
    chroma = cv2.absdiff(ac[0] * ia, bc[0] * ib)
    chroma += cv2.absdiff(ac[1] * ia, bc[1] * ib)
    chroma += cv2.absdiff(ac[2] * ia, bc[2] * ib)
    return chroma + 45 * np.abs(cv2.log(sa / sb))


@dataclass
class Blob:
    """One foreground object. Plane quantities are in ring-plane px (ring = circle of radius R)."""
    center: tuple            # image px
    area_coins: float        # area in units of one flat coin's area
    plane_center: tuple = None
    axes: tuple = None       # (a, b) semi-axes a >= b, plane px; None if the outline was not measured
    angle_deg: float = 0.0
    fit_err: float = 99.0    # median outline residual, px
    chroma: tuple = None     # mean normalised (b, g, r) inside the object
    touches_border: bool = False
    bbox: tuple = None       # small-image x, y, w, h
    extra: dict = field(default_factory=dict)


def find_blobs(img, ring, min_area_coins=0.2):
    """Foreground objects in a frame of `ring` (RingModel), largest first, measured at full res."""
    f = ring.factor
    small = ring.small(img)
    d = diff_image(cv2.GaussianBlur(small, (3, 3), 0), cv2.GaussianBlur(ring.background, (3, 3), 0))
    thr = max(45.0, 4.0 * float(np.median(d)))
    mask = (d > thr).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, lbl, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    r_s = ring.coin_radius_px / f
    coin_area = math.pi * r_s * r_s * ring.axes[1] / ring.axes[0]
    sh, sw = mask.shape
    blobs = []
    for k in range(1, n):
        x, y, w, h, area = stats[k]
        if area < min_area_coins * coin_area:
            continue
        cx, cy = cents[k]
        b = Blob(center=((cx + 0.5) * f - 0.5, (cy + 0.5) * f - 0.5), area_coins=area / coin_area,
                 bbox=(int(x), int(y), int(w), int(h)),
                 touches_border=bool(x == 0 or y == 0 or x + w >= sw or y + h >= sh))
        blobs.append(b)
    blobs.sort(key=lambda b: -b.area_coins)
    for b in blobs:
        if b.area_coins < 3.0:
            measure(img, ring, b, thr)
    return blobs


def measure(img, ring, blob, thr_small):
    """Fit the object's outline at full resolution (sets plane_center, axes, angle, fit_err, chroma)."""
    f = ring.factor
    r_img = ring.coin_radius_px
    H, W = img.shape[:2]
    reach = 1.8 * r_img * max(1.0, math.sqrt(blob.area_coins)) + 2 * f
    cx, cy = blob.center
    x0 = max(0, int((cx - reach) // f) * f)
    y0 = max(0, int((cy - reach) // f) * f)
    x1 = min(W, int(math.ceil((cx + reach) / f)) * f)
    y1 = min(H, int(math.ceil((cy + reach) / f)) * f)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return
    crop = img[y0:y1, x0:x1]
    bs = ring.background[y0 // f:(y1 + f - 1) // f, x0 // f:(x1 + f - 1) // f]
    bg = cv2.resize(bs, (bs.shape[1] * f, bs.shape[0] * f), interpolation=cv2.INTER_LINEAR)[:y1 - y0, :x1 - x0]
    if bg.shape[:2] != crop.shape[:2]:
        return
    d = diff_image(cv2.GaussianBlur(crop, (0, 0), 1.0), bg)
    c_local = (cx - x0, cy - y0)
    max_r = reach
    nr = int(max_r * 2)
    polar = cv2.warpPolar(d, (nr, N_RAYS), c_local, max_r, cv2.INTER_LINEAR + cv2.WARP_POLAR_LINEAR)
    rr = np.arange(nr) * max_r / nr
    inner = polar[:, rr < 0.45 * r_img]
    outer = polar[:, (rr > 1.35 * r_img * max(1, math.sqrt(blob.area_coins))) & (rr < max_r - 1)]
    if inner.size == 0 or outer.size == 0:
        return
    lo, hi = float(np.median(outer)), float(np.median(inner))
    if hi - lo < 0.5 * thr_small:
        return
    t = (lo + hi) / 2
    pts = []
    start = int(np.searchsorted(rr, 0.3 * r_img))
    for k in range(N_RAYS):
        row = polar[k]
        below = np.nonzero(row[start:] < t)[0]
        if below.size == 0:
            continue
        j = start + int(below[0])
        if j == 0:
            continue
        v0, v1 = row[j - 1], row[j]
        frac = (v0 - t) / (v0 - v1) if v0 != v1 else 0.0
        r = rr[j - 1] + frac * (rr[1] - rr[0])
        a = 2 * math.pi * k / N_RAYS
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    if len(pts) < N_RAYS // 2:
        return
    pp = ring.plane_points(np.array(pts)).astype(np.float32)
    for _ in range(3):
        (ex, ey), (d1, d2), ang = cv2.fitEllipse(pp)
        res = _residual(pp, (ex, ey), (d1 / 2, d2 / 2), ang)
        keep = np.abs(res) < max(1.0, 2.5 * np.median(np.abs(res)))
        if keep.all() or keep.sum() < N_RAYS // 2:
            break
        pp = pp[keep]
    a, b = d1 / 2, d2 / 2
    if a < b:
        a, b, ang = b, a, ang + 90
    blob.plane_center = (float(ex), float(ey))
    blob.axes = (float(a), float(b))
    blob.angle_deg = float(ang % 180)
    blob.fit_err = float(np.median(np.abs(res)))
    blob.extra["inliers"] = int(len(pp))
    # mean colour well inside the outline (the face, not the rim or the layout)
    m = np.zeros(crop.shape[:2], np.uint8)
    ci = ring.to_plane
    inv = cv2.invertAffineTransform(ci)
    c_img = inv[:, :2] @ np.array([ex, ey]) + inv[:, 2]
    cv2.circle(m, (int(c_img[0] - x0), int(c_img[1] - y0)), max(2, int(0.6 * b * ring.axes[1] / ring.axes[0])), 255, -1)
    col = np.array(cv2.mean(crop, mask=m)[:3])
    blob.chroma = tuple((col / (col.sum() + 1e-6)).tolist())
    blob.extra["brightness"] = float(col.mean())


def _residual(pts, c, axes, ang):
    t = math.radians(ang)
    x, y = pts[:, 0] - c[0], pts[:, 1] - c[1]
    u = x * math.cos(t) + y * math.sin(t)
    v = -x * math.sin(t) + y * math.cos(t)
    return (np.sqrt((u / axes[0]) ** 2 + (v / axes[1]) ** 2) - 1) * (axes[0] + axes[1]) / 2
