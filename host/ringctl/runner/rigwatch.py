"""RigWatcher: the host's one camera watcher -- every camera of the ring read in parallel, the stillness rule, every still moment judged.

One camera or several: a single camera is a rig of one (`RigWatcher.one_camera(source,
ring_model, ...)`, its ring calibration mapped to ring mm by `rig_of_one`), so `ring run
--camera X` with a ring calibration and a multi-camera rig go through the same code. Frames
are paired by timestamp into moments (`vision.paired.PairedSources`; one camera: each frame
is a moment), every camera's stillness rule runs on every frame (`vision.rest`), and every
moment in which nothing moves is judged at once by the multi-view judge
(`vision.views.judge_views`; one view: the single-view judge on the crops where something
differs from the empty ring), so the verdicts are ready the instant the rule's still window
closes: the result follows the coins' rest by that window plus one frame. The moment that
opened the still period (the first frame showing the coins where they then stayed) is one of
its still moments, by the rule's own definition: it is judged as soon as the next frame shows
nothing moved. Each judged moment's evidence (its picture, made from the detection-scale
copies the stillness rule made of those frames, and the picture and its annotated copy as
JPEG, as the host records them) is made at once on a second thread, so neither the next frame
nor the host's record waits for it: the watcher's own thread does only the rule and the judge. The host's interface: reset, judged, wait_judged, latest, view, stalled, stop,
evidence_jpegs.
"""
import queue
import threading
import time

import cv2
import numpy as np

from ..vision.annotate import annotate, coin_colour, coin_label
from ..vision.paired import PairedSources
from ..vision.rest import StillnessWatch, window_for
from ..vision.viewcal import CameraView, Rig
from ..vision.views import judge_views

EVIDENCE_HEIGHT = 720     # px: the views side by side, as kept in the audit log
# x keep: moments judged per still period. The host takes `keep` agreeing moments of the
# confirmed still period; judging more only competes with its record for the CPU.
JUDGED_PER_STILL = 1
JPEG_QUALITY = 90         # the evidence the host records
CLOSEUP_COINS = 3.0       # a coin's close-up in the evidence: this many coin diameters square
LABEL_PX = 22             # the close-up's label band


def rig_of_one(ring_model, name="A"):
    """One camera's ring calibration (a vision RingModel) as a rig of one view: its pixels map
    to ring mm through the ring's own ellipse and known diameter (centre 0, +y up), so the
    multi-view judge and the stillness rule see exactly that camera and that calibration."""
    ppm = ring_model.px_per_mm
    cx, cy = ring_model.center
    to_plane = np.vstack([ring_model.to_plane, [0.0, 0.0, 1.0]])    # the ring a circle, centre kept
    to_mm = np.array([[1 / ppm, 0.0, -cx / ppm], [0.0, -1 / ppm, cy / ppm], [0.0, 0.0, 1.0]])
    view = CameraView(name, to_mm @ to_plane, ring_model, ring_model.coin_mm)
    return Rig([view], ring_model.ring_mm, ring_model.coin_mm)


