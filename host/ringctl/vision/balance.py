"""The frame's colour balance and exposure put back to the empty ring photo's, when the camera's drifted.

Every frame is compared with the calibration's photo of the empty ring in colour and brightness
(detect), and detection's level is 4x the median difference: a camera whose white balance has
drifted since calibration (auto white balance, a lamp replaced or ageing) shifts every pixel's
colour, and the level rises with it. A 7% warmer frame raised it from 45 to 80 and a red chip
lying in the ring on red print went unseen: both coins were called, where the chip in the ring
(7.3.2) leaves the spin to the boxer. A frame 0.8x as bright (auto exposure, a lamp dimmed) made
the print of the coin's colour differ everywhere and left 6 of 29 printed rings' spins unsure. So
each frame's gains against the empty ring are measured (per channel, the mean of the middle half
of the log ratios over flat parts of the ring, at a sparse grid of detection pixels, SAMPLES_MAX
at most: ~0.1-0.3 ms)
and split into a colour cast (the gains over their mean) and an exposure (their mean); when the
cast is more than BALANCE_TOL or the exposure more than EXPOSURE_TOL off, the frame is judged with
them taken out. A cast past BALANCE_MAX, or an exposure past EXPOSURE_MAX, is no drift but a
changed scene, and is named instead. docs/VISION.md, "The camera's colour drifted".
"""
import cv2
import numpy as np

from . import detect

BALANCE_TOL = 0.015   # colour gains within this of each other: the frame is used as it is
BALANCE_MAX = 0.15    # a cast larger than this is not put right: the judge names it
# the exposure (the gains' geometric mean) within this of 1: the frame is used as it is (unchanged
# frames measure within 0.7%: 119 scenes of edge-tune, tune-1080p, tune-light, sealed-14)
EXPOSURE_TOL = 0.02
EXPOSURE_MAX = 0.6    # a frame this much darker or brighter (a factor 1.6) is not put right: named
STRIDE = 4            # detection pixels between samples, across and down
DARK = 8              # samples darker than this (in the empty ring, any channel) make unsteady ratios
MIN_SAMPLES = 300     # fewer usable samples than this: too little to tell, the frame is used as it is
# more usable samples than this are thinned evenly to about this many: a 1080p view has 1 000-3 500,
# a single 4K ring 5 500-6 500, a 4K view of half a 2.5 m ring ~35 000, whose gains took ~1 ms a
# frame even sorted, for a precision (~1e-4) far finer than BALANCE_TOL
SAMPLES_MAX = 8000
CAST = ("unsure: the picture's colours differ from the empty ring's photo by {:.0f}% (the camera's white "
        "balance or the lamps changed since calibration): set the camera's white balance fixed and "
        "recalibrate with the ring empty (ring vision calibrate)")
EXPOSED = ("unsure: the picture is {:.0f}% {} than the empty ring's photo (the camera's exposure or the lamps "
           "changed since calibration): set the camera's exposure fixed and recalibrate with the ring empty "
           "(ring vision calibrate)")
FLAT_REACH = 2        # detection px round a sample (a quarter of a coin radius: a camera moved that far ...)
FLAT_SPREAD = 24      # ... over which the empty ring varies by at most this (any channel; on a grainy
                      # cloth, the flatter half of the samples)


