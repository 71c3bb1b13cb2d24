"""Several cameras read in parallel, their frames paired by timestamp into moments of the ring.

`PairedSources(sources)` runs one reader thread per source (a slow camera never holds up the
others; OpenCV releases the GIL while it decodes) and stamps each frame with the host's
monotonic clock on arrival, the one clock every camera shares. `read()` returns the next
moment: one frame per camera, all taken within `tolerance_s` of each other (default half a
frame period), the newest such set. A camera that delivers nothing for `stale_s` gives None
in its place (the judge then says which camera and answers "unsure"). `prepare(k, frame)`, when
given, runs on camera k's own thread as each frame arrives (the cameras' work in parallel, off
the reader's path: the watcher's detection-scale copies); `read_prepared()` returns its results.
"""
import threading
import time

from ..errors import UserError


class PairedSources:
    def __init__(self, sources, tolerance_s=None, stale_s=1.0, keep=8, prepare=None):
        if not sources:
            raise UserError("no camera given: --camera SOURCE, once per camera of the rig")
        self.sources = list(sources)
        fps = [s.fps for s in self.sources if s.fps]
        self.fps = min(fps) if fps else None
        self.tolerance_s = tolerance_s if tolerance_s is not None else (0.5 / self.fps if self.fps else 0.02)
        self.stale_s = stale_s
        self.keep = keep
        self.prepare = prepare
        self._cond = threading.Condition()
        self._frames = [[] for _ in self.sources]      # per camera: [(t_host, frame, prepared)]
        self._last_t = None
        self._t0 = time.monotonic()
        self.errors = [0] * len(self.sources)
        self.ended = [False] * len(self.sources)
        self._stop = False
        self._threads = [threading.Thread(target=self._run, args=(k,), name=f"camera-{k}", daemon=True)
                         for k in range(len(self.sources))]
        for t in self._threads:
            t.start()

    @property
    def size(self):
        return [s.size for s in self.sources]

    def _run(self, k):
        src = self.sources[k]
        while not self._stop:
            try:
                frame, _ = src.read()
            except Exception:          # a camera that throws is a stalled camera
                self.errors[k] += 1
                frame = None
            if frame is None:
                if not getattr(src, "stalled", False) and getattr(src, "realtime", True) is False:
                    self.ended[k] = True
                    return
                time.sleep(0.005)
                continue
            now = time.monotonic()          # its arrival, before any work on it
            extra = self.prepare(k, frame) if self.prepare is not None else None
            with self._cond:
                buf = self._frames[k]
                buf.append((now, frame, extra))
                del buf[:-self.keep]
                self._cond.notify_all()

    def _moment(self):
        """The newest set with one frame per live camera within tolerance, newer than the last."""
        now = time.monotonic()
        live = [k for k, b in enumerate(self._frames) if now - (b[-1][0] if b else self._t0) < self.stale_s]
        if not live or any(not self._frames[k] for k in live):
            return None                # no camera, or one whose first frame is still coming
        # anchor on the camera whose newest frame is oldest: every other camera has a frame by then
        anchor = min(live, key=lambda k: self._frames[k][-1][0])
        t_a = self._frames[anchor][-1][0]
        if self._last_t is not None and t_a <= self._last_t:
            return None
        out, extras = [], []
        for k in range(len(self.sources)):
            if k not in live:
                out.append(None)
                extras.append(None)
                continue
            t, f, x = min(self._frames[k], key=lambda tf: abs(tf[0] - t_a))
            if abs(t - t_a) > self.tolerance_s:
                return None            # a dropped frame: this moment is not whole, wait for the next
            out.append(f)
            extras.append(x)
        self._last_t = t_a
        return out, t_a, extras

    def read(self, timeout=1.0):
        """-> ([frame or None per camera], t_host) of the next moment, or (None, None) when
        nothing new came within `timeout` s."""
        frames, t, _ = self.read_prepared(timeout)
        return frames, t

    def read_prepared(self, timeout=1.0):
        """read(), and each frame's `prepare` result (None without one): -> (frames, t_host,
        [prepared or None per camera]), or (None, None, None)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = self._moment()
                if m is not None:
                    return m
                left = deadline - time.monotonic()
                if left <= 0 or all(self.ended):
                    return None, None, None
                self._cond.wait(min(left, 0.01))

    def stalled(self, k, stale_s=None):
        b = self._frames[k]
        return not b or time.monotonic() - b[-1][0] > (stale_s or self.stale_s)

    def close(self):
        self._stop = True
        for t in self._threads:
            t.join(1.0)
        for s in self.sources:
            s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
