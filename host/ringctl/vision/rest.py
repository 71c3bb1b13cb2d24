"""When the coins are at rest, from the cameras: the stillness rule and why it is enough.

The rule (`StillnessWatch`, one per camera): every object in the ring is still when no pixel
of it has changed, neither since the previous frame nor since the still period's first frame
that showed nothing moved (so a slow creep adds up and is caught), on the detection-scale copy
of the frame, and
no outline around an object has moved a quarter of a pixel since the previous frame, at full
resolution (FINE_LEVEL), for `window_s`:
- FLAT_WINDOW_S (0.16 s: four frames at 25 fps) when the latest verdict says every coin lies
  flat: a flat coin on a flat layout is in stable equilibrium, it cannot start to move again
  by itself; only a moving object can push it, and every object must be still. What the
  window must outlast is the end of settling that no camera sees: a coin rocking in place
  under 2 degrees (its outline moves under 0.1 px a frame) after its last visible motion
  before the physics' rest (m13f, noise-free over frame phases: the last moving frame at most
  63 ms before the rest on the 1.5 m ring's seeds 500-510, 37 ms on the 3 m ring's seed 506;
  earlier, up to 130 ms: `ring sim rest-bench --ring-mm 3000 --cameras 2`,
  seed 506: an 80 ms window called it 51 ms before the true rest; 160 ms leaves 30 ms more at
  that run's frame phase. Not at every phase: there the engine's contact solver lifted a coin
  that lay flat and slow to 1.4 deg with no motion in plan (0.035 mm), which a flat coin on a
  flat layout cannot do by itself, and the simulator counted it as motion: its rest came
  154 ms late and at the worst frame phase the 160 ms window closed 31 ms before it,
  noise-free. The simulator no longer counts tilt changes under 2 deg of a flat coin
  (sim/physics.py JITTER_TILT_DEG; docs/ARCHITECTURE.md, m13f));
- UNSTABLE_WINDOW_S (0.2 s) otherwise: a coin on edge, leaning or on the other coin holds
  potential energy and can topple after a pause (a no-spin if it stays so, 7.3.4, but its final
  pose is what counts). Balanced on its rim it falls as theta0 * cosh(t / tau), tau =
  sqrt(5 r / 4 g) = 44 ms; to look still (rim moving < 0.5 mm, theta < 0.033 rad) for 0.2 s it
  must start within 0.04 deg of balance, ten times finer than a felt layout and a worn
  coin's edge allow (0.1 mm bumps over a 15 mm radius: 0.4 deg).
Why a short window is enough for flat coins (figures for a 30.8 mm, 9.4 g penny on felt):
- sliding: friction decelerates it at about mu*g = 0.5*9.81 = 4.9 m/s^2, so from the slowest
  speed a camera can see (0.6 mm between frames 40 ms apart = 15 mm/s) it stops within 3 ms,
  after 0.02 mm more: no frame can see a flat coin "still" that is not;
- rolling on its edge: the coin is not flat (the long window applies), and a rolling coin is
  a moving object for every frame of its roll (44 px coins at 25 fps: 15 mm/s is visible);
- wobbling while settling (Euler's disc): the tilt amplitude decays to zero in a finite time
  that shrinks with the amplitude (as its cube, Moffatt 2000); it never turns the coin over, so
  it cannot change the face, flat or inside. But its last ~100 ms (tilt 4 deg down to 0: the
  coin's centre creeps 0.1-0.2 px per frame) are lost in the noise of the detection-scale copy
  (a coin there is 15 px across): that check alone saw such a coin "still" up to 110 ms before
  the physics' rest (`ring sim rest-bench`, seed 507). The full-resolution check around the
  objects sees a quarter-pixel move of the outline and follows the wobble to its last tens of
  ms, so the still window starts after it;
- moving again after looking still: needs stored energy (a non-flat coin: long window) or a
  push from something moving (then not every object is still).
What the creep check compares with: the still period starts at the frame that last moved (the
coins were last seen moving there), but the frame it compares later frames with is the next
one, the first that shows nothing moved. The frame that last moved can show the last motion
itself (a settling coin's last visible tilt, its shadow still lifted 0.6 px): a real change,
just under DIFF_LEVEL against the pose the coins then keep, which every later frame re-tested
against it, with fresh sensor noise each time, until one frame's noise pushed two pixels over:
a still period restarted 100-500 ms after the true rest, at random (`ring demo --ring-mm 3000
--cameras 2`: a spin's result 431 ms after rest instead of ~270; tests/vision/test_rest_replay.py
replays one). Against the first still frame only a change that happens after it counts, and
sensor noise alone (under 1 grey level at the detection scale) never reaches DIFF_LEVEL.
The board's impact quiet (the piezos, `quiet_ms` = BOARD_QUIET_S, 200 ms) is a second check:
a coin in the air at the top of a bounce is the one motion a camera looking down might miss,
but it stays within 0.5 mm of its apex height for only sqrt(2 * 0.5 mm / g) = 10 ms either
side, far shorter than the still window, and it will land (an impact) soon after. The simulator checks the rule on
rolling, wobbling, settling and toppling coins (tests/vision/test_rest.py) and measures the
result's delay after the physics' true rest (`ring sim rest-bench`).
"""
import cv2
import numpy as np

