"""A player's shade across the ring lifted from a frame before it is judged (issue 12).

A player leaning over the ring casts a soft shade on it during the spin; the empty ring's photo
has none. Detection compares the frame with that photo, and a shade 15-45% deep differed enough
to be an object: of 39 valid spins with a player's shade across the ring (shadow-tune), 13 came
back unsure, "unexplained object in the ring" or a chip seen "only by its edge spots" along the
shade's soft edge (docs/VISION.md, "A player's shade across the ring").

A shade darkens the layout and keeps its colour and texture: the frame is the empty ring times
a smooth factor below 1. The factor is measured at a sparse grid of detection pixels (STRIDE
apart: a coin is 2 of them across its radius) as the median, over WINDOW coin radii, of the
log brightness ratio to the empty ring: coins, chips and the print's edges are too small a
share of the window to move the median, and a median keeps a shade's edge where it is. A region
darker than SHADE_MIN, AREA coin areas or more, is a shade only when most of it (TRUE_SHARE)
is the empty ring's own colour darkened by the measured factor (a hand or a sleeve over the
ring is neither). A shade about a coin wide, which the median flattens, is found by each
sample's own ratio where it reaches in across the ring's edge as a player's shade does
(`_narrow`: sealed-43 2330663049). The frame is then divided by the factor there, a copy made,
and everything downstream (detection, faces, flatness, the camera's drift) judges the lifted
frame. A frame without a shade costs the grid's ratio and a count (~0.1 ms at 1080p), one with
3 coin areas darker (dark coins and their shadows) a blur and its regions too, and is used as
it is.
"""
import cv2
import numpy as np

from . import detect, ring as ringmod

STRIDE = 4            # detection px between grid samples (a coin's radius is ring.SMALL_COIN_R = 8)
WINDOW = 5.0          # coin radii across the median's window: a coin is an eighth of it
SHADE_MIN = 0.08      # log brightness below the empty ring's (8% darker) that counts as shade
SHADE_EDGE = 0.03     # the lift reaches out to where the shade is this shallow
SHADE_MAX = 1.2       # deeper than this (0.3x) is no player's shade: left as it is
LIT_SHARE = 0.25      # of the grid, unshaded at least: the noise is measured there
AREA = 3.0            # coin areas of shade at least, or the frame is used as it is
TRUE_SHARE = 0.7      # of a shaded region's samples, the empty ring darkened (colour and texture kept)
NOISE = 2.5           # a darkened sample's colour (b, g, r shares) and roughness of its log ratio
                      # within this many times the unshaded samples' median (at their brightness)
CHROMA_FLOOR = 0.01   # ... taken as this at least (shares, summed) ...
RATIO_FLOOR = 0.02    # ... and this (log)
FILL = 7             # grid samples across the window a coin's depth is filled in from (1.75 coin diameters)
FILL_SHARE = 0.2      # ... when at least this share of it is the empty ring darkened
NARROW_IN = 1.0       # coin areas of a narrow shade inside the ring at least ...
NARROW_OUT = 0.5      # ... and beyond its edge: it reaches in across the edge (`_narrow`)
_SUM = np.ones((1, 3), np.float32)
SCALE = 100.0         # log ratio to the median's 8-bit units (0.01 each; 128 = no change)


