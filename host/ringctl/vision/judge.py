"""Judge one still frame: which objects are coins, are they inside and flat (rule 7.3), what faces.

Never guesses: anything that could change the call but cannot be measured with margin makes
the result "unsure" (the boxer looks), never heads/tails/odds. Never voids without evidence: a
no-spin rests on a cleanly measured coin that is one of the spin's two (tilted, leaning,
or one on the other in the ring, or outside / on the rim while the ring holds fewer than two).
"""
import dataclasses
import math
import statistics
import time

import cv2
import numpy as np

from . import balance, chipcheck, detect, drift, faceid, shade, shadow

# L1 distance of normalised (b, g, r) from the trained coin colour. Coins measure <= 0.13 (even
# with clipped highlights); white, grey and black chips ~0.26, coloured ones more (TRAIN seeds).
COLOUR_TOL = 0.16
COLOUR_REJECT = 0.21
SIZE_TOL = 0.13       # coin radius within +-13% of the expected
# Casino chips are 37-43 mm across against a ~31 mm coin: a clean round outline this much
# bigger than the coin (a coin's long axis is its radius in any pose) is a chip, whatever its
# colour; smaller than CHIP_MIN yet too big for a coin stays doubtful.
CHIP_MIN, CHIP_MAX = 1.16, 1.8
EVIDENCE_FIT_PX = 1.5  # a coin's outline fits an ellipse to ~0.1-0.4 px; a void needs a clean fit
# A tilted coin shows its whole face, an ellipse it fills: seen area over the fitted ellipse's
# measures >= 0.81 (tune-* and edge-tune tilted coins, 118 of 120 >= 0.98). A flat coin lying
# partly on printed ink of its own colour shows only the rest of itself, whose outline can fit
# a narrower ellipse it fills less (sealed-8: 0.70 and 0.51, both voided as "tilted"): no
# evidence that the coin does not lie flat, so the boxer calls it.
TILT_FILL_MIN = 0.76
# Where the layout is printed in about the coin's colour, a coin's outline there cannot be told
# from the ink's: ink joined to a flat coin can make its outline an ellipse (sealed-8: a coin
# against lettering, 0.87 round, voided as "tilted"). The empty ring shows the print: a
# tilted-looking outline with more than PRINT_NEAR of the layout round it (0.7-1.35 of its long
# axis) printed in the coin's colour is no evidence. The 197 coins tilted or leaning on plain
# layouts (25 scenes of each kind in tune-*, check-*, sealed-7, sealed-8) measure <= 0.015, once
# the ring's wall and a black layout's noisy chroma are left out (ring mask eroded, PRINT_BRIGHT;
# up to 0.133 before); that coin 0.146, tilted coins on print up to 0.48 (edge-tune). Ink darker
# than the coin hides it too: sealed-11 (seventh session) voided a valid spin whose coin lay half
# on brown lettering at 0.54 of its brightness on a black layout (0.43 of the layout round it at
# 0.45, 0 at 0.6); at 0.45 the tilted and leaning coins of tune-1080p/tune-4k (25 scenes each)
# measure <= 0.011.
PRINT_NEAR = 0.08
PRINT_BRIGHT = 0.45   # ink at least this bright against the coin (a dark layout's noisy chroma is not ink)
# Print of ANY colour hides part of a flat coin too: lying across a print edge (a grey box on
# a blue layout, faint light lines on maroon) a coin can stand out from the cloth on one side
# and hardly from the ink on the other, and the part standing out fits a narrower ellipse
# (sealed-12, seventh session: 0.61 and 0.885 round, both voided as "tilted"; no ink of the
# coin's colour round either). What tells it from a tilted coin is just beyond the outline:
# past a tilted coin's short axis the frame shows the empty layout, past a cut coin's the rest
# of the coin. A tilted-looking outline is no evidence where, on either side of its short axis,
# more than HIDDEN_SHARE of what a flat coin of its long axis would cover beyond it (from
# HIDDEN_GAP out) differs in colour from the empty ring by more than HIDDEN_CHROMA.
# Set on sealed-12's 0.61-round coin (0.91) and the 296 tilted-looking outlines of tilted and
# leaning coins in tune-1080p, tune-4k, tune-light, edge-tune, sealed-7, -10 and -12: 289 measure
# <= 0.24 and stay voids; 7, all on patterned print, measure 0.69-0.90 and become unsure (a
# tilted coin's shadow or rim reaching print). Nearer than HIDDEN_GAP a tilted coin's own rim and
# blur lie, so the 0.885-round coin (its hidden part within 2 detection px) is not told apart:
# at a 1 px gap tilted coins of 0.88-0.93 round measure 0.3-1.0 (docs/VISION.md).
HIDDEN_CHROMA = 20.0    # detect's chroma difference (a shadow changes brightness, not colour)
HIDDEN_SHARE = 0.5
HIDDEN_GAP = (1.5, 0.1)   # beyond the outline by max(detection px, this x its long axis): past its blur
# Print of any colour can also set where a flat coin's outline ends without showing beyond it:
# lying across a brown box on maroon, a coin's darker rim over the box differed from the empty
# box too little, the rays stopped a few px short of the rim and the outline came out 0.885
# round (sealed-12, 78 px coins, 4 px shake: voided as "tilted"; its hidden sliver within 2
# detection px, so the frame beyond the outline shows nothing). The empty ring tells where print
# lies: a tilted-looking outline is no evidence where, on either side of its short axis (within
# PRINT_SIDE_DEG of it, from PRINT_SIDE_IN of the long axis inside the outline to PRINT_SIDE_OUT
# past where a flat coin of that long axis would end), more than PRINT_SIDE_SHARE of the empty
# ring differs from the layout round the object (its median over PRINT_SIDE_REF long axes) by
# more than PRINT_SIDE_LEVEL (detect's difference: chroma plus 45 x log brightness). Points
# within PRINT_SIDE_WALL coin radii of the wall are left out (its blur and shadow are not print)
# and a side with fewer than PRINT_SIDE_MIN of its points left is not measured. Ninth session,
# over every tilted-looking outline reaching this test in 25 tilted, leaning and valid scenes of
# tune-1080p, tune-4k, tune-light, edge-tune, sealed-7, -10 and -12 (274 outlines of coins
# really tilted or leaning): on layouts without added artwork 223 of 226 measure <= 0.33 (the 3
# above lie on a black layout's grey grid and lettering), on artwork 36 of 48 <= 0.5; those 15
# become unsure (flagged, never paid). The two valid spins voided so measure 0.96 (sealed-12
# 4139739620) and 0.78 (edge-tune 430980151 drawn valid). docs/VISION.md "Print under a tilted
# outline's short side".
PRINT_SIDE_DEG = 45.0
PRINT_SIDE_IN, PRINT_SIDE_OUT = 0.2, 0.15
PRINT_SIDE_REF = (1.3, 2.2)
PRINT_SIDE_LEVEL = 20.0
PRINT_SIDE_SHARE = 0.5
PRINT_SIDE_WALL = 0.35
PRINT_SIDE_MIN = 0.4
# A coin's outline holding well under what stood out with it (its area over the outline's above
# JOINED_FILL): something that does not stand out as a coin is joined to it, e.g. a chip of the
# layout's colour whose edge spots join the coin (heldout's chip-beside kind; under 7.3.2 the boxer
# checks whether a coin hit it). Flat coins of valid scenes measure up to 1.35 (six sets, forty-
# ninth session; 1.29 over nine others, its review); coins with such a chip 0.05-0.3 radii off
# their rim 1.30-2.14, most over 1.5. Called flat, such a coin is unsure (JOINED). Its outline,
# fitted through the coin's side and the chip's nearer spots, can also look tilted (0.85-0.93
# round, 1.6-2.0 filled; 7 of 248 chip-beside scenes of ten sets voided, fiftieth session): under
# JOINED_RATIO no chip's spots measured so, and leaning coins (all under 0.61 round) fill up to
# 1.61; above it, tilted and stacked coins of the same ten sets (153 voided outlines) fill at most
# 1.36 (docs/VISION.md)
JOINED_FILL = 1.4
JOINED_RATIO = 0.75
JOINED = "unsure: something that is not a coin is joined to a coin (7.3.2 a chip of the layout's colour beside it?): " \
    "boxer to check whether a coin hit it"
