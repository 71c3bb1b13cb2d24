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
# The difference image is first computed on every GRID-th pixel only. Every object that
# survives the 2x2 opening holds a whole 2x2 block, so one of its pixels lies on that grid;
# the full difference is then computed in windows of WINDOW_PAD grid cells around those
# pixels (the opening looks at most 2 px away): the same mask, a quarter of the work or less.
GRID = 2
WINDOW_PAD = 3
_K2 = np.ones((2, 2), np.uint8)
_K3 = np.ones((3, 3), np.uint8)


_ONES = np.ones((1, 3), np.float32)


def colour_feats(img):
    """(chroma 3-channel float32, log brightness) of a BGR image, for `diff_feats`."""
    a = img.astype(np.float32)
    s = cv2.transform(a, _ONES) + 30
    k = 300.0 / s
    chroma = cv2.multiply(a, cv2.merge([k, k, k]))   # = a * k[..., None], at a third of numpy's cost
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
    if bg is None:   # computed once per ring model: the empty ring's features, dense and on the grid
        bg = ring._bg_blur = cv2.GaussianBlur(ring.background, (3, 3), 0)
        x0, y0, x1, y1 = detection_roi(ring)
        ring._bg_feats = colour_feats(bg[y0:y1, x0:x1])
        ring._bg_feats_grid = tuple(_every_other(a) for a in ring._bg_feats)
        ring._in_ring_grid = _every_other(ring_mask(ring)[y0:y1, x0:x1])
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
    small = ring.small_region(img, ox, oy, x1, y1)
    r_s = ring.coin_radius_px / f
    coin_area = math.pi * r_s * r_s * ring.axes[1] / ring.axes[0]
    objects, thr, (lab, ys, xs) = foreground_objects(
        cv2.GaussianBlur(small, (3, 3), 0), ring._bg_feats, ring._bg_feats_grid, ring_mask(ring)[oy:y1, ox:x1],
        ring._in_ring_grid, min_area_coins * coin_area)
    sh, sw = small.shape[:2]
    c_ring = np.array(ring.center)
    col_sum = None
    blobs = []
    for o in objects:
        x, y, w, h = o["bbox"]
        cx, cy = o["centroid"][0] + ox, o["centroid"][1] + oy
        # touching the frame's edge, or the search region's (then it may reach beyond it)
        b = Blob(center=((cx + 0.5) * f - 0.5, (cy + 0.5) * f - 0.5), area_coins=o["area"] / coin_area,
                 bbox=(x + ox, y + oy, w, h), touches_border=bool(x == 0 or y == 0 or x + w >= sw or y + h >= sh))
        if skip_chroma is not None and b.area_coins < 2.2:   # bigger may be a coin merged with a chip
            pc = ring.plane_points([b.center])[0]
            if np.hypot(*(pc - c_ring)) > ring.radius + 2 * ring.coin_radius_px:
                if col_sum is None:   # every object's colour sum in the (unblurred) small frame
                    px = small[ys, xs].astype(np.float64)
                    col_sum = np.stack([np.bincount(lab, weights=px[:, c], minlength=o["n"]) for c in range(3)], 1)
                col = col_sum[o["label"]] * (1.0 / o["area"])   # the mean, as cv2.mean gives it
                ch = col / (col.sum() + 1e-6)
                if np.abs(ch - np.asarray(skip_chroma)).sum() > skip_dist:
                    b.chroma = tuple(ch.tolist())
                    b.extra["unmeasured"] = True
        # how much of it lies inside the ring (an arm reaching in is centred outside)
        b.extra["in_ring_coins"] = o["in_ring"] / coin_area
        blobs.append(b)
    measure_all(img, ring, [b for b in blobs if b.area_coins < measure_max_coins and not b.extra.get("unmeasured")],
                thr)
    return blobs