def _grid(small):
    """A detection-scale image at every STRIDE-th px (float32): the grid. Sample j is centred on
    detection px STRIDE j + (STRIDE - 1) / 2, the mean of the 2 x 2 px there (a linear resize):
    averaged, not picked, to keep some of the sensor's noise out of the ratios."""
    h, w = small.shape[:2]
    gw, gh = max(1, w // STRIDE), max(1, h // STRIDE)
    return cv2.resize(small[:gh * STRIDE, :gw * STRIDE], (gw, gh), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def _brightness(grid):
    """b + g + r + 3 of a grid (float32, 2-D)."""
    return cv2.transform(grid, _SUM) + np.float32(3)


def _grid_background(ring, roi):
    """(log brightness, chroma, inside the ring) of the empty ring's photo at the grid (cached on
    the ring)."""
    key = (roi, STRIDE, "inside")   # the inside mask joined the cache (a ring may hold the older one)
    got = getattr(ring, "_shade_bg", None)
    if got is None or got[0] != key:
        x0, y0, x1, y1 = roi
        bg = _grid(ring.background[y0:y1, x0:x1])
        s = _brightness(bg)
        inside = _grid(detect.ring_mask(ring)[y0:y1, x0:x1].astype(np.float32)) > 0.5
        got = ring._shade_bg = (key, np.log(s), bg / s[..., None], inside)
    return got[1:]


def factor(img, ring):
    """(the shade's log brightness factor at the grid, float32, 0 where there is none; the ROI
    (detection px x0, y0, x1, y1)), or None when the frame holds no shade to lift."""
    roi = detect.detection_roi(ring)
    x0, y0, x1, y1 = roi
    small = _grid(ring.small_region(img, x0, y0, x1, y1))
    log_bg, chroma_bg, inside = _grid_background(ring, roi)
    s = _brightness(small)
    r = cv2.log(s) - log_bg
    cell = ringmod.SMALL_COIN_R / STRIDE             # a coin's radius in grid samples
    coin_area = np.pi * cell * cell
    area = AREA * coin_area
    dark = (r < -SHADE_MIN).astype(np.uint8)
    if np.count_nonzero(dark) < area:                # too little darker for any shade
        return None
    # a wide shade is wider than a coin (or the median below flattens it too): when nothing darker
    # is, what is darker is coins, chips and their own shadows, or a narrow shade (`_narrow`)
    wide = 2 * int(cell) + 1
    wide_ok = bool(cv2.erode(dark, np.ones((wide, wide), np.uint8)).any())
    mean3 = cv2.blur(r, (3, 3))
    own = np.minimum(mean3, 0)
    candidates = None
    if not wide_ok:
        candidates = _candidates(r, own, inside, coin_area)
        if not candidates[1].any():
            return None
    k = int(WINDOW * cell) | 1
    q = np.clip(128 + SCALE * r, 0, 255).astype(np.uint8)
    level = (cv2.medianBlur(q, k).astype(np.float32) - 128) / SCALE
    core = level < -SHADE_MIN
    lit = ~core
    if np.count_nonzero(lit) < LIT_SHARE * lit.size:   # darker nearly all over: no player's shade
        return None                                    # (balance names the exposure), nothing to measure by
    # the empty ring darkened: its colour kept, and its own texture (the ratio as smooth as the
    # frame's noise leaves it), each within NOISE times what the unshaded samples differ by, that
    # grown as a sample is darker than theirs (the sensor's noise over a smaller signal)
    chroma = np.abs(small / s[..., None] - chroma_bg).sum(axis=-1)
    rough = np.abs(r - mean3)
    grow = NOISE * float(np.median(s[lit])) / s
    kept_colour = chroma < max(float(np.median(chroma[lit])), CHROMA_FLOOR) * grow
    same = kept_colour & (rough < max(float(np.median(rough[lit])), RATIO_FLOOR) * grow)
    region = np.zeros(r.shape, bool)
    if wide_ok:
        # a region: where the shade is SHADE_EDGE deep or more, out to where it fades; its core is
        # where it is SHADE_MIN deep or more
        soft = ((level < -SHADE_EDGE) & (level > -SHADE_MAX)).astype(np.uint8)
        n, lab = cv2.connectedComponents(soft, connectivity=8)
        cores = np.bincount(lab[core], minlength=n)
        kept = np.bincount(lab[core & same], minlength=n)
        keep = (cores >= area) & (kept >= TRUE_SHARE * cores)
        keep[0] = False
        region = keep[lab]
        # a narrow shade is looked for beside the wide ones (else the gate's candidates serve)
        candidates = _candidates(r, own, inside, coin_area, region)
    narrow, narrow_same = _narrow(r, candidates, kept_colour, lit, grow, coin_area)
    if not region.any() and narrow is None:
        return None
    like = same
    if narrow is not None:
        region = region | narrow
        # within a narrow shade its own test of the empty ring darkened stands: its sharp edges
        # are not texture
        like = same | narrow_same
    # the median rounds a shade's corners and its narrow end off (most of the window lies out of
    # it there), so the depth lifted is each sample's own (its 3 x 3 mean ratio) where the sample
    # is the empty ring darkened, and elsewhere (a coin, a chip) that of such samples round it
    # (within a coin's diameter and a half), or the median where none are
    likef = like.astype(np.float32)
    near = cv2.blur(likef, (FILL, FILL))
    fill = cv2.blur(own * likef, (FILL, FILL)) / np.maximum(near, np.float32(1e-6))
    level = np.maximum(np.where(like, own, np.where(near > FILL_SHARE, fill, level)), -SHADE_MAX)
    if narrow is not None:
        # a narrow shade's sharp edge is a sample wide, and a 3 x 3 mean spreads its depth a
        # sample out onto layout that is not darker (lifted 1.3x too bright) and takes it in
        # from there (the inside left 0.9 of the empty ring's brightness): within a narrow shade
        # a sample darker and the empty ring darkened is lifted by its own ratio, and one not
        # darker (layout beside the edge, a coin brighter than the empty ring) is not lifted
        # (the second review's strips: 0.97-0.98 inside, 1.03 beside). A coin filled with its
        # surroundings' depth where it crosses the shade's edge came out brighter on one side
        # than the other (shadow-check 4290734162: "cannot tell whether a coin lies flat")
        level = np.where(narrow & (r > -SHADE_MIN), np.minimum(r, 0), level)
        level = np.where(narrow_same & (r <= -SHADE_MIN), np.maximum(r, -SHADE_MAX), level)
    # ... and the region is grown, half a window at most, over samples darkened as shade is
    # (their own ratio SHADE_EDGE deep, their colour and texture kept): a narrow end the median
    # left out altogether
    grow_into = ((own < -SHADE_EDGE) & like).astype(np.uint8)
    region = region.astype(np.uint8)
    step = np.ones((3, 3), np.uint8)
    for _ in range(k // 2):
        wider = cv2.dilate(region, step) & (grow_into | region)
        if np.array_equal(wider, region):
            break
        region = wider
    return np.where(region > 0, level, 0).astype(np.float32), roi


def _candidates(r, own, inside, coin_area, wide_region=None):
    """`_narrow`'s candidates: (labels of the regions of samples whose 3 x 3 mean ratio is
    SHADE_MIN deep or more, less `wide_region`; which labels are candidates, by their size and
    where they lie). A region with a sample whose ratio (its own,
    not the mean) is deeper than SHADE_MAX is some dark object, no player's shade."""
    cand = own < -SHADE_MIN
    if wide_region is not None:
        cand &= ~wide_region
    n, lab = cv2.connectedComponents(cand.astype(np.uint8), connectivity=8)
    size = np.bincount(lab.ravel(), minlength=n)
    n_in = np.bincount(lab[inside], minlength=n)
    too_deep = np.bincount(lab[r < -SHADE_MAX], minlength=n)
    ok = ((size >= AREA * coin_area) & (n_in >= NARROW_IN * coin_area)
          & (size - n_in >= NARROW_OUT * coin_area) & (too_deep == 0))
    ok[0] = False
    return lab, ok


def _narrow(r, candidates, kept_colour, lit, grow, coin_area):
    """(mask of narrow shades, or None; which of their samples are the empty ring darkened). A
    shade about a coin wide is no wider than a coin and the median flattens it; it is found by
    each sample's 3 x 3 mean ratio instead (`_candidates`): a region whose samples SHADE_MIN deep
    or more by their own ratio (the mean spreads the region a sample past a dark patch's edge,
    into layout that is not darker) are the empty ring darkened, TRUE_SHARE of them and AREA
    coin areas at least, as for a wide shade; and reaching in across the ring's edge as a shade
    cast by a player standing outside does (NARROW_IN coin areas inside, NARROW_OUT beyond). A
    coin, a chip and their shadows are coin-sized, so only where they lie at the edge (on the
    rim, leaning on the wall) do they cross it; a coin or a chip is not the empty ring darkened
    (its colour or grain differs), but a row of three or four shadows each over a coin wide
    along the rim would pass (docs/VISION.md, Known limits). Its edges are
    sharp at the grid's scale and a 3 x 3 mean takes a step there for texture, so texture is
    measured against a 3 x 3 median, which keeps a step as it is."""
    lab, ok = candidates
    if not ok.any():
        return None, None
    rough = np.abs(r - cv2.medianBlur(r, 3))
    same = kept_colour & (rough < max(float(np.median(rough[lit])), RATIO_FLOOR) * grow)
    core = r < -SHADE_MIN
    cores = np.bincount(lab[core], minlength=len(ok))
    kept = np.bincount(lab[core & same], minlength=len(ok))
    keep = ok & (kept >= AREA * coin_area) & (kept >= TRUE_SHARE * cores)
    if not keep.any():
        return None, None
    narrow = keep[lab]
    return narrow, narrow & same


def lifted(img, ring):
    """`img` itself when no shade lies across the ring, else a copy with the shade divided out."""
    got = factor(img, ring)
    if got is None:
        return img
    level, (x0, y0, x1, y1) = got
    f = ring.factor
    ys, xs = np.nonzero(level)
    # the shaded rectangle in frame px: the shaded samples' detection px, and one sample's reach
    # round them (where the factor fades to 1)
    h, w = img.shape[:2]
    rx0 = max(0, (x0 + (int(xs.min()) - 1) * STRIDE) * f)
    ry0 = max(0, (y0 + (int(ys.min()) - 1) * STRIDE) * f)
    rx1 = min(w, (x0 + (int(xs.max()) + 2) * STRIDE) * f)
    ry1 = min(h, (y0 + (int(ys.max()) + 2) * STRIDE) * f)
    # frame px X lies at detection px u = (X + 0.5) / f - 0.5, which is grid sample
    # (u - x0 - (STRIDE - 1) / 2) / STRIDE
    a, c = 1.0 / (f * STRIDE), (STRIDE - 1) / 2 + 0.5
    m = np.array([[a, 0, ((rx0 + 0.5) / f - c - x0) / STRIDE],
                  [0, a, ((ry0 + 0.5) / f - c - y0) / STRIDE]], np.float64)
    gain = cv2.warpAffine(np.exp(-level), m, (rx1 - rx0, ry1 - ry0),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    out = img.copy()
    out[ry0:ry1, rx0:rx1] = cv2.multiply(img[ry0:ry1, rx0:rx1], cv2.merge((gain, gain, gain)), dtype=cv2.CV_8U)
    return out
