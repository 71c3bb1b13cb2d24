"""Find objects on the ring: background difference on the downscaled frame, then measure each
object's outline at full resolution (sub-pixel edge along rays) in ring-plane coordinates.

The difference is mostly chromatic, so a passing shadow or a lighting change (which scale
brightness, not colour) barely registers, while a copper coin on any layout does.
"""
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import chipcheck

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
# A flat coin lying across printed artwork of about its own colour (a line, a box's edge, a
# letter) shows little change against the empty layout where it covers the ink, so the outline
# search stops short there and the outline fits no ellipse. `_round_outline` then looks for
# one circle through most of the outline with nothing of the object beyond it, and measures the
# short rays again near that circle, each against its own contrast (docs/VISION.md).
ROUND_FIT = 1.0            # a worse fit than this is not a clean outline (judge.py: flat needs <= 1.0)
ROUND_AREA = (0.1, 1.8)    # coin areas of an object worth the search (one coin, part of it faint)
# ... or a clean fit that is not round, through part of the outline only: the faint arc left
# out, the rest can fit an ellipse (a tilted coin's whole outline fits one)
ROUND_FLAT, ROUND_PART = 0.945, 0.9
# ... or any other clean fit whose roundness lies between what judge.py calls tilted and flat
# (TILT_RATIO, FLAT_FULL): a dark part of the face reaching the rim can dent a flat
# coin's outline there by a fifth of its radius (sealed-32 4169846147, opened: a cat's eye struck
# on a copper coin on blue cloth, 13 rays short, 0.947 round: unsure). The rays are measured again
# near the circle through the rest; the outline is then `remeasured` and `dented`, and judge.py
# calls it flat only from DENTED_FLAT. Below TILT_RATIO an outline stays tilted: no void is
# turned into a call here.
ROUND_DENT = (0.93, 0.95)
DENT_ONE_SIDE = 0.6   # |mean direction| of the rays off the circle, at least (1: one ray; 0: even all round)
# ... or of those more than this x the on-circle tolerance inside it (or with no edge): rays a
# pixel or so off elsewhere (blur, a smear) no longer hide a dent to one side (sealed-51
# 1822877825, opened: print cut 16 rays at the bottom up to 10 px short, six rays elsewhere lay
# 1-2 px inside the circle and one beyond it; mean direction 0.56 over all 23, 0.94 over the 14
# deep; a coin tilted 18 deg, 3444995071 made so: 0.946 round and paid before, now measured
# again and held to judge.DENTED_FLAT). One deep ray alone lies to one side, as one ray off the
# circle always did.
DENT_DEEP = 2.0
ROUND_TOL = (1.0, 0.025)   # on the circle: within max(px, this x the coin radius), ring-plane px
ROUND_MIN_ON = 0.35        # of the rays with a first-pass edge on the circle, at least
ROUND_MAX_BEYOND = 2       # rays whose edge lies beyond the circle, at most (two coins, a chip...)
ROUND_MOST_ON, ROUND_MAX_BEYOND_MOST = 0.5, 6   # ... or this many, when this share of rays is on it
ROUND_OUT = (0.15, 0.35)   # the layout just outside the circle, coin radii beyond it (past a blurred rim)
# ... or, of an object that is only the part of a coin standing out from ink of its colour, the
# coin measured again from the centre of a coin-sized circle through its edges (`_recentred`)
RECENTRE_SIZE = (0.75, 1.33)   # coin radii of that circle and of the outline found, within
RECENTRE_MIN_ON = 0.25         # of the rays with a first-pass edge on that circle, at least
RECENTRE_FLAT = 0.93           # the outline found is kept only if at least this round (never a tilt)
# ... and never tried on an object that already fits a clean ellipse (ROUND_FIT) over this many
# coin areas: that is the coin's whole outline, not a sliver of it. Four coins tilted 26-30 deg
# so (first fits 0.3-0.82 px, 1.04-1.14 coin areas) were recentred round 0.959-0.983 through
# their side and shadow (sealed-10 484943726: called "odds"; three in edge-tune and edge-4k's
# forced tilted scenes); of ten flat coins recentred in edge-tune, edge-1080p, edge-4k forced
# valid and tilted scenes none fitted so (0.74 px at 0.79 coin areas, else > 1.2 px)
RECENTRE_WHOLE = 0.9
# ... or, where even that finds no rim, the coin's own rim and face texture in the frame (`_textured`)
TEXTURE_SIZE_OK = 0.15     # an outline this close to the coin's radius (clean, round) needs no such search; one
                           # found by it must be this close
TEXTURE_AREA_MAX = 1.3     # coin areas standing out, at most (a coin, part of it, ink joined to it; a chip is >= 1.4)
TEXTURE_WIN = 0.2          # coin radii of the window the texture is measured over (at least 2 detection px)
TEXTURE_RIM = 0.1          # coin radii: the width of the rim looked for
TEXTURE_RADII = (0.9, 1.0, 1.1)   # coin radii of the rim looked for (the coin's own size is the model's)
TEXTURE_GAIN = 3.0         # grey levels of texture to units of difference from the empty ring
# the rim in the difference alone (the coin on plain layout): seen along at least TEXTURE_SEEN of
# the rays, and off the outline by more than twice the on-circle tolerance along at most 1 +
# TEXTURE_OFF of those (edge-1080p: flat coins 0-4 of 41-71; a coin tilted 30 deg 17 of 66)
TEXTURE_SEEN, TEXTURE_OFF = 0.35, 0.1
# ... or off a circle at most TEXTURE_SHADOW coin radii larger and shifted (`_rim_and_shadow`): on
# a layout of the coin's own colour a flat coin's drop shadow is the difference's edge on the side
# away from the lamp (sealed-20, opened: 2-4.6 px beyond the rim of 53 px coins under 56 deg lamps)
TEXTURE_SHADOW = 0.12
# ... and, in an outline looked for by its texture, edges this far beyond its circle (coin radii),
# all on one side, cover their arcs without being fitted (`_outline_near_circle`; fifty-second session)
SHADOW_COVER = TEXTURE_SHADOW
# ... or, where nothing stood out at all on print of the coin's colour (`find_on_print`): the
# texture mapped at this many px per coin radius, and this many strongest rims measured
PRINT_SEARCH_R, PRINT_SEARCH_TOP, PRINT_SEARCH_ARC = 14.0, 4, 32
# ... with no texture counted within this many detection px of the ring's boundary, beyond half
# the texture's window: the wall's foot is sharp in the frame and blurred in the stored empty ring,
# so it shows as a bright arc of "texture" that drew the search's circle half a coin radius off a
# coin lying against the wall (opened sealed-38 1031180732: found at 20 px off, refused there)
PRINT_SEARCH_WALL = 2
ROUND_MIN_SUPPORT = 0.8    # of the circle (10 deg arcs) with an edge on it after the second look, at least
ROUND_MAX_GAP = 50         # deg of the circle without an edge on it in one piece, at most
# ... or, for an outline found by its texture (`_textured`), HIDDEN_SUPPORT with an edge on it
# and the rest of ROUND_MIN_SUPPORT where the empty ring shows print of about the outline's colour
# just beyond the circle (`_printed_arcs`): a coin lying across lines printed in its colour shows
# no rim where they cross it (opened sealed-39 3849006545: 27 of the 36 arcs seen, the rest under
# lines; the coin was "coin-coloured object of the wrong size")
HIDDEN_SUPPORT = 0.65
# ... and its longest arc without an edge may reach HIDDEN_MAX_GAP where every arc of it is so
# printed: a coin lying half on a box printed in about its colour shows no rim along the box's
# edge (opened sealed-41 3596520664: 74 deg, 3539133754: 80 deg, the coins "of the wrong size").
# A tilted coin's short side can hide there: the other's rim, inside the circle, refuses it
# only within the 0.15 radii the rays look and off the hidden arcs (HIDDEN_INSIDE_MAX,
# INNER_RIM), so judge.DENTED_FLAT is the guard (tilted coins' such outlines 0.939-0.955
# round, flat ones 0.974-0.993)
HIDDEN_MAX_GAP = 85
HIDDEN_ARC_COLOUR, HIDDEN_ARC_SHARE, HIDDEN_ARC_NEAR_MAX = 0.1, 0.5, 0.25
# radii of the circle beyond which the empty ring is looked at: a letter's stroke along the rim
# lies within 1.1 of it and the layout shows beyond (opened sealed-41 3596520664)
HIDDEN_ARC_OUT = (1.07, 1.15)
HIDDEN_ARC_SAMPLES = 2    # of an arc's samples (3 angles at each radius) so printed, at least
# beyond the outline by at most this many coin radii, along an arc so hidden, the rim the
# difference shows is the coin's drop shadow on that print, not a rim off the outline (`_textured`)
HIDDEN_SHADOW = 0.12
HIDDEN_INSIDE_MAX = 1   # rays with an edge inside the circle, off it, at most (`_outline_near_circle`) ...
INNER_RIM = 0.1         # ... but for those at most this many coin radii in on a hidden arc (a raised rim's inner edge)
ROUND_PIECE = 0.5          # coin areas of a piece cut off such a coin by a band of ink, at most
PIECES_MAX = 1.2           # coin areas of the pieces measured to one outline, together at most
# A chip of the layout's colour in the ring shows only its edge spots (`_spot_rings`): specks of
# SPOT_AREA_MIN detection px or more, each clear of every object by SPOT_CLEAR coin radii, within
# SPOT_REACH coin radii of one another (the nearer tried first; a big chip's spots at 4K lie up to
# 2.4 apart), at SPOT_RADIUS coin radii from their mean, no gap round it over SPOT_GAP_DEG
# (sealed-19's black chip: six specks 0.64-1.04 coin radii out, gaps under 90 deg; print's specks
# in valid scenes lie along its lines)
SPOT_RING_MIN, SPOT_AREA_MIN, SPOT_CLEAR, SPOT_REACH = 4, 2, 0.5, (1.8, 2.5)
OUTLINE_MAX = 10.0  # coin radii: a fitted outline longer than this is no object's, its edge points fitted
                    # badly (chips reach 1.8, two coins 2.2; a sliver joined to a printed line 4.05,
                    # sealed-18 3058423945; a black chip across grey print 79, sealed-22 1640437339)