def foreground_objects(blurred, bg_feats, bg_feats_grid, in_ring, in_ring_grid, min_area):
    """(objects, thr, (labels, ys, xs)) of a blurred detection-scale frame (the ROI) against the
    empty ring's features (dense, and on the GRID). Objects come largest first (then in raster
    order), each a dict of area, bbox (x, y, w, h), centroid (x, y), in_ring (its pixels inside
    the ring) and label (in `labels` of the foreground pixels ys, xs); thr is the difference level.

    An object is a connected part of the difference above thr (opened 2x2); inside the ring, a
    colour change alone counts at a lower level (a chip of nearly the layout's colour, blue on
    blue, differs by ~35 there, and a shadow never changes colour), for new objects only. The
    result equals that dense computation (tests/vision/test_detect.py holds it to it), but the
    difference is only computed in windows around the grid pixels above either level, and all
    windows are processed at once, packed one under the other in one small image.
    """
    h, w = blurred.shape[:2]
    fa = colour_feats(_every_other(blurred))
    chroma = cv2.transform(cv2.absdiff(fa[0], bg_feats_grid[0]), _ONES)
    d = chroma + 45 * cv2.absdiff(fa[1], bg_feats_grid[1])     # = diff_feats(fa, fb)
    # the levels from every 4th pixel (every 2nd grid pixel), as the dense computation takes them
    s = 4 // GRID
    thr = _level(d[::s, ::s], 45.0)
    thr_in = _level(chroma[::s, ::s], CHROMA_IN_RING)
    seeds = ((d > thr) | ((chroma > thr_in) & (in_ring_grid > 0))).astype(np.uint8)
    none = ([], thr, (np.zeros(0, np.int64),) * 3)
    if not cv2.countNonZero(seeds):
        return none
    k = 2 * WINDOW_PAD + 1
    seeds = cv2.dilate(seeds, np.ones((k, k), np.uint8))
    # a window per filled outer contour of the grown grid pixels (holes and all): no object is
    # split between windows, and a window's rectangle holds no other window's pixels unless
    # the rectangles overlap (then only its own contour's pixels are taken)
    contours, _ = cv2.findContours(seeds, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    rects = [cv2.boundingRect(c) for c in contours]
    wins, height, width = [], 0, 0
    for i, (gx, gy, gw, gh) in enumerate(rects):
        x0, y0 = gx * GRID, gy * GRID
        x1, y1 = min(w, (gx + gw) * GRID), min(h, (gy + gh) * GRID)
        pl = int(x0 > 0)
        # two separator rows above each window; at the ROI's top edge the second is set (cv2's
        # erosion takes the outside of the image as set)
        wins.append((i, x0, y0, x1, y1, pl, height + 2))
        height += 2 + y1 - y0
        width = max(width, x1 - x0 + pl)
    blur_p = np.zeros((height, width, 3), np.uint8)
    bg0_p = np.zeros((height, width, 3), np.float32)
    bg1_p = np.zeros((height, width), np.float32)
    inr_p = np.zeros((height, width), np.uint8)
    own_p = np.zeros((height, width), np.uint8)
    dy = np.zeros(height, np.int64)
    dx = np.zeros(height, np.int64)
    for i, x0, y0, x1, y1, pl, r0 in wins:
        r1, c1 = r0 + y1 - y0, pl + x1 - x0
        blur_p[r0:r1, pl:c1] = blurred[y0:y1, x0:x1]
        bg0_p[r0:r1, pl:c1] = bg_feats[0][y0:y1, x0:x1]
        bg1_p[r0:r1, pl:c1] = bg_feats[1][y0:y1, x0:x1]
        inr_p[r0:r1, pl:c1] = in_ring[y0:y1, x0:x1]
        dy[r0 - 2:r1], dx[r0 - 2:r1] = y0 - r0, x0 - pl
        gx, gy, gw, gh = rects[i]
        if any(j != i and gx < qx + qw and qx < gx + gw and gy < qy + qh and qy < gy + gh
               for j, (qx, qy, qw, qh) in enumerate(rects)):
            region = np.zeros((gh, gw), np.uint8)
            cv2.drawContours(region, contours, i, 1, -1, offset=(-gx, -gy))
            own_p[r0:r1, pl:c1] = cv2.resize(region, (gw * GRID, gh * GRID),
                                             interpolation=cv2.INTER_NEAREST)[:y1 - y0, :x1 - x0]
        else:
            own_p[r0:r1, pl:c1] = 1
    fa = colour_feats(blur_p)
    ch = cv2.transform(cv2.absdiff(fa[0], bg0_p), _ONES)
    dd = ch + 45 * cv2.absdiff(fa[1], bg1_p)
    own = own_p > 0
    mask = ((dd > thr) & own).astype(np.uint8)
    cand = ((ch > thr_in) & (inr_p > 0) & own).astype(np.uint8)
    for i, x0, y0, x1, y1, pl, r0 in wins:
        if y0 == 0:
            mask[r0 - 1, max(0, pl - 1):pl + x1 - x0] = 1
            cand[r0 - 1, max(0, pl - 1):pl + x1 - x0] = 1
    # the opening reaches one pixel right and down; at the ROI's right or bottom edge that pixel
    # is not in the ROI: keep each window's own pixels only
    own_p = own.view(np.uint8)
    mask = cv2.bitwise_and(cv2.morphologyEx(mask, cv2.MORPH_OPEN, _K2), own_p)
    extra = cv2.bitwise_and(cv2.morphologyEx(cv2.subtract(cand, mask), cv2.MORPH_OPEN, _K2), own_p)
    if cv2.countNonZero(extra):
        _add_new_objects(mask, extra, min_area)
    if not cv2.countNonZero(mask):
        return none
    n, lbl = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    xp, yp = cv2.findNonZero(mask).reshape(-1, 2).T
    lab = lbl[yp, xp].astype(np.int64)
    inr = np.bincount(lab, weights=inr_p[yp, xp] > 0, minlength=n)
    ys, xs = yp + dy[yp], xp + dx[yp]   # ROI coordinates
    area, (bx, by, bw, bh), (mx, my), first = _component_stats(lab, xs, ys, n)
    objects = [{"area": float(area[k]), "bbox": (int(bx[k]), int(by[k]), int(bw[k]), int(bh[k])),
                "centroid": (mx[k], my[k]), "in_ring": float(inr[k]), "label": int(k), "n": n,
                "first": int(first[k])}
               for k in np.nonzero(area >= min_area)[0] if k > 0]
    # cv2's labels (CCL_GRANA) over the whole ROI would be numbered in raster order of 2x2
    # blocks; equal areas keep that order
    objects.sort(key=lambda o: (-o["area"], o["first"]))
    return objects, thr, (lab, ys, xs)


def _level(v, floor):
    """max(floor, 4 * median(v)), the median only computed when it can exceed floor / 4 (when at
    least half the values are at most floor / 4, it cannot)."""
    a = v.ravel()
    if np.count_nonzero(a <= np.float32(floor / 4)) > a.size // 2:
        return floor
    return max(floor, 4.0 * _median(a))


def _median(a):
    """np.median of a float32 array (the same value), without its overhead."""
    a = a.ravel()
    m = a.size // 2
    if a.size % 2:
        return float(np.partition(a, m)[m])
    p = np.partition(a, (m - 1, m))
    return float((p[m - 1] + p[m]) / 2)


def _every_other(a):
    """a[::GRID, ::GRID] as a contiguous array (cv2's nearest resize by exactly 1/GRID is that
    pick, at a fraction of a strided copy's cost; an odd last row or column is copied)."""
    h, w = a.shape[:2]
    h2, w2 = h // GRID, w // GRID
    out = np.empty((-(-h // GRID), -(-w // GRID)) + a.shape[2:], a.dtype)
    if h2 and w2:
        out[:h2, :w2] = cv2.resize(a[:h2 * GRID, :w2 * GRID], (w2, h2), interpolation=cv2.INTER_NEAREST)
    out[h2:] = a[h2 * GRID::GRID, ::GRID]
    out[:, w2:] = a[::GRID, w2 * GRID::GRID]
    return out


def _component_stats(lab, xs, ys, n):
    """Per label 0..n-1 of the given foreground pixels: area, bbox (x, y, w, h), centroid (x, y)
    (what connectedComponentsWithStats gives, from the foreground pixels alone) and the first
    2x2 block in raster order, (y // 2) << 32 | x // 2."""
    area = np.bincount(lab, minlength=n).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        cent = (np.bincount(lab, weights=xs, minlength=n) / area, np.bincount(lab, weights=ys, minlength=n) / area)
    x0 = np.zeros(n, np.int64)
    y0, x1, y1, first = x0.copy(), x0.copy(), x0.copy(), x0.copy()
    if len(lab):
        order = np.argsort(lab, kind="stable")
        ls = lab[order]
        starts = np.flatnonzero(np.r_[True, ls[1:] != ls[:-1]])
        ids = ls[starts]
        block = (ys // 2).astype(np.int64) * (1 << 32) + xs // 2
        for out, v, op in ((x0, xs, np.minimum), (y0, ys, np.minimum), (x1, xs, np.maximum), (y1, ys, np.maximum),
                           (first, block, np.minimum)):
            out[ids] = op.reduceat(v[order], starts)
    return area, (x0, y0, x1 - x0 + 1, y1 - y0 + 1), cent, first


def _add_new_objects(mask, extra, min_area):
    """Add to `mask` the objects of `extra` (the lower in-ring level) that are new: only new
    objects (or ones the main level saw only specks of, e.g. a chip's edge spots) - an object
    the main level found keeps its exact outline."""
    n_m, lbl_m = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    near = np.zeros_like(mask)
    if n_m > 1:
        xs, ys = cv2.findNonZero(mask).reshape(-1, 2).T
        lab = lbl_m[ys, xs]
        big = np.bincount(lab, minlength=n_m)[lab] >= min_area
        near[ys[big], xs[big]] = 1
        near = cv2.dilate(near, _K3)
    n_x, lbl_x = cv2.connectedComponentsWithAlgorithm(extra, 8, cv2.CV_32S, cv2.CCL_GRANA)
    xe, ye = cv2.findNonZero(extra).reshape(-1, 2).T
    lab_x = lbl_x[ye, xe]
    touching = np.zeros(n_x, bool)
    touching[lab_x[near[ye, xe] > 0]] = True
    keep = ~touching[lab_x]
    mask[ye[keep], xe[keep]] = 1


def measure(img, ring, blob, thr_small):
    """Fit one object's outline at full resolution (see measure_all)."""
    measure_all(img, ring, [blob], thr_small)


_RAYS = {}


def _ray_dirs(n):
    if n not in _RAYS:
        ang = np.arange(n, dtype=np.float32) * np.float32(2 * np.pi / n)
        _RAYS[n] = (np.cos(ang)[:, None], np.sin(ang)[:, None])
    return _RAYS[n]


def measure_all(img, ring, blobs, thr_small):
    """Fit each object's outline at full resolution (sets plane_center, axes, angle, fit_err, chroma).

    Frame and background are both sampled straight into polar form around every object at once
    (one remap each; the background at its own small scale: bilinear sampling = upsampling), so
    the cost depends on the number of rays, not on how many pixels the objects cover.
    """
    if not blobs:
        return
    f = ring.factor
    r_img = ring.coin_radius_px
    step = float(np.clip(r_img / 40, 0.5, 1.0))   # radial sample spacing, px
    reach = [1.8 * r_img * max(1.0, math.sqrt(b.area_coins)) + 2 * f for b in blobs]
    rr = np.arange(0, max(reach), step, dtype=np.float32)
    cos, sin = _ray_dirs(N_RAYS)
    u, v = cos * rr[None, :], sin * rr[None, :]
    cx = np.array([b.center[0] for b in blobs], np.float32)[:, None, None]
    cy = np.array([b.center[1] for b in blobs], np.float32)[:, None, None]
    mx = (u[None] + cx).reshape(-1, len(rr))
    my = (v[None] + cy).reshape(-1, len(rr))
    polar = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # the small image's pixel i is centred on full-res (i + 0.5) * f - 0.5
    h, q = np.float32(0.5), np.float32(f)
    polar_bg = cv2.remap(_blurred_background(ring), (mx + h) / q - h, (my + h) / q - h,
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ns = [len(np.arange(0, r, step, dtype=np.float32)) for r in reach]
    smooth = polar.copy()
    for i, n in enumerate(ns):   # light smoothing along the radius, each object's rays alone
        rows = slice(i * N_RAYS, (i + 1) * N_RAYS)
        smooth[rows, :n] = cv2.blur(polar[rows, :n], (3, 1))
    d = diff_image(smooth, polar_bg)
    R = N_RAYS
    # per object: the level halfway between the inside (rr < 0.45 r) and the layout around it
    # (1.35 r' < rr < reach - 1); rr is float32 and compared in float32, as with a Python float
    n_in = int(np.searchsorted(rr, np.float32(0.45 * r_img)))
    inner = _medians(d[:, :n_in].reshape(len(blobs), -1)) if n_in else None
    level = np.full(len(blobs), np.nan, np.float32)
    for i, b in enumerate(blobs):
        o0 = int(np.searchsorted(rr[:ns[i]], np.float32(1.35 * r_img * max(1, math.sqrt(b.area_coins))), side="right"))
        o1 = int(np.searchsorted(rr[:ns[i]], np.float32(reach[i] - 1)))
        if inner is None or o1 <= o0:
            continue
        lo, hi = _median(d[i * R:(i + 1) * R, o0:o1]), float(inner[i])
        if hi - lo >= 0.5 * thr_small:
            level[i] = (lo + hi) / 2
    ok_obj = ~np.isnan(level)
    if not ok_obj.any():
        return
    # along each ray, the first sample below the level (beyond 0.3 r), interpolated
    t = np.repeat(level, R)[:, None]
    start = int(np.searchsorted(rr, 0.3 * r_img))
    below = (d[:, start:] < t) & (np.arange(start, len(rr)) < np.repeat(ns, R)[:, None])
    has = below.any(axis=1)
    j = start + np.argmax(below, axis=1)
    ok = has & (j > 0)
    rows = np.arange(len(j))
    jj = np.maximum(j, 1)
    v0, v1 = d[rows, jj - 1], d[rows, jj]
    t = t[:, 0]
    frac = np.where(v0 != v1, (v0 - t) / np.where(v0 != v1, v0 - v1, 1), 0.0)
    r = rr[jj - 1] + frac * (rr[1] - rr[0])
    inv = cv2.invertAffineTransform(ring.to_plane)
    for i, b in enumerate(blobs):
        k = np.nonzero(ok[i * R:(i + 1) * R])[0]
        if not ok_obj[i] or len(k) < R // 2:
            continue
        _fit_outline(img, ring, b, k, r[i * R + k], polar[i * R:(i + 1) * R, :ns[i]], rr[:ns[i]], step, inv)


def _medians(a):
    """_median of each row of a float32 array."""
    m = a.shape[1] // 2
    if a.shape[1] % 2:
        return np.partition(a, m, axis=1)[:, m]
    p = np.partition(a, (m - 1, m), axis=1)
    return (p[:, m - 1] + p[:, m]) / np.float32(2)


def _fit_outline(img, ring, blob, k, r, polar, rr, step, inv):
    """One object's ellipse through its edge points (rays k at radii r, image px) and its colour."""
    r_img = ring.coin_radius_px
    cx, cy = blob.center
    a = 2 * np.pi * k / N_RAYS
    pts = np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], axis=1)
    pp = ring.plane_points(pts).astype(np.float32)
    for _ in range(3):
        (ex, ey), (d1, d2), ang = cv2.fitEllipse(pp)
        res = _residual(pp, (ex, ey), (d1 / 2, d2 / 2), ang)
        keep = np.abs(res) < max(1.0, 2.5 * _median(np.abs(res)))
        if keep.all() or keep.sum() < N_RAYS // 2:
            break
        pp = pp[keep]
    a, b = d1 / 2, d2 / 2
    if a < b:
        a, b, ang = b, a, ang + 90
    blob.plane_center = (float(ex), float(ey))
    blob.axes = (float(a), float(b))
    blob.angle_deg = float(ang % 180)
    blob.fit_err = _median(np.abs(res))
    blob.extra["inliers"] = int(len(pp))
    # mean colour well inside the outline (the face, not the rim or the layout): from the polar
    # samples of the fitted centre's neighbourhood
    c_img = inv[:, :2] @ np.array([ex, ey]) + inv[:, 2]
    rin = 0.6 * b * ring.axes[1] / ring.axes[0]
    x0, y0 = int(max(0, c_img[0] - rin)), int(max(0, c_img[1] - rin))
    region = img[y0:max(y0, int(c_img[1] + rin) + 1), x0:max(x0, int(c_img[0] + rin) + 1)]
    if np.hypot(c_img[0] - cx, c_img[1] - cy) < 0.2 * r_img or region.size == 0:
        region = polar[:, :int(np.searchsorted(rr, np.float32(max(rin, 2 * step))))]
    # exact integer sums (in double) over the count: what ndarray.mean gives, without its cost
    col = np.array(cv2.sumElems(region)[:3]) / (region.size // 3)
    blob.chroma = tuple((col / (col.sum() + 1e-6)).tolist())
    blob.extra["brightness"] = float(col.mean())


def _residual(pts, c, axes, ang):
    t = math.radians(ang)
    x, y = pts[:, 0] - c[0], pts[:, 1] - c[1]
    u = x * math.cos(t) + y * math.sin(t)
    v = -x * math.sin(t) + y * math.cos(t)
    return (np.sqrt((u / axes[0]) ** 2 + (v / axes[1]) ** 2) - 1) * (axes[0] + axes[1]) / 2