class RigWatcher:
    @classmethod
    def one_camera(cls, source, ring_model, face_model, keep=3, stale_s=1.0):
        """The watcher of a single camera with its ring calibration (`ring run --camera X`)."""
        return cls([source], rig_of_one(ring_model), face_model, keep=keep, stale_s=stale_s)

    def __init__(self, sources, rig, face_model, keep=3, stale_s=1.0):
        self.rig = rig
        self.face_model = face_model
        self.keep = keep
        # each camera's detection-scale copy is made on that camera's own thread as its frame
        # arrives (the cameras in parallel, and not on the rule's path to the window's closing
        # frame); a PairedSources given ready-made has none: the rule's thread makes them
        self.paired = sources if isinstance(sources, PairedSources) else \
            PairedSources(sources, stale_s=stale_s, prepare=self._small)
        self.watches = [StillnessWatch(v.ring) for v in rig.views]
        self.lock = threading.Condition()     # notified when a moment is judged or the window closes
        self.recent = []            # (host time, frames, verdict) while nothing moves
        self.still_since = None
        self.last_frame_t = time.monotonic()
        self.last_frames = None
        self.frames = 0
        self.errors = 0
        self.judge_ms = []
        self.late_evidence = 0      # evidence the host had to encode itself (the thread was behind)
        self.window_closed = None   # (host time the still window closed, its frame's arrival time)
        self.last_motion = None     # (arrival time, [(camera, StillnessWatch.motion)]) of the newest moving moment
        self._last_view = (None, None, None)   # (frames, t, verdict or None while moving)
        self._pictures = {}                    # moment's host time -> evidence picture
        self._smalls = {}                      # moment's host time -> its detection-scale copies
        self._jpegs = {}                       # moment's host time -> [(jpeg, verdict meta)]
        self._pic_lock = threading.Condition()   # notified when a moment's JPEGs are made
        self._encoding = {}                    # moment's host time -> who is encoding it now
        self._moving = None                    # (t, frames, smalls) of the newest moment that moved
        self.gen = 0                # the still period's number: a judgement of an older one is dropped
        self._queued = 0            # moments of this still period sent to the judge
        self._still = None          # (t, still_s) of the newest still moment
        self._judging = queue.Queue()          # (period, t, frames, smalls) to judge, in order
        self._encode = queue.Queue()
        self._stop = False
        self.thread = threading.Thread(target=self._run, name="rig-watch", daemon=True)
        self.thread.start()
        self.judge_thread = threading.Thread(target=self._judger, name="rig-judge", daemon=True)
        self.judge_thread.start()
        self.encoder = threading.Thread(target=self._encoder, name="rig-evidence", daemon=True)
        self.encoder.start()

    def reset(self):
        with self.lock:
            self._new_period()

    def _small(self, k, frame):
        """(on camera k's thread) The frame's detection-scale copy (RingModel.small keeps it,
        keyed by the frame itself: a race between threads costs a resize, never a wrong copy)."""
        return self.rig.views[k].ring.small(frame)

    def _new_period(self):
        """(under the lock) Nothing judged of a still period any more: a new one starts."""
        self.gen += 1
        self.recent = []
        self._queued = 0
        self._close_window(None, None)

    def _run(self):
        """The stillness rule on every moment; the still ones go to the judge's thread, so the
        rule never waits for a judgement (and the window's closing frame for none)."""
        while not self._stop:
            frames, t, made = self.paired.read_prepared(timeout=0.2)
            if frames is None:
                continue
            self.last_frame_t = time.monotonic()
            self.frames += 1
            self.last_frames = frames
            if any(f is None for f in frames):
                with self.lock:          # a camera missing: no still moment can be complete
                    self._new_period()
                    self._still = None
                self._moving = None
                for w in self.watches:
                    w.reset()
                continue
            # the detection-scale copies, made on the cameras' threads (or here), for the rule
            # and the moment's evidence picture
            smalls = [m if m is not None else v.ring.small(f) for v, f, m in zip(self.rig.views, frames, made)]
            states = [w.update(f, t, small=m) for w, f, m in zip(self.watches, frames, smalls)]
            if any(s["moving"] for s in states):
                # what each camera's rule saw move (a diagnostic: a rule without one gives None)
                self.last_motion = (t, [(k, getattr(w, "motion", None))
                                        for k, (w, s) in enumerate(zip(self.watches, states)) if s["moving"]])
                with self.lock:
                    self._new_period()
                    self._still = None
                    self._last_view = (frames, t, None)
                self._moving = (t, frames, smalls)
                continue
            still_s = min(s["still_s"] for s in states)
            opened, self._moving = self._moving, None
            with self.lock:
                self._still = (t, still_s)
                if opened is not None and self._queued == 0 and abs((t - still_s) - opened[0]) < 1e-6:
                    # the still period began with that frame (nothing has changed since): judge it
                    self._queued += 1
                    self._judging.put((self.gen,) + opened)
                if self._queued < JUDGED_PER_STILL * self.keep:
                    # the first moments of a still period are judged as they come (coins lying
                    # still for minutes need no more verdicts)
                    self._queued += 1
                    self._judging.put((self.gen, t, frames, smalls))
                else:           # still coins: the last verdict holds; screens stay live
                    self._last_view = (frames, t, self.recent[-1][2] if self.recent else None)
                self._update_window()

    def _update_window(self):
        """(under the lock) The still window is closed once the newest still moment has been
        still for the rule's window, given the newest verdict (flat coins: the short one)."""
        if not self.recent or self._still is None:
            return
        t, still_s = self._still
        self._close_window(t, t - still_s if still_s >= window_for(self.recent[-1][2]) else None)

    def _judger(self):
        """Judges the still moments in order; a moment of a still period that has since ended
        (something moved, a new spin) is dropped unjudged."""
        while not self._stop:
            try:
                gen, t, frames, smalls = self._judging.get(timeout=0.2)
            except queue.Empty:
                continue
            with self.lock:
                if gen != self.gen:
                    continue
            for v, f, small in zip(self.rig.views, frames, smalls):
                v.ring.prime_small(f, small)      # the rule's copies: not made again
            c0 = time.perf_counter()
            verdict = judge_views(frames, self.rig, self.face_model)
            self.judge_ms.append((time.perf_counter() - c0) * 1000)
            del self.judge_ms[:-200]
            with self._pic_lock:
                self._smalls[t] = smalls            # for its picture, made on the evidence thread
            with self.lock:
                if gen != self.gen:
                    continue
                self.recent.append((t, frames, verdict))
                self._last_view = (frames, t, verdict)
                self._update_window()
                self.lock.notify_all()
            self._encode.put((t, frames, verdict))

    def _encoder(self):
        """Evidence JPEGs of every judged moment, made while the still window runs (a moment
        the host has already taken on is left to it: never encoded twice)."""
        while not self._stop:
            try:
                t, frames, verdict = self._encode.get(timeout=0.2)
            except queue.Empty:
                continue
            with self._pic_lock:
                if t in self._encoding or t in self._jpegs:
                    continue
                self._encoding[t] = "evidence thread"
            try:
                pic = self._evidence(t, frames, verdict)
                self._store_jpegs(t, verdict, encode_evidence(pic, verdict))
            finally:
                with self._pic_lock:
                    self._encoding.pop(t, None)
                    self._pic_lock.notify_all()

    def _store_jpegs(self, t, verdict, out):
        with self._pic_lock:
            if t in self._pictures:
                self._jpegs[t] = (verdict, out)

    def evidence_jpegs(self, picture, verdict, wait_s=2.0):
        """[(JPEG, meta)] of a picture `judged()` or `latest()` returned: plain, then annotated
        with its verdict (when there is one). Encoded ahead on the evidence thread while the
        still window ran; while that thread is at it, waited for (up to wait_s); encoded here
        only when it has not got to it yet."""
        deadline = time.monotonic() + wait_s
        with self._pic_lock:
            t = next((k for k, p in self._pictures.items() if p is picture), None)
            while t is not None:
                got = self._jpegs.get(t)
                if got is not None and got[0] is verdict:
                    return list(got[1])
                left = deadline - time.monotonic()
                if self._encoding.get(t) != "evidence thread" or left <= 0:
                    self._encoding[t] = "host"
                    break
                self._pic_lock.wait(left)
        self.late_evidence += verdict is not None
        try:
            out = encode_evidence(picture, verdict)
            if t is not None:
                self._store_jpegs(t, verdict, out)
            return out
        finally:
            if t is not None:
                with self._pic_lock:
                    self._encoding.pop(t, None)

    def _close_window(self, t, still_since):
        """(under the lock) The confirmed still period's start, or None; notes when it closed."""
        if still_since is not None and self.still_since is None:
            self.window_closed = (time.monotonic(), t)
            self.lock.notify_all()          # the host waits for this (wait_judged)
        elif still_since is None:
            self.window_closed = None
        self.still_since = still_since

    def view(self):
        """(latest evidence frame, its host time, coins [{center, radius, face, flat, inside,
        confidence, moving}] in that frame's pixels) for a screen; never waits."""
        with self.lock:
            frames, t, verdict = self._last_view
        if frames is None:
            return None, None, []
        pic = evidence(frames)
        coins = []
        if verdict is not None:
            x = 0.0
            for f, v in zip(frames, verdict.get("views") or []):
                s = 1.0 if len(frames) == 1 or f is None else EVIDENCE_HEIGHT / f.shape[0]
                for c in (v or {}).get("coins", []):
                    coins.append(dict(c, center=[x + s * c["center"][0], s * c["center"][1]],
                                      radius=s * c["radius"], moving=False))
                x += s * (f.shape[1] if f is not None else EVIDENCE_HEIGHT / 2)
        return pic, t, coins

    def judged(self, n):
        """The newest n (evidence frame, verdict) pairs inside the confirmed still period."""
        return self.wait_judged(n, 0.0)

    def wait_judged(self, n, timeout):
        """judged(n), waiting up to `timeout` s for n of them (woken when a moment is judged or
        the still window closes): fewer when they do not come in time."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                got = [] if self.still_since is None else \
                    [(t, f, v) for (t, f, v) in self.recent if t >= self.still_since - 1e-6][-n:]
                left = deadline - time.monotonic()
                if len(got) >= n or left <= 0:
                    break
                self.lock.wait(left)
        return [(self._evidence(t, f, v), v) for t, f, v in got]

    def _evidence(self, t, frames, verdict):
        """The moment's evidence picture, made once: on the evidence thread, or by the host
        when it asks first."""
        with self._pic_lock:
            hit = self._pictures.get(t)
            smalls = self._smalls.get(t)
        if hit is None:
            made = moment_picture(frames, verdict, self.rig, smalls)
            with self._pic_lock:
                hit = self._pictures.get(t)
                if hit is None:
                    hit = self._pictures[t] = made
                    self._pictures = {k: p for k, p in self._pictures.items() if k > t - 5.0}
                    self._jpegs = {k: j for k, j in self._jpegs.items() if k in self._pictures}
                self._smalls = {k: m for k, m in self._smalls.items() if k > t - 5.0 and k not in self._pictures}
        return hit

    def latest(self):
        return [evidence(self.last_frames)] if self.last_frames is not None else []

    def stalled(self, stale_s):
        return time.monotonic() - self.last_frame_t > stale_s or \
            any(self.paired.stalled(k, stale_s) for k in range(len(self.rig.views)))

    def stop(self):
        self._stop = True
        self.thread.join(2.0)
        self.judge_thread.join(2.0)
        self.encoder.join(2.0)
        self.paired.close()


def encode_evidence(picture, verdict):
    """[(JPEG, meta)]: the picture (meta: its verdict), then its copy annotated with the verdict."""
    out = []
    ok, jpg = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if ok:
        out.append((jpg.tobytes(), verdict))
    if ok and verdict is not None:
        ok, jpg = cv2.imencode(".jpg", annotate(picture, verdict), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if ok:
            out.append((jpg.tobytes(), dict(verdict, annotated=True)))
    return out


def moment_picture(frames, verdict, rig, smalls=None):
    """The evidence kept for a judged moment: every camera's frame scaled to EVIDENCE_HEIGHT,
    side by side (the whole ring), and below it each coin the verdict found, at its camera's
    full resolution, labelled as judged (face, confidence, flat, inside): what a person
    checks in a dispute, at a fraction of the full frames' size (a small record is a quick
    record, and the result waits for its record)."""
    over = _side_by_side(frames, rig, smalls)
    names = [v.name for v in rig.views]
    tiles = []
    for c in (verdict or {}).get("coins") or []:
        k = names.index(c["camera"]) if c.get("camera") in names else None
        if k is None or frames[k] is None or c.get("center_mm") is None:
            continue
        f = frames[k]
        u, v = (int(round(x)) for x in rig.views[k].to_px([c["center_mm"]])[0])
        half = max(8, int(round(CLOSEUP_COINS * c.get("diameter_px", 40) / 2)))
        crop = f[max(0, v - half):max(0, v + half), max(0, u - half):max(0, u + half)]
        tile = np.zeros((2 * half + LABEL_PX, 2 * half, 3), np.uint8)
        if crop.size:
            y0, x0 = max(0, half - v), max(0, half - u)
            tile[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]] = crop
        cv2.putText(tile, coin_label(c), (2, 2 * half + LABEL_PX - 7), cv2.FONT_HERSHEY_SIMPLEX,
                    min(0.45, 2 * half / 330), coin_colour(c), 1, cv2.LINE_AA)
        tiles.append(tile)
    if not tiles:
        return over
    h = max(t.shape[0] for t in tiles)
    strip = np.hstack([cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, 4, cv2.BORDER_CONSTANT) for t in tiles])
    W = over.shape[1]
    if strip.shape[1] > W:
        strip = cv2.resize(strip, (W, max(1, int(strip.shape[0] * W / strip.shape[1]))), interpolation=cv2.INTER_AREA)
    strip = cv2.copyMakeBorder(strip, 0, 0, 0, W - strip.shape[1], cv2.BORDER_CONSTANT)
    return np.vstack([over, strip])


def _side_by_side(frames, rig=None, smalls=None):
    parts = []
    for k, f in enumerate(frames):
        if f is None:
            parts.append(np.zeros((EVIDENCE_HEIGHT, EVIDENCE_HEIGHT // 2, 3), np.uint8))
            continue
        if rig is not None and rig.views[k].ring.small_size[1] >= EVIDENCE_HEIGHT:
            # the copy the stillness rule made: cheaper
            f = smalls[k] if smalls is not None else rig.views[k].ring.small(f)
        s = EVIDENCE_HEIGHT / f.shape[0]
        parts.append(cv2.resize(f, (max(1, int(f.shape[1] * s)), EVIDENCE_HEIGHT), interpolation=cv2.INTER_AREA))
    return parts[0] if len(parts) == 1 else np.hstack(parts)


def evidence(frames):
    """One picture of a moment for the screens: every camera's frame scaled to one height,
    side by side (one camera: its frame as it is)."""
    if frames is None:
        return None
    if len(frames) == 1:
        return frames[0]
    return _side_by_side(frames)