SPOT_RADIUS, SPOT_GAP_DEG = (0.3, 1.5), 150.0
# ... and specks over SPOT_FAINT of the difference level on the grid (`_faint_specks`), weaker
# evidence: a ring with any of them needs one speck more (four faint ones where print's lines
# differ a little from the empty ring's photo made a ring in sealed-19 3517380603, valid)
# and lie on one circle, within SPOT_ON_CIRCLE coin radii of it (a row of faint specks along a
# print line, sealed-19 2268603021 valid, is no circle)
SPOT_FAINT, SPOT_ON_CIRCLE = 0.5, 0.25
# ... and only where they are few: more faint specks than SPOT_FAINT_SHARE of the ring's grid
# pixels are the frame's noise (a frame with noise of sd 7: 131, 1.6%, and a false chip; the 4K
# layout chip's frame: 7 and 30; a valid frame on print: 303, 2.3%)
SPOT_FAINT_SHARE = 0.005
# ... and every speck, plain or faint, over SPOT_NOISE x the ring's own noise: the 90th percentile
# of the difference over the ring's grid below the level (a higher one takes in the blurred
# edges of the objects: 14-33 in sealed-20's frames of a layout-coloured chip). Noise of sd
# 6.5-6.8 on a dark layout, sharpened by the camera (camera-tune 730363319, 1528749504: 90th
# percentiles 12 and 26, specks over the level of 45 and faint ones round one centre) was named
# a chip in valid spins; the frames whose chips are named from their spots have 1.4-4.8
SPOT_NOISE = 4.0
# ... and over SPOT_SHIFT x the empty ring's own step there: its photo's largest difference between
# neighbouring pixels within the speck's reach. Where print's edge is sharp, a frame blurred or
# moved by a pixel differs from the empty ring's photo along it (sealed-36 3676139111, opened: a
# white printed band in a 4K frame with 3.3 px of motion blur, five faint specks along both its
# edges round one centre named a chip in a valid spin: specks 25-31 against steps of 98-129).
# A chip's own specks stand at 0.73 x the step or more, 1.46 x this (plain layouts: 1.09-40;
# patterned layouts, whose lines give steps of 20-45: many 0.83-1.05, sealed-27 830933689 0.73)
SPOT_SHIFT = 0.5
# A chip of the layout's colour on a pale or mid-grey layout: its white spots stand out so
# little at detection scale that only three or four are specks, mostly faint ones; beside a coin
# the nearer spots join the coin and three are left (fifty-first session: forced layout-chip 10
# of 100 scenes of four sets called, chip-beside 7 of 248 of ten; each chip plain to the eye).
# Specks such a group leaves (SPOT_VERIFY_MIN or more, within SPOT_REACH of one another, on a
# circle of SPOT_RADIUS, `_ring_of_specks`) are a chip only if the frame itself shows evenly
# spaced spots round that circle at full resolution, and the empty ring's photo does not:
# chipcheck.rim_features over SPOT_VERIFY_ROWS of its radius, its centre also tried
# SPOT_VERIFY_SHIFT of the radius off each way (three specks fit a centre a tenth off), at least
# SPOT_VERIFIED (spot, periodic). Those chips measure 0.057-0.17 at 0.80-0.97; the groups asked
# about in 691 forced valid scenes of 28 sets (5 of them, print's and shadows' specks) at most
# 0.54 periodic (spot at most 0.066) over every centre tried.
SPOT_VERIFY_MIN = 3
SPOT_VERIFY_ROWS = (0.84, 0.92, 1.0, 1.08, 1.16)
SPOT_VERIFY_SHIFT = 0.1
SPOT_VERIFIED = (0.05, 0.8)
SPOT_EMPTY_SHARE = 0.5   # the empty ring's photo's spot there, of the frame's, under (`_spots_round`)
# A coin's colour is its face's mean chromaticity, from its pixels below the camera's limit
# (CLIP_LEVEL in every channel) when they are UNCLIPPED_MIN of the face or more: where a channel
# clips, the highlight keeps the others and the mean turns paler (sealed-19, opened: orange
# copper coins under an 85 deg lamp, red at 255 over 67-70% of the face, measured 0.134 and 0.165
# from the model's colour over all their pixels, the second 0.133 over its unclipped ones). A chip's
# white spots drop out the same way.
CLIP_LEVEL = 250
UNCLIPPED_MIN = 0.15
ROUND_MIN_CONTRAST = 0.17  # a short ray's own inside-outside contrast, of the object's, at least
ROUND_MIN_LEVEL = 0.5      # ... or of the detection level (a bright sliver beside a faint coin)


_ONES = np.ones((1, 3), np.float32)
_SUM_30 = np.array([[1, 1, 1, 30]], np.float32)   # b + g + r + 30: whole numbers, exact in any order


def colour_feats(img):
    """(chroma 3-channel float32, log brightness) of a BGR image, for `diff_feats`."""
    a = img.astype(np.float32)
    s = cv2.transform(a, _SUM_30)
    k = 300.0 / s
    chroma = cv2.multiply(a, cv2.cvtColor(k, cv2.COLOR_GRAY2BGR))   # = a * k[..., None], at a third of numpy's cost
    return chroma, cv2.log(s)


def diff_feats(fa, fb):
    """Chroma change plus (weaker) log-brightness change: shadows and lighting barely register."""
    return _plus_brightness(cv2.transform(cv2.absdiff(fa[0], fb[0]), _ONES), fa[1], fb[1])


def _plus_brightness(chroma, log_a, log_b):
    """`diff_feats` from its chroma change: that plus 45 x the log-brightness change, a new array
    (the product made in place, then the sum)."""
    d = cv2.absdiff(log_a, log_b)
    return np.add(chroma, np.multiply(d, 45, out=d), out=d)


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


def seen_center(b, ring):
    """(x, y) image px where an object is, for the record and the picture: its fitted outline's
    centre once measured (its pixels' centroid strays where print of its colour joins it)."""
    if b.plane_center is None:
        return (float(b.center[0]), float(b.center[1]))
    x, y = ring.image_points([b.plane_center])[0]
    return (float(x), float(y))


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
        # with a fourth channel for `background_at`: cv2 remaps four channels at half the cost
        # of three, each channel the same bits (tests/vision/test_speed_exact.py)
        ring._bg_blur4 = cv2.cvtColor(bg, cv2.COLOR_BGR2BGRA)
        x0, y0, x1, y1 = detection_roi(ring)
        ring._bg_feats = colour_feats(bg[y0:y1, x0:x1])
        ring._bg_feats_grid = tuple(_every_other(a) for a in ring._bg_feats)
        ring._in_ring_grid = _every_other(ring_mask(ring)[y0:y1, x0:x1])
    return bg


def background_at(ring, x, y):
    """The empty ring's photo (detection scale, blurred) sampled at frame px `x`, `y` (float32
    maps): the small image's pixel i is centred on full-res (i + 0.5) * factor - 0.5."""
    h, q = np.float32(0.5), np.float32(ring.factor)
    _blurred_background(ring)
    return cv2.cvtColor(cv2.remap(ring._bg_blur4, (x + h) / q - h, (y + h) / q - h, cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE), cv2.COLOR_BGRA2BGR)


def detection_roi(ring):
    """Detection-scale (x0, y0, x1, y1) searched for objects: the ring with a margin of
    ROI_MARGIN_COINS coin radii (at least ROI_MARGIN_RING of its radius) all round, within the
    frame. A coin beyond it is not seen, which can only make a spin unsure (fewer than two
    coins found), never a call or a void; it halves the work at 4K."""
    key = (ring.center, ring.axes, ring.angle_deg, ring.coin_mm, ring.ring_mm, ring.image_size)
    cached = getattr(ring, "_roi", None)
    if cached is None or cached[0] != key:   # asked for several times a frame: computed once
        cached = ring._roi = (key, _roi(ring))
    return cached[1]


def _roi(ring):
    """`detection_roi`, computed."""
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
    objects, thr, (lab, ys, xs, faint, d_grid) = foreground_objects(
        cv2.GaussianBlur(small, (3, 3), 0), ring._bg_feats, ring._bg_feats_grid, ring_mask(ring)[oy:y1, ox:x1],
        ring._in_ring_grid, min_area_coins * coin_area)
    sh, sw = small.shape[:2]
    centres = [((o["centroid"][0] + ox + 0.5) * f - 0.5, (o["centroid"][1] + oy + 0.5) * f - 0.5) for o in objects]
    far = _outside(ring, centres, ring.radius + 2 * ring.coin_radius_px) if skip_chroma is not None and objects \
        else None
    col_sum = None
    blobs = []
    for k, (o, center) in enumerate(zip(objects, centres)):
        x, y, w, h = o["bbox"]
        # touching the frame's edge, or the search region's (then it may reach beyond it)
        b = Blob(center=center, area_coins=o["area"] / coin_area,
                 bbox=(x + ox, y + oy, w, h), touches_border=bool(x == 0 or y == 0 or x + w >= sw or y + h >= sh))
        if far is not None and b.area_coins < 2.2:   # bigger may be a coin merged with a chip
            if far[k]:   # outside the ring
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
    blobs = _join_pieces(ring, blobs)
    return blobs + _spot_rings(img, ring, lab, ys, xs, ox, oy, min_area_coins * coin_area, coin_area, blobs,
                               faint, d_grid, thr)


def _outside(ring, pts, lim):
    """Per image point, whether its ring-plane distance from the ring's centre exceeds `lim`, as
    `ring.plane_points` and np.hypot measure one point alone: all at once (the matrix product's
    last bits can differ from one point's), each alone where that lies within 1e-6 px of `lim`."""
    c = np.array(ring.center)
    dist = np.hypot(*(ring.plane_points(pts) - c).T)
    out = dist > lim
    for i in np.flatnonzero(np.abs(dist - lim) < 1e-6):
        out[i] = np.hypot(*(ring.plane_points([pts[i]])[0] - c)) > lim
    return out


def _speck_peaks(d, x, y):
    """For each speck at ROI px (x, y): the difference on the grid, the most over its 3x3 cells."""
    h, w = d.shape
    gx, gy = (np.asarray(x) / GRID).astype(int), (np.asarray(y) / GRID).astype(int)
    step = np.array([[-1], [0], [1]])
    rows, cols = np.clip(gy + step, 0, h - 1), np.clip(gx + step, 0, w - 1)   # (3, specks) each
    return d[rows[:, None], cols[None]].max(axis=(0, 1))


def _over_noise(d, in_ring_grid, thr, peak):
    """For each speck's `peak` (`_speck_peaks`): is it over SPOT_NOISE x the 90th percentile of
    the ring's difference `d` below the level."""
    v = d[(in_ring_grid > 0) & (d <= thr)][::4]
    if v.size < 100:
        return np.ones(len(peak), bool)
    q = int(0.9 * (v.size - 1))
    return peak > SPOT_NOISE * float(np.partition(v, q)[q])


def _background_step(ring, x, y):
    """For each speck at ROI px (x, y) (ints): the empty ring's own largest difference
    (`diff_feats`, on its photo as blurred for detection) between two neighbouring pixels (across,
    down and both diagonals), one or both of them within GRID px of the speck: what a frame one
    pixel off the empty ring's photo can differ by there. Only the specks' own patches are looked
    at (a 4K ring's whole map takes 9 ms)."""
    chroma, log = ring._bg_feats
    h, w = log.shape
    span = np.arange(-GRID - 1, GRID + 2)
    rows = np.clip(np.asarray(y)[:, None] + span, 0, h - 1)[:, :, None]
    cols = np.clip(np.asarray(x)[:, None] + span, 0, w - 1)[:, None, :]
    c, lg = chroma[rows, cols], log[rows, cols]   # (specks, n, n, 3) and (specks, n, n)
    k, n = len(lg), len(span)
    step = np.zeros(lg.shape, np.float32)
    for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
        a = (slice(None), slice(0, n - dy), slice(max(0, -dx), n - max(0, dx)))
        b = (slice(None), slice(dy, n), slice(max(0, dx), n - max(0, -dx)))
        rows_a, cols_a = n - dy, n - abs(dx)
        d = diff_feats((c[a].reshape(k * rows_a, cols_a, 3), lg[a].reshape(k * rows_a, cols_a)),
                       (c[b].reshape(k * rows_a, cols_a, 3), lg[b].reshape(k * rows_a, cols_a)))
        d = d.reshape(k, rows_a, cols_a)
        np.maximum(step[a], d, out=step[a])
        np.maximum(step[b], d, out=step[b])
    return step[:, 1:-1, 1:-1].max(axis=(1, 2))


