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
ROI_MARGIN_COINS = 8.0
ROI_MARGIN_RING = 0.3
CHROMA_IN_RING = 28.0


_ONES = np.ones((1, 3), np.float32)


def colour_feats(img):
    """(chroma 3-channel float32, log brightness) of a BGR image, for `diff_feats`."""
    a = img.astype(np.float32)
    s = cv2.transform(a, _ONES) + 30
    chroma = a * (300.0 / s)[..., None]
    return chroma, cv2.log(s)


def diff_feats(fa, fb):
    """Chroma change plus (weaker) log-brightness change: shadows and lighting barely register."""
    d = cv2.transform(cv2.absdiff(fa[0], fb[0]), _ONES)
    return d + 45 * cv2.absdiff(fa[1], fb[1])


def diff_image(a, b):
    """Per-pixel difference of two BGR images (see diff_feats)."""
    return diff_feats(colour_feats(a), colour_feats(b))


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


def ring_mask(ring):
    """Detection-scale mask of the ring's interior (cached on the ring model)."""
    m = getattr(ring, "_ring_mask", None)
    if m is None:
        f = ring.factor
        w, h = ring.small_size
        m = np.zeros((h, w), np.uint8)
        c = ((ring.center[0] + 0.5) / f - 0.5, (ring.center[1] + 0.5) / f - 0.5)
        cv2.ellipse(m, (c, (2 * ring.axes[0] / f, 2 * ring.axes[1] / f), ring.angle_deg), 1, -1)
        ring._ring_mask = m
    return m


def _blurred_background(ring):
    bg = getattr(ring, "_bg_blur", None)
    if bg is None:   # computed once per ring model
        bg = ring._bg_blur = cv2.GaussianBlur(ring.background, (3, 3), 0)
        x0, y0, x1, y1 = detection_roi(ring)
        ring._bg_feats = colour_feats(bg[y0:y1, x0:x1])
    return bg


def detection_roi(ring):
    """Detection-scale (x0, y0, x1, y1) searched for objects: the ring with a margin of
    ROI_MARGIN_COINS coin radii (at least ROI_MARGIN_RING of its radius) all round, within the
    frame. A coin beyond it is not seen, which can only make a spin unsure (fewer than two
    coins found), never a call or a void; it halves the work at 4K."""
    f = ring.factor
    w, h = ring.small_size
    a, b = ring.axes
    t = math.radians(ring.angle_deg)
    hx = math.hypot(a * math.cos(t), b * math.sin(t))
    hy = math.hypot(a * math.sin(t), b * math.cos(t))
    m = max(ROI_MARGIN_COINS * ring.coin_radius_px, ROI_MARGIN_RING * a)
    cx, cy = ring.center
    return (max(0, int((cx - hx - m) / f)), max(0, int((cy - hy - m) / f)),
            min(w, int(math.ceil((cx + hx + m) / f))), min(h, int(math.ceil((cy + hy + m) / f))))


