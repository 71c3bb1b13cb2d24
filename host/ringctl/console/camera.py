"""The camera as people see it: overlays drawn on a frame, and one shared JPEG feed for all viewers.

One encoder thread runs only while someone watches and at most `max_fps`; every viewer gets
the same newest JPEG, so three screens cost what one costs. The thread runs at a lower OS
priority than the host, frames are scaled to the screen's width before drawing, and it
spends at most `duty` of one core. From the coins' landing to the verdict (when the host
judges its still frames) it slows to `quiet_fps`: viewers cannot hold up a spin's result.
"""
import os
import threading
import time

import cv2
import numpy as np

GOOD = (60, 200, 60)        # BGR: coin inside and flat
BAD = (40, 40, 230)         # outside the ring or not flat (7.3)
UNSURE = (0, 190, 255)      # face unread or low confidence
RING = (255, 200, 0)


def _centre(coin):
    c = coin.get("centre", coin.get("center"))
    return (int(round(c[0])), int(round(c[1]))) if c is not None else None


def annotate(frame, coins, ring=None, caption=None):
    """-> a copy of `frame` with the ring boundary, each coin circled and labelled (face, flat,
    inside, confidence) and an optional caption line."""
    img = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(1.0, img.shape[1] / 640.0)     # labels stay legible when the page shrinks the frame
    thick = max(1, int(round(2 * scale)))
    if ring:
        c = ring.get("center", ring.get("centre"))
        axes = ring.get("axes") or (ring.get("radius"), ring.get("radius"))
        if c is not None and axes and axes[0]:
            cv2.ellipse(img, (int(c[0]), int(c[1])), (int(axes[0]), int(axes[1])),
                        float(ring.get("angle_deg", 0.0)), 0, 360, RING, thick, cv2.LINE_AA)
    for i, coin in enumerate(coins or ()):
        ctr = _centre(coin)
        if ctr is None:
            continue
        r = int(round(coin.get("radius") or 10))
        inside, flat = bool(coin.get("inside")), bool(coin.get("flat"))
        conf = coin.get("confidence")
        face = coin.get("face")
        colour = BAD if not (inside and flat) else UNSURE if face is None or (conf or 0) < 0.8 else GOOD
        cv2.circle(img, ctr, r + thick * 2, colour, thick, cv2.LINE_AA)
        label = "%s %s %s %s" % ((face or "?").upper(), "flat" if flat else "NOT FLAT",
                                 "in" if inside else "OUT",
                                 "%.2f" % conf if isinstance(conf, (int, float)) else "")
        # labels alternate above and below their coin so two coins side by side stay legible
        below = i % 2 == 1
        org = (ctr[0] - r, ctr[1] + r + int(18 * scale) if below else max(12, ctr[1] - r - 6 * thick))
        cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, (0, 0, 0), thick + 2,
                    cv2.LINE_AA)
        cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45 * scale, colour, thick, cv2.LINE_AA)
    if caption:
        cs = max(0.35, img.shape[1] / 1400.0)           # the caption fits small stills too
        cv2.putText(img, caption, (int(8 * cs) + 4, int(30 * cs) + 6), cv2.FONT_HERSHEY_SIMPLEX,
                    0.8 * cs, (255, 255, 255), max(1, int(2 * cs)), cv2.LINE_AA)
    return img


def jpeg(img, quality=80):
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("frame could not be encoded as JPEG")
    return buf.tobytes()


