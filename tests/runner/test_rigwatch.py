"""RigWatcher live: two simulated cameras read in parallel, paired, the stillness rule, the judge."""
import time

import cv2
import numpy as np

from ringctl.runner.rigwatch import RigWatcher
from ringctl.sim.camera import CameraSource
from ringctl.sim.physics import simulate_toss


def test_two_cameras_live_give_agreeing_verdicts_soon_after_true_rest(site2):
    toss = simulate_toss(503, ring=site2.ring)
    cams = [CameraSource(None, ring=site2.ring, cam=c, fps=25.0, seed=[1, k]) for k, c in enumerate(site2.cams)]
    for c in cams:
        c.frame_at(0.0)                      # the renderer's one-off empty-ring drawing
    w = RigWatcher(cams, site2.rig, site2.model, keep=3)
    try:
        t0 = time.monotonic() - toss.truth["first_impact_t"] + 0.3      # skip most of the flight
        for c in cams:
            c.play(toss, t0)
        w.reset()
        rest = t0 + toss.truth["rest_t"]
        got, t_got = [], None
        while time.monotonic() < rest + 3.0:
            got = w.judged(3)
            if len(got) == 3:
                t_got = time.monotonic()
                break
            time.sleep(0.005)
        assert t_got is not None, "no still moment judged"
        assert t_got >= rest, "verdicts before the coins' true rest"
        results = {v["result"] for _, v in got}
        assert results == {toss.truth["outcome_at_rest"]}, [v["reasons"] for _, v in got]
        frame, verdict = got[-1]
        # coins lying still: the screens' view keeps moving on with the camera, coins kept
        time.sleep(0.6)
        _, t1, coins1 = w.view()
        time.sleep(0.3)
        _, t2, coins2 = w.view()
        assert t2 > t1 and coins2 and len(coins2) == len(coins1)
        # the evidence: both views side by side, each coin below at full resolution, labelled
        assert len(verdict["views"]) == 2
        d = max(c["diameter_px"] for c in verdict["coins"])
        assert frame.shape[0] >= 720 + 3 * d and frame.shape[1] > 720
        jpegs = w.evidence_jpegs(frame, verdict)         # encoded ahead: the record waits for none
        assert jpegs and jpegs[0][1] is verdict and jpegs[1][1]["annotated"]
        assert cv2.imdecode(np.frombuffer(jpegs[0][0], np.uint8), cv2.IMREAD_COLOR).shape == frame.shape
        assert not w.stalled(1.0)
        cams[1].stall()
        time.sleep(1.3)
        assert w.stalled(1.0)                # one camera silent: the rig is stalled (fault light)
    finally:
        w.stop()


def test_a_judgement_of_a_still_period_that_has_ended_is_never_kept(monkeypatch, site2):
    """The judge runs on its own thread: coins still for a few frames (B), judged slowly, then
    moved (C) and still again (D): no verdict of B may join D's, however late it comes."""
    import threading
    import ringctl.runner.rigwatch as rigwatch

    class Scripted:                       # the stillness rule read off each frame's mark
        def __init__(self, ring):
            self.since = None

        def reset(self):
            self.since = None

        def update(self, frame, t, small=None):
            if frame[0, 0, 0] in (ord("A"), ord("C")):
                self.since = None
                return {"still_s": 0.0, "moving": True}
            self.since = t if self.since is None else self.since
            return {"still_s": t - self.since, "moving": False}

    judged = []

    def slow_judge(frames, rig, model):
        time.sleep(0.2)
        mark = chr(frames[0][0, 0, 0])
        judged.append(mark)
        return {"result": "heads" if mark == "D" else "tails", "reasons": [], "coins": [],
                "views": [None] * len(frames)}

    monkeypatch.setattr(rigwatch, "StillnessWatch", Scripted)
    monkeypatch.setattr(rigwatch, "judge_views", slow_judge)
    script = "AAABBBCCC" + "D" * 200
    frames = {m: np.full((32, 32, 3), ord(m), np.uint8) for m in "ABCD"}

    class Cam:
        fps = 25.0

        def __init__(self):
            self.k = 0
            self.go = threading.Event()

        def read(self):
            self.go.wait()
            time.sleep(0.04)
            self.k += 1
            return frames[script[min(self.k, len(script) - 1)]], time.monotonic()

        def close(self):
            pass

    cams = [Cam() for _ in site2.rig.views]
    w = RigWatcher(cams, site2.rig, None, keep=3)
    try:
        for c in cams:
            c.go.set()
        got = w.wait_judged(3, 10.0)
        assert len(got) == 3 and {v["result"] for _, v in got} == {"heads"}
        with w.lock:
            assert {v["result"] for _, _, v in w.recent} == {"heads"}
    finally:
        w.stop()
