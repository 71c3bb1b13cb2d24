"""Has the camera moved or turned since calibration? The frame against the empty ring's photo.

Every frame is compared with the calibration's photo of the empty ring (detect), so a camera
knocked, sagging or turned on its mount by a few pixels makes the layout's print and the ring's
wall stand out as objects everywhere, and every spin goes to the boxer as "unexplained object"
(or, turned 0.4 deg on print at 4K, a valid spin was voided: a coin's outline cut by the print).
How the frame lies is measured as a shift and a turn (a Euclidean transform) of the two
detection-scale grey copies: phase correlation for the shift, then the enhanced correlation
coefficient (cv2.findTransformECC) for the turn and the shift together, on the copies halved to
at most WORK_W px wide, first at half that and again at it, each time leaving out what differs from the empty ring lined up so far
(coins, chips, hands: a small part of the picture; the print, the wall and the cloth's grain line
up or do not). It runs only when a verdict is already unsure or a void (a moved camera's print
and wall make objects, outlines cut or stretched, coins not found), so it costs nothing in a
called spin. A frame whose ring lies ALIGN_PX or more off somewhere is judged again moved back
onto the empty ring's photo: unsure before, that verdict stands, saying so; a void stands only
if the frame moved back is one too, else the boxer calls it. One still unsure says how far off
it lies and what to do. docs/VISION.md, "The camera moved or turned".
"""
import math
from typing import NamedTuple

import cv2
import numpy as np

# image px: an unsure or void frame whose ring lies this far off the empty ring's photo somewhere
# (its centre's shift plus the turn's arc at its wall) is judged again moved back onto it. Unmoved
# frames measure up to 0.55 px (174 held-out scenes of seven sets: p95 0.30, p99 0.50; the 51 shaken
# during the exposure among them up to 0.55 too); a shake and a move look alike in one frame, so the
# notes say both
ALIGN_PX = 1.0
# image px: a frame this far off is named when the frame moved back is still unsure (a note that
# keeps coming means a move: fix the camera)
MOVED_PX = 2.5
# deg: a turn this large is named in the notes ("turned 0.3 deg"); unmoved frames measure up to
# 0.024 deg (the same scenes: p99 0.022), turned ones 0.3-2 deg within 0.07 deg (p95 0.025)
TURN_DEG = 0.1
# px: the grey copies are halved until no wider than this (a 4K frame's detection copy is up to
# 1280 px wide, where ECC costs 60-140 ms; at 240-480 px 3-10 ms, and exact enough: ALIGN_PX)
WORK_W = 480
# ECC: stop after 50 steps or when the correlation gains under 1e-4 (on the half-size copies, only
# a start, 1e-3: a turned frame's steps there cost 3-7 ms to 1e-4); its own smoothing (px)
ECC_STOP = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
ECC_START_STOP = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-3)
ECC_BLUR = 5
# what differs from the empty ring lined up (grey levels, both copies brought to the same mean and
# spread) by over 4x the median difference and at least 20 is an object, left out of the last fit
OBJECT_X, OBJECT_MIN = 4.0, 20.0
# the notes (their words up to the first field mark them, for `ring bench camera-drift`)
MOVED_BACK = ("judged with the picture moved back onto the empty ring's photo ({}; the camera moved since "
              "calibration, or it shook)")
LIES_OFF = ("unsure: the picture does not line up with the empty ring's photo ({}; the camera has moved "
            "since calibration, or it shook): if spins keep saying so, fix the camera and recalibrate with "
            "the ring empty (ring vision calibrate)")


class Move(NamedTuple):
    """How a frame lies against the empty ring's photo: the ring's `center` moved `dx, dy` image
    px and the picture turned `deg` about it (anticlockwise as seen, cv2.getRotationMatrix2D's
    sense); `radius` is the ring's, to say how far its wall lies off."""
    dx: float
    dy: float
    deg: float = 0.0
    center: tuple = (0.0, 0.0)
    radius: float = 0.0

    @property
    def off_px(self):
        """The furthest any point of the ring's wall lies off: the shift plus the turn's arc."""
        return math.hypot(self.dx, self.dy) + self.radius * math.radians(abs(self.deg))

    def matrix(self):
        """2x3: a point of the empty ring's photo -> where the frame has it."""
        m = cv2.getRotationMatrix2D(self.center, self.deg, 1.0)
        m[:, 2] += (self.dx, self.dy)
        return m

    def words(self, about=""):
        """"4.8 px off", "turned 0.3 deg", "4.8 px off and turned 0.3 deg": the turn where it is
        more than unmoved frames measure (or moves the ring's wall ALIGN_PX), the shift where it alone
        is ALIGN_PX or there is no turn; "1.2 px off at the ring's wall" where neither alone is
        (a shift under ALIGN_PX said as "about 0 px off" told the boxer nothing)."""
        px = math.hypot(self.dx, self.dy)
        shift = f"{about}{px:.0f} px off" if about else f"{px:.1f} px off"
        turn = f"turned {about}{abs(self.deg):.1f} deg"
        if abs(self.deg) < TURN_DEG and self.radius * math.radians(abs(self.deg)) < ALIGN_PX:
            # a turn unmoved frames measure, moving the ring's wall by under ALIGN_PX
            return shift if px >= ALIGN_PX else f"{about}{self.off_px:.1f} px off at the ring's wall"
        return f"{shift} and {turn}" if px >= ALIGN_PX else turn


