"""RingHost with a fake link and camera: record-before-ack, board restart, camera stall, a clean spin."""
import queue
import time

import numpy as np
import pytest

from ringctl.fw import ringmsg as rm
from ringctl.game.engine import Engine
from ringctl.event import Event
from ringctl.record.log import AuditLog
from ringctl.runner.host import RingHost


class FakeLink:
    def __init__(self, log):
        self.q = queue.Queue()
        self.log = log
        self.acked = []
        self.cmds = []
        self.acked_unrecorded = 0
        self.next_id = 1
        self.alarms = 0

    def push(self, code, a=0, b=0, boot=0xB007, text=""):
        eid = self.next_id
        self.next_id += 1
        self.q.put(Event(boot, eid, code, int(time.monotonic() * 1e6), a, b, text, seq=eid))

    def get_event(self, timeout=None):
        try:
            return self.q.get(timeout=timeout or 0.0001)
        except queue.Empty:
            return None

    def ack(self, ev):
        if not self.log.has_event(ev.boot_id, ev.event_id):
            self.acked_unrecorded += 1
        self.acked.append(ev.event_id)

    def stats(self):
        return {"alarms": self.alarms}

    def send_cmd(self, code, text=""):
        self.cmds.append((code, text))
        return len(self.cmds)


class StillCamera:
    """Returns the same frame forever, or nothing at all (a stalled camera)."""

    def __init__(self, stalled=False):
        self.stalled = stalled

    def read(self):
        time.sleep(0.01)
        if self.stalled:
            return None, None
        return np.zeros((40, 40, 3), np.uint8), time.monotonic()


@pytest.fixture
def host(tmp_path, monkeypatch):
    import ringctl.vision.judge as judge
    import ringctl.vision.motion as motion

    class AlwaysStill:
        def __init__(self, ring, **kw):
            pass

        def update(self, frame, t):
            return {"still": True, "still_s": 1.0,
                    "coins": [{"center": [10, 10], "still_s": 1.0, "moving": False}] * 2}

    verdict = {"result": "heads", "reasons": ["both coins heads"], "ms": 1.0,
               "coins": [{"center": [10, 10], "radius": 5, "face": "heads", "flat": True,
                          "inside": True, "confidence": 0.9}] * 2}
    monkeypatch.setattr(motion, "MotionCheck", AlwaysStill)
    monkeypatch.setattr(judge, "classify", lambda img, ring, model: dict(verdict))
    log = AuditLog(str(tmp_path / "audit.db"))
    link = FakeLink(log)
    h = RingHost(link, log, Engine(), camera=StillCamera(), ring_model=object(),
                 face_model=object(), still_timeout_s=1.0, camera_stale_s=0.3, say=lambda s: None)
    for op in ({"op": "spinner", "calls": "heads"}, {"op": "bets-open"},
               {"op": "bet", "id": "s1", "on": "spinner", "amount": 10}, {"op": "bets-closed"}):
        h.apply(op)
    yield h
    h.close()
    log.close()


def land_and_rest(link):
    link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED)
    link.push(rm.EV_IMPACT, 0, 20000)
    link.push(rm.EV_PHASE, rm.PH_LANDED, rm.PH_IN_FLIGHT)
    link.push(rm.EV_REST, 1000, 300)
    link.push(rm.EV_PHASE, rm.PH_AT_REST, rm.PH_LANDED)


def test_every_event_is_recorded_before_it_is_acknowledged(host):
    host.arm()
    land_and_rest(host.link)
    host.wait_rest(2.0)
    assert host.link.acked == [1, 2, 3, 4, 5]
    assert host.link.acked_unrecorded == 0


def test_clean_spin_is_called_from_the_camera_and_sets_the_light(host):
    host.arm()
    assert (rm.CMD_ARM, "") in host.link.cmds
    land_and_rest(host.link)
    assert host.wait_rest(2.0)
    out = host.adjudicate()
    assert out.result == "heads"
    assert (rm.CMD_LIGHT, str(rm.LIGHT_HEADS)) in host.link.cmds


def test_board_restart_mid_spin_voids_the_spin(host):
    host.link.push(rm.EV_BOOT, rm.RESET_POWER_ON, 0, boot=1)
    host.pump(0.05)
    host.arm()
    host.link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED, boot=1)
    host.link.push(rm.EV_BOOT, rm.RESET_WATCHDOG, 0, boot=2)     # the board came back
    assert host.wait_rest(2.0)
    out = host.adjudicate()
    assert out.result == "no-spin"
    assert any("restarted" in r for r in out.reasons)


def test_stalled_camera_gives_fault_light_and_a_manual_call(host):
    host.camera = StillCamera(stalled=True)
    host.arm()
    land_and_rest(host.link)
    host.wait_rest(2.0)
    time.sleep(0.4)
    out = host.adjudicate()
    assert out.result == "unsure"
    assert (rm.CMD_LIGHT, str(rm.LIGHT_FAULT)) in host.link.cmds
    out = host.boxer_call("tails", "read by eye: both tails")
    assert out.result == "tails"
    assert (rm.CMD_LIGHT, str(rm.LIGHT_TAILS)) in host.link.cmds


def test_boundary_break_reported_by_the_board_makes_a_no_spin(host):
    host.arm()
    host.link.push(rm.EV_BEAM, 3, 4000)
    host.link.push(rm.EV_BARRED, rm.BAR_BEAM, 3)
    land_and_rest(host.link)
    host.wait_rest(2.0)
    out = host.adjudicate()
    assert out.result == "no-spin"
    assert any(r.startswith("7.3.1") for r in out.reasons)


def test_arm_is_refused_until_betting_is_closed_and_the_last_spin_is_settled(tmp_path):
    from ringctl.errors import UserError
    log = AuditLog(str(tmp_path / "a.db"))
    h = RingHost(FakeLink(log), log, Engine(), say=lambda s: None)
    with pytest.raises(UserError, match="4.2"):
        h.arm()
    h.apply({"op": "spinner", "calls": "tails"})
    h.apply({"op": "bets-open"})
    with pytest.raises(UserError, match="6.3"):
        h.arm()
    h.apply({"op": "bets-closed"})
    h.arm()
    with pytest.raises(UserError, match="not finished"):
        h.arm()
    assert [c for c in h.link.cmds if c[0] == rm.CMD_ARM] == [(rm.CMD_ARM, "")]
    log.close()


def test_new_security_alarms_are_recorded_in_the_audit_log(host):
    host.link.alarms = 2
    host.check_alarms()
    host.check_alarms()                     # nothing new: no second record
    host.link.alarms = 3
    host.check_alarms()
    recs = list(host.log.records(kind="security-alarm", with_blobs=False))
    assert [r.data["new"] for r in recs] == [2, 1]


def test_every_still_frame_that_decided_the_spin_is_kept(host):
    host.arm()
    land_and_rest(host.link)
    host.wait_rest(2.0)
    host.adjudicate()
    frames = list(host.log.records(kind="frame"))
    assert len(frames) == host.stills and all(r.blob[:2] == b"\xff\xd8" for r in frames)
    spin = list(host.log.records(kind="spin", with_blobs=False))[-1]
    assert spin.data["frames"] == [r.seq for r in frames]
