"""A 1080p camera stand-in for `ring bench console`: coins crossing the ring, pre-rendered once,
replayed at 25 fps through the frame-source interface, judged by a real RingHost's watcher."""
import time

import numpy as np

from ..vision.sources import Source
from .camera import CameraSource, PinholeCamera
from .geometry import CoinSpec, RingGeometry

HD = (1920, 1080)
# a ring small enough that, seen whole in 1080 rows, its coins are ~44 px across as vision
# needs (the demo's 1.5 m ring would put them at 20 px in this frame)
HD_RING_MM = 600.0


class LoopSource(Source):
    """Pre-rendered frames replayed in a loop in real time: read() paces to fps and hands the
    current frame (a slow reader skips frames, as with a live camera)."""

    def __init__(self, frames, fps=25.0):
        self.frames = frames
        self.fps = float(fps)
        self.size = (frames[0].shape[1], frames[0].shape[0])
        self._t0 = self._next = time.monotonic()

    def read(self):
        now = time.monotonic()
        if self._next > now:
            time.sleep(self._next - now)
            now = self._next
        self._next = max(self._next + 1 / self.fps, now)
        t = now - self._t0
        return self.frames[int(t * self.fps) % len(self.frames)], t


class _Sliding:
    """Two coins sliding and turning across the layout: always moving, so every frame is a new
    view for the screens (the view the boxer watches while a spin is in the air)."""

    def __init__(self, ring, coin, duration_s):
        self.ring, self.coin, self.duration_s = ring, coin, duration_s

    def pose_at(self, t):
        r = 0.55 * self.ring.layout_radius_m
        a = 2 * np.pi * t / self.duration_s
        pos = np.array([[r * np.cos(a), r * np.sin(a), 0.03], [-r * np.cos(a), 0.5 * r * np.sin(a), 0.05]])
        h = a * 3
        quat = np.array([[np.sin(h / 2), 0, 0, np.cos(h / 2)], [0, np.sin(h / 2), 0, np.cos(h / 2)]])
        return pos, quat


def hd_frames(n=50, fps=25.0, size=HD, seed=3):
    """n frames (BGR, size) of coins moving over a ring seen whole, one loop of n / fps s."""
    ring = RingGeometry(layout_radius_m=HD_RING_MM / 2000.0)
    cam = PinholeCamera(ring, size=size)
    src = CameraSource(_Sliding(ring, CoinSpec(), n / fps), cam=cam, fps=fps, realtime=False, seed=seed)
    return [src.frame_at(k / fps) for k in range(n)], ring, cam


def hd_ring_host(log_path, n=50, fps=25.0, size=HD, seed=3):
    """-> (RingHost watching a 1080p LoopSource through its RigWatcher, frames). The host has
    no board (link None): the screens only read its camera view and events."""
    from ..game.engine import Engine
    from ..record.log import AuditLog
    from ..runner.host import RingHost
    from ..runner.rigwatch import RigWatcher
    from .cameras import commission
    frames, ring, cam = hd_frames(n, fps, size, seed)
    rig, face_model = commission([cam], ring, CoinSpec(), np.random.default_rng(seed + 7))
    watcher = RigWatcher([LoopSource(frames, fps)], rig, face_model, stale_s=2.0)
    host = RingHost(None, AuditLog(log_path), Engine(), watcher=watcher)
    return host, rig