def _spot_rings(img, ring, lab, ys, xs, ox, oy, min_area, coin_area, blobs, faint, d_grid, thr):
    """Objects in the ring of which only a chip's edge spots stand out (a black chip on a black
    layout, sealed-19 3289123918: its white spots and inner line were six specks, each under the
    objects' least area, and the spin was called with the chip unseen): at least SPOT_RING_MIN
    specks in the ring, away from every object, round one centre at a chip's spot radius and
    spread all round it (print's specks lie along its lines); then fewer, whose spots the full
    frame `img` shows (`_verified_rings`). Each is a Blob with no outline, extra["spots"] the
    number of specks."""
    n = int(lab.max()) + 1 if lab.size else 0
    area = np.bincount(lab, minlength=n)
    k = np.nonzero((area >= SPOT_AREA_MIN) & (area < min_area))[0]
    k = k[k > 0]
    faint = faint[faint[:, 2] * GRID * GRID < min_area]
    if len(k) + len(faint) < SPOT_VERIFY_MIN:
        return []
    f, r = ring.factor, ring.coin_radius_px
    sx, sy = (np.r_[np.bincount(lab, weights=v, minlength=n)[k] / area[k], faint[:, i]] + o
              for i, v, o in ((0, xs, ox), (1, ys, oy)))
    area = np.r_[area[k], faint[:, 2] * GRID * GRID]
    weak = np.r_[np.zeros(len(k), bool), np.ones(len(faint), bool)]
    k = np.arange(len(area))
    inside = ring_mask(ring)
    h, w = inside.shape
    keep = inside[np.minimum(h - 1, sy.astype(int)), np.minimum(w - 1, sx.astype(int))] > 0
    peak = _speck_peaks(d_grid, sx - ox, sy - oy)
    keep &= _over_noise(d_grid, ring._in_ring_grid, thr, peak)
    if keep.sum() >= SPOT_VERIFY_MIN:
        i = np.flatnonzero(keep)
        keep[i] = peak[i] > SPOT_SHIFT * _background_step(ring, sx[i].astype(int) - ox, sy[i].astype(int) - oy)
    p = np.stack([(sx + 0.5) * f - 0.5, (sy + 0.5) * f - 0.5], 1)
    for b in blobs:   # clear of every object (a coin's own specks: its shadow, its edge)
        # a fit far longer than any object measures nothing: its area stands for its size
        fitted = b.axes and b.axes[0] <= OUTLINE_MAX * r
        reach = (b.axes[0] if fitted else math.sqrt(b.area_coins) * r) + SPOT_CLEAR * r
        keep &= np.hypot(p[:, 0] - b.center[0], p[:, 1] - b.center[1]) > reach
    p, a, weak = p[keep], area[k][keep] / coin_area, weak[keep]
    if len(p) < SPOT_VERIFY_MIN:
        return []
    dist = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
    free = np.ones(len(p), bool)
    tried = set()
    out = []
    # the nearer reach first (specks of print nearby stay out of a small chip's ring), then the
    # farther (a big chip's spots across it); the plain specks alone first, then with the faint
    for i, near, plain in ((i, near, plain) for near in (dist <= q * r for q in SPOT_REACH)
                           for i in np.flatnonzero(near.sum(1) >= SPOT_RING_MIN) for plain in (~weak, True)):
        group = np.flatnonzero(near[i] & free & plain)
        key = group.tobytes()
        if not free[i] or len(group) < SPOT_RING_MIN + int(weak[group].any()) or key in tried:
            continue
        tried.add(key)
        c = p[group].mean(axis=0)
        d = np.hypot(*(p[group] - c).T) / r
        if weak[group].any():
            # faint specks are nearer the frame's noise: they must lie on one circle round the centre
            c, rad = circle_fit(p[group, 0], p[group, 1], np.ones(len(group)))
            d = np.hypot(*(p[group] - c).T) / r
            if not (SPOT_RADIUS[0] <= rad / r <= SPOT_RADIUS[1]) or np.abs(d - rad / r).max() > SPOT_ON_CIRCLE:
                continue
        ang = np.sort(np.arctan2(p[group, 1] - c[1], p[group, 0] - c[0]))
        gap = float(np.max(np.diff(np.r_[ang, ang[0] + 2 * math.pi])))
        if SPOT_RADIUS[0] <= d.min() and d.max() <= SPOT_RADIUS[1] and gap <= math.radians(SPOT_GAP_DEG):
            out.append(_spot_blob(ring, c, d.max() * r, float(a[group].sum()), len(group)))
            free[group] = False
    return out + _verified_rings(img, ring, p, a, free, dist, out)


def _spot_blob(ring, c, reach, area_coins, n):
    """A chip seen by its spots: a Blob centred at image point `c`, its spots within `reach` px."""
    f = ring.factor
    pc = ring.plane_points([tuple(c)])[0]
    side = int(math.ceil(2 * 1.2 * reach / f))   # the chip's extent, about (its spots lie inside its rim)
    return Blob(center=(float(c[0]), float(c[1])), area_coins=area_coins, plane_center=(float(pc[0]), float(pc[1])),
                bbox=(int((c[0] + 0.5) / f - 0.5 - side / 2), int((c[1] + 0.5) / f - 0.5 - side / 2), side, side),
                extra={"spots": n, "in_ring_coins": 0.0})


def _verified_rings(img, ring, p, a, free, dist, named):
    """Chips from specks `_spot_rings` left (`free` of image points `p`, of `a` coin areas, `dist`
    apart): SPOT_VERIFY_MIN or more within SPOT_REACH of one another round a circle
    (`_ring_of_specks`) that centres on no chip already `named`, round which the full frame
    shows a chip's spots (SPOT_VERIFIED) and the empty ring's photo does not (`_spots_round`).
    Groups the rule above refused (too few, or not spread all round) get this second look."""
    r = ring.coin_radius_px
    inv = cv2.invertAffineTransform(ring.to_plane)
    tried, out = set(), []
    for near in (dist <= q * r for q in SPOT_REACH):
        for i in np.flatnonzero(near.sum(1) >= SPOT_VERIFY_MIN):
            group = np.flatnonzero(near[i] & free)
            key = group.tobytes()
            if not free[i] or len(group) < SPOT_VERIFY_MIN or key in tried:
                continue
            tried.add(key)
            circle = _ring_of_specks(ring.plane_points([tuple(q) for q in p[group]]), r)
            if circle is None:
                continue
            c, rad = circle
            ci = ring.image_points([tuple(c)])[0]
            if any(math.hypot(*(ci - b.center)) < SPOT_RADIUS[1] * r for b in named + out):
                continue   # the spots of a chip named already, seen again
            shifts = (-SPOT_VERIFY_SHIFT * rad, 0.0, SPOT_VERIFY_SHIFT * rad)
            if any(_spots_round(img, ring, inv, (c[0] + dx, c[1] + dy), rad) for dx in shifts for dy in shifts):
                out.append(_spot_blob(ring, ci, rad, float(a[group].sum()), len(group)))
                free[group] = False
    return out


def _ring_of_specks(pp, r):
    """(centre, radius) of the circle through ring-plane points `pp`, or None unless each lies on
    it (within SPOT_ON_CIRCLE coin radii `r`) and its radius is a chip's spots' (SPOT_RADIUS):
    three specks in a row fit a circle centred on the middle one, which is then no spot."""
    c, rad = circle_fit(pp[:, 0], pp[:, 1], np.ones(len(pp)))
    d = np.hypot(*(pp - c).T)
    if not (SPOT_RADIUS[0] * r <= min(rad, d.min()) and rad <= SPOT_RADIUS[1] * r) or \
            np.abs(d - rad).max() > SPOT_ON_CIRCLE * r:
        return None
    return c, rad


def _spots_round(img, ring, plane_to_image, center, rad):
    """Whether `img` shows a chip's evenly spaced spots round the ring-plane circle (`center`,
    `rad`), and they are new: the empty ring's photo (kept at detection scale) shows under
    SPOT_EMPTY_SHARE of the frame's own pattern there at that scale. Printed lines, boxes and
    letters crossing a circle can make one (an edge-tune "W", three crossings at spot 0.33,
    periodic 0.90), and they are in both photos alike; a chip lying on print is new over the
    print's own pattern (the chips named: 0.0009-0.027 empty against 0.041-0.12 in the frame)."""
    f = chipcheck.rim_features(chipcheck.rim_samples(img, plane_to_image, center, (rad, rad), 0.0, SPOT_VERIFY_ROWS))
    if f["spot"] < SPOT_VERIFIED[0] or f["periodic"] < SPOT_VERIFIED[1]:
        return False
    k = 1.0 / ring.factor   # image px -> detection px, as cv2.resize samples
    to_small = np.column_stack([plane_to_image[:, :2] * k, (plane_to_image[:, 2] + 0.5) * k - 0.5])
    empty, now = (chipcheck.rim_features(chipcheck.rim_samples(a, to_small, center, (rad, rad), 0.0, SPOT_VERIFY_ROWS))
                  for a in (ring.background, ring.small(img)))
    return empty["spot"] < SPOT_EMPTY_SHARE * now["spot"]


def circle_fit(x, y, w):
    """Weighted least-squares circle (algebraic) through points x, y -> (centre, radius): the
    heaviest points weigh most (a coin's strongest edge pixels, so an edge's blurred flanks do
    not pull it)."""
    x, y, w = (np.asarray(v, float) for v in (x, y, w))
    o = np.array([np.average(x, weights=w), np.average(y, weights=w)])
    u, v = x - o[0], y - o[1]
    sw = np.sqrt(w)
    m = np.stack([u, v, np.ones_like(u)], 1) * sw[:, None]
    (p, q, c), *_ = np.linalg.lstsq(m, (u * u + v * v) * sw, rcond=None)
    ctr = np.array([p / 2, q / 2])
    return ctr + o, float(math.sqrt(max(c + ctr @ ctr, 0.0)))


def _join_pieces(ring, blobs):
    """`blobs` less the pieces of one coin: a band of ink of about its colour across a coin cuts
    it into pieces. A piece is an object of at most ROUND_PIECE coin areas centred inside a
    round outline `_round_outline`, `_recentred` or `_textured` found (a thin sliver, which alone
    would measure as a coin seen edge-on), what stood out of the two together no more than a coin
    (sealed-20, opened: a coin found by its texture from a third of it, the rest a second object
    left "not a coin"); or a second object
    measured to the same clean outline as another (each piece's rays run on to the coin's rim
    beyond the band), together no more than PIECES_MAX coin areas. Its area joins the coin's."""
    round_ = [b for b in blobs if any(k in b.extra for k in ("remeasured", "recentred", "textured"))]
    clean = [b for b in blobs if b.axes is not None and b.plane_center is not None and b.fit_err <= ROUND_FIT]
    if not round_ and len(clean) < 2:
        return blobs
    out, kept, kept_clean = [], [], []
    for b in blobs:
        whole = None
        if any(b is c for c in round_):
            # two pieces of one coin (a band of ink between them) each measured to its round
            # outline: the same outline twice is one coin
            whole = next((c for c in kept if _same_outline(b, c)), None)
            if whole is None:
                kept.append(b)
        elif round_ and b.area_coins <= ROUND_PIECE:
            pc = ring.plane_points([b.center])[0]
            whole = next((c for c in round_ if np.hypot(*(pc - c.plane_center)) < c.axes[1]
                          and _seen(c) + b.area_coins <= 1.3), None)
        if whole is None and any(b is c for c in clean):
            # the same clean outline measured from two objects, each a piece (the rays from
            # either run on past the band to the coin's rim): a coin and anything else, or two
            # coins, are never measured to one outline
            whole = next((c for c in kept_clean if _same_outline(b, c) and
                          _seen(b) + _seen(c) <= PIECES_MAX), None)
            if whole is None:
                kept_clean.append(b)
            elif any(b is c for c in kept):
                kept.remove(b)
        if whole is None:
            out.append(b)
        else:
            if "seen_area_coins" in whole.extra:   # a recentred or textured coin's area is already its outline's
                whole.extra["seen_area_coins"] = round(whole.extra["seen_area_coins"] + b.area_coins, 3)
            else:
                whole.area_coins += b.area_coins
            whole.extra["in_ring_coins"] = whole.extra.get("in_ring_coins", 0) + b.extra.get("in_ring_coins", 0)
            whole.extra["pieces"] = whole.extra.get("pieces", 0) + 1
    return out


