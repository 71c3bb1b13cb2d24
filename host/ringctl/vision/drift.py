"""Has the camera moved since the ring was calibrated? The frame against the empty ring's photo.

Every frame is compared with the calibration's photo of the empty ring (detect), so a camera
knocked or sagging on its mount by a few pixels makes the layout's print and the ring's wall
stand out as objects everywhere, and every spin goes to the boxer as "unexplained object". The
shift is measured by phase correlation of the two detection-scale copies (coins and chips are a
small part of the picture; the print, the wall and the cloth's grain line up or do not), only
when a verdict is already unsure (a moved camera's print and wall make objects, outlines cut or
stretched, coins not found), so it costs nothing in a called spin. It changes
no call: it says why and what to do. docs/VISION.md, "The camera moved".
"""
import math

import cv2
import numpy as np

# image px: a shift this large is named. Unmoved frames measure up to 0.8 px, and up to 3.6 px when
# the camera shook during the exposure (149 held-out scenes: p95 0.56, p99 2.2): one frame cannot
# tell a shake from a move, so the note says both, and only a note that keeps coming means a move
MOVED_PX = 2.5
MIN_RESPONSE = 0.2   # phase correlation's peak: below, the picture holds too little to line up


def camera_shift(ring, small):
    """(dx, dy) image px the frame (its detection-scale copy `small`) has moved against the empty
    ring's photo, and the correlation peak's strength (0..1)."""
    bg = cv2.cvtColor(ring.background, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    (dx, dy), response = cv2.phaseCorrelate(bg, g, _window(ring, bg.shape))
    return dx * ring.factor, dy * ring.factor, float(response)


def _window(ring, shape):
    w = getattr(ring, "_drift_window", None)
    if w is None or w.shape != shape:
        w = ring._drift_window = cv2.createHanningWindow(shape[::-1], cv2.CV_32F)
    return w


def moved_note(ring, small):
    """The reason to add when the camera has moved MOVED_PX or more since calibration, else ""."""
    dx, dy, response = camera_shift(ring, small)
    d = math.hypot(dx, dy)
    if d < MOVED_PX or response < MIN_RESPONSE:
        return ""
    return (f"unsure: the picture lies about {d:.0f} px off the empty ring's photo (the camera has moved "
            "since calibration, or it shook): if spins keep saying so, fix the camera and recalibrate with "
            "the ring empty (ring vision calibrate)")