BOARD_QUIET_S = 0.2      # the board's quiet_ms (its minimum): a second, independent check
FLAT_WINDOW_S = 0.16
UNSTABLE_WINDOW_S = 0.2
DIFF_LEVEL = 14          # grey levels on the detection-scale frame (noise there is ~1)
MOVING_PX = 2            # changed pixels of an object that count as motion
# Full resolution, around the objects only: a settling coin's last sub-pixel motion. Grey
# noise between two frames is ~2 levels (sensor noise 2 per channel): 12 is 6 sigma; an edge of
# 50+ grey levels that moves 0.25 px changes its pixels by that much.
FINE_LEVEL = 12
FINE_PX = 8
FINE_MAX_SHARE = 0.1     # objects covering more of the frame than this: the coarse check only
FINE_CELL = 8            # detection-scale px per cell when finding the objects (a coin is ~16)


class StillnessWatch:
    """Feed every frame of one camera to `update(frame, t_s)` -> {"still_s", "moving"}: how long
    every object in view has been still (0 while something moves). `small`: the frame's
    detection-scale copy (`ring.small(frame)`) when it is already made."""

    def __init__(self, ring):
        self.ring = ring
        self._bg = cv2.cvtColor(ring.background, cv2.COLOR_BGR2GRAY)
        self._kernel = np.ones((5, 5), np.uint8)
        self._open = np.ones((2, 2), np.uint8)
        self.reset()

    def reset(self):
        self._prev = None
        self._anchor = None
        self._prev_frame = None
        self.since = None
        self.motion = None       # what the last moving frame showed (see _found)

    def update(self, frame, t_s, small=None):
        grey = cv2.cvtColor(self.ring.small(frame) if small is None else small, cv2.COLOR_BGR2GRAY)
        prev, anchor, prev_frame = self._prev, self._anchor, self._prev_frame
        self._prev, self._prev_frame = grey, frame
        _, fg = cv2.threshold(cv2.absdiff(grey, self._bg), DIFF_LEVEL, 255, cv2.THRESH_BINARY)
        moving = prev is None
        if moving:
            self.motion = {"check": "first frame"}
        else:
            # a changed pixel anywhere near an object, since the last frame or since the
            # still period began (a slow creep adds up); far from everything is noise
            near = cv2.dilate(fg, self._kernel)
            for name, ref in (("previous", prev), ("anchor", anchor)):
                if ref is None:
                    continue
                _, ch = cv2.threshold(cv2.absdiff(grey, ref), DIFF_LEVEL, 255, cv2.THRESH_BINARY)
                ch = cv2.bitwise_and(ch, near)
                px = cv2.countNonZero(ch)
                if px >= MOVING_PX:
                    moving = True
                    self._found(name, ch, px, self.ring.factor)
                    break
            if not moving:
                moving = self._fine_moving(frame, prev_frame, fg)
        if moving or self.since is None:
            self._anchor, self.since = None, t_s
        elif self._anchor is None:
            # the first frame that shows nothing moved: the pose the coins then keep. Not the
            # frame that last moved: it may show the last motion itself (a settling coin's last
            # tilt, its shadow still lifted), a real difference just under DIFF_LEVEL that
            # sensor noise would push over it at a random later frame, long after the rest
            self._anchor = grey
        return {"still_s": 0.0 if moving else t_s - self.since, "moving": moving}

    def _fine_moving(self, frame, ref, fg):
        """The settling tail at full resolution: around each object, FINE_PX changed pixels
        (FINE_LEVEL grey levels) since the last frame. (Not since the still period's first:
        the physics' own rest lets a coin creep 0.5 mm, which would only delay the call.)
        Objects are the foreground without its noise specks, found on cells of FINE_CELL
        detection-scale px (cheap), each with a cell of layout around it."""
        f, c = self.ring.factor, FINE_CELL
        obj = cv2.morphologyEx(fg, cv2.MORPH_OPEN, self._open)
        sh, sw = obj.shape
        cells = cv2.resize(obj, (max(1, sw // c), max(1, sh // c)), interpolation=cv2.INTER_AREA)
        n, _, stats, _ = cv2.connectedComponentsWithStats((cells > 0).astype(np.uint8), connectivity=8)
        H, W = frame.shape[:2]
        boxes = [(max(0, (x - 1) * c * f), max(0, (y - 1) * c * f), min(W, (x + w + 1) * c * f),
                  min(H, (y + h + 1) * c * f)) for x, y, w, h, _ in stats[1:]]
        if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) > FINE_MAX_SHARE * H * W:
            return False             # a scene full of change: the coarse check speaks for it
        if ref is None or ref.shape != frame.shape:
            return False
        for x0, y0, x1, y1 in boxes:
            d = cv2.absdiff(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY),
                            cv2.cvtColor(ref[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY))
            ch = cv2.threshold(d, FINE_LEVEL, 255, cv2.THRESH_BINARY)[1]
            px = cv2.countNonZero(ch)
            if px >= FINE_PX:
                self._found("fine", ch, px, 1, (x0, y0))
                return True
        return False

    def _found(self, check, changed, px, scale, origin=(0, 0)):
        """Note which check saw motion and where (full-resolution px): {"check": previous |
        anchor | fine, "px": changed pixels, "box": [x0, y0, x1, y1]}, for tracing a late rest."""
        x, y, w, h = cv2.boundingRect(changed)
        ox, oy = origin
        self.motion = {"check": check, "px": int(px),
                       "box": [int(v) for v in (ox + x * scale, oy + y * scale, ox + (x + w) * scale,
                                                 oy + (y + h) * scale)]}


def window_for(verdict):
    """The still time the rule asks for, given the latest verdict on those frames."""
    coins = (verdict or {}).get("coins") or []
    flat = len(coins) >= 2 and all(c.get("flat") for c in coins)
    return FLAT_WINDOW_S if flat else UNSTABLE_WINDOW_S