def _seen(b):
    """Coin areas of an object that stood out from the empty layout."""
    return b.extra.get("seen_area_coins", b.area_coins)


def _same_outline(b, c):
    """Two measured outlines one and the same (centres within 0.1 of the short axis, 2 px at
    least; long axes within 10%)."""
    return np.hypot(*np.subtract(b.plane_center, c.plane_center)) < max(2.0, 0.1 * c.axes[1]) and \
        abs(b.axes[0] / c.axes[0] - 1) < 0.1


def foreground_objects(blurred, bg_feats, bg_feats_grid, in_ring, in_ring_grid, min_area):
    """(objects, thr, (labels, ys, xs, faint specks, the difference on the GRID)) of a blurred
    detection-scale frame (the ROI) against the
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
    d = _plus_brightness(chroma, fa[1], bg_feats_grid[1])     # = diff_feats(fa, fb)
    # the levels from every 4th pixel (every 2nd grid pixel), as the dense computation takes them
    s = 4 // GRID
    thr = _level(d[::s, ::s], 45.0)
    thr_in = _level(chroma[::s, ::s], CHROMA_IN_RING)
    # cv2's comparisons (255 where true; the levels are float32 values: the same as numpy's)
    seeds = cv2.bitwise_or(cv2.compare(d, thr, cv2.CMP_GT),
                           cv2.bitwise_and(cv2.compare(chroma, thr_in, cv2.CMP_GT), in_ring_grid))
    faint = _faint_specks(d, thr, seeds, in_ring_grid)
    none = ([], thr, (np.zeros(0, np.int64),) * 3 + (faint, d))
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
    dd = _plus_brightness(ch, fa[1], bg1_p)
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
    n, lbl, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    xp, yp = cv2.findNonZero(mask).reshape(-1, 2).T
    lab = lbl[yp, xp].astype(np.int64)
    inr = np.bincount(lab, weights=inr_p[yp, xp] > 0, minlength=n)
    ys, xs = yp + dy[yp], xp + dx[yp]   # ROI coordinates
    # an object lies in one window, whose rows all have one offset: cv2's box moved by it is the
    # box in the ROI; the centroid from the ROI coordinates' sums (exact integers), as cv2 takes it
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    top = stats[:, cv2.CC_STAT_TOP]
    bx, by = stats[:, cv2.CC_STAT_LEFT] + dx[top], top + dy[top]
    mx, my = (np.bincount(lab, weights=v, minlength=n) / area for v in (xs, ys))
    objects = [{"area": float(area[k]), "bbox": (int(bx[k]), int(by[k]), int(stats[k, 2]), int(stats[k, 3])),
                "centroid": (mx[k], my[k]), "in_ring": float(inr[k]), "label": int(k), "n": n}
               for k in np.nonzero(area >= min_area)[0] if k > 0]
    # cv2's labels (CCL_GRANA) over the whole ROI would be numbered in raster order of 2x2
    # blocks; equal areas keep that order (only they need it)
    if len({o["area"] for o in objects}) < len(objects):
        first = _first_blocks(lab, xs, ys, n)
        objects.sort(key=lambda o: (-o["area"], first[o["label"]]))
    else:
        objects.sort(key=lambda o: -o["area"])
    return objects, thr, (lab, ys, xs, faint, d)


def _faint_specks(d, thr, seeds, in_ring_grid):
    """(x, y) detection px (ROI) and area (grid px) of each speck in the ring whose difference on
    the GRID is over SPOT_FAINT of the level but not over it, clear of every pixel over it: a chip
    of the layout's colour shows only its white edge spots, and at 4K's detection scale (1/7) they
    are a few px that the blur takes under the level (sealed-19 2439612221, its in-ring chip given
    the layout's khaki: eight spots at 42-49 against 45, the spin called). For `_spot_rings`."""
    faint = cv2.bitwise_and(cv2.bitwise_and(cv2.compare(d, SPOT_FAINT * thr, cv2.CMP_GT), in_ring_grid),
                            cv2.compare(cv2.dilate(seeds, _K3), 0, cv2.CMP_EQ))   # none within a pixel of a seed
    if not cv2.countNonZero(faint):
        return np.zeros((0, 3))
    n, _, stats, cent = cv2.connectedComponentsWithStats(faint, 8, cv2.CV_32S)
    if n - 1 > SPOT_FAINT_SHARE * cv2.countNonZero(in_ring_grid):
        return np.zeros((0, 3))   # so many that they are the frame's noise, not a chip's spots
    return np.column_stack([cent[1:] * GRID, stats[1:, cv2.CC_STAT_AREA]])


def _level(v, floor):
    """max(floor, 4 * median(v)), the median only computed when it can exceed floor / 4 (when at
    least half the values are at most floor / 4, it cannot)."""
    a = v.ravel()
    if np.count_nonzero(a <= np.float32(floor / 4)) > a.size // 2:
        return floor
    return max(floor, 4.0 * _median(a))


def _median(a):
    """np.median of a float32 array (the same value), without its overhead: sorted (numpy 2.4's
    vectorised sort beats its selection at these sizes, 72 to a few thousand values)."""
    a = a.ravel()
    m = a.size // 2
    s = np.sort(a)
    return float(s[m]) if a.size % 2 else float((s[m - 1] + s[m]) / 2)


def _every_other(a):
    """a[::GRID, ::GRID] as a contiguous array (cv2's nearest resize by exactly 1/GRID is that
    pick, at a fraction of a strided copy's cost; an odd last row or column is copied)."""
    h, w = a.shape[:2]
    h2, w2 = h // GRID, w // GRID
    out = np.empty((-(-h // GRID), -(-w // GRID)) + a.shape[2:], a.dtype)
    if h2 and w2:
        cv2.resize(a[:h2 * GRID, :w2 * GRID], (w2, h2), dst=out[:h2, :w2], interpolation=cv2.INTER_NEAREST)
    out[h2:] = a[h2 * GRID::GRID, ::GRID]
    out[:, w2:] = a[::GRID, w2 * GRID::GRID]
    return out


def _first_blocks(lab, xs, ys, n):
    """Per label 0..n-1 of the given foreground pixels, its first 2x2 block in raster order,
    (y // 2) << 32 | x // 2 (labels without pixels: the largest int64)."""
    first = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(first, lab, (ys // 2).astype(np.int64) * (1 << 32) + xs // 2)
    return first


def _add_new_objects(mask, extra, min_area):
    """Add to `mask` the objects of `extra` (the lower in-ring level) that are new: only new
    objects (or ones the main level saw only specks of, e.g. a chip's edge spots) - an object
    the main level found keeps its exact outline."""
    n_m, lbl_m, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    big = stats[:, cv2.CC_STAT_AREA] >= min_area
    big[0] = False
    # within a pixel of an object of the main level's
    near = cv2.dilate(mask if big[1:].all() else big[lbl_m].view(np.uint8), _K3)
    touch = cv2.bitwise_and(extra, near)
    if not cv2.countNonZero(touch):   # nothing of `extra` touches one: all of it is new
        cv2.bitwise_or(mask, extra, dst=mask)
        return
    if cv2.countNonZero(touch) == cv2.countNonZero(extra):   # all of it touches (an object's fringe)
        return
    n_x, lbl_x = cv2.connectedComponentsWithAlgorithm(extra, 8, cv2.CV_32S, cv2.CCL_GRANA)
    touching = np.zeros(n_x, bool)
    touching[lbl_x[touch > 0]] = True
    touching[0] = True   # the background
    mask[~touching[lbl_x]] = 1


def measure(img, ring, blob, thr_small):
    """Fit one object's outline at full resolution (see measure_all)."""
    measure_all(img, ring, [blob], thr_small)


_RAYS = {}


# cos, sin of each ray's angle 2 pi k / N_RAYS (double), looked up by the outline fits
_EDGE_ANGLES = 2 * np.pi * np.arange(N_RAYS) / N_RAYS
_EDGE_COS, _EDGE_SIN = np.cos(_EDGE_ANGLES), np.sin(_EDGE_ANGLES)


def _edge_points(cx, cy, k, r):
    """Image points (len(k), 2) at radii r along rays k from (cx, cy)."""
    pts = np.empty((len(k), 2))
    pts[:, 0] = cx + r * _EDGE_COS[k]
    pts[:, 1] = cy + r * _EDGE_SIN[k]
    return pts


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
    step = min(max(r_img / 40, 0.5), 1.0)   # radial sample spacing, px
    reach = [1.8 * r_img * max(1.0, math.sqrt(b.area_coins)) + 2 * f for b in blobs]
    rr = np.arange(0, max(reach), step, dtype=np.float32)
    cos, sin = _ray_dirs(N_RAYS)
    u, v = cos * rr[None, :], sin * rr[None, :]
    cx = np.array([b.center[0] for b in blobs], np.float32)[:, None, None]
    cy = np.array([b.center[1] for b in blobs], np.float32)[:, None, None]
    mx = (u[None] + cx).reshape(-1, len(rr))
    my = (v[None] + cy).reshape(-1, len(rr))
    polar = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    polar_bg = background_at(ring, mx, my)
    ns = [len(np.arange(0, r, step, dtype=np.float32)) for r in reach]
    smooth = polar.copy()
    for i, n in enumerate(ns):   # light smoothing along the radius, each object's rays alone
        rows = slice(i * N_RAYS, (i + 1) * N_RAYS)
        cv2.blur(polar[rows, :n], (3, 1), dst=smooth[rows, :n])
    d = diff_image(smooth, polar_bg)
    R = N_RAYS
    # per object: the level halfway between the inside (rr < 0.45 r) and the layout around it
    # (1.35 r' < rr < reach - 1); rr is float32 and compared in float32, as with a Python float
    n_in = int(np.searchsorted(rr, np.float32(0.45 * r_img)))
    inner = _medians(d[:, :n_in].reshape(len(blobs), -1)) if n_in else None
    level = np.full(len(blobs), np.nan, np.float32)
    spread = np.zeros(len(blobs), np.float32)
    for i, b in enumerate(blobs):
        o0 = int(np.searchsorted(rr[:ns[i]], np.float32(1.35 * r_img * max(1, math.sqrt(b.area_coins))), side="right"))
        o1 = int(np.searchsorted(rr[:ns[i]], np.float32(reach[i] - 1)))
        if inner is None or o1 <= o0:
            continue
        lo, hi = _median(d[i * R:(i + 1) * R, o0:o1]), float(inner[i])
        if hi - lo >= 0.5 * thr_small:
            level[i] = (lo + hi) / 2
            spread[i] = hi - lo
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
    # within the ray up to its sample below the level: a ray already below the level where the
    # search starts (0.3 r) has its edge extrapolated back towards the centre, where the level
    # was crossed (near the rim of a chip whose sliver stands out, those edges find its circle),
    # never past that sample nor through the centre to the far side (sealed-32 541947636,
    # opened: a coin half on a printed box of its colour had 8 edges 1.5-12 coin radii out, and
    # every outline found again was refused as not holding the object; sealed-22 1640437339: a
    # chip's outline fitted 2944 x 165 px)
    r = np.clip(rr[jj - 1] + frac * (rr[1] - rr[0]), 0.0, rr[jj])
    inv = cv2.invertAffineTransform(ring.to_plane)
    for i, b in enumerate(blobs):
        k = np.nonzero(ok[i * R:(i + 1) * R])[0]
        if not ok_obj[i] or len(k) < R // 2:
            continue
        rays = slice(i * R, (i + 1) * R)
        _fit_outline(img, ring, b, k, r[i * R + k], polar[rays, :ns[i]], rr[:ns[i]], step, inv)
        if b.axes is None or not ROUND_AREA[0] < b.area_coins < ROUND_AREA[1]:
            continue
        ratio = b.axes[1] / b.axes[0]
        # a ray's own inside-outside contrast that counts as a faint rim
        need = min(ROUND_MIN_CONTRAST * spread[i], ROUND_MIN_LEVEL * thr_small)
        if b.fit_err > ROUND_FIT or (ratio < ROUND_FLAT and b.extra["inliers"] <= ROUND_PART * N_RAYS):
            if not _round_outline(img, ring, b, k, r[i * R + k], d[rays, :ns[i]], polar[rays, :ns[i]], rr[:ns[i]],
                                  step, inv, need):
                _recentred(img, ring, b, k, r[i * R + k], need)
            if not _coin_like(ring, b) and b.area_coins <= TEXTURE_AREA_MAX and b.extra.get("in_ring_coins", 0) > 0:
                # a part of a coin in the ring (no more than about a coin stands out)
                _textured(img, ring, b, k, r[i * R + k], need)
        elif ROUND_DENT[0] <= ratio < ROUND_DENT[1]:
            _round_outline(img, ring, b, k, r[i * R + k], d[rays, :ns[i]], polar[rays, :ns[i]], rr[:ns[i]],
                           step, inv, need, dent=True)


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
    pp = ring.plane_points(_edge_points(cx, cy, k, r)).astype(np.float32)
    for _ in range(3):
        (ex, ey), (d1, d2), ang = cv2.fitEllipse(pp)
        res = np.abs(_residual(pp, (ex, ey), (d1 / 2, d2 / 2), ang))
        err = _median(res)
        keep = res < max(1.0, 2.5 * err)
        if keep.all() or keep.sum() < N_RAYS // 2:
            break
        pp = pp[keep]
    a, b = d1 / 2, d2 / 2
    if a < b:
        a, b, ang = b, a, ang + 90
    blob.plane_center = (float(ex), float(ey))
    blob.axes = (float(a), float(b))
    blob.angle_deg = float(ang % 180)
    blob.fit_err = err
    blob.extra["inliers"] = int(len(pp))
    # mean colour well inside the outline (the face, not the rim or the layout): from the polar
    # samples of the fitted centre's neighbourhood
    c_img = inv[:, :2] @ np.array([ex, ey]) + inv[:, 2]
    rin = 0.6 * b * ring.axes[1] / ring.axes[0]
    x0, y0 = int(max(0, c_img[0] - rin)), int(max(0, c_img[1] - rin))
    region = img[y0:max(y0, int(c_img[1] + rin) + 1), x0:max(x0, int(c_img[0] + rin) + 1)]
    if np.hypot(c_img[0] - cx, c_img[1] - cy) < 0.2 * r_img or region.size == 0:
        region = polar[:, :int(np.searchsorted(rr, np.float32(max(rin, 2 * step))))]
    blob.chroma, blob.extra["brightness"] = face_colour(region)


def face_colour(region, mask=None):
    """(chromaticity (b, g, r) summing to 1, mean brightness) of a BGR region (where `mask` is
    set): the chromaticity from its pixels below CLIP_LEVEL when they are UNCLIPPED_MIN of it or
    more, the brightness from all.

    Exact integer sums (in double) over the count, as numpy's mean over the pixels gives them, by
    cv2 (a fifth of numpy's cost): a whole region's sum at once, and the pixels with no channel
    clipped looked for only when some channel reaches CLIP_LEVEL."""
    if mask is not None:
        x, y, w, h = cv2.boundingRect(mask)
        region, mask = region[y:y + h, x:x + w], mask[y:y + h, x:x + w]
        n_all = cv2.countNonZero(mask) if mask.size else 0
        sums = cv2.sumElems(cv2.bitwise_and(region, region, mask=mask))[:3] if n_all else (0.0,) * 3
        col = np.array(sums) / max(n_all, 1)
    else:
        n_all = region.size // 3
        col = np.array(cv2.sumElems(region)[:3]) / max(n_all, 1)
    lit = col
    if n_all and cv2.minMaxLoc(region.reshape(region.shape[0], -1))[1] >= CLIP_LEVEL:
        b, g, r = cv2.split(region)
        keep = cv2.compare(cv2.max(cv2.max(b, g), r), CLIP_LEVEL, cv2.CMP_LT)
        if mask is not None:
            keep = cv2.bitwise_and(keep, keep, mask=mask)
        n = cv2.countNonZero(keep)
        if UNCLIPPED_MIN * n_all <= n < n_all:
            lit = np.array(cv2.sumElems(cv2.bitwise_and(region, region, mask=keep))[:3]) / n
    # in Python floats, the same bits as numpy's sums of three (in order) and quotients
    b, g, r = lit.tolist()
    t = b + g + r + 1e-6
    b0, g0, r0 = col.tolist()
    return (b / t, g / t, r / t), (b0 + g0 + r0) / 3


def _circle_hypotheses(pp):
    """(centres (H, 2), radii (H,)) of circles through triples of outline points spread round it
    (a third, a quarter and a sixth of the points apart: one triple falls on any arc of at least
    a third of the outline)."""
    n = len(pp)
    i = np.arange(n)
    tri = np.concatenate([np.stack([i, (i + n // s) % n, (i + 2 * (n // s)) % n], 1) for s in (3, 4, 6)])
    o = pp.mean(axis=0)
    a, b, c = (pp[tri[:, j]] - o for j in range(3))
    den = 2 * (a[:, 0] * (b[:, 1] - c[:, 1]) + b[:, 0] * (c[:, 1] - a[:, 1]) + c[:, 0] * (a[:, 1] - b[:, 1]))
    sa, sb, sc = (a * a).sum(1), (b * b).sum(1), (c * c).sum(1)
    good = np.abs(den) > 1e-6
    den = np.where(good, den, 1.0)
    ux = (sa * (b[:, 1] - c[:, 1]) + sb * (c[:, 1] - a[:, 1]) + sc * (a[:, 1] - b[:, 1])) / den
    uy = (sa * (c[:, 0] - b[:, 0]) + sb * (a[:, 0] - c[:, 0]) + sc * (b[:, 0] - a[:, 0])) / den
    ctr = np.stack([ux, uy], 1)[good]
    return ctr + o, np.hypot(*(a[good] - ctr).T)


def _edge_circles(ring, blob, k, r):
    """-> (coin radius px, on-circle tolerance, `blob`'s first-pass edge points in the ring plane,
    centres and radii of the circles through them): what both outline searches start from."""
    r_img = ring.coin_radius_px
    pp = ring.plane_points(_edge_points(*blob.center, k, r))
    ctr, rad = _circle_hypotheses(pp)
    return r_img, max(ROUND_TOL[0], ROUND_TOL[1] * r_img), pp, ctr, rad


def _round_outline(img, ring, blob, k, r, d, polar, rr, step, inv, need, dent=False):
    """Give `blob` the outline of one flat coin whose rim is faint along part of its length (see
    ROUND_*), when there is one: a circle through at least ROUND_MIN_ON of the first-pass edge
    points with at most ROUND_MAX_BEYOND beyond it (ROUND_MAX_BEYOND_MOST if it holds
    ROUND_MOST_ON of them: a thin printed line running on from the rim) (the rest short of it:
    where the coin covers ink of about its colour), and, measured again near that circle against each ray's own
    inside and outside, edges on it along at least ROUND_MIN_SUPPORT of the rays. The outline is
    then fitted as ever (an ellipse: a tilted coin stays tilted) and kept only if it is clean.
    Anything else (two coins in one outline, a coin and a chip, a shape that is no circle)
    keeps its first measurement. With `dent` (ROUND_DENT) the rays off the circle, all of them or
    those deeper than DENT_DEEP, must lie to one side of it (DENT_ONE_SIDE: a tilted coin's outline
    falls short of the circle on both its short sides, unless its edge shows on one of them) and
    the outline measured again must be rounder."""
    r_img, tol, pp, ctr, rad = _edge_circles(ring, blob, k, r)
    if not len(rad):
        return False
    res = np.hypot(pp[None, :, 0] - ctr[:, None, 0], pp[None, :, 1] - ctr[:, None, 1]) - rad[:, None]
    # rays with an edge on it, less twice those whose edge lies beyond it
    best = int(np.argmax((np.abs(res) <= tol).sum(1) - 2 * (res > tol).sum(1)))
    c0, rho = ctr[best], float(rad[best])
    for _ in range(2):   # refine on the points on it
        res = np.hypot(*(pp - c0).T) - rho
        on = np.abs(res) <= tol
        if on.sum() < 3:
            return False
        c0, rho = circle_fit(*pp[on].T, np.ones(int(on.sum())))
    res = np.hypot(*(pp - c0).T) - rho
    on = np.abs(res) <= tol
    # the object reaching beyond the circle along more than a ray or two: not one coin
    beyond = int((res > tol).sum())
    if on.sum() < ROUND_MIN_ON * N_RAYS or not 0.5 * r_img < rho < 2.0 * r_img or \
            beyond > (ROUND_MAX_BEYOND if on.sum() < ROUND_MOST_ON * N_RAYS else ROUND_MAX_BEYOND_MOST):
        return False
    rest = np.array(sorted(set(range(N_RAYS)) - set(k[on].tolist())), int)
    if dent and not (_one_side(rest) or _one_side(_deep(rest, k, res, tol))):
        return False
    trial = _outline_near_circle(img, ring, blob.center, k[on], r[on], rest, c0, rho, d, polar, rr, step, inv, need)
    if trial is None or (dent and trial.axes[1] / trial.axes[0] < blob.axes[1] / blob.axes[0]):
        return False   # a dent filled in only ever rounds an outline: nothing here makes a coin look tilted
    first = round(float(blob.fit_err), 2)
    blob.plane_center, blob.axes, blob.angle_deg, blob.fit_err = trial.plane_center, trial.axes, \
        trial.angle_deg, trial.fit_err
    blob.chroma = trial.chroma
    # how the outline was found, for the record: rays measured again near the circle, and the
    # first fit's error
    blob.extra.update(trial.extra, remeasured=len(rest) - trial.extra.pop("missed"), first_fit_err=first)
    if dent:
        blob.extra["dented"] = True   # judge.DENTED_FLAT
    return True


def _one_side(rays):
    """Whether rays (indices) lie to one side: |mean direction| >= DENT_ONE_SIDE."""
    return len(rays) > 0 and abs(np.exp(2j * np.pi * rays / N_RAYS).mean()) >= DENT_ONE_SIDE


def _deep(rest, k, res, tol):
    """Of rays `rest`, those with no first-pass edge or one more than DENT_DEEP x tol inside the
    circle (`res`: how far each edge of rays `k` lies beyond the circle; negative: inside)."""
    depth = np.full(N_RAYS, np.inf)
    depth[k] = -res
    return rest[depth[rest] > DENT_DEEP * tol]


def _outline_near_circle(img, ring, center, k_on, r_on, rest, c0, rho, d, polar, rr, step, inv, need,
                         hidden_ok=False):
    """The clean outline (a trial Blob) through edges k_on at r_on (image px along the rays from
    `center`) and the edges the other rays `rest` show near the circle (c0, rho: plane px), each
    against its own contrast; None if the edges cover too little of the circle or fit no clean
    ellipse. `hidden_ok`: arcs without an edge count as covered where the empty ring shows print
    of the outline's own colour just beyond them (`_printed_arcs`), and the longest arc without
    one may reach HIDDEN_MAX_GAP where every arc of it is so; the trial then carries
    extra["arcs_hidden"] (and "gap_hidden", and "_hidden": the arcs' mask, for the caller to
    take out). The trial's extra["missed"]: rays of `rest` without an edge near the circle."""
    r_img = ring.coin_radius_px
    tol = max(ROUND_TOL[0], ROUND_TOL[1] * r_img)
    m = ring.to_plane
    cos, sin = _ray_dirs(N_RAYS)
    au = (m[:, :2] @ np.stack([cos[:, 0], sin[:, 0]])).T          # (R, 2): a ray's step in the plane
    origin = m[:, :2] @ np.array(center) + m[:, 2]
    on_pts = origin + np.asarray(r_on)[:, None] * au[k_on]
    # the other rays looked at again near the circle, twice: the circle refitted in between
    # through all the edges found (from part of the outline it can be a pixel or two off)
    for gate in (3 * tol, 2 * tol):   # a faint edge's level is less sure than a clear one's
        t, rq = _edges_near(d, rr, rest, au, origin - c0, rho, r_img, need)
        if t is None:
            return None
        near = np.abs(rq - t) * np.hypot(*au[rest].T) <= gate
        more = origin + (rq[near, None] * au[rest][near])
        pts = np.concatenate([on_pts, more])
        if len(pts) < 3:
            return None
        c0, rho = circle_fit(*pts.T, np.ones(len(pts)))
    keep_k = list(k_on) + list(rest[near])
    keep_r = list(r_on) + list(rq[near])
    # how much of the circle the edges cover, seen from its centre (the rays' origin may be off
    # it, where they bunch on the near side): a gap is an arc inferred, not seen
    ang, steps, gap, seen_bins, bins = _coverage(pts, c0)
    on_bins = seen_bins   # the arcs with an edge on the circle
    shadow_rays = 0
    if hidden_ok and (gap > ROUND_MAX_GAP or bins < ROUND_MIN_SUPPORT):
        # a coin found by its texture half on plain layout: there the difference's edge is its drop
        # shadow, a few px beyond the rim on the side away from the lamp (sealed-56, opened,
        # 3361331566: 10 rays 2.5-3.3 px beyond a 39 px coin's circle, where it lay off a box of
        # its colour on a dark layout, and the arc they left without an edge on it refused the
        # coin). Where the edges on the circle leave too much of it uncovered, such edges, up to
        # SHADOW_COVER coin radii beyond it and all on one side of it, cover their arcs, but the
        # outline is fitted without them (`_rim_and_shadow`: a shadow only adds to the coin)
        beyond = (rq - t) * np.hypot(*au[rest].T)
        shade = ~near & (beyond > 0) & (beyond <= SHADOW_COVER * r_img)
        on_circle = origin + t[shade, None] * au[rest][shade]
        if shade.any() and _within_half_turn(on_circle - c0):
            shadow_rays = int(shade.sum())
            ang, steps, gap, seen_bins, bins = _coverage(np.concatenate([pts, on_circle]), c0)
    long_gap = gap > ROUND_MAX_GAP
    if gap > (HIDDEN_MAX_GAP if hidden_ok else ROUND_MAX_GAP) or \
            bins < (HIDDEN_SUPPORT if hidden_ok else ROUND_MIN_SUPPORT):
        return None
    order = np.argsort(keep_k)
    trial = Blob(center=center, area_coins=1.0, extra={})
    _fit_outline(img, ring, trial, np.array(keep_k)[order], np.array(keep_r, np.float32)[order], polar, rr, step, inv)
    if trial.fit_err > ROUND_FIT:
        return None
    if bins < ROUND_MIN_SUPPORT or long_gap or shadow_rays:
        # an edge found inside the circle, off it, is a rim the circle does not follow: a tilted
        # coin's short sides (opened sealed-39 1273470481, 26 deg: 8 such rays), where a flat
        # coin across lines shows only the lines' far edges, outside (3849006545: 7, none inside).
        # Not on an arc hidden (no edge on the circle, print of the outline's colour just beyond)
        # and no deeper than INNER_RIM: there a flat coin's outer rim shows no edge and the ray
        # finds the inner edge of its raised rim, 0.05-0.09 radii in (opened sealed-30
        # 2337138250: 11 such rays, sealed-25 1185694131: 3; each coin went unfound, "1 coin
        # found"). A tilted coin's short side is as deep, so whatever of it lies on hidden arcs no
        # longer counts: edge-tune 2549244875 (25.5 deg, forced tilted) is refused by 2-3 rays of 9
        # (`test_inner_rim.py`), and judge.DENTED_FLAT is the guard behind. Looked at too wherever
        # a drop shadow's arcs were needed for the cover: with them that coin's cover passed and
        # its 9 rays inside the circle went uncounted (the fifty-second session's review). Which
        # arcs print hides is asked of the arcs with an edge on the circle (a shadow's: the layout)
        unseen = ~np.isin(np.arange(36), seen_bins)
        hidden = _printed_arcs(ring, c0, rho, on_bins, trial.chroma) & unseen
        depth = (t - rq) * np.hypot(*au[rest].T)   # plane px inside the circle (no edge, NaN: False)
        off_in = ~near & (depth > gate)
        pin = origin + rq[off_in, None] * au[rest][off_in]
        rim = hidden[(np.degrees(np.arctan2(*(pin - c0).T[::-1])) // 10).astype(int) % 36] & \
            (depth[off_in] <= INNER_RIM * r_img)
        inside = int((~rim).sum())
        if inside > HIDDEN_INSIDE_MAX:
            return None
        if bins + hidden.sum() / 36 < ROUND_MIN_SUPPORT:
            return None
        if long_gap:
            # the arcs of the longest gap (their middles within it), every one hidden by print
            mid = (np.arange(36) * 10 + 5 - np.degrees(ang[int(np.argmax(steps))])) % 360
            if not hidden[(mid < gap) & unseen].all():
                return None
            trial.extra["gap_hidden"] = int(round(gap))   # deg, for the record
        trial.extra["arcs_hidden"], trial.extra["_hidden"] = int(hidden.sum()), hidden
    if shadow_rays:
        trial.extra["shadow_rays"] = shadow_rays   # rays whose edge was the drop shadow's, for the record
    trial.extra["missed"] = int(len(rest) - near.sum())
    return trial


def _coverage(pts, c0):
    """(sorted angles of `pts` round `c0`, the steps between them, the largest step in deg, the 10
    deg arcs holding a point, the share of the 36 arcs so held)."""
    ang = np.sort(np.arctan2(*(pts - c0).T[::-1]))
    steps = np.diff(np.r_[ang, ang[0] + 2 * np.pi])   # (pts holds 3 or more)
    seen_bins = np.unique((np.degrees(ang) // 10).astype(int) % 36)
    return ang, steps, float(np.degrees(steps.max())), seen_bins, seen_bins.size / 36


def _within_half_turn(v):
    """Whether the directions of vectors `v` (rows) all lie within half a turn: a drop shadow lies
    on the side away from the lamp, where a tilted coin's side shows at both ends of its long axis.
    (`_one_side` asks of ray indices whether their mean direction is long enough: another bar.)"""
    a = np.sort(np.arctan2(v[:, 1], v[:, 0]))
    return bool(np.diff(np.r_[a, a[0] + 2 * np.pi]).max() >= np.pi)


def _printed_arcs(ring, c0, rho, seen_bins, chroma):
    """Which of the circle's 10 deg arcs (c0, rho: plane px; a bool per arc) have the empty ring
    printed in about `chroma`'s colour just beyond them (at HIDDEN_ARC_SAMPLES of their samples at
    HIDDEN_ARC_OUT of the radius, inside the ring): within HIDDEN_ARC_COLOUR of it, or within
    HIDDEN_ARC_SHARE of how far the empty ring beyond the arcs seen (`seen_bins`) lies from it
    (HIDDEN_ARC_NEAR_MAX at most). There a coin's rim meets print of its own colour and shows no
    edge (such an arc not in `seen_bins` is hidden); the stored empty ring is at detection scale,
    so a thin line comes out mixed with the layout round it."""
    t = np.radians((np.arange(36)[:, None] + np.array([0.2, 0.5, 0.8])[None, :]) * 10)
    out = np.asarray(HIDDEN_ARC_OUT, np.float64)
    pts = (np.asarray(c0) + (out[None, None, :, None] * rho) *
           np.stack([np.cos(t), np.sin(t)], 2)[:, :, None, :]).reshape(-1, 2)
    q = ring.image_points(pts).astype(np.float32)
    col = background_at(ring, q[None, :, 0], q[None, :, 1])[0].astype(np.float64)
    dist = np.abs(col / (col.sum(1, keepdims=True) + 1e-6) - np.asarray(chroma)).sum(1)
    # only the layout counts: never the wall or beyond it (a coin leaning on the wall turns its
    # short side to it), nor a point off the frame
    w, h = ring.image_size
    off = (np.hypot(*(pts - np.asarray(ring.center)).T) >= ring.radius) | (q[:, 0] < 0) | (q[:, 1] < 0) | \
        (q[:, 0] > w - 1) | (q[:, 1] > h - 1)
    dist = np.where(off, np.inf, dist).reshape(36, -1)
    seen = np.zeros(36, bool)
    seen[seen_bins] = True
    beyond_seen = dist[seen].mean(1)
    beyond_seen = beyond_seen[np.isfinite(beyond_seen)]
    near = HIDDEN_ARC_COLOUR if not len(beyond_seen) else \
        min(HIDDEN_ARC_NEAR_MAX, max(HIDDEN_ARC_COLOUR, HIDDEN_ARC_SHARE * float(np.median(beyond_seen))))
    # two samples of the six: one alone may fall on a speck or a line's blurred edge
    return (dist <= near).sum(1) >= HIDDEN_ARC_SAMPLES


def _polar_at(img, ring, center, reach):
    """(polar frame, its difference from the empty ring, rr, step) along N_RAYS rays from `center`
    (image px) out to `reach`, sampled as measure_all samples them."""
    f = ring.factor
    step = float(np.clip(ring.coin_radius_px / 40, 0.5, 1.0))
    rr = np.arange(0, reach, step, dtype=np.float32)
    cos, sin = _ray_dirs(N_RAYS)
    mx, my = cos * rr[None, :] + np.float32(center[0]), sin * rr[None, :] + np.float32(center[1])
    polar = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    polar_bg = background_at(ring, mx, my)
    return polar, diff_image(cv2.blur(polar, (3, 1)), polar_bg), rr, step


def _recentred(img, ring, blob, k, r, need):
    """Give `blob` the outline of a flat coin of about the calibrated size of which it is only the
    part that stands out: a coin lying mostly on ink of its own colour shows as a sliver (or a
    half) where it covers the layout, and rays from that sliver's centre meet its chord, not the
    coin's rim. Its first-pass edges are searched for a circle of 0.75-1.33 coin radii with at
    most ROUND_MAX_BEYOND_MOST edges beyond it (the arc it shares with the coin); the object is
    measured again from that circle's centre, where the rays cross the coin's own faint inside
    (the coin's face over the ink still differs from the empty layout) to its rim. The new
    outline is kept only if it is clean (fit <= ROUND_FIT), round (>= RECENTRE_FLAT: a tilted
    coin is never made from part of one), of the coin's size and holds the object. Else the
    object keeps its first measurement (unsure in play, refused in training)."""
    if blob.fit_err <= ROUND_FIT and blob.area_coins >= RECENTRE_WHOLE:
        return False   # no sliver: a coin's area in a clean ellipse is that coin's outline
    r_img, tol, pp, ctr, rad = _edge_circles(ring, blob, k, r)
    fit = (rad > RECENTRE_SIZE[0] * r_img) & (rad < RECENTRE_SIZE[1] * r_img)
    if not fit.any():
        return False
    ctr, rad = ctr[fit], rad[fit]
    res = np.hypot(pp[None, :, 0] - ctr[:, None, 0], pp[None, :, 1] - ctr[:, None, 1]) - rad[:, None]
    score = (np.abs(res) <= tol).sum(1) - 2 * (res > tol).sum(1)
    best = int(np.argmax(score))
    if (np.abs(res[best]) <= tol).sum() < RECENTRE_MIN_ON * N_RAYS or (res[best] > tol).sum() > ROUND_MAX_BEYOND_MOST:
        return False
    c0, rho = ctr[best], float(rad[best])
    inv = cv2.invertAffineTransform(ring.to_plane)
    c_img = inv[:, :2] @ c0 + inv[:, 2]
    # every ray from the circle's centre looked at near the circle, against its own contrast
    polar, d, rr, step = _polar_at(img, ring, c_img, 1.6 * max(rho, r_img) + 2 * ring.factor)
    trial = _outline_near_circle(img, ring, (float(c_img[0]), float(c_img[1])), np.zeros(0, int), np.zeros(0),
                                 np.arange(N_RAYS), c0, rho, d, polar, rr, step, inv, need)
    if trial is None or trial.axes[1] / trial.axes[0] < RECENTRE_FLAT or \
            not RECENTRE_SIZE[0] < trial.axes[0] / r_img < RECENTRE_SIZE[1]:
        return False
    # the object lies within the new outline (a coin's part, not something beside it)
    q = pp - np.array(trial.plane_center)
    if (np.hypot(*q.T) > trial.axes[0] + tol).sum() > ROUND_MAX_BEYOND_MOST:
        return False
    first = round(float(blob.fit_err), 2)
    blob.plane_center, blob.axes, blob.angle_deg, blob.fit_err = trial.plane_center, trial.axes, \
        trial.angle_deg, trial.fit_err
    blob.chroma = trial.chroma
    # the object is that coin: its area is the outline's (what stood out is kept for the record)
    blob.extra.update(trial.extra, recentred=N_RAYS - trial.extra.pop("missed"), first_fit_err=first,
                      seen_area_coins=round(blob.area_coins, 3))
    blob.area_coins = float(trial.axes[0] * trial.axes[1] / (r_img * r_img))
    return True


def _coin_like(ring, b):
    """A clean, round outline of about the calibrated coin's size."""
    return b.axes is not None and b.fit_err <= ROUND_FIT and b.axes[1] / b.axes[0] >= ROUND_FLAT and \
        abs(b.axes[0] / ring.coin_radius_px - 1) <= TEXTURE_SIZE_OK


def _own_texture(img, ring, x0, y0, x1, y1):
    """(difference from the empty ring plus the frame's own texture within the coin, the texture)
    over an image window. Texture: the local grey-level spread the frame has beyond the empty ring's there,
    over a window wider than the background's own blur (so that a printed edge, sharp in the
    frame and blurred in the stored background, spreads about as much in both): a coin's relief
    and rim have it, flat printed ink has none."""
    f = ring.factor
    crop = img[y0:y1, x0:x1]
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    bg = background_at(ring, xs, ys)
    win = int(max(2 * f, TEXTURE_WIN * ring.coin_radius_px)) | 1
    tex = _spread_beyond(crop, bg, win)
    # a window that holds any of the coin shows its texture: half a window beyond its rim. The
    # least over a window takes that back (a coin's texture has no window-sized hole in it)
    inner = cv2.erode(tex, np.ones((win, win), np.uint8))
    d = diff_image(cv2.blur(crop, (3, 3)), bg)
    return d + np.float32(TEXTURE_GAIN) * inner, tex, d


def _spread_beyond(frame, empty, win):
    """The local grey-level spread (over win x win) a frame has beyond the empty ring's."""
    def spread(x):
        m = cv2.blur(x, (win, win))
        return cv2.sqrt(cv2.max(cv2.blur(x * x, (win, win)) - m * m, 0))
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gb = cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.max(spread(g) - spread(gb), 0)


def find_on_print(img, ring, where, taken, chroma, colour_tol, need, want=2):
    """Coins that do not stand out from the empty ring at all (they lie on print of their own
    colour, so the detection-scale difference shows nothing of them): looked for only where
    `where` (detection-scale mask: such print, and a coin radius round it) holds no object of
    `taken` (Blobs already found). The frame's texture beyond the empty ring's is mapped with a
    coin radius PRINT_SEARCH_R to twice that px; the PRINT_SEARCH_TOP strongest rings of texture of
    the coin's radius there are each measured as `_textured` measures a coin (its own rim and face
    texture, its rim in the difference alone on the outline; clean, round, of the coin's size)
    and kept if its colour is within `colour_tol` of the coin's `chroma` (a printed letter's round
    end can make such an outline, half ink, half the letter's colour).
    -> up to `want` Blobs measured so, extra["on_print"] (never a tilt: `_textured` keeps round
    ones only; never a void: extra["textured"])."""
    f = ring.factor
    r_img = ring.coin_radius_px
    free = where.copy()
    for b in taken:
        x, y, w, h = b.bbox
        m = int(math.ceil(r_img / f))
        free[max(0, y - m):y + h + m, max(0, x - m):x + w + m] = 0
    ys, xs = np.nonzero(free)
    if not len(xs):
        return []
    # halved (exact block means: fast) while a coin stays PRINT_SEARCH_R px across or more
    s = 1
    while r_img / (2 * s) >= PRINT_SEARCH_R:
        s *= 2
    h, w = img.shape[:2]
    pad = int(math.ceil(1.2 * r_img))
    x0, y0 = max(0, int(xs.min()) * f - pad), max(0, int(ys.min()) * f - pad)
    x1, y1 = min(w, (int(xs.max()) + 1) * f + pad), min(h, (int(ys.max()) + 1) * f + pad)
    x1, y1 = x0 + (x1 - x0) // s * s, y0 + (y1 - y0) // s * s
    frame = img[y0:y1, x0:x1]
    for _ in range(s.bit_length() - 1):
        frame = cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    sh, sw = frame.shape[:2]
    # the empty ring sampled at those pixels' centres (from its detection-scale copy)
    q = np.float32(f)
    u = (x0 + (np.arange(sw, dtype=np.float32) + 0.5) * s + 0.5) / q - 0.5
    v = (y0 + (np.arange(sh, dtype=np.float32) + 0.5) * s + 0.5) / q - 0.5
    mu, mv = np.meshgrid(u, v)
    empty = cv2.remap(_blurred_background(ring), mu, mv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    r = r_img / s
    win = int(max(2 * f / s, TEXTURE_WIN * r)) | 1
    tex = _spread_beyond(frame, empty, win)
    k = 2 * (PRINT_SEARCH_WALL + int(math.ceil(win * s / (2 * f)))) + 1
    off_wall = cv2.erode(ring_mask(ring), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    tex *= cv2.remap(off_wall, mu, mv, cv2.INTER_NEAREST).astype(np.float32)
    # the mean texture along a circle of the coin's radius (as the ring's plane shows it) round
    # each pixel
    rad = r * math.sqrt(ring.axes[1] / ring.axes[0])
    p = int(math.ceil(rad)) + 1
    padded = cv2.copyMakeBorder(tex, p, p, p, p, cv2.BORDER_CONSTANT, value=0)
    rim = np.zeros_like(tex)
    for t in np.arange(PRINT_SEARCH_ARC) * (2 * math.pi / PRINT_SEARCH_ARC):
        dx, dy = int(round(rad * math.cos(t))), int(round(rad * math.sin(t)))
        cv2.add(rim, padded[p + dy:p + dy + sh, p + dx:p + dx + sw], dst=rim)
    rim *= np.float32(1.0 / PRINT_SEARCH_ARC)
    # a coin's centre lies where it may hide
    rim *= cv2.remap(free, mu, mv, cv2.INTER_NEAREST)
    found = []
    for _ in range(PRINT_SEARCH_TOP):
        if len(found) >= want:
            break
        _, val, _, at = cv2.minMaxLoc(rim)
        if val <= 0:
            break
        cv2.circle(rim, at, int(math.ceil(1.5 * r)), 0, -1)
        c = (x0 + (at[0] + 0.5) * s - 0.5, y0 + (at[1] + 0.5) * s - 0.5)
        bx, by = int(c[0] / f), int(c[1] / f)
        rs = int(math.ceil(r_img / f))
        b = Blob(center=c, area_coins=1.0, bbox=(bx - rs, by - rs, 2 * rs + 1, 2 * rs + 1))
        if _textured(img, ring, b, np.zeros(0, int), np.zeros(0), need, at=c) and \
                np.abs(np.subtract(b.chroma, chroma)).sum() <= colour_tol and \
                not any(_same_outline(b, o) for o in found):
            b.extra.update(on_print=round(float(val), 2), in_ring_coins=1.0)
            found.append(b)
    return found


def _textured(img, ring, blob, k, r, need, at=None):
    """Give `blob` the outline of a flat coin found by its own rim and face texture in the frame,
    where the coin lies on ink so close to it that the difference from the empty layout shows
    only part of it (or a part and a printed band's edge). The coin's rim, a ring of texture of
    the calibrated coin's radius, is looked for within a coin radius of what stood out; every ray
    from its centre is then measured near that circle on the difference plus the texture
    (`_own_texture`), against its own contrast. Kept on the same terms as `_recentred` (clean,
    round >= RECENTRE_FLAT: never a tilt; of a coin's size; holding the object); else the object
    keeps its measurement. extra["textured"]: the rays that found the rim (the judge never voids
    on such an outline)."""
    r_img = ring.coin_radius_px
    tol = max(ROUND_TOL[0], ROUND_TOL[1] * r_img)
    cx, cy = blob.center
    h, w = img.shape[:2]
    reach = 1.6 * r_img + 2 * ring.factor
    pad = int(math.ceil(r_img + reach)) + 2
    x0, y0 = max(0, int(cx) - pad), max(0, int(cy) - pad)
    x1, y1 = min(w, int(cx) + pad + 1), min(h, int(cy) + pad + 1)
    if x1 - x0 < 2 * r_img or y1 - y0 < 2 * r_img:
        return False
    s, tex, diff = _own_texture(img, ring, x0, y0, x1, y1)
    if at is None:
        # the rim: mean texture along a circle of about the coin's radius (as the ring's plane
        # shows it), centred within a coin radius of what stood out
        near = np.zeros(tex.shape, np.uint8)
        cv2.circle(near, (int(round(cx)) - x0, int(round(cy)) - y0), int(r_img), 1, -1)
        sx = math.sqrt(ring.axes[1] / ring.axes[0])
        best = (-1.0, None, None)
        for k_r in TEXTURE_RADII:
            rad = int(round(k_r * r_img * sx))
            ker = np.zeros((2 * rad + 5, 2 * rad + 5), np.float32)
            cv2.circle(ker, (rad + 2, rad + 2), rad, 1.0, max(1, int(round(TEXTURE_RIM * r_img))))
            rim = cv2.filter2D(tex, -1, ker / ker.sum(), borderType=cv2.BORDER_CONSTANT)
            _, v, _, p = cv2.minMaxLoc(rim, near)
            if v > best[0]:
                best = (v, (p[0] + x0, p[1] + y0), k_r * r_img)
        at, rho = best[1], float(best[2])
    else:   # the rim's centre already found (find_on_print): the calibrated coin's circle
        rho = r_img
    c_img = np.array(at, np.float64)
    c0 = ring.plane_points([c_img])[0]
    cos, sin = _ray_dirs(N_RAYS)
    step = float(np.clip(r_img / 40, 0.5, 1.0))
    rr = np.arange(0, reach, step, dtype=np.float32)
    mx, my = cos * rr[None, :] + np.float32(c_img[0]), sin * rr[None, :] + np.float32(c_img[1])
    polar = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    d = cv2.remap(s, mx - np.float32(x0), my - np.float32(y0), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # that circle is a few px off: the edges found near it (0.15 coin radii either side) give the
    # circle through most of them, from which the rays are measured again
    m = ring.to_plane
    au = (m[:, :2] @ np.stack([cos[:, 0], sin[:, 0]])).T
    origin = m[:, :2] @ c_img + m[:, 2]
    t, e = _edges_near(d, rr, np.arange(N_RAYS), au, origin - c0, rho, r_img, need)
    if t is None or np.isfinite(e).sum() < RECENTRE_MIN_ON * N_RAYS:
        return False
    pts = origin + e[np.isfinite(e), None] * au[np.isfinite(e)]
    ctr, rad = _circle_hypotheses(pts)
    fit = (rad > RECENTRE_SIZE[0] * r_img) & (rad < RECENTRE_SIZE[1] * r_img)
    if not fit.any():
        return False
    ctr, rad = ctr[fit], rad[fit]
    on = np.abs(np.hypot(pts[None, :, 0] - ctr[:, None, 0], pts[None, :, 1] - ctr[:, None, 1]) - rad[:, None]) <= tol
    j = int(np.argmax(on.sum(1)))
    if on[j].sum() < RECENTRE_MIN_ON * N_RAYS:
        return False
    c0, rho = circle_fit(*pts[on[j]].T, np.ones(int(on[j].sum())))
    inv = cv2.invertAffineTransform(ring.to_plane)
    trial = _outline_near_circle(img, ring, (float(c_img[0]), float(c_img[1])), np.zeros(0, int), np.zeros(0),
                                 np.arange(N_RAYS), c0, rho, d, polar, rr, step, inv, need, hidden_ok=True)
    if trial is None or trial.axes[1] / trial.axes[0] < RECENTRE_FLAT or \
            abs(trial.axes[0] / r_img - 1) > TEXTURE_SIZE_OK:
        return False
    # where the difference from the empty layout alone shows a rim near the outline (the coin on
    # plain layout), it is on the outline: a tilted coin's texture with its side and shadow can
    # make a round outline that its own rim does not follow
    pc = np.array(trial.plane_center)
    t, e = _edges_near(cv2.remap(diff, mx - np.float32(x0), my - np.float32(y0), cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE), rr, np.arange(N_RAYS), au, origin - pc,
                       float(np.mean(trial.axes)), r_img, need)
    seen = np.isfinite(e)
    dev = np.where(seen, e - t, 0.0) * np.hypot(*au.T)   # px beyond (+) or short of (-) the outline
    off_rays = np.abs(dev) > 2 * tol
    hidden = trial.extra.pop("_hidden", None)
    if hidden is not None:
        # along an arc hidden by print of the coin's colour the difference's edge just beyond the
        # outline is the coin's drop shadow on that print (opened sealed-41 3596520664: 4-5 px
        # beyond along 7 of 58 rays, all where the coin lies on a pale box), not a rim; a tilted
        # coin's rim falls short of the outline
        arc = (np.degrees(np.arctan2(*(origin + np.where(seen, e, 0.0)[:, None] * au - pc).T[::-1])) // 10)
        off_rays &= ~(hidden[arc.astype(int) % 36] & (dev > 0) & (dev <= HIDDEN_SHADOW * r_img))
    off = int((off_rays & seen).sum())
    if seen.sum() < TEXTURE_SEEN * N_RAYS or (off > 1 + TEXTURE_OFF * seen.sum() and not _rim_and_shadow(
            origin + e[seen, None] * au[seen], pc, float(np.mean(trial.axes)), r_img, tol)):
        return False
    # what stood out lies within the new outline (a coin's part, not something beside it). Not
    # loosened to the drop shadow's reach: tried in the thirty-eighth session, it let a coin
    # tilted 34 deg through with an outline 0.961 round (edge-tune 1650403162, forced tilted)
    if len(k):
        _, _, pp, _, _ = _edge_circles(ring, blob, k, r)
        if (np.hypot(*(pp - np.array(trial.plane_center)).T) > trial.axes[0] + tol).sum() > ROUND_MAX_BEYOND_MOST:
            return False
    first = round(float(blob.fit_err), 2)
    seen_area = blob.extra.get("seen_area_coins", blob.area_coins)
    for key in ("remeasured", "recentred", "dented", "arcs_hidden", "gap_hidden"):
        blob.extra.pop(key, None)
    blob.plane_center, blob.axes, blob.angle_deg, blob.fit_err = trial.plane_center, trial.axes, \
        trial.angle_deg, trial.fit_err
    blob.chroma = trial.chroma
    blob.extra.update(trial.extra, textured=N_RAYS - trial.extra.pop("missed"), first_fit_err=first,
                      seen_area_coins=round(seen_area, 3), rim_seen=(int(seen.sum()), off))
    blob.area_coins = float(trial.axes[0] * trial.axes[1] / (r_img * r_img))
    return True


def _rim_and_shadow(pts, center, rho, r_img, tol):
    """The rim the difference alone shows (`pts`, ring plane) is a flat coin's outline (circle
    `center`, `rho`) grown by its drop shadow: on a layout of the coin's colour the shadow, not the
    rim, is the difference's edge on the side away from the lamp, so that edge lies on a circle
    TEXTURE_SHADOW coin radii larger and shifted at most, and on it all round (off by more than
    twice the on-circle tolerance along at most 1 + TEXTURE_OFF of the rays), never inside the
    outline; a tilted coin's rim follows an ellipse whatever circle is put through it."""
    c, rad = circle_fit(*pts.T, np.ones(len(pts)))
    grow, shift = rad - rho, float(np.hypot(*(c - np.asarray(center))))
    if not -tol <= grow <= TEXTURE_SHADOW * r_img or shift > TEXTURE_SHADOW * r_img:
        return False
    return int((np.abs(np.hypot(*(pts - c).T) - rad) > 2 * tol).sum()) <= 1 + TEXTURE_OFF * len(pts)


def _edges_near(d, rr, rays, au, w, rho, r_img, need):
    """(t, edge) along each of `rays` (image px from the rays' origin): where the ray meets the
    circle of radius rho centred -w from the origin (plane px; au: each ray's unit step in the
    plane), and its edge near there (NaN if none): where its difference falls through the level
    halfway between just inside the circle (the median of 0.2 coin radii: a printed line on the
    circle is no rim) and just outside (ROUND_OUT), within 0.15 coin radii of it, when those
    differ by at least `need` (measure_all: ROUND_MIN_CONTRAST of the object's own contrast, or
    ROUND_MIN_LEVEL of the detection level if less). (None, None) if the origin is not inside
    the circle."""
    qa, qb, qc = (au[rays] ** 2).sum(1), au[rays] @ w, w @ w - rho * rho
    if qc >= 0:
        return None, None
    t = (-qb + np.sqrt(qb * qb - qa * qc)) / qa
    edge = np.full(len(rays), np.nan)
    dr = float(rr[1] - rr[0])

    def idx(x):   # of every ray at once
        return np.clip(np.searchsorted(rr, np.asarray(x).astype(np.float32)), 0, len(rr)).tolist()
    # the coin just inside the circle (a band of ink may cross it further in), the layout just
    # outside, and where the edge is looked for
    bounds = zip(rays, t, idx(t - 0.2 * r_img), idx(t), idx(t + ROUND_OUT[0] * r_img), idx(t + ROUND_OUT[1] * r_img),
                 idx(t - 0.15 * r_img), idx(t + 0.15 * r_img))
    for n, (q, tq, i0, i1, o0, o1, j0, j1) in enumerate(bounds):
        if i1 - i0 < 2 or o1 - o0 < 2:
            continue
        inner, outer = _median(d[q, i0:i1]), _median(d[q, o0:o1])
        if inner - outer < need:
            continue
        mid = (inner + outer) / 2
        j0 = max(1, j0)
        v = d[q, j0 - 1:j1]
        cross = np.nonzero((v[:-1] >= mid) & (v[1:] < mid))[0]
        if not len(cross):
            continue
        j = cross[np.argmin(np.abs(rr[j0 - 1 + cross] - tq))]
        v0, v1 = float(v[j]), float(v[j + 1])
        edge[n] = float(rr[j0 - 1 + j]) + (v0 - mid) / (v0 - v1) * dr
    return t, edge


def _residual(pts, c, axes, ang):
    t = math.radians(ang)
    x, y = pts[:, 0] - c[0], pts[:, 1] - c[1]
    u = x * math.cos(t) + y * math.sin(t)
    v = -x * math.sin(t) + y * math.cos(t)
    return (np.sqrt((u / axes[0]) ** 2 + (v / axes[1]) ** 2) - 1) * (axes[0] + axes[1]) / 2
