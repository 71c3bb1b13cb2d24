"""RigWatcher: all cameras of the ring read in parallel, the stillness rule, every still moment judged.

The host's view of the coins for one or several cameras (a `vision.viewcal.Rig`): frames are
paired by timestamp into moments (`vision.paired.PairedSources`), every camera's stillness
rule runs on every frame (`vision.rest`), and every moment in which nothing moves is judged at
once by the multi-view judge (`vision.views.judge_views`), so the verdicts are ready the
instant the rule's still window closes: the result follows the coins' rest by that window plus
one frame. Same interface as the single-camera watcher (reset, judged, latest, stalled, stop).
"""
import threading
import time

import cv2
import numpy as np

from ..vision.paired import PairedSources
from ..vision.rest import StillnessWatch, window_for
from ..vision.views import judge_views

EVIDENCE_HEIGHT = 720     # px: the views side by side, as kept in the audit log
JUDGED_PER_STILL = 2      # x keep: moments judged per still period


class RigWatcher:
    def __init__(self, sources, rig, face_model, keep=3, stale_s=1.0):
        self.rig = rig
        self.face_model = face_model
        self.keep = keep
        self.paired = sources if isinstance(sources, PairedSources) else PairedSources(sources, stale_s=stale_s)
        self.watches = [StillnessWatch(v.ring) for v in rig.views]
        self.lock = threading.Lock()
        self.recent = []            # (host time, frames, verdict) while nothing moves
        self.still_since = None
        self.last_frame_t = time.monotonic()
        self.last_frames = None
        self.frames = 0
        self.errors = 0
        self.judge_ms = []
        self._last_view = (None, None, None)   # (frames, t, verdict or None while moving)
        self._pictures = {}                    # moment's host time -> evidence picture
        self._stop = False
        self.thread = threading.Thread(target=self._run, name="rig-watch", daemon=True)
        self.thread.start()

    def reset(self):
        with self.lock:
            self.recent = []
            self.still_since = None

    def _run(self):
        while not self._stop:
            frames, t = self.paired.read(timeout=0.2)
            if frames is None:
                continue
            self.last_frame_t = time.monotonic()
            self.frames += 1
            self.last_frames = frames
            if any(f is None for f in frames):
                with self.lock:          # a camera missing: no still moment can be complete
                    self.recent, self.still_since = [], None
                for w in self.watches:
                    w.reset()
                continue
            states = [w.update(f, t) for w, f in zip(self.watches, frames)]
            if any(s["moving"] for s in states):
                with self.lock:
                    self.recent, self.still_since = [], None
                    self._last_view = (frames, t, None)
                continue
            still_s = min(s["still_s"] for s in states)
            with self.lock:
                # enough moments of this still period judged already: the frames have not
                # changed since, so the window's close is published before judging another
                if len(self.recent) >= self.keep and still_s >= window_for(self.recent[-1][2]):
                    self.still_since = t - still_s
            if len(self.recent) < JUDGED_PER_STILL * self.keep:
                # the first moments of a still period are judged as they come (coins lying
                # still for minutes need no more verdicts)
                c0 = time.perf_counter()
                verdict = judge_views(frames, self.rig, self.face_model)
                self.judge_ms.append((time.perf_counter() - c0) * 1000)
                del self.judge_ms[:-200]
                with self.lock:
                    self.recent.append((t, frames, verdict))
                    self._last_view = (frames, t, verdict)
            else:
                with self.lock:     # still coins: the last verdict holds; screens stay live
                    self._last_view = (frames, t, self.recent[-1][2])
            verdict = self.recent[-1][2]
            with self.lock:
                self.still_since = t - still_s if still_s >= window_for(verdict) else None

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
        with self.lock:
            if self.still_since is None:
                return []
            got = [(t, f, v) for (t, f, v) in self.recent if t >= self.still_since - 1e-6][-n:]
        return [(self._evidence(t, f), v) for t, f, v in got]

    def _evidence(self, t, frames):
        """The moment's evidence picture, made once (the host asks again while it waits)."""
        hit = self._pictures.get(t)
        if hit is None:
            hit = evidence(frames)
            self._pictures = {k: p for k, p in self._pictures.items() if k > t - 5.0}
            self._pictures[t] = hit
        return hit

    def latest(self):
        return [evidence(self.last_frames)] if self.last_frames is not None else []

    def stalled(self, stale_s):
        return time.monotonic() - self.last_frame_t > stale_s or \
            any(self.paired.stalled(k, stale_s) for k in range(len(self.rig.views)))

    def stop(self):
        self._stop = True
        self.thread.join(2.0)
        self.paired.close()


def evidence(frames):
    """One picture of a moment: every camera's frame scaled to one height, side by side."""
    if frames is None:
        return None
    if len(frames) == 1:
        return frames[0]
    parts = []
    for f in frames:
        if f is None:
            parts.append(np.zeros((EVIDENCE_HEIGHT, EVIDENCE_HEIGHT // 2, 3), np.uint8))
            continue
        s = EVIDENCE_HEIGHT / f.shape[0]
        parts.append(cv2.resize(f, (max(1, int(f.shape[1] * s)), EVIDENCE_HEIGHT), interpolation=cv2.INTER_AREA))
    return parts[0] if len(parts) == 1 else np.hstack(parts)