def camera_move(ring, small):
    """How the frame (its detection-scale copy `small`) lies against the empty ring's photo: a
    Move, or None when the two cannot be lined up (ECC does not converge)."""
    bg = cv2.cvtColor(ring.background, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    while bg.shape[1] > WORK_W:
        bg, g = cv2.pyrDown(bg), cv2.pyrDown(g)
    # the shift first: cv2.phaseCorrelate windows its two inputs in place, hence copies
    (dx, dy), _ = cv2.phaseCorrelate(bg.copy(), g.copy(), _window(ring, bg.shape))
    try:
        # then the turn with it on half-size copies (a 2 deg turn moves the wall a few px there),
        # and again at work size, each time leaving out what differs from the empty ring lined up
        # so far (chips round a plain round ring turned it 2 deg when they were left in)
        w = _fit(cv2.pyrDown(bg), cv2.pyrDown(g), np.float32([[1, 0, dx / 2], [0, 1, dy / 2]]), ECC_START_STOP)
        w[:, 2] *= 2
        w = _fit(bg, g, w, ECC_STOP)
    except cv2.error:   # "the algorithm stopped before its convergence": nothing to line up
        return None
    # work px -> image px (same origin, each axis its own scale), then about the ring's centre
    s = np.diag([ring.image_size[0] / bg.shape[1], ring.image_size[1] / bg.shape[0], 1.0])
    m = s @ np.vstack([w, [0, 0, 1]]) @ np.linalg.inv(s)
    c = np.array(ring.center)
    moved = m[:2, :2] @ c + m[:2, 2] - c
    deg = math.degrees(math.atan2(m[0, 1], m[0, 0]))
    return Move(float(moved[0]), float(moved[1]), deg, ring.center, ring.axes[0])


def _window(ring, shape):
    """phaseCorrelate's Hanning window, made once per ring and size (it is left alone)."""
    w = getattr(ring, "_drift_window", None)
    if w is None or w.shape != shape:
        w = ring._drift_window = cv2.createHanningWindow(shape[::-1], cv2.CV_32F)
    return w


def _fit(bg, g, w, stop):
    """ECC's Euclidean `w` (2x3: empty ring px -> frame px) of `g` onto `bg`, from `w`, objects left out."""
    return cv2.findTransformECC(bg, g, w, cv2.MOTION_EUCLIDEAN, stop, _not_objects(bg, g, w), ECC_BLUR)[1]


def _not_objects(bg, g, w):
    """Mask (frame px) of what shows the empty ring once lined up by `w`: not coins, chips, hands."""
    # the empty ring where the frame has it, and the frame at its brightness (a darker exposure is no object)
    back = cv2.warpAffine(bg, w, bg.shape[::-1], borderMode=cv2.BORDER_REPLICATE)
    g = (g - g.mean()) * (back.std() / max(float(g.std()), 1e-3)) + back.mean()
    d = cv2.GaussianBlur(cv2.absdiff(cv2.GaussianBlur(g, (5, 5), 0), cv2.GaussianBlur(back, (5, 5), 0)), (3, 3), 0)
    objects = cv2.dilate(np.uint8(d > max(OBJECT_X * float(np.median(d)), OBJECT_MIN)), np.ones((5, 5), np.uint8))
    return np.uint8(objects == 0) * 255


def off_by(ring, small):
    """The frame's Move when its ring lies ALIGN_PX or more off the empty ring's photo, else None."""
    move = camera_move(ring, small)
    return move if move is not None and move.off_px >= ALIGN_PX else None


def moved_back(img, move):
    """The frame moved back onto the empty ring's photo (the whole move undone; edges repeated)."""
    return cv2.warpAffine(img, move.matrix(), (img.shape[1], img.shape[0]),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)


def realigned(verdict, move, first):
    """The verdict of the frame moved back (`first`: the frame's own), with its note: after the
    call's own reasons when it is called or void (what surveillance sees); first when it stays
    unsure from MOVED_PX on (the fix). A void only stands if the frame moved back is void too: a
    call there is no cause to pay and the void is no longer sure, so the boxer calls it."""
    if first["result"] == "no-spin" and verdict["result"] != "no-spin":
        return dict(verdict, result="unsure", reasons=[LIES_OFF.format(move.words("about "))]
                    + [f"as it came: {r}" for r in first["reasons"]] + [f"moved back: {r}" for r in verdict["reasons"]])
    if verdict["result"] != "unsure":
        return dict(verdict, reasons=verdict["reasons"] + [MOVED_BACK.format(move.words())])
    if move.off_px < MOVED_PX:
        return verdict
    return dict(verdict, reasons=[LIES_OFF.format(move.words("about "))] + verdict["reasons"])
