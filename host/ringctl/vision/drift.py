"""Has the camera moved since the ring was calibrated? The frame against the empty ring's photo.

Every frame is compared with the calibration's photo of the empty ring (detect), so a camera
knocked or sagging on its mount by a few pixels makes the layout's print and the ring's wall
stand out as objects everywhere, and every spin goes to the boxer as "unexplained object". The
shift is measured by phase correlation of the two detection-scale copies (coins and chips are a
small part of the picture; the print, the wall and the cloth's grain line up or do not), only
when a verdict is already unsure (a moved camera's print and wall make objects, outlines cut or
stretched, coins not found), so it costs nothing in a called spin. A frame ALIGN_PX or more off
is judged again moved back onto the empty ring's photo, and that verdict stands, saying so; one
still unsure says how far off it lies and what to do. docs/VISION.md, "The camera moved".
"""
import math

import cv2
import numpy as np

# image px: an unsure frame lying this far off the empty ring's photo is judged again moved back
# onto it (what a camera moved since calibration, or shaken, needs; unmoved frames measure <= 0.8)
ALIGN_PX = 1.0
# image px: a shift this large is named when the frame moved back is still unsure. Unmoved frames
# measure up to 0.8 px, and up to 3.6 px when the camera shook during the exposure (149 held-out
# scenes: p95 0.56, p99 2.2): one frame cannot tell a shake from a move, so the note says both,
# and only a note that keeps coming means a move
MOVED_PX = 2.5
MIN_RESPONSE = 0.2   # phase correlation's peak: below, the picture holds too little to line up
# the notes (their words up to the first field mark them, for `ring bench camera-drift`)
MOVED_BACK = ("judged with the picture moved back {:.1f} px onto the empty ring's photo (the camera moved "
              "since calibration, or it shook)")
LIES_OFF = ("unsure: the picture lies about {:.0f} px off the empty ring's photo (the camera has moved "
            "since calibration, or it shook): if spins keep saying so, fix the camera and recalibrate with "
            "the ring empty (ring vision calibrate)")


def camera_shift(ring, small):
    """(dx, dy) image px the frame (its detection-scale copy `small`) has moved against the empty
    ring's photo, and the correlation peak's strength (0..1)."""
    # fresh grey copies each time: cv2.phaseCorrelate windows its two inputs in place (a kept copy
    # of the empty ring would be windowed again at every call); the window itself is left alone
    bg = cv2.cvtColor(ring.background, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    (dx, dy), response = cv2.phaseCorrelate(bg, g, _window(ring, bg.shape))
    return dx * ring.factor, dy * ring.factor, float(response)


def _window(ring, shape):
    w = getattr(ring, "_drift_window", None)
    if w is None or w.shape != shape:
        w = ring._drift_window = cv2.createHanningWindow(shape[::-1], cv2.CV_32F)
    return w


def off_by(ring, small):
    """(dx, dy) image px when the frame lies ALIGN_PX or more off the empty ring's photo (with a
    clear enough correlation peak), else None."""
    dx, dy, response = camera_shift(ring, small)
    return (dx, dy) if math.hypot(dx, dy) >= ALIGN_PX and response >= MIN_RESPONSE else None


def moved_back(img, shift):
    """The frame moved back by `shift` onto the empty ring's photo (edges repeated)."""
    dx, dy = shift
    m = np.float32([[1, 0, -dx], [0, 1, -dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def realigned(verdict, shift):
    """The verdict of the frame moved back, with its note: after the call's own reasons when it
    is called (what surveillance sees), first when it stays unsure from MOVED_PX on (the fix)."""
    d = math.hypot(*shift)
    if verdict["result"] != "unsure":
        return dict(verdict, reasons=verdict["reasons"] + [MOVED_BACK.format(d)])
    if d < MOVED_PX:
        return verdict
    return dict(verdict, reasons=[LIES_OFF.format(d)] + verdict["reasons"])
