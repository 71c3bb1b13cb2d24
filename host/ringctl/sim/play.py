"""A simulated ring for `ring demo`: each spin's physics, played live to the board and the camera.

    ring = SimRing(sensor_socket=path, camera={"coin_px": 40, "fps": 15})
        # (or sensor_socket=simboard.send_sensor: any callable taking one SIM.md line)
    host_camera = ring.camera            # a frame source: read() -> (frame, t_s)
    SimRing(..., cams=camera_rig(ring, 2)).cameras   # one source per view (sim/cameras.py)
    ring.mat(True)                       # spinner steps in (7.3.3)
    toss = ring.spin(seed)               # simulates (~0.2 s), draws the frames ahead, plays from toss.t0
    ... toss.truth["outcome"], toss.t0 + toss.truth["rest_t"] = monotonic time of true rest
    ring.clear()                         # boxer picks the coins up: empty ring on camera
"""
import time

import numpy as np

from .camera import CameraSource
from .geometry import RingGeometry
from .physics import simulate_toss
from .sensors import SensorFeeder, still_broken


class SimRing:
    """Physics per spin + a live CameraSource + a SensorFeeder to the board's sensor socket."""

    def __init__(self, ring=None, sensor_socket=None, camera=None, lead_s=0.2, seed=0, cams=None):
        self.ring = ring or RingGeometry()
        kw = {"fps": 15.0, "noise": 2.0}
        kw.update(camera or {})
        if cams:                 # several views of the same physics
            kw.pop("coin_px", None)
            self.cameras = [CameraSource(None, ring=self.ring, realtime=True, seed=[seed, k], cam=c, **kw)
                            for k, c in enumerate(cams)]
        else:
            self.cameras = [CameraSource(None, ring=self.ring, realtime=True, seed=seed, **kw)]
        self.camera = self.cameras[0]
        for cam in self.cameras[1:]:
            cam.share_clock(self.camera)      # one trigger: the rig's frames are taken together
        self._phase_rng = np.random.default_rng([seed, 31])
        self._prepared = None
        self.feeder = SensorFeeder(sensor_socket) if sensor_socket is not None else None
        self.lead_s = lead_s
        self.toss = None

    def mat(self, on):
        """Spinner on / off the mat now (7.3.3)."""
        if self.feeder:
            self.feeder.send((0.0, "mat", 0, 1 if on else 0))

    def spin(self, seed, force=None, force_angle_deg=None, t0=None, **kw):
        """Simulate a toss (~0.1-0.5 s of CPU), then play() it. Returns the Toss, `.t0` set."""
        toss = simulate_toss(seed, ring=self.ring, force=force, force_angle_deg=force_angle_deg, **kw)
        return self.play(toss, t0)

    def play(self, toss, t0=None):
        """Play a simulated toss live: sensors to the board, frames to the camera.

        t0 = time.monotonic() of the release; default: the cameras first draw the toss's frames
        ahead (CameraSource.prepare: off the real-time path, as a real camera costs the host
        nothing), then the release comes lead_s later, at a random phase of the cameras' frame
        clock. Events already due (the mat at -1 s, or everything before now if t0 is in the
        past) go out at once. `wait()` blocks until every event is sent.
        """
        if self.feeder:
            self.feeder.stop()
        if t0 is None:
            if self._prepared is None or self._prepared[0] is not toss:
                self.prepare(toss)
            t0 = self.camera.next_frame_at(time.monotonic() + self.lead_s) - self._prepared[1]
        toss.t0 = t0
        for cam in self.cameras:
            cam.play(toss, toss.t0)
        if self.feeder:
            self.feeder.start(toss.sensor_timeline, toss.t0)
        self.toss = toss
        return toss

    def prepare(self, toss):
        """Draw the toss's frames ahead in every camera (before the spin is armed, say), at a
        random phase of the cameras' frame clock; play(toss) then releases it on that phase."""
        phase = float(self._phase_rng.uniform(0, 1 / self.camera.fps))
        for cam in self.cameras:
            cam.prepare(toss, phase, lead_s=self.lead_s + 0.1)
        self._prepared = (toss, phase)

    def wait(self, timeout=None):
        if self.feeder:
            self.feeder.wait(timeout)

    def clear(self):
        """The coins are picked up: the camera shows the empty ring and a coin that lay on
        the boundary no longer blocks its beam."""
        for cam in self.cameras:
            cam.play(None)
        if self.feeder and self.toss is not None:
            self.feeder.stop()
            for s in still_broken(self.toss.sensor_timeline):
                self.feeder.send_line(f"beam {s} 0")

    def close(self):
        if self.feeder:
            self.feeder.close()
        for cam in self.cameras:
            cam.close()