def placeholder(text, size=(640, 360)):
    img = np.full((size[1], size[0], 3), 40, np.uint8)
    cv2.putText(img, text, (20, size[1] // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (200, 200, 200), 2)
    return img


def fit(frame, coins, ring, max_width):
    """Scale a frame (and the coin and ring geometry drawn on it) to at most max_width."""
    w = frame.shape[1]
    if not max_width or w <= max_width:
        return frame, coins, ring
    k = max_width / float(w)
    small = cv2.resize(frame, (max_width, int(round(frame.shape[0] * k))), interpolation=cv2.INTER_LINEAR)
    coins = [dict(c, centre=[v * k for v in (c.get("centre") or c.get("center"))],
                  radius=(c.get("radius") or 10) * k) for c in coins or () if _centre(c)]
    if ring:
        c = ring.get("center", ring.get("centre"))
        ring = dict(ring, center=[v * k for v in c] if c else c,
                    axes=[v * k for v in (ring.get("axes") or ())] or None,
                    radius=(ring.get("radius") or 0) * k)
    return small, coins, ring


def crop_to_coins(frame, coins, ring, pad=6.0, min_side=240):
    """The part of a frame around its coins (pad coin radii each side), with the coin and ring
    geometry moved along: the still that a person reads the faces from."""
    pts = [(_centre(c), c.get("radius") or 10) for c in coins or () if _centre(c)]
    if not pts:
        return frame, coins, ring
    h, w = frame.shape[:2]
    r = max(p[1] for p in pts)
    x0 = max(0, int(min(p[0][0] for p in pts) - pad * r))
    x1 = min(w, int(max(p[0][0] for p in pts) + pad * r))
    y0 = max(0, int(min(p[0][1] for p in pts) - pad * r))
    y1 = min(h, int(max(p[0][1] for p in pts) + pad * r))
    if x1 - x0 < min_side:
        x0, x1 = max(0, (x0 + x1 - min_side) // 2), min(w, (x0 + x1 + min_side) // 2)
    if y1 - y0 < min_side:
        y0, y1 = max(0, (y0 + y1 - min_side) // 2), min(h, (y0 + y1 + min_side) // 2)
    moved = [dict(c, centre=[_centre(c)[0] - x0, _centre(c)[1] - y0]) for c in coins if _centre(c)]
    if ring:
        c = ring.get("center", ring.get("centre"))
        ring = dict(ring, center=[c[0] - x0, c[1] - y0]) if c else ring
    return frame[y0:y1, x0:x1], moved, ring


class CameraFeed:
    """The newest annotated camera JPEG, made on demand for however many viewers."""

    def __init__(self, host, ring=None, max_fps=15.0, quality=75, max_width=1280, duty=0.3,
                 quiet_fps=2.0):
        self.host = host
        self.ring = ring
        self.period = 1.0 / max_fps
        self.quiet_period = 1.0 / quiet_fps
        self.judging = False        # between landing and verdict: the host needs the CPU
        self.quality = quality
        self.max_width = max_width
        self.duty = duty
        self.cond = threading.Condition()
        self.latest = None          # (n, jpeg bytes, camera t_s)
        self.n = 0
        self.viewers = 0
        self.encoded = 0
        self.cpu_s = 0.0            # CPU seconds the encoder thread has used (the bench reads it)
        self._thread = None
        self._stop = False

    def attach(self):
        with self.cond:
            self.viewers += 1
            if self._thread is None or not self._thread.is_alive():
                self._stop = False
                self._thread = threading.Thread(target=self._run, name="console-camera", daemon=True)
                self._thread.start()

    def detach(self):
        with self.cond:
            self.viewers = max(0, self.viewers - 1)

    def on_event(self, ev):
        """Host events (from the console's LiveHub): when the host is judging a spin."""
        if ev.kind == "phase":
            self.judging = ev.data.get("phase") in ("landed", "at-rest")
        elif ev.kind in ("verdict", "result", "spin-started"):
            self.judging = False

    @property
    def closed(self):
        return self._stop

    def close(self):
        self._stop = True
        with self.cond:
            self.cond.notify_all()

    def frame_after(self, n, timeout=1.0):
        """Block until a frame newer than n exists (or timeout) -> (n, jpeg, t_s) or None."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not self._stop and (self.latest is None or self.latest[0] <= n):
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.latest

    def snapshot_jpeg(self):
        frame, t_s, coins = self.host.camera_view()
        if frame is None:
            return jpeg(placeholder("no camera frame"), self.quality)
        return jpeg(annotate(*fit(frame, coins, self.ring, self.max_width)), self.quality)

    def _run(self):
        try:     # Linux: a thread's own nice value; the host's threads come first
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass
        last_t = None
        while not self._stop:
            with self.cond:
                if self.viewers == 0:
                    self._thread = None
                    return
            t0, c0 = time.monotonic(), time.thread_time()
            frame, t_s, coins = self.host.camera_view()
            if frame is not None and t_s != last_t:
                last_t = t_s
                data = jpeg(annotate(*fit(frame, coins, self.ring, self.max_width)), self.quality)
                with self.cond:
                    self.n += 1
                    self.encoded += 1
                    self.latest = (self.n, data, t_s)
                    self.cond.notify_all()
            spent = time.monotonic() - t0
            cpu = time.thread_time() - c0
            self.cpu_s += cpu
            # at most max_fps, and never more than `duty` of a core on drawing and encoding
            period = self.quiet_period if self.judging else self.period
            # the duty is counted in this thread's CPU time: waiting for a busy machine is not
            # spending, and must not slow the feed further
            time.sleep(max(0.002, period - spent, cpu / self.duty - cpu))
