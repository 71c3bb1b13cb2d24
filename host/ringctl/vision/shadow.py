"""A coin's outline that takes in a shadow: the arc of it, just inside its rim, that is the empty
ring's own colour only darker (the layout in a coin's shadow), not a coin of the trained colour.

An outline measured again where print hid part of a coin (detect's remeasured, recentred and
textured outlines), or where part of its rim did not stand out (dented), is searched near a
circle, and a coin tilted 25-35 deg with its shadow beside it can come out round so: the shadow
fills the crescent between the tilted coin's ellipse and the circle (sealed-12 2488924052 and
2557509314, forced tilted: round 0.974 and 0.976, called and paid). So can a plain outline where
the coin stands out from the layout less than its shadow does (camera-check 47337615, forced
tilted: a coin tilted 29 deg on a sand layout near its colour, 0.962 round, 115 deg of shadow,
called "odds"): the judge asks it of every outline it would call flat. A flat coin's outline
holds the coin all round; its own shadow lies outside it.

On print of about the coin's colour the shadow is the coin's colour too, only darker: there it
counts where it is much darker than the coin's own face (edge-1080p 420366459, forced tilted: a
coin tilted 26 deg across a beige box and blue cloth, recentred round 0.988 and called "odds").
"""
import cv2
import numpy as np

from . import chipcheck, detect

N_RAYS = 72                         # directions round the outline (5 deg)
# Where a direction is in shadow: of the samples at RADII of the outline's radius (the crescent
# a 25 deg tilt leaves is 0.1 radii deep), RAY_SHARE at least have chroma (b, g, r shares)
# within CHROMA_SAME of the empty ring's there, brightness at most DARKER times its, and either
# chroma NOT_COIN at least from the coin's or brightness at most BELOW_FACE times the coin's face
# (the median of FACE_RADII all round). Swept over 379 such outlines of seven sets (edge-tune,
# edge-1080p, edge-4k, sealed-12, -13, -14, -16; forced valid and tilted scenes): the four tilted
# coins that came out round >= judge.RESCUED_FLAT measure 50-125 deg; 364 flat coins' outlines at
# most 20 (a coin a little darker than print of its own colour: NOT_COIN or BELOW_FACE keeps
# those out; without both, flat coins measured up to 165). The four: sealed-12 2488924052 and
# 2557509314 above, sealed-13 2629921078 (0.975), edge-1080p 420366459 (50 deg; 15 by chroma
# alone). The judge doubts from ARC_DEG, between the two. Brightness is (b + g + r + 30): on a
# dark cloth a shadow must be a little deeper to count. Asked of every outline the judge would
# call flat since the fiftieth session: the flat coins of forced valid scenes measured at most 15
# deg on plain outlines (843 coins of eighteen sets) and 30 on outlines measured again (154).
RADII = (0.8, 0.85, 0.9, 0.95)
FACE_RADII = (0.5, 0.55, 0.6, 0.65, 0.7)
CHROMA_SAME, DARKER, NOT_COIN, BELOW_FACE, RAY_SHARE = 0.167, 0.95, 0.14, 0.8, 0.5
ARC_DEG = 35.0


def arc_deg(img, ring, blob, coin_chroma):
    """The widest arc (deg) of `blob`'s outline along which the band just inside its rim is the
    layout in shadow (see the module's doc). `img`: the frame as judged (balanced)."""
    r = float(np.mean(blob.axes))   # a circle: the outline is round (>= judge.FLAT_RATIO)
    ix, iy = chipcheck.rim_points(cv2.invertAffineTransform(ring.to_plane), blob.plane_center, (r, r), 0.0,
                                  FACE_RADII + RADII, N_RAYS)
    f = cv2.remap(img, ix, iy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    face = float(np.median(f[:len(FACE_RADII)].sum(2))) + 30
    f, ix, iy = f[len(FACE_RADII):], ix[len(FACE_RADII):], iy[len(FACE_RADII):]
    g = detect.background_at(ring, ix, iy).astype(np.float32)
    sf, sg = f.sum(2) + 30, g.sum(2) + 30   # + 30: dark pixels' chroma is mostly noise
    same = np.abs(f / sf[..., None] - g / sg[..., None]).sum(2) < CHROMA_SAME
    not_coin = np.abs(f / np.maximum(f.sum(2, keepdims=True), 1) - np.asarray(coin_chroma)).sum(2) > NOT_COIN
    not_coin |= sf < BELOW_FACE * face
    on = (same & (sf / sg < DARKER) & not_coin).mean(0) >= RAY_SHARE   # per direction
    if on.all():
        return 360.0
    if not on.any():   # most flat coins: no direction in shadow (asked of every flat call)
        return 0.0
    run = best = 0
    for v in np.concatenate([on, on]):   # twice round: an arc across 0 deg is counted whole
        run = run + 1 if v else 0
        best = max(best, run)
    return best * 360.0 / N_RAYS
