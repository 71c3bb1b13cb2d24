"""One camera is a rig of one: the host's one watcher (RigWatcher.one_camera) makes the same calls
as the single-camera judge (vision.classify on the whole frame, what `ring run --camera X` used
before the watchers were folded into one) on the same frames."""
import threading
import time

import numpy as np
import pytest

from ringctl.runner.rigwatch import RigWatcher, rig_of_one
from ringctl.sim.camera import scene_spec
from ringctl.sim.physics import quat_about, quat_mul
from ringctl.sim.render import render_scene
from ringctl.sim.restbench import Site
from ringctl.vision import classify
from ringctl.vision.views import judge_views


@pytest.fixture(scope="module")
def site1():
    """A one-camera site (1.2 m ring, 44 px coins), calibrated with the sheet and trained."""
    return Site(ring_mm=1200.0, cameras=1, coin_px=44.0, seed=11)


def _pose(face, yaw, tilt_deg=0.0):
    q = quat_about((0, 0, 1), yaw)
    if face == "tails":
        q = quat_mul(q, quat_about((1, 0, 0), np.pi))
    if tilt_deg:
        q = quat_mul(quat_about((1, 0, 0), np.radians(tilt_deg)), q)
    return q


def _frame(site, coins, seed):
    """The camera's frame of coins [(x_m, y_m, z_m or None: lying on the layout, face, tilt)]."""
    t = site.coin.thickness_m
    pos = np.array([[x, y, t / 2 if z is None else z] for x, y, z, _, _ in coins]).reshape(-1, 3)
    quat = np.array([_pose(f, 0.7 * k, tilt) for k, (_, _, _, f, tilt) in enumerate(coins)]).reshape(-1, 4)
    return render_scene(scene_spec(site.cams[0], pos, quat, site.coin, noise=2.0),
                        np.random.default_rng(seed))[0]


SCENES = {   # what the frame shows: the calls range over every kind the judge makes
    "heads": [(0.1, 0.1, None, "heads", 0), (-0.2, 0.05, None, "heads", 0)],
    "tails": [(0.0, -0.2, None, "tails", 0), (0.25, 0.2, None, "tails", 0)],
    "odds": [(-0.1, -0.3, None, "heads", 0), (0.3, -0.1, None, "tails", 0)],
    "one coin outside": [(0.1, 0.0, None, "heads", 0), (0.63, 0.0, None, "tails", 0)],
    "one coin on edge": [(0.1, 0.0, None, "heads", 0), (-0.2, 0.1, 0.0154, "tails", 88)],
    "one on the other": [(0.0, 0.0, None, "heads", 0), (0.012, 0.004, 0.0035, "tails", 6)],
    "one coin": [(0.2, -0.1, None, "tails", 0)],
    "three coins": [(0.2, -0.1, None, "tails", 0), (-0.2, 0.1, None, "heads", 0),
                    (0.0, 0.3, None, "heads", 0)],
}


@pytest.fixture(scope="module")
def frames(site1):
    return {name: _frame(site1, coins, k) for k, (name, coins) in enumerate(SCENES.items())}


def _seen(verdict):
    return sorted((str(c["face"]), c["flat"], c["inside"]) for c in verdict["coins"])


def test_a_rig_of_one_maps_the_ring_calibration_to_ring_mm(site1):
    ring = site1.rig.views[0].ring
    view = rig_of_one(ring).views[0]
    assert np.allclose(view.to_mm([ring.center])[0], [0, 0], atol=1e-6)
    # the ring's ellipse is the ring's known diameter; +y is up
    a = np.radians(ring.angle_deg)
    edge = np.array(ring.center) + ring.axes[0] * np.array([np.cos(a), np.sin(a)])
    assert np.hypot(*view.to_mm([edge])[0]) == pytest.approx(ring.ring_mm / 2, rel=1e-6)
    assert view.to_mm([[ring.center[0], ring.center[1] - 100]])[0][1] > 0
    assert view.to_px(view.to_mm([[123.0, 456.0]]))[0] == pytest.approx([123.0, 456.0])


def test_a_rig_of_one_makes_the_single_camera_calls_on_the_same_frames(site1, frames):
    ring = site1.rig.views[0].ring
    rig = rig_of_one(ring)
    calls = {}
    for name, frame in frames.items():
        old = classify(frame, ring, site1.model)
        new = judge_views([frame], rig, site1.model)
        assert new["result"] == old["result"], (name, old["reasons"], new["reasons"])
        assert _seen(new) == _seen(old), name
        calls[name] = new["result"]
    # the scenes do exercise every kind of call (a test that cannot fail proves nothing)
    assert {"heads", "tails", "odds", "no-spin", "unsure"} <= set(calls.values()), calls


class Replay:
    """A live camera showing a list of frames in turn at `fps`, then the last one forever."""

    def __init__(self, frames, fps=25.0):
        self.frames, self.fps, self.k = frames, fps, 0
        self.started = threading.Event()

    def read(self):
        time.sleep(1 / self.fps)
        self.started.wait()
        f = self.frames[min(self.k, len(self.frames) - 1)]
        self.k += 1
        return f, time.monotonic()

    def close(self):
        pass


def test_the_one_camera_watcher_decides_as_the_single_camera_judge(site1, frames):
    """Live: frames that change (coins moving), then one scene lying still. The watcher's
    stillness rule confirms the still period; each judged moment's call is the single-camera
    judge's on that very frame."""
    ring = site1.rig.views[0].ring
    rng = np.random.default_rng(4)
    still = frames["odds"]
    moving = [frames[k] for k in ("heads", "tails", "one coin")]
    noisy = [np.clip(still.astype(np.int16) + rng.integers(-2, 3, still.shape), 0, 255).astype(np.uint8)
             for _ in range(12)]
    cam = Replay(moving + noisy)
    w = RigWatcher.one_camera(cam, ring, site1.model, keep=3, stale_s=5.0)
    try:
        cam.started.set()
        got = w.wait_judged(3, 15.0)
        assert len(got) == 3, "no still period confirmed"
        with w.lock:
            judged = [(f[0], v) for t, f, v in w.recent if t >= w.still_since - 1e-6]
        assert len(judged) >= 3
        for frame, verdict in judged:
            assert any(frame is f for f in noisy), "a changing frame was judged as still"
            assert verdict["result"] == classify(frame, ring, site1.model)["result"] == "odds"
        # the evidence kept for the record: the picture, then its annotated copy
        pic, verdict = got[-1]
        jpegs = w.evidence_jpegs(pic, verdict)
        assert [m is verdict for _, m in jpegs] == [True, False] and jpegs[1][1]["annotated"]
    finally:
        w.stop()
