"""A simulated ring for `ring demo`: each spin's physics, played live to the board and the camera.

    ring = SimRing(sensor_socket=path, camera={"coin_px": 40, "fps": 15})
        # (or sensor_socket=simboard.send_sensor: any callable taking one SIM.md line)
    host_camera = ring.camera            # a frame source: read() -> (frame, t_s)
    ring.mat(True)                       # spinner steps in (7.3.3)
    toss = ring.spin(seed)               # simulates (~0.2 s), then plays from toss.t0
    ... toss.truth["outcome"], toss.t0 + toss.truth["rest_t"] = monotonic time of true rest
    ring.clear()                         # boxer picks the coins up: empty ring on camera
"""
import time

from .camera import CameraSource
from .geometry import RingGeometry
from .physics import simulate_toss
from .sensors import SensorFeeder, still_broken


class SimRing:
    """Physics per spin + a live CameraSource + a SensorFeeder to the board's sensor socket."""

    def __init__(self, ring=None, sensor_socket=None, camera=None, lead_s=0.2, seed=0):
        self.ring = ring or RingGeometry()
        kw = {"fps": 15.0, "noise": 2.0}
        kw.update(camera or {})
        self.camera = CameraSource(None, ring=self.ring, realtime=True, seed=seed, **kw)
        self.feeder = SensorFeeder(sensor_socket) if sensor_socket is not None else None
        self.lead_s = lead_s
        self.toss = None

    def mat(self, on):
        """Spinner on / off the mat now (7.3.3)."""
        if self.feeder:
            self.feeder.send((0.0, "mat", 0, 1 if on else 0))

    def spin(self, seed, force=None, force_angle_deg=None, t0=None, **kw):
        """Simulate a toss, then play it: sensors to the board and frames to the camera.

        t0 (time.monotonic() of the release) defaults to now + lead_s once the physics is
        done. Returns the Toss with `.t0` set; `wait()` blocks until every event is sent.
        """
        if self.feeder:
            self.feeder.stop()
        toss = simulate_toss(seed, ring=self.ring, force=force, force_angle_deg=force_angle_deg, **kw)
        toss.t0 = time.monotonic() + self.lead_s if t0 is None else t0
        self.camera.play(toss, toss.t0)
        if self.feeder:
            # events before the release (the mat at -1 s) go out at once
            self.feeder.start(toss.sensor_timeline, toss.t0)
        self.toss = toss
        return toss

    def wait(self, timeout=None):
        if self.feeder:
            self.feeder.wait(timeout)

    def clear(self):
        """The coins are picked up: the camera shows the empty ring and a coin that lay on
        the boundary no longer blocks its beam."""
        self.camera.play(None)
        if self.feeder and self.toss is not None:
            self.feeder.stop()
            for s in still_broken(self.toss.sensor_timeline):
                self.feeder.send_line(f"beam {s} 0")

    def close(self):
        if self.feeder:
            self.feeder.close()
        self.camera.close()