JOINED_TILTED = "unsure: a coin's outline looks tilted but something that is not a coin is joined to it (7.3.2 a " \
    "chip of the layout's colour beside it?): cannot tell whether it lies flat (7.3.4), boxer to check"
TOKEN_MAX = 0.78      # a round object this much smaller than a coin is a token or button
FLAT_RATIO = 0.945    # flat coins measure >= 0.96 (TRAIN seeds); blurred, smeared, shadowed down to 0.947
# ... but below FLAT_FULL only with the short half-axis at least SHORT_MIN of the coin's radius: a
# tilt shortens the short axis, where blur, motion and a passing shadow lengthen the long one. A
# coin tilted 25 deg, small (26 px), blurred 1.3 px and smeared 2.4 px across its short axis
# measured 0.946, its short axis 0.92 of the radius, and was paid (edge-1080p 2247935845, forced
# tilted; fourteenth session); a flat coin under a passing shadow measures 0.947, its short axis
# 0.96 (tests/vision/test_judge.py), sealed-18 1991629253's 0.946 and 0.98. Of about 1500 plain
# flat outlines in seven sets' forced valid and tilted scenes, two measured 0.945-0.95 (short
# axes 0.93, now unsure, and 0.95)
FLAT_FULL, SHORT_MIN = 0.95, 0.94
TILT_RATIO = 0.93     # coins tilted >= 25 deg measure <= 0.92 (TRAIN seeds); between: unsure
# An outline measured again where print hid part of it (detect's remeasured, recentred, textured
# outlines; a dented one: DENTED_FLAT below) is flat only from this round: two coins tilted 30 deg
# on print (edge-tune 4237230137, sealed-13 3098010207, tenth session) came out 0.959 and 0.951
# so and were called (paid wrong calls); of 57 flat coins' such outlines (edge-tune, sealed-12
# valid scenes) 54 measure >= 0.965
RESCUED_FLAT = 0.965
# ... and an outline dented where part of the rim did not stand out (detect.ROUND_DENT: a clean
# fit 0.93-0.95 round, measured again near the circle through the rest) only from this: a coin
# tilted 18-30 deg comes out up to 0.027 rounder so (0.961 at most, twenty-eighth session's
# sweep), flat coins so dented 0.971-0.996 (one small coin of sealed-9 0.956: unsure). So too an
# outline found by its texture with arcs of its rim hidden by print of its colour (detect's
# arcs_hidden): three coins tilted 25-33 deg came out 0.939-0.96 so before detect refused rims
# seen inside the circle (edge-tune 2549244875's 0.96 would pass RESCUED_FLAT), the two flat
# ones 0.980 and 0.981. Since one hidden arc may reach 85 deg (detect.HIDDEN_MAX_GAP), coins
# tilted 26.6-58 deg came out 0.941-0.955 (4 of 388 forced tilted scenes of five sets), flat
# ones 0.977-0.993: this rule is what keeps such a tilted coin out. Since a raised rim's inner
# edge on arcs print hides no longer refuses an outline (detect.INNER_RIM), coins tilted 31 and
# 33 deg came out 0.952 and 0.939 so (edge-tune 3359299473, edge-4k 4225357673), the flat ones
# it was for 0.974 and 0.982
DENTED_FLAT = 0.97
# Two coins in one outline: its long half-axis is r + d/2 for centres d apart, so ~2 coin radii
# when they touch. Over TOUCH_SIZE (centres >= ~0.8 of a diameter apart) the camera cannot tell
# two flat coins touching - valid: 7.3.4 voids a coin that does not lie flat - or a few px apart
# from one just over the other's edge: the boxer looks. Below it one clearly lies on the other.
TOUCH_SIZE = 1.9
# A pair outline no longer than STACKED_SIZE coin radii is one coin mostly on the other: two
# overlapping discs fit an ellipse closely (25 stacked pairs of five sets: fit error <= 1.83 px).
# A dark chip of a grey coin's colour (a silver coin, a black chip) whose edge spots broke its
# outline measured 1.15-1.34 long at 7.2 and 10.4 px (sealed-16 1659922415: "7.3.1 coin outside
# the ring", a void of a spin with one coin in view): over STACKED_FIT it is no pair of coins.
STACKED_SIZE, STACKED_FIT = 1.45, 3.0
# ... and both its ends must be of the coin's colour (`_both_coins`, over a square PAIR_END coin
# radii across half a coin radius in from each tip): a chip of the layout's own colour lying against a coin
# made one outline with it, its body and shadow taken in (sealed-19, the ring's chip recoloured
# and moved a tenth of a coin radius from a coin: 3 of 28 voided as "7.3.4 coin lying on the
# other coin")
PAIR_END = 0.5
TOUCHING = "unsure: 7.3.4 two coins touching or nearly: the boxer checks both lie flat"
RIM_SPOT, RIM_PERIODIC = 0.07, 0.8   # chipcheck: a chip's edge spots (see _chip_rim)
SAME_COIN = 0.08      # a third object outside matches the coins in the ring within +-8% in size
# ... and within this factor in brightness: a coin outside under a player's shade (up to 45% darker)
# and the frame's vignetting (up to half at a corner) keeps more than a quarter of their light
SAME_LIGHT = 4.0
SAME_TILTED = 0.3     # ... beside two coins in the ring, one not flat within +-30% may be a third
CHIP_IN_RING = "7.3.2 a {} in the ring: boxer to check whether a coin hit it"
# the words of a doubt about an object outside the ring, in doubt only with fewer than two coins
# in the ring (the live path's crops, which each count their own, tell it by them: views)
OUTSIDE_DOUBT = "coin-coloured object outside the ring"
# a ring with this much of its layout printed in the coin's colour can hide a coin lying on it
RING_PRINTED = 0.02
# where nothing stood out (detect.find_on_print): an edge's own contrast that counts in its
# measuring, and a found outline's colour distance from the coin's, at most. Coins so measured
# (edge-tune, sealed-12 valid scenes) measure <= 0.104; outlines made by print where no coin
# lies (a printed circle, a letter's round end: half ink, half the letter) >= 0.163, all but one
# (0.083: the ink inside a letter's round end, edge-4k), whose face did not read
PRINT_SEARCH_NEED = 5.0
PRINT_SEARCH_COLOUR = 0.13
PRINT_HIDES = " (parts of the layout are the coin's colour: a coin lying there may not stand out)"
PRINT_PART = " (it lies on print of the coin's colour: it may be part of a coin whose rest the print hides)"


