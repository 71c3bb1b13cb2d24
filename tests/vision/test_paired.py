"""Several cameras read in parallel and paired by timestamp (vision/paired.py)."""
import time

import numpy as np

from ringctl.vision.paired import PairedSources
from ringctl.vision.sources import CallableSource


def _camera(fps, label, delay=0.0, stall_after=None):
    """A live camera at `fps` whose frames carry (label, frame number) in pixel (0, 0)."""
    state = {"n": 0, "t0": time.monotonic() + delay}

    def read():
        n = state["n"]
        if stall_after is not None and n >= stall_after:
            time.sleep(1 / fps)
            return None
        time.sleep(max(0.0, state["t0"] + n / fps - time.monotonic()))
        state["n"] += 1
        f = np.zeros((4, 4, 3), np.uint8)
        f[0, 0] = (label, n % 256, 0)
        return f
    src = CallableSource(read, fps=fps)
    src.realtime = True
    return src


def test_moments_pair_one_frame_per_camera_within_half_a_frame_period():
    a, b = _camera(25, 1), _camera(25, 2, delay=0.01)        # free-running, 10 ms apart
    with PairedSources([a, b]) as ps:
        got = [ps.read(timeout=1.0) for _ in range(15)]
    times = [t for _, t in got]
    assert all(t2 > t1 for t1, t2 in zip(times, times[1:]))   # each moment is a new one
    for frames, _ in got:
        assert frames[0][0, 0, 0] == 1 and frames[1][0, 0, 0] == 2
        # frames of one moment were taken together: frame numbers at most one apart
        assert abs(int(frames[0][0, 0, 1]) - int(frames[1][0, 0, 1])) <= 1


def test_a_stalled_camera_gives_none_in_its_place_and_is_reported():
    a, b = _camera(50, 1), _camera(50, 2, stall_after=5)
    with PairedSources([a, b], stale_s=0.2) as ps:
        deadline = time.monotonic() + 2.0
        frames = None
        while time.monotonic() < deadline:
            frames, _ = ps.read(timeout=0.5)
            if frames is not None and frames[1] is None:
                break
        assert frames is not None and frames[0] is not None and frames[1] is None
        assert ps.stalled(1) and not ps.stalled(0)


def test_each_frame_is_prepared_on_its_own_cameras_thread_and_handed_over_with_it():
    import threading
    seen = []

    def prepare(k, frame):
        seen.append((k, threading.current_thread().name))
        return (k, int(frame[0, 0, 1]))
    a, b = _camera(25, 1), _camera(25, 2, delay=0.01)
    with PairedSources([a, b], prepare=prepare) as ps:
        got = [ps.read_prepared(timeout=1.0) for _ in range(6)]
    for frames, _, made in got:
        assert made == [(k, int(f[0, 0, 1])) for k, f in enumerate(frames)]   # its own frame's
    assert {(k, name) for k, name in seen} == {(0, "camera-0"), (1, "camera-1")}