def find_blobs(img, ring, min_area_coins=0.2, skip_chroma=None, skip_dist=0.19, measure_max_coins=3.0):
    """Foreground objects in a frame of `ring` (RingModel), largest first, measured at full res.

    With `skip_chroma` (the coin's normalised colour), objects outside the ring whose colour is
    further than `skip_dist` from it are returned unmeasured (they cannot be coins: at this
    scale coins measure <= 0.12 from their trained colour, chips >= 0.2, on TRAIN seeds).
    """
    f = ring.factor
    _blurred_background(ring)
    ox, oy, x1, y1 = detection_roi(ring)
    small = ring.small(img)[oy:y1, ox:x1]
    fa, fb = colour_feats(cv2.GaussianBlur(small, (3, 3), 0)), ring._bg_feats
    chroma = cv2.transform(cv2.absdiff(fa[0], fb[0]), _ONES)
    d = chroma + 45 * cv2.absdiff(fa[1], fb[1])     # = diff_feats(fa, fb)
    thr = max(45.0, 4.0 * float(np.median(d[::4, ::4])))
    # inside the ring, a colour change alone counts at a lower level: a chip of nearly the
    # layout's colour (blue on blue) differs by ~35 there, and a shadow never changes colour
    thr_in = max(CHROMA_IN_RING, 4.0 * float(np.median(chroma[::4, ::4])))
    in_ring = ring_mask(ring)[oy:y1, ox:x1]
    k2 = np.ones((2, 2), np.uint8)
    mask = cv2.morphologyEx((d > thr).astype(np.uint8), cv2.MORPH_OPEN, k2)
    extra = cv2.morphologyEx(((chroma > thr_in) & (in_ring > 0) & (mask == 0)).astype(np.uint8), cv2.MORPH_OPEN, k2)
    r_s = ring.coin_radius_px / f
    coin_area = math.pi * r_s * r_s * ring.axes[1] / ring.axes[0]
    if extra.any():
        # only new objects (or ones the main level saw only specks of, e.g. a chip's edge
        # spots): an object the main level found keeps its exact outline
        n_x, lbl_x = cv2.connectedComponentsWithAlgorithm(extra, 8, cv2.CV_32S, cv2.CCL_GRANA)
        n_m, lbl_m, st_m, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
        big = np.nonzero(st_m[:, cv2.CC_STAT_AREA] >= min_area_coins * coin_area)[0]
        big = big[big > 0]
        near = cv2.dilate(np.isin(lbl_m, big).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        touching = np.unique(lbl_x[near & (extra > 0)])
        mask |= ((extra > 0) & ~np.isin(lbl_x, touching)).astype(np.uint8)
    n, lbl, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    sh, sw = mask.shape
    blobs = []
    for k in range(1, n):
        x, y, w, h, area = stats[k]
        if area < min_area_coins * coin_area:
            continue
        cx, cy = cents[k] + (ox, oy)
        # touching the frame's edge, or the search region's (then it may reach beyond it)
        b = Blob(center=((cx + 0.5) * f - 0.5, (cy + 0.5) * f - 0.5), area_coins=area / coin_area,
                 bbox=(int(x + ox), int(y + oy), int(w), int(h)),
                 touches_border=bool(x == 0 or y == 0 or x + w >= sw or y + h >= sh))
        if skip_chroma is not None and b.area_coins < 2.2:   # bigger may be a coin merged with a chip
            pc = ring.plane_points([b.center])[0]
            if np.hypot(*(pc - np.array(ring.center))) > ring.radius + 2 * ring.coin_radius_px:
                col = np.array(cv2.mean(small[y:y + h, x:x + w], mask=(lbl[y:y + h, x:x + w] == k).astype(np.uint8))[:3])
                ch = col / (col.sum() + 1e-6)
                if np.abs(ch - np.asarray(skip_chroma)).sum() > skip_dist:
                    b.chroma = tuple(ch.tolist())
                    b.extra["unmeasured"] = True
        # how much of it lies inside the ring (an arm reaching in is centred outside)
        b.extra["in_ring_coins"] = float(np.count_nonzero(
            (lbl[y:y + h, x:x + w] == k) & (in_ring[y:y + h, x:x + w] > 0))) / coin_area
        blobs.append(b)
    blobs.sort(key=lambda b: -b.area_coins)
    for b in blobs:
        if b.area_coins < measure_max_coins and not b.extra.get("unmeasured"):
            measure(img, ring, b, thr)
    return blobs


def measure(img, ring, blob, thr_small):
    """Fit the object's outline at full resolution (sets plane_center, axes, angle, fit_err, chroma).

    Frame and background are both sampled straight into polar form around the object (the
    background at its own small scale: bilinear sampling = upsampling), so the cost depends on
    the number of rays, not on how many pixels the coin covers.
    """
    f = ring.factor
    r_img = ring.coin_radius_px
    H, W = img.shape[:2]
    reach = 1.8 * r_img * max(1.0, math.sqrt(blob.area_coins)) + 2 * f
    cx, cy = blob.center
    step = float(np.clip(r_img / 40, 0.5, 1.0))   # radial sample spacing, px
    rr = np.arange(0, reach, step, dtype=np.float32)
    ang = np.arange(N_RAYS, dtype=np.float32) * np.float32(2 * np.pi / N_RAYS)
    mx = (np.cos(ang)[:, None] * rr[None, :] + np.float32(cx)).astype(np.float32)
    my = (np.sin(ang)[:, None] * rr[None, :] + np.float32(cy)).astype(np.float32)
    polar = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # the small image's pixel i is centred on full-res (i + 0.5) * f - 0.5
    polar_bg = cv2.remap(_blurred_background(ring), (mx + np.float32(0.5)) / np.float32(f) - np.float32(0.5),
                         (my + np.float32(0.5)) / np.float32(f) - np.float32(0.5),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    d = diff_image(cv2.blur(polar, (3, 1)), polar_bg)   # light smoothing along the radius
    inner = d[:, rr < 0.45 * r_img]
    outer = d[:, (rr > 1.35 * r_img * max(1, math.sqrt(blob.area_coins))) & (rr < reach - 1)]
    if inner.size == 0 or outer.size == 0:
        return
    lo, hi = float(np.median(outer)), float(np.median(inner))
    if hi - lo < 0.5 * thr_small:
        return
    t = (lo + hi) / 2
    start = int(np.searchsorted(rr, 0.3 * r_img))
    below = d[:, start:] < t
    has = below.any(axis=1)
    j = start + np.argmax(below, axis=1)
    ok = has & (j > 0)
    k = np.nonzero(ok)[0]
    if len(k) < N_RAYS // 2:
        return
    j = j[k]
    v0, v1 = d[k, j - 1], d[k, j]
    frac = np.where(v0 != v1, (v0 - t) / np.where(v0 != v1, v0 - v1, 1), 0.0)
    r = rr[j - 1] + frac * (rr[1] - rr[0])
    a = 2 * np.pi * k / N_RAYS
    pts = np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)
    pp = ring.plane_points(pts).astype(np.float32)
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
    # mean colour well inside the outline (the face, not the rim or the layout): from the polar
    # samples of the fitted centre's neighbourhood
    inv = cv2.invertAffineTransform(ring.to_plane)
    c_img = inv[:, :2] @ np.array([ex, ey]) + inv[:, 2]
    rin = 0.6 * b * ring.axes[1] / ring.axes[0]
    x0, y0 = int(max(0, c_img[0] - rin)), int(max(0, c_img[1] - rin))
    region = img[y0:max(y0, int(c_img[1] + rin) + 1), x0:max(x0, int(c_img[0] + rin) + 1)]
    if np.hypot(c_img[0] - cx, c_img[1] - cy) < 0.2 * r_img or region.size == 0:
        col = polar[:, rr < max(rin, 2 * step)].reshape(-1, 3).mean(axis=0)
    else:
        col = region.reshape(-1, 3).mean(axis=0)
    blob.chroma = tuple((col / (col.sum() + 1e-6)).tolist())
    blob.extra["brightness"] = float(col.mean())


def _residual(pts, c, axes, ang):
    t = math.radians(ang)
    x, y = pts[:, 0] - c[0], pts[:, 1] - c[1]
    u = x * math.cos(t) + y * math.sin(t)
    v = -x * math.sin(t) + y * math.cos(t)
    return (np.sqrt((u / axes[0]) ** 2 + (v / axes[1]) ** 2) - 1) * (axes[0] + axes[1]) / 2