def _tol(r, ring=None):
    """Measurement tolerance for edge positions, px: coin outline fits are ~0.3 px (margin for
    blur), plus the ring boundary's own scatter from calibration when judging inside/rim."""
    return max(2.0, 0.06 * r) + (2.0 * ring.edge_px if ring is not None else 0.0)


def classify(img, ring, model, whole=True, elsewhere=0):
    """-> {"result", "reasons", "coins": [{center, radius, face, flat, inside, confidence}],
    "by_count", "ms"}.
    `whole`: `img` is the camera's whole frame as it came, not a crop of it (a crop is too little
    to tell whether the camera has moved, `drift`, or what its colour balance and exposure are, `balance`) nor
    a frame already put right.
    `elsewhere`: coins other cameras see centred in the ring that this frame does not hold (a
    camera that sees part of the ring): they count as coins in the ring where what is seen
    outside is weighed (7.3.1) and where one outline is taken for two coins one on the other.
    "by_count" lists those of the verdict's reasons (as judged, before a camera-move or
    colour-cast note) that rest on the frame's coins in the ring, with `elsewhere`'s, being fewer
    than two: a coin or an object in doubt outside, or an outline of two coins, that another
    camera's coins in the ring would make a third coin or no concern (`views`)."""
    t0 = time.perf_counter()
    ring.check_frame(img)
    cast = ""
    if whole:   # judged with the empty ring photo's colour balance and exposure (a drifted camera's put right)
        img, cast = balance.balanced(img, ring)
        img = shade.lifted(img, ring)   # a player's shade across the ring divided out
    blobs = detect.find_blobs(img, ring, skip_chroma=model.chroma)
    out, short, doubts = _judged(img, ring, model, blobs, elsewhere)
    if short is not None and may_hide(ring, model):
        # fewer than two coins and nothing else in doubt but what may be part of a coin, on a ring
        # printed in the coin's colour: a coin lying on that print may not stand out at all (or
        # only in part); looked for by its own texture, where the objects in doubt lie too
        seen = [b for b in blobs if not any(b is d for d in doubts)]
        more = detect.find_on_print(img, ring, _hiding_places(ring, model), seen, model.chroma,
                                    PRINT_SEARCH_COLOUR, PRINT_SEARCH_NEED, want=2 - short)
        # what nothing showed is a coin only if its face reads: print can make a clean round
        # outline of the coin's colour (the inside of a letter's round end: edge-4k, a ring
        # re-rendered without coins), and none of those read as a face (by the first weighing:
        # not weighed again within the relit drawings, faceid.FaceModel.read)
        more = [b for b in more
                if model.read(*faceid.features_lean(faceid.coin_patch(img, ring, b)), weigh_low=False)[0]]
        if more:
            # an object in doubt that such a coin holds was part of it
            held = [d for d in doubts if any(_holds(ring, m, d) for m in more)]
            out, _, _ = _judged(img, ring, model, [b for b in blobs if not any(b is d for d in held)] + more,
                               elsewhere)
    if cast:   # colours or exposure too far from the calibration's to judge by: the boxer calls it
        out["result"], out["reasons"] = "unsure", [cast] + out["reasons"]
    elif whole and out["result"] in ("unsure", "no-spin"):
        move = drift.off_by(ring, ring.small(img))
        if move is not None:   # the camera moved, turned or shook: judged again moved back onto the empty ring
            out = drift.realigned(classify(drift.moved_back(img, move), ring, model, whole=False,
                                           elsewhere=elsewhere), move, out)
    out["ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return out


def _holds(ring, coin, part):
    """`part`'s centre lies within `coin`'s outline (ring-plane px)."""
    pc = ring.plane_points([part.center])[0]
    return float(np.hypot(*(pc - np.array(coin.plane_center)))) < coin.axes[1]


def only_print_hides(n_coins, nospin, unsure):
    """Fewer than two coins found and nothing amiss but objects on print that may be part of a
    coin (PRINT_PART): where `detect.find_on_print` may find what is missing."""
    return not nospin and n_coins < 2 and all(r.endswith(PRINT_PART) for r in unsure)


def may_hide(ring, model):
    """The ring's layout is printed in about the coin's colour (RING_PRINTED of it or more): a
    coin lying there may not stand out from the empty ring."""
    return _ring_printed(ring, model) > RING_PRINTED


def _hiding_places(ring, model):
    """Detection-scale mask (uint8) of where a coin's centre may lie on print of its colour: that
    print in the ring, and a coin radius round it (kept on the ring per coin colour)."""
    cache = ring.__dict__.setdefault("_hiding_places", {})
    key = tuple(float(c) for c in model.chroma)
    if key not in cache:
        near, _, inner, _ = _print_colour(ring, model.chroma)
        k = 2 * int(math.ceil(ring.coin_radius_px / ring.factor)) + 1
        grown = cv2.dilate(near.view(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        cache.clear()   # one coin colour in use at a time
        cache[key] = grown & inner.view(np.uint8)
    return cache[key]


def _judged(img, ring, model, blobs, elsewhere=0):
    """(verdict of the measured objects `blobs`, the number of coins found when fewer than two
    were and nothing else is amiss but objects on print that may be part of a coin, else None,
    those objects). `elsewhere`: coins in the ring that other cameras see (classify)."""
    r_exp = ring.coin_radius_px * model.radius_ratio
    R = ring.radius
    c_ring = np.array(ring.center)
    coins, others, nospin, unsure = [], [], [], []
    print_doubts = []   # objects left in doubt only because they may be part of a coin on print
    light = ""   # faceid's note on an unread coin lit unlike the training photos
    # evidence seen OUTSIDE the ring waits until every object is judged: it voids the spin only
    # if the object can be one of the game's two coins (7.3.1)
    # (reason, [coin entries], size or None, outline): a coin (or two together) outside or on the rim
    away = []
    stacked = []     # [coin entries]: two coins one on the other in the ring, as one outline
    doubt_out = []   # (reason, other entry): an object outside that may or may not be a coin
    for b in blobs:
        if "spots" in b.extra:
            # only a chip's edge spots stand out (a chip of the layout's colour): 7.3.2, the boxer looks
            unsure.append(CHIP_IN_RING.format("chip") + " (only its edge spots stand out from the layout)")
            others.append(_other(b, "chip", True, ring))
            continue
        if b.axes is not None and b.axes[0] > detect.OUTLINE_MAX * r_exp:
            # an outline far longer than any chip is no measurement: its edge points fitted badly
            # (sealed-22, opened, forced chip-in-ring 1640437339: a black chip on a black layout
            # across grey print, 0.7 of a coin's area, fitted 2944 x 165 px with its centre far
            # outside the ring: the chip was ignored as outside and the spin called)
            b.axes = b.plane_center = None
        if b.axes is None or b.plane_center is None:
            # too big or shapeless to measure: if it reaches into the ring it may hide a coin
            if b.extra.get("in_ring_coins", 0) > 0.2:
                unsure.append("unsure: unexplained object in the ring")
                others.append(_other(b, "object", True, ring))
            continue
        pc = np.array(b.plane_center)
        dist = float(np.hypot(*(pc - c_ring)))
        a, bb = b.axes
        colour = float(np.abs(np.subtract(b.chroma, model.chroma)).sum())
        size = a / r_exp
        in_ring = dist < R
        touches_ring = in_ring or dist - a < R
        seen = detect.seen_center(b, ring)
        entry = {"center": [round(seen[0], 1), round(seen[1], 1)], "radius": round(a, 1),
                 "face": None, "flat": False, "inside": False, "confidence": 0.0}
        # a clean disc of a chip's size (or a token's), not cut by the picture's edge
        disc = bb / a > 0.9 and b.fit_err < 1.0 and not b.touches_border
        # a clean coin lying flat well inside the ring: its face is read first and only an
        # unreadable one is checked for a chip's edge spots (the common case pays nothing)
        plain = colour <= COLOUR_TOL and abs(size - 1) <= SIZE_TOL and b.fit_err <= 1.0 and \
            bb / a >= FLAT_RATIO and R - (dist + a) > _tol(a, ring)
        kind = None
        if disc and (CHIP_MIN <= size <= CHIP_MAX or (size <= TOKEN_MAX and colour > COLOUR_TOL)):
            kind = "chip" if size >= CHIP_MIN or (touches_ring and _chip_rim(img, ring, b)) else "token"
        elif not plain and (colour <= COLOUR_REJECT or touches_ring) and _chip_rim(img, ring, b):
            # evenly spaced spots of another colour round its edge (or round the inner circle
            # its outline was measured on): a chip, whatever size it measured
            kind = "chip"
        if kind:
            others.append(_other(b, kind, touches_ring, ring))
            if touches_ring:   # 7.3.2: a coin may have hit it; the coins are still read
                unsure.append(CHIP_IN_RING.format(kind))
            continue   # outside the ring a chip is not a coin and hides none
        if colour > COLOUR_REJECT:
            others.append(_other(b, "object", in_ring, ring))
            if in_ring:   # something else in the ring: it may hide or push a coin
                unsure.append("unsure: object in the ring that is not a coin")
            continue      # tokens and other round things outside the ring are not coins
        # two coins merged into one outline: one on top of or touching the other (7.3.4)
        pair = colour <= COLOUR_TOL and b.area_coins > 1.05 and 1.13 < size < 2.2 and \
            (a / bb > 1.08 or b.fit_err > 0.8) and \
            (size >= STACKED_SIZE or b.fit_err <= STACKED_FIT)   # two overlapping discs: an elongated outline
        if pair and not _both_coins(img, ring, b, model, r_exp):
            # one end of it is not of the coin's colour: a coin joined to something else (a chip
            # of the layout's colour beside it, its body and shadow taken in), not two coins
            others.append(_other(b, "object", in_ring, ring))
            if touches_ring:
                unsure.append("unsure: a coin joined to an object not of its colour (7.3.2 a chip beside it?): "
                              "boxer to call")
            continue
        if pair:
            entry["radius"] = round(r_exp, 1)
            entry["inside"] = bool(dist + a < R - _tol(a, ring))
            entry["confidence"] = 0.9
            both = [dict(entry, _in=in_ring), dict(entry, _in=in_ring)]
            coins += both
            if in_ring and size < TOUCH_SIZE:
                stacked.append(both)   # a void only if no other coin lies in the ring (below)
            elif in_ring:   # the camera cannot tell touching (both flat: valid) from just over
                unsure.append(TOUCHING)
            else:   # two coins together outside: the spin's two only if the ring holds fewer than two
                away.append(("7.3.1 coin outside the ring" if dist - a > R else "7.3.1 coin on the ring's rim",
                             both, None, b))
            continue
        doubt = None
        if colour > COLOUR_TOL:
            if abs(size - 1) > 2 * SIZE_TOL and not in_ring:
                continue   # neither the colour nor the size of a coin: a token or chip
            doubt = "unsure: coin-coloured object that may or may not be a coin"
        elif abs(size - 1) > SIZE_TOL:
            if abs(size - 1) > 2 * SIZE_TOL and not (bb / a < TILT_RATIO and abs(size - 1) < 0.3):
                if in_ring:
                    unsure.append(_print_reason(ring, model, b, "unsure: object in the ring that is not a coin"))
                    if unsure[-1].endswith(PRINT_PART):
                        # as any part of a coin print may hide: where the search for that coin looks
                        # (sealed-18 3058423945, opened: a sliver of a coin joined to ink kept it out)
                        print_doubts.append(b)
                continue
            doubt = "unsure: coin-coloured object of the wrong size"
        elif b.fit_err > EVIDENCE_FIT_PX:
            # not a clean disc or ellipse: no evidence for a void (or a call) can rest on it
            doubt = "unsure: coin-coloured object that may or may not be a coin"
        if doubt:
            o = _other(b, "doubtful", in_ring, ring)
            others.append(o)
            if touches_ring:
                unsure.append(_print_reason(ring, model, b, doubt) if in_ring else doubt)
                if unsure[-1].endswith(PRINT_PART):
                    print_doubts.append(b)
            else:
                doubt_out.append((doubt.replace("coin-coloured object", OUTSIDE_DOUBT, 1), o))
            continue
        ratio = bb / a
        fill = b.area_coins * ring.coin_radius_px ** 2 / (a * bb)   # what stood out, of the outline's area
        # inside: the whole outline within the inner boundary, with measurement margin (7.3.1)
        clear = R - (dist + a)
        tol = _tol(a, ring)
        entry["inside"] = bool(clear > tol)
        if clear < -tol and "textured" in b.extra:
            # an outline found from the coin's own texture on print (detect._textured): no
            # evidence for a void
            unsure.append("unsure: a coin on print of its colour at the ring's edge: cannot tell inside from on the rim")
        elif clear < -tol:
            away.append(("7.3.1 coin outside the ring" if dist - a > R else "7.3.1 coin on the ring's rim",
                         [entry], size, b))
        elif clear <= tol:
            unsure.append("unsure: coin at the ring's edge, cannot tell inside from on the rim")
        if not in_ring:
            # 7.3.4 asks whether the coins lie flat IN the ring: whether an object centred outside
            # it is one of the spin's coins is `away`'s to say below (7.3.1), however it lies (a
            # third coin lying tilted on the floor voided 10 of 12 valid spins of check-1080p as
            # "leaning on the ring wall"; thirty-eighth session)
            entry["flat"] = bool(ratio >= FLAT_RATIO and b.fit_err <= 1.0)
            entry["confidence"] = 1.0
        elif ratio < TILT_RATIO and fill < TILT_FILL_MIN:
            unsure.append("unsure: a coin's outline looks tilted but only part of the coin is seen "
                          "(on print of its colour?): cannot tell whether it lies flat (7.3.4)")
        elif ratio < TILT_RATIO and _on_print(ring, model, b) > PRINT_NEAR:
            unsure.append("unsure: a coin's outline looks tilted but it lies on print of its own "
                          "colour, whose edge cannot be told from the coin's: cannot tell whether it lies flat (7.3.4)")
        elif ratio < TILT_RATIO and _hidden_part(img, ring, b) > HIDDEN_SHARE:
            unsure.append("unsure: a coin's outline looks tilted but something lies just beyond it where a "
                          "flat coin would be (part of a coin print hides?): cannot tell whether it lies flat (7.3.4)")
        elif ratio < TILT_RATIO and _print_under_short_sides(ring, b) > PRINT_SIDE_SHARE:
            unsure.append("unsure: a coin's outline looks tilted but print lies where its short side ends "
                          "(print can cut a flat coin's outline short): cannot tell whether it lies flat (7.3.4)")
        elif ratio < TILT_RATIO and ratio >= JOINED_RATIO and fill > JOINED_FILL:
            unsure.append(JOINED_TILTED)
        elif ratio < TILT_RATIO:
            near_wall = clear < 0.5 * a
            nospin.append("7.3.4 coin not lying flat" + (" (leaning on the ring wall)" if near_wall else " (tilted)"))
            entry["confidence"] = round(float(min(1.0, (TILT_RATIO - ratio) / 0.05)), 3)
        elif ratio < FLAT_RATIO or b.fit_err > 1.0 or (ratio < FLAT_FULL and bb / r_exp < SHORT_MIN):
            unsure.append("unsure: cannot tell whether a coin lies flat")
        elif ("dented" in b.extra or "arcs_hidden" in b.extra) and ratio < DENTED_FLAT:
            unsure.append("unsure: cannot tell whether a coin lies flat (its outline measured again where part of "
                          "its rim did not stand out comes out nearly round, not round) (7.3.4)")
        elif ratio < RESCUED_FLAT and _rescued(b):
            unsure.append("unsure: cannot tell whether a coin lies flat (its outline measured again where print "
                          "hid part of it comes out nearly round, not round) (7.3.4)")
        elif shadow.arc_deg(img, ring, b, model.chroma) >= shadow.ARC_DEG:
            # any outline, not only one measured again: on a layout near the coin's colour a coin
            # tilted 29 deg stood out less than its shadow, and the two made a round outline
            # (camera-check 47337615, forced tilted, fiftieth session: 0.962 round, called "odds")
            again = ""
            if _rescued(b):
                hid = "part of its rim did not stand out" if "dented" in b.extra else "print hid part of it"
                again = f" measured again where {hid}"
            unsure.append(f"unsure: cannot tell whether a coin lies flat (its outline{again} takes in the layout "
                          "in shadow just inside its rim, as a tilted coin's shadow fills the round it leaves) (7.3.4)")
        else:
            entry["flat"] = True
            if fill > JOINED_FILL:   # (in the ring: objects centred outside it are judged above)
                unsure.append(JOINED)
            if entry["inside"]:
                patch = faceid.coin_patch(img, ring, b)
                face, conf, h, t = model.read(*faceid.features_lean(patch))
                if face is None and _chip_rim(img, ring, b):
                    others.append(_other(b, "chip", True, ring))
                    unsure.append(CHIP_IN_RING.format("chip"))
                    continue
                entry["face"], entry["confidence"] = face, round(conf, 3)
                light = light or (model.light_note(patch) if face is None else "")   # issue 12: why, and the fix
            else:
                entry["confidence"] = 1.0
        entry["_pc"], entry["_a"], entry["_in"], entry["_size"] = pc, a, in_ring, size
        entry["_light"] = b.extra.get("brightness")
        coins.append(entry)
    # One outline in the ring measured as two coins one on the other is the spin's two coins only
    # if no other coin lies in the ring: with one there too, that is three or four coins, and the
    # outline is something else of the coin's colour (sealed-23, opened: a yellow chip near the
    # bright gold coin's colour, cut by print into an elongated outline, voided a spin whose two
    # coins lay apart in the ring)
    by_count = []   # reasons resting on fewer than two coins in the ring (classify's "by_count")
    for both in stacked:
        if elsewhere or any(c.get("_in") and not any(c is e for e in both) for c in coins):
            for entry in both:
                coins.remove(entry)
            others.append({"center": both[0]["center"], "radius": both[0]["radius"], "kind": "object", "inside": True})
            unsure.append("unsure: an object in the ring measured as two coins one on the other, with another "
                          "coin in the ring (7.3.2 a chip?): boxer to call")
        else:
            nospin.append("7.3.4 coin lying on the other coin")
            by_count.append(nospin[-1])
    # Outside the ring: with both coins of the spin seen in the ring, something else outside is
    # not one of them. It is a third coin only if it matches them (then the boxer looks);
    # anything else there is ignored. With fewer than two in the ring, a coin seen outside or on
    # the rim is the evidence for a void (7.3.1) and a doubtful object leaves the spin unsure.
    ring_sizes = [c["_size"] for c in coins if c.get("_in") and "_size" in c]
    ref = float(statistics.median(ring_sizes)) if ring_sizes else 1.0   # a few values: numpy's overhead
    ring_light = [c["_light"] for c in coins if c.get("_in") and c.get("_light")]
    ref_light = float(statistics.median(ring_light)) if ring_light else None
    # the coins in the ring: this frame's, and those other cameras see there (`elsewhere`): a camera
    # that sees half the ring counting only its own would take a third coin on the floor beside
    # its one coin for the spin's second and void a valid spin (forty-sixth session)
    in_play = sum(1 for c in coins if c.get("_in")) + elsewhere
    for reason, seen, size, b in away:
        # like them: the size of the coins in the ring, and, lying flat, about their brightness
        # (an outline that is not flat turns its face from the lamp: its light says nothing).
        # Beside two coins in the ring, one not flat within SAME_TILTED of their size may be a
        # coin too: dropping it would let a false coin in the ring hide the spin's other coin
        # lying tilted outside (review, thirty-eighth session); it is no evidence for a void
        flat = seen[0]["flat"]
        like = size is not None and abs(size / ref - 1) <= SAME_COIN and \
            (not flat or _same_light(seen[0].get("_light"), ref_light))
        maybe = like or (size is not None and not flat and abs(size / ref - 1) <= SAME_TILTED)
        if not seen[0].get("_in") and in_play == 1 and (ring_sizes or elsewhere) and not like:
            # the spin's two coins are alike: something outside that is not the size of the coin in
            # the ring, or two things together there, is no evidence for a void (sealed-22, opened:
            # black chips, their spots not named, taken for a coin 1.13x the coin's size
            # (1397025808) and for two coins together (2910297966), voided spins whose other coin
            # was hidden). The coin in the ring another camera sees is weighed as of the size this
            # frame expects (`ref` 1.0; review, forty-sixth session)
            unsure.append("unsure: a coin-like object outside the ring, not the size or brightness of the coin in it "
                          "(7.3.1 needs evidence): boxer to call" if size is not None else
                          "unsure: two coin-like objects together outside the ring, one coin in it "
                          "(7.3.1 needs evidence): boxer to call")
            by_count.append(unsure[-1])
        elif not seen[0].get("_in") and in_play < 2 and _chip_either_axis(img, ring, b):
            # the evidence for a void would be this outline outside: a chip whose outline was
            # measured across its inner ring line and its edge is no coin (sealed-48 1501054356,
            # opened: a black chip outside, measured 33 x 20 px in a player's shade, voided a
            # spin whose coins lay unseen on a layout of their colour)
            for entry in seen:
                coins.remove(entry)
            rim = reason.endswith("rim")
            others.append(_other(b, "chip", rim, ring))
            if rim:   # its edge over the ring's: 7.3.2, as a chip touching the ring above
                unsure.append(CHIP_IN_RING.format("chip"))
        elif seen[0].get("_in") or in_play < 2:
            nospin.append(reason)
            if not seen[0].get("_in"):
                by_count.append(reason)
        elif maybe:
            unsure.append("unsure: a third coin-like object outside the ring")
        else:   # not like the coins in the ring (or two things together): neither of the spin's coins
            for entry in seen:
                coins.remove(entry)
            others.append({"center": seen[0]["center"], "radius": seen[0]["radius"], "kind": "object",
                           "inside": False})
    # what is in doubt in the ring (and outside, for `away`): an object outside that may or may
    # not be a coin does not keep the print search from looking in the ring for the coin missing
    # there; found, the spin is judged again with two coins in the ring, and such an object is
    # then no concern (sealed-49 3175999918, opened: a black chip on the floor, measured badly,
    # kept the search from a coin half on a box of its colour)
    in_doubt = list(unsure)
    if in_play < 2:
        unsure += [reason for reason, _ in doubt_out]
        by_count += [reason for reason, _ in doubt_out]
    # two flat coins must not touch (7.3.4)
    flat = [c for c in coins if "_pc" in c]
    for i in range(len(flat)):
        for j in range(i + 1, len(flat)):
            gap = float(np.hypot(*(flat[i]["_pc"] - flat[j]["_pc"]))) - flat[i]["_a"] - flat[j]["_a"]
            tol = _tol(flat[i]["_a"])
            if gap < 2 * tol:   # each measured flat: touching is no breach of 7.3.4, but a
                unsure.append(TOUCHING)   # coin just over the other's edge would be
    for c in coins:
        for k in ("_pc", "_a", "_in", "_size", "_light"):
            c.pop(k, None)
    short = len(coins) if only_print_hides(len(coins), nospin, in_doubt) else None
    if nospin:
        result, reasons = "no-spin", sorted(set(nospin))
    elif unsure:
        result, reasons = "unsure", sorted(set(unsure))
        if len(coins) < 2:
            reasons.append(f"unsure: {len(coins)} coin{'' if len(coins) == 1 else 's'} found")
    elif len(coins) < 2:
        # no void without evidence: a coin not found may be hidden, blurred or missed
        result, reasons = "unsure", [f"unsure: {len(coins)} coin{'' if len(coins) == 1 else 's'} found and "
                                     "none seen leaving the ring (7.3.1 needs evidence): boxer to call"
                                     + (PRINT_HIDES if _ring_printed(ring, model) > RING_PRINTED else "")]
    elif len(coins) > 2:
        result, reasons = "unsure", ["unsure: more than two coins in view"]
    elif any(c["face"] is None for c in coins):
        result, reasons = "unsure", ["unsure: cannot read a coin's face" + light]
    else:
        faces = {c["face"] for c in coins}
        result = faces.pop() if len(faces) == 1 else "odds"
        reasons = [f"both coins {result}" if result != "odds" else "one head and one tail"]
    return {"result": result, "reasons": reasons, "coins": coins, "others": _distinct(others),
            "ring": {"center": [round(v, 1) for v in ring.center], "axes": [round(v, 1) for v in ring.axes],
                     "angle_deg": round(ring.angle_deg, 1)},
            "by_count": sorted(set(by_count) & set(reasons))}, short, print_doubts


def _rescued(b):
    """An outline detect measured again near a circle: where print hid part of the coin, or where
    part of its rim did not stand out (dented)."""
    return any(k in b.extra for k in ("remeasured", "recentred", "textured"))


def _same_light(light, ref):
    """Whether an object's brightness `light` (detect.face_colour's; None or 0: not measured) is
    within SAME_LIGHT times the coins' in the ring (`ref`, None: none measured). Colour is compared as
    chromaticity, which a grey coin shares with anything grey, black or white: a black chip on a
    grey floor, its spots not named, measured 0.17 of a zinc coin's brightness and was taken for
    a third coin (sealed-41 1751110672, opened)."""
    return not light or not ref or 1 / SAME_LIGHT <= light / ref <= SAME_LIGHT


def _chip_rim(img, ring, b):
    """A chip's edge spots: a strong, evenly spaced pattern of colour change round the rim.
    On tune-1080p and the opened sealed-2 (466 objects), coins measure periodic <= 0.77 (and
    spot <= 0.22), chips with a clean outline spot >= 0.1 at periodic >= 0.9. Each radius just inside
    the outline measured on its own (nineteenth session), over 12 sets' objects (894): coins
    periodic <= 0.66 as before (623 of them), 235 of 254 chips named (226 before; black chips
    16 -> 7 missed)."""
    f = chipcheck.chip_rim(img, ring, b)
    return f["spot"] >= RIM_SPOT and f["periodic"] >= RIM_PERIODIC


def _chip_either_axis(img, ring, b):
    """A chip's edge spots (`_chip_rim`) round a circle of either half-axis of an outline measured
    not round: one side of it on a chip's edge, the other on the inner ring line printed on it."""
    if b.axes[1] / b.axes[0] >= FLAT_RATIO:
        return False   # measured round: `_chip_rim` has looked round it already
    return any(_chip_rim(img, ring, dataclasses.replace(b, axes=(r, r))) for r in b.axes)


def _ring_printed(ring, model):
    """Share of the ring's layout the empty ring shows printed in about the coin's colour (any
    brightness)."""
    return _print_colour(ring, model.chroma)[3]


def _print_reason(ring, model, b, reason):
    """`reason` for a coin-coloured object in the ring that is not measured as a coin; where it
    lies on print of the coin's colour, what else it may be: part of a coin the print hides."""
    if _on_print(ring, model, b) > PRINT_NEAR:
        return reason + PRINT_PART
    return reason


def _on_print(ring, model, b):
    """Share of the layout round object `b` (0.7-1.35 of its long axis, inside the ring, off its
    wall) that the empty ring shows printed in about the coin's colour and brightness."""
    near, total, inner, _ = _print_colour(ring, model.chroma)
    f = ring.factor
    cx, cy = (b.center[0] + 0.5) / f - 0.5, (b.center[1] + 0.5) / f - 0.5
    a = b.axes[0] / f
    h, w = near.shape
    # only the band's neighbourhood (the 2x2 opening looks 2 px further): the same as over the
    # whole picture
    x0, y0 = max(0, int(cx - 1.35 * a) - 3), max(0, int(cy - 1.35 * a) - 3)
    x1, y1 = min(w, int(cx + 1.35 * a) + 5), min(h, int(cy + 1.35 * a) + 5)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    ink = near[y0:y1, x0:x1] & (total[y0:y1, x0:x1] > 3 * PRINT_BRIGHT * b.extra.get("brightness", 100.0))
    # single pixels are sensor noise, not print
    ink = cv2.morphologyEx(ink.view(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0
    yy, xx = np.ogrid[y0:y1, x0:x1]
    r = np.hypot(xx - cx, yy - cy)
    band = (r >= 0.7 * a) & (r <= 1.35 * a) & inner[y0:y1, x0:x1]
    return float(ink[band].mean()) if band.any() else 0.0


def _both_coins(img, ring, b, model, r_exp):
    """Whether both ends of a two-coin outline `b` are of the coin's colour: along its long axis,
    half a coin radius in from either tip (inside either coin it would hold), each within
    COLOUR_TOL of the model's colour over a square PAIR_END coin radii across."""
    a = b.axes[0]
    t = np.deg2rad(b.angle_deg)
    m = np.array([np.cos(t), np.sin(t)])
    ends = ring.image_points([np.asarray(b.plane_center) + side * (a - 0.5 * r_exp) * m for side in (1, -1)])
    h = max(1, int(PAIR_END * r_exp / 2))
    for x, y in ends:
        x, y = int(round(x)), int(round(y))
        region = img[max(0, y - h):y + h + 1, max(0, x - h):x + h + 1]
        if region.size == 0 or np.abs(np.subtract(detect.face_colour(region)[0], model.chroma)).sum() > COLOUR_TOL:
            return False
    return True


def _hidden_part(img, ring, b):
    """Of the two places beyond object `b`'s short axis a flat coin of its long axis would cover
    (a circle of that radius, moved by a - b towards either side), the larger share that differs
    in colour from the empty ring (detection scale, as the detector sees it)."""
    a, bb = b.axes
    t = np.deg2rad(b.angle_deg)
    m, n = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    f = ring.factor
    gap = max(HIDDEN_GAP[0] * f, HIDDEN_GAP[1] * a)
    step = 0.7 * f
    g = np.arange(-a, a + step, step)
    u, v = (x.ravel() for x in np.meshgrid(g, g))
    pc = np.asarray(b.plane_center)
    shares = []
    for side in (1, -1):
        w = v + side * (a - bb)   # along the short axis, from the outline's centre
        cap = (np.hypot(u, v) <= a) & ((u / (a + gap)) ** 2 + (w / (bb + gap)) ** 2 > 1)
        if not cap.any():
            continue
        shares.append(_changed(img, ring, _small_points(ring, pc + np.outer(u[cap], m) + np.outer(w[cap], n))))
    return max(shares, default=0.0)


def _print_under_short_sides(ring, b):
    """Of the two stretches of layout round object `b`'s short axis (within PRINT_SIDE_DEG of
    it, from just inside the outline to past where a flat coin of its long axis would end), the
    larger share that the empty ring shows differing from the layout round the object by more
    than PRINT_SIDE_LEVEL: print there may have set where the outline ends."""
    a, bb = b.axes
    t = np.deg2rad(b.angle_deg)
    m, n = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    step = 0.6 * ring.factor
    pc = np.asarray(b.plane_center)

    def feats(rho, phi):
        q = _small_points(ring, pc + np.outer(rho * np.cos(phi), m) + np.outer(rho * np.sin(phi), n)).astype(np.float32)
        q = q[cv2.remap(_off_wall(ring), q[:, :1], q[:, 1:], cv2.INTER_NEAREST)[:, 0] > 0]
        if not len(q):
            return None
        return detect.colour_feats(cv2.remap(detect._blurred_background(ring), q[:, :1], q[:, 1:], cv2.INTER_LINEAR))

    def grid(r0, r1, phis):
        rho = np.arange(r0, r1 + step, step)
        rr, pp = np.meshgrid(rho, phis)
        return rr.ravel(), pp.ravel()

    ref = feats(*grid(PRINT_SIDE_REF[0] * a, PRINT_SIDE_REF[1] * a, np.linspace(0, 2 * np.pi, 72, endpoint=False)))
    if ref is None:
        return 0.0
    ref_c, ref_l = np.median(ref[0], axis=(0, 1)), np.median(ref[1])   # the layout round it
    shares = []
    half = np.deg2rad(PRINT_SIDE_DEG)
    for side in (np.pi / 2, -np.pi / 2):
        pts = grid(bb - PRINT_SIDE_IN * a, 2 * a - bb + PRINT_SIDE_OUT * a, side + np.linspace(-half, half, 31))
        got = feats(*pts)
        if got is not None and len(got[1]) >= PRINT_SIDE_MIN * len(pts[0]):
            layout = (np.full_like(got[0], ref_c), np.full_like(got[1], ref_l))
            shares.append(float(np.mean(detect.diff_feats(got, layout) > PRINT_SIDE_LEVEL)))
    return max(shares, default=0.0)


def _off_wall(ring):
    """The ring's inside PRINT_SIDE_WALL coin radii off its wall, detection scale (uint8): the
    wall's own blur and shadow on the layout are not print."""
    m = getattr(ring, "_off_wall_mask", None)
    if m is None:
        k = max(1, int(round(PRINT_SIDE_WALL * ring.coin_radius_px / ring.factor)))
        m = ring._off_wall_mask = cv2.erode(detect.ring_mask(ring), cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    return m


def _small_points(ring, plane_pts):
    """Ring-plane points -> the detection-scale points of those inside the frame."""
    inv = cv2.invertAffineTransform(ring.to_plane)
    f = ring.factor
    q = ((plane_pts @ inv[:, :2].T + inv[:, 2]) + 0.5) / f - 0.5
    w, h = ring.small_size
    return q[(q[:, 0] >= 0) & (q[:, 1] >= 0) & (q[:, 0] <= w - 1) & (q[:, 1] <= h - 1)]


def _changed(img, ring, pts):
    """Share of detection-scale points `pts` (`_small_points`) where the frame's colour differs
    from the empty ring's by more than HIDDEN_CHROMA."""
    w, h = ring.small_size
    if not len(pts):
        return 0.0
    x0, y0 = max(0, int(pts[:, 0].min()) - 2), max(0, int(pts[:, 1].min()) - 2)
    x1, y1 = min(w, int(pts[:, 0].max()) + 4), min(h, int(pts[:, 1].max()) + 4)
    frame = cv2.GaussianBlur(ring.small_region(img, x0, y0, x1, y1), (3, 3), 0)
    empty = cv2.GaussianBlur(ring.background[y0:y1, x0:x1], (3, 3), 0)
    diff = cv2.transform(cv2.absdiff(detect.colour_feats(frame)[0], detect.colour_feats(empty)[0]), detect._ONES)
    q = (pts - (x0, y0)).astype(np.float32)
    seen = cv2.remap(diff, q[:, :1], q[:, 1:], cv2.INTER_LINEAR)
    return float(np.mean(seen > HIDDEN_CHROMA))


def _print_colour(ring, chroma):
    """(where the empty ring is about `chroma`'s colour, its brightness sum, the ring's inside off
    its wall, the share of that inside so printed), detection scale: kept on the ring per coin
    colour (the background never changes)."""
    cache = ring.__dict__.setdefault("_print_colour", {})
    key = tuple(float(c) for c in chroma)
    if key not in cache:
        bg = ring.background.astype(np.float32)
        total = bg.sum(2)
        near = np.abs(bg / (total[..., None] + 1e-6) - np.asarray(chroma, np.float32)).sum(2) <= COLOUR_TOL
        inner = cv2.erode(detect.ring_mask(ring), np.ones((3, 3), np.uint8)) > 0
        cache.clear()   # one coin colour in use at a time
        cache[key] = (near, total, inner, float(near[inner].mean()) if inner.any() else 0.0)
    return cache[key]


def _distinct(others):
    """One entry per object: a chip's spots and body can come out as two overlapping pieces."""
    out = []
    for o in sorted(others, key=lambda o: -o["radius"]):
        if not any(np.hypot(o["center"][0] - p["center"][0], o["center"][1] - p["center"][1]) < p["radius"]
                   for p in out):
            out.append(o)
    return out


def _other(b, kind, inside, ring):
    """A found object that is not a coin (for the record and the annotated picture)."""
    r = b.axes[0] if b.axes else max(b.bbox[2:]) * ring.factor / 2
    x, y = detect.seen_center(b, ring)
    return {"center": [round(x, 1), round(y, 1)], "radius": round(float(r), 1),
            "kind": kind, "inside": bool(inside)}
