"""Whether a coin's face reads as a flat coin's or as a tilted one's: squeezed across an axis.

A coin tilted by t shows its face squeezed to cos t across the axis it turns about. Seen square-on
(the reader's patch, `faceid.coin_patch`) a flat coin's face matches the trained faces best; a
tilted coin's matches better once the patch takes in only cos t of the coin across that axis.
Where an outline's shape cannot say whether a coin lies flat (measured again where print hid part
of it, or cut short by print: judge.py), the face says it when it reads well square-on and every
squeezed patch matches it clearly worse (docs/VISION.md "A face squeezed as a tilted coin's").
"""
import numpy as np

from . import faceid

# cos 30 and 37 deg: coins tilted 25-35 deg make the nearly round outlines measured again on print
SQUEEZES = (0.87, 0.80)
# the axes a squeeze is tried about, from the outline's long axis: a nearly round outline's axes
# are where its edge points happened to lie, not where the coin turns (sealed-15 145420200, a coin
# tilted 28.5 deg measured 0.968 round: squeezed across its outline's short axis it matched
# worse than square-on, 0.81; across the best of these 1.01)
AXES_DEG = tuple(np.arange(0.0, 180.0, 22.5))
# flat: the square-on match at least FLAT_FLOOR and the best squeezed one at most FLAT_SHARE of it.
# A tilted coin's face square-on is squashed and scores less; a weak match (a worn or washed-out
# face, print in the patch) says little either way (a flat coin of sealed-36 scoring 0.48 matched
# 1.09 x better squeezed). Figures: docs/VISION.md
FLAT_FLOOR = 0.75
FLAT_SHARE = 0.90


def squeezed_share(img, ring, model, blob):
    """(face read square-on or None, its best match, the best squeezed match over that one)."""
    face, _, h, t = model.read(*faceid.features_lean(faceid.coin_patch(img, ring, blob)))
    flat = max(h, t)
    tilted = max(max(model.read(*faceid.features_lean(
        faceid.coin_patch(img, ring, blob, squeeze=k, axis_deg=blob.angle_deg + d)))[2:])
        for k in SQUEEZES for d in AXES_DEG)
    return face, flat, tilted / flat if flat > 0 else float("inf")


def reads_flat(img, ring, model, blob):
    """The coin's face reads well square-on, and clearly worse however squeezed as a tilted coin's."""
    face, flat, share = squeezed_share(img, ring, model, blob)
    return face is not None and flat >= FLAT_FLOOR and share <= FLAT_SHARE