def gains(img, ring):
    """(per-channel (b, g, r) colour gains of the frame against the empty ring's photo, their
    geometric mean 1; the exposure, that mean): the frame is about `exposure * gains` x the
    empty ring."""
    iy, ix, log_bg = _samples(ring)
    if len(iy) < MIN_SAMPLES:
        return np.ones(3), 1.0
    # the samples' pixels: by their flat index in a whole frame (a fifth of the cost of a pair of
    # index arrays), where the frame lies in one block
    px = np.take(img.reshape(-1, 3), _flat(ring, iy, ix, img.shape[1]), axis=0) if img.flags.c_contiguous \
        else img[iy, ix]
    # log of the value itself (a black pixel's as half a level): log(1 + v) would bend the ratios
    # of dark pixels towards 1 (a 0.7x frame measured 0.708, a dark channel 1% off the others)
    r = np.log(np.maximum(px.astype(np.float32), 0.5)) - log_bg
    n = len(r)
    # the mean of the middle half of the log ratios: robust to coins, chips and hands as the
    # median is, without the median's steps of 1/value (whole-number pixel values); sorted, not
    # partitioned at its quartiles: numpy 2.4's vectorised sort beats its selection (35 000
    # samples of a 4K view: 0.29 ms against 1.66; the twenty-third session measured the reverse)
    r = np.sort(r, axis=0)
    g = r[n // 4:n - n // 4].mean(axis=0)
    m = g.mean()
    return np.exp(g - m), float(np.exp(m))


def _flat(ring, iy, ix, width):
    """The samples' flat pixel indices in a frame `width` px across (kept on the ring)."""
    got = getattr(ring, "_balance_flat", None)
    if got is None or got[0] is not iy or got[1] != width:
        got = ring._balance_flat = (iy, width, iy * width + ix)
    return got[2]


def _samples(ring):
    """(frame rows, frame columns, log of the empty ring there (float32 BGR)) of the sample grid:
    detection pixels inside the ring, STRIDE apart, neither dark nor near an edge of the print
    (a camera moved a few px must not look like a cast: a pixel beside an edge changes colour when
    the picture moves, one in the middle of a patch of cloth or ink does not); each frame pixel at
    its detection pixel's middle."""
    s = getattr(ring, "_balance_samples", None)
    if s is None:
        inside = detect.ring_mask(ring)
        bg = ring.background.astype(np.float32)
        k = 2 * FLAT_REACH + 1
        spread = cv2.dilate(bg, np.ones((k, k), np.uint8)) - cv2.erode(bg, np.ones((k, k), np.uint8))
        ys, xs = np.mgrid[STRIDE // 2:inside.shape[0]:STRIDE, STRIDE // 2:inside.shape[1]:STRIDE]
        keep = (inside[ys, xs] > 0) & (bg[ys, xs].min(axis=-1) >= DARK)
        ys, xs, f = ys[keep], xs[keep], ring.factor
        # the flattest samples: FLAT_SPREAD at most, or the flatter half on a grainy cloth
        sp = spread[ys, xs].max(axis=-1)
        flat = sp <= max(FLAT_SPREAD, float(np.median(sp)) if len(sp) else 0.0)
        ys, xs = ys[flat], xs[flat]
        if len(ys) > SAMPLES_MAX:
            k = -(-len(ys) // SAMPLES_MAX)
            ys, xs = ys[::k], xs[::k]
        s = ring._balance_samples = (ys * f + f // 2, xs * f + f // 2, np.log(bg[ys, xs]))
    return s


def balanced(img, ring):
    """(the frame to judge, a note for the verdict's reasons or ""): `img` itself when its colour
    balance and exposure are the empty ring's (within BALANCE_TOL, EXPOSURE_TOL), else a copy with
    the gains taken out; past BALANCE_MAX or EXPOSURE_MAX, `img` and the note naming the change
    and the fix."""
    g, exposure = gains(img, ring)
    off = float(np.abs(g - 1).max())
    # the exposure first: a frame far too dark or bright (a lens cap, lamps out, channels at the
    # limit) makes the colour ratios meaningless as well
    if max(exposure, 1 / max(exposure, 1e-6)) > 1 + EXPOSURE_MAX:
        return img, EXPOSED.format(100 * abs(exposure - 1), "brighter" if exposure > 1 else "darker")
    if off > BALANCE_MAX:
        return img, CAST.format(100 * off)
    if off <= BALANCE_TOL and abs(exposure - 1) <= EXPOSURE_TOL:
        return img, ""
    g = g * exposure
    return cv2.multiply(img, (1 / float(g[0]), 1 / float(g[1]), 1 / float(g[2]), 0.0)), ""
